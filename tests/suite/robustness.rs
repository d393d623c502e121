//! The stdio transport under stress, end to end over real pipes: memory under
//! a slow reader and under notifications nobody reads, oversized and
//! malformed lines, shutdown while the client does not read, and a client
//! that vanishes.

use crate::common;

use common::{Peer, assert_valid, example_binary, initialize, status_kib};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// Spawns `everything` with piped stdin and stdout and `env` on top.
fn spawn(env: &[(&str, &str)]) -> Child {
    Command::new(example_binary("everything"))
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("everything starts")
}

/// Waits up to `limit` for `child` to exit.
fn wait_for_exit(child: &mut Child, limit: Duration) -> Option<(ExitStatus, Duration)> {
    let start = Instant::now();
    while start.elapsed() < limit {
        if let Some(status) = child.try_wait().expect("wait") {
            return Some((status, start.elapsed()));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    None
}

/// Sends SIGTERM without `libc`.
fn terminate(pid: u32) {
    let status = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
}

/// What a slow reader saw of one response line.
struct Seen {
    head: Vec<u8>,
    len: usize,
}

/// 6,000 `echo` calls of 100 KB each (600 MB of output) read by a client that
/// takes its output in small pieces with pauses, while another thread writes
/// requests as fast as the server takes them: the output queue never empties,
/// yet the server's peak RSS stays bounded, and every request is answered once.
///
/// Bound: 40 MiB for a debug build, where the queue is limited to 4 MiB of
/// unwritten output plus the frame being written; before the fix the peak
/// followed the total output (hundreds of MiB).
#[test]
fn a_slow_reader_keeps_the_servers_memory_bounded() {
    const CALLS: usize = 6_000;
    const TEXT: usize = 100_000;
    const PEAK_BOUND_KIB: u64 = 40 * 1024;
    let mut child = spawn(&[("RATE_LIMIT", "off")]);
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let writer = std::thread::spawn(move || {
        let mut out = std::io::BufWriter::with_capacity(256 * 1024, &mut stdin);
        writeln!(out, "{}", initialize(0, "2025-11-25")).unwrap();
        writeln!(
            out,
            "{}",
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
        )
        .unwrap();
        let text = "x".repeat(TEXT);
        for id in 1..=CALLS {
            writeln!(
                out,
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{text}"}}}}}}"#
            )
            .unwrap();
        }
        out.flush().unwrap();
        drop(out);
        stdin
    });
    let mut seen: Vec<Seen> = Vec::with_capacity(CALLS + 1);
    let mut current = Seen {
        head: Vec::new(),
        len: 0,
    };
    let mut chunk = vec![0u8; 16 * 1024];
    let mut reads = 0u64;
    let deadline = Instant::now() + Duration::from_secs(600);
    while seen.len() < CALLS + 1 {
        assert!(Instant::now() < deadline, "only {} responses", seen.len());
        let n = stdout.read(&mut chunk).expect("read stdout");
        assert!(n > 0, "stdout ended after {} responses", seen.len());
        for &byte in &chunk[..n] {
            if byte == b'\n' {
                seen.push(std::mem::replace(
                    &mut current,
                    Seen {
                        head: Vec::new(),
                        len: 0,
                    },
                ));
            } else {
                if current.head.len() < 64 {
                    current.head.push(byte);
                }
                current.len += 1;
            }
        }
        // A little slower than the server can write.
        reads += 1;
        if reads.is_multiple_of(2) {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    let peak = status_kib(pid, "VmHWM");
    let stdin = writer.join().unwrap();
    drop(stdin);
    let mut answered = vec![0u32; CALLS + 1];
    for line in &seen {
        let head = String::from_utf8_lossy(&line.head);
        let id: usize = head
            .strip_prefix(r#"{"jsonrpc":"2.0","id":"#)
            .and_then(|rest| rest.split(',').next())
            .and_then(|id| id.parse().ok())
            .unwrap_or_else(|| panic!("not a response: {head}"));
        assert!(
            id == 0 || (head.contains(r#""result":{"content""#) && line.len > TEXT),
            "call {id} did not echo: {head}… ({} bytes)",
            line.len
        );
        answered[id] += 1;
    }
    let wrong: Vec<(usize, u32)> = answered
        .iter()
        .copied()
        .enumerate()
        .filter(|&(_, n)| n != 1)
        .collect();
    assert!(wrong.is_empty(), "ids not answered exactly once: {wrong:?}");
    eprintln!("peak RSS (VmHWM) over {CALLS} x {TEXT} B echo: {peak} KiB");
    assert!(
        peak < PEAK_BOUND_KIB,
        "peak RSS {peak} KiB, bound {PEAK_BOUND_KIB} KiB"
    );
    let (status, _) = wait_for_exit(&mut child, Duration::from_secs(20)).expect("exits");
    assert!(status.success(), "{status}");
}

/// Validates an error response against the 2025-11-25 schema, and its error
/// object against the draft schema's definition for its code (`ParseError`,
/// `InvalidRequestError`, `InvalidParamsError`).
fn assert_error(response: &Value, code: i64, id: Option<Value>) {
    assert_valid("2025-11-25", "JSONRPCErrorResponse", response);
    let def = match code {
        -32700 => "ParseError",
        -32600 => "InvalidRequestError",
        -32602 => "InvalidParamsError",
        other => panic!("no definition for {other}"),
    };
    assert_valid("2026-07-28", def, &response["error"]);
    assert_eq!(response.get("id").cloned(), id, "{response}");
}

/// A request over the message limit, written the TypeScript SDK's way (`id`
/// last, after params that hold their own `"id"`), gets its refusal with its
/// id, so the client's request does not hang; the server goes on.
#[test]
fn an_oversized_request_is_refused_with_its_id() {
    let mut peer = Peer::legacy("2025-11-25");
    let text = "z".repeat(9 * 1024 * 1024);
    let line = format!(
        r#"{{"method":"tools/call","params":{{"name":"echo","arguments":{{"id":99,"text":"{text}"}},"_meta":{{"id":"meta"}}}},"jsonrpc":"2.0","id":"ts-\"1\""}}"#
    );
    peer.send_raw(&line);
    let refused = peer.recv();
    assert_error(&refused, -32600, Some(json!("ts-\"1\"")));
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("the message is {} bytes", line.len())),
        "{message}"
    );
    let pong = peer.request(json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}));
    assert_eq!(pong["result"], json!({}));
}

/// Malformed lines under the size cap get the error that says what is wrong
/// with them, each valid against the schema.
#[test]
fn malformed_lines_get_the_error_that_fits() {
    let mut peer = Peer::legacy("2025-11-25");
    let cases: [(&str, i64, Option<Value>, &str); 7] = [
        ("[", -32700, None, "Parse error: EOF while parsing a list"),
        (
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            -32700,
            None,
            "Parse error: EOF while parsing a list",
        ),
        (
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
            -32600,
            None,
            "Invalid Request: a JSON array (a JSON-RPC batch) is not accepted; MCP takes one JSON-RPC message, a JSON object, per line",
        ),
        (
            r#"{"jsonrpc":"2.0","id":2,"method":5,"#,
            -32700,
            None,
            "Parse error: EOF while parsing an object",
        ),
        (
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":["add",{"a":1,"b":2}]}"#,
            -32602,
            Some(json!(3)),
            "Invalid params: MCP params are a JSON object of named members, not an array",
        ),
        (
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/list","params":[]}"#,
            -32602,
            Some(json!(4)),
            "Invalid params: MCP params are a JSON object of named members, not an array",
        ),
        (
            r#"{"jsonrpc":"2.0","id":5,"method":"ping","params":"x"}"#,
            -32600,
            Some(json!(5)),
            "Invalid Request: \"params\" must be an object",
        ),
    ];
    for (line, code, id, message) in cases {
        peer.send_raw(line);
        let response = peer.recv();
        assert_error(&response, code, id);
        assert_eq!(response["error"]["message"], message, "for {line}");
    }
    // A notification is never answered, and positional params do not make
    // one act: this `notifications/cancelled` does not cancel call 6.
    peer.send(&common::call(6, "slow", json!({"ms": 200}), false));
    peer.send_raw(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":[6]}"#);
    let done = peer.recv();
    assert_eq!(done["id"], 6);
    assert_eq!(done["result"]["structuredContent"]["ms"], 200, "{done}");
}

/// `initialize` with positional params is refused like any other method.
#[test]
fn initialize_with_array_params_is_refused() {
    let mut peer = Peer::everything();
    peer.send_raw(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":["2025-06-18",{},{"name":"x","version":"1"}]}"#,
    );
    let response = peer.recv();
    assert_error(&response, -32602, Some(json!(1)));
    // The connection is still fresh: a proper handshake works.
    let init = peer.request(initialize(2, "2025-11-25"));
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
}

/// SIGTERM while the client reads nothing: the output backs up (the pipe
/// and the server's 4 MiB queue fill), yet the drain timeout bounds the
/// whole shutdown, writing included, and the server exits.
#[test]
fn sigterm_exits_within_the_drain_timeout_when_the_client_does_not_read() {
    let mut child = spawn(&[("RATE_LIMIT", "off"), ("DRAIN_TIMEOUT_MS", "500")]);
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    // Held, never read: the server's writes block once the pipe is full.
    let stdout = child.stdout.take().unwrap();
    let writer = std::thread::spawn(move || {
        let text = "q".repeat(100_000);
        let mut lines = vec![initialize(0, "2025-11-25").to_string()];
        lines.extend((1..=200).map(|id| {
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{text}"}}}}}}"#
            )
        }));
        for line in lines {
            // The server stops reading past its limit and exits later: a
            // failed write is expected.
            if writeln!(stdin, "{line}").is_err() {
                break;
            }
        }
        stdin
    });
    // 200 x 100 KB of output is far past what the pipe and the queue hold.
    std::thread::sleep(Duration::from_secs(2));
    assert!(child.try_wait().unwrap().is_none(), "exited early");
    terminate(pid);
    let exited = wait_for_exit(&mut child, Duration::from_secs(10));
    let (status, took) = exited.expect("still running 10 s after SIGTERM");
    eprintln!("exited {took:?} after SIGTERM: {status}");
    assert!(
        took < Duration::from_millis(2_500),
        "took {took:?}, drain timeout 500 ms"
    );
    assert!(status.success(), "{status}");
    drop(stdout);
    drop(writer.join().unwrap());
}

/// A client that goes away (both pipes closed) while a long call runs is a
/// normal end: the call is cancelled and the server exits 0 at once.
#[test]
fn a_vanished_client_ends_the_server_promptly_and_cleanly() {
    let mut child = spawn(&[]);
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    writeln!(stdin, "{}", initialize(0, "2025-11-25")).unwrap();
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert!(line.contains(r#""id":0"#), "{line}");
    writeln!(
        stdin,
        "{}",
        common::call(1, "slow", json!({"ms": 20_000}), false)
    )
    .unwrap();
    std::thread::sleep(Duration::from_millis(200));
    drop(stdin);
    drop(stdout);
    let exited = wait_for_exit(&mut child, Duration::from_secs(10));
    let (status, took) = exited.expect("still running 10 s after the client left");
    eprintln!("exited {took:?} after the client left: {status}");
    assert!(status.success(), "{status}");
    assert!(took < Duration::from_secs(2), "took {took:?}");
}

/// A call that sends 200 MB of log notifications (2,000 of 100 KB) while
/// the client reads nothing: the outbox drops notifications past its 4 MiB
/// bound and says so in a warning, the response still comes, and the server
/// answers the next request. Before the bound every notification was queued,
/// so the peak RSS followed the 200 MB; with it, the RSS stays near the
/// bound (BENCHMARKS.md, "Figures behind design choices").
#[test]
fn notifications_nobody_reads_are_dropped_past_the_output_bound() {
    const TIMES: usize = 2_000;
    const PEAK_BOUND_KIB: u64 = 48 << 10;
    let mut child = Command::new(example_binary("everything"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("everything starts");
    let pid = child.id();
    const WARNING: &str = "notifications (progress, log messages) were dropped";
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let (warning, warned) = std::sync::mpsc::channel();
    let stderr = std::thread::spawn(move || {
        let mut text = String::new();
        for line in stderr.lines().map_while(Result::ok) {
            if line.contains(WARNING) {
                let _ = warning.send(());
            }
            text.push_str(&line);
            text.push('\n');
        }
        text
    });
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    for message in [
        initialize(0, "2025-11-25"),
        json!({"jsonrpc": "2.0", "id": 1, "method": "logging/setLevel", "params": {"level": "info"}}),
    ] {
        writeln!(stdin, "{message}").unwrap();
        line.clear();
        stdout.read_line(&mut line).unwrap();
    }
    let text = "n".repeat(100_000);
    let noisy = common::call(
        2,
        "noisy",
        json!({"text": text, "to": "log", "times": TIMES}),
        false,
    );
    writeln!(stdin, "{noisy}").unwrap();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":3,"method":"ping"}}"#).unwrap();
    stdin.flush().unwrap();
    // Stdout unread until the call has queued its bound and dropped the
    // rest; generous deadlines: 200 MB are made on a loaded machine too.
    warned
        .recv_timeout(Duration::from_secs(300))
        .expect("no warning of dropped notifications within 300 s");
    let mut logs = 0;
    let mut result = None;
    let mut pong = false;
    let deadline = Instant::now() + Duration::from_secs(300);
    while result.is_none() || !pong {
        assert!(
            Instant::now() < deadline,
            "no answer to the call or the ping"
        );
        line.clear();
        assert!(stdout.read_line(&mut line).unwrap() > 0, "stdout ended");
        let message: Value = serde_json::from_str(&line).expect("a JSON frame");
        match message["id"].as_u64() {
            None => logs += 1,
            Some(2) => result = Some(message),
            Some(3) => pong = true,
            Some(other) => panic!("unexpected id {other}"),
        }
    }
    let peak = status_kib(pid, "VmHWM");
    let result = result.unwrap_or_default();
    assert_eq!(
        result["result"]["content"][0]["text"],
        format!("printed {} bytes", TIMES * 100_000)
    );
    drop(stdin);
    let (status, _) = wait_for_exit(&mut child, Duration::from_secs(20)).expect("exits");
    assert!(status.success(), "{status}");
    let stderr = stderr.join().unwrap();
    eprintln!("peak RSS (VmHWM) {peak} KiB; {logs} of {TIMES} log notifications delivered");
    assert!(logs < TIMES, "nothing was dropped");
    assert!(stderr.contains(WARNING), "no warning: {stderr}");
    assert!(
        peak < PEAK_BOUND_KIB,
        "peak RSS {peak} KiB, bound {PEAK_BOUND_KIB} KiB"
    );
}

/// A `progressToken` over 256 bytes is refused with `-32602` naming the
/// limit before the tool runs, in both eras and both spellings (string,
/// number); one at the limit is used. Every progress notification repeats
/// the token: before the limit, one `slow` call with a 4 MB token queued a
/// 4 MB notification per step, and the RSS grew without bound (BENCHMARKS.md);
/// now it is one error response.
#[test]
fn a_progress_token_over_the_limit_is_refused_before_the_tool_runs() {
    let huge = "t".repeat(4_000_000);
    let slow = json!({"ms": 2_000, "steps": 100});
    let expect_refused = |peer: &mut Peer, response: Value, len: usize| {
        assert_error(&response, -32602, Some(response["id"].clone()));
        assert_eq!(
            response["error"]["message"],
            format!(
                "Invalid params: params._meta.progressToken is {len} bytes; the limit is 256 bytes"
            )
        );
        // The tool did not run: nothing more comes for that id.
        peer.expect_nothing_before_a_marker();
    };
    let mut legacy = Peer::legacy("2025-11-25");
    let mut message = common::call(1, "slow", slow.clone(), false);
    message["params"]["_meta"] = json!({"progressToken": huge});
    let refused = legacy.request(message);
    expect_refused(&mut legacy, refused, huge.len());
    let peak = status_kib(legacy.pid(), "VmHWM");
    eprintln!("peak RSS (VmHWM) after a 4 MB progressToken: {peak} KiB");
    let digits = "7".repeat(300);
    legacy.send_raw(&format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"slow","arguments":{{"ms":10}},"_meta":{{"progressToken":{digits}}}}}}}"#
    ));
    let refused = legacy.recv();
    assert_eq!(refused["id"], 2);
    expect_refused(&mut legacy, refused, 300);
    // At the limit: the progress carries it.
    let at_limit = "a".repeat(256);
    let mut message = common::call(3, "slow", json!({"ms": 10}), false);
    message["params"]["_meta"] = json!({"progressToken": at_limit});
    legacy.send(&message);
    let progress = legacy.recv();
    assert_eq!(progress["method"], "notifications/progress", "{progress}");
    assert_eq!(progress["params"]["progressToken"], at_limit.as_str());
    assert_eq!(legacy.recv()["id"], 3);

    let mut modern = Peer::modern();
    let mut message = common::call(4, "slow", slow, true);
    message["params"]["_meta"]["progressToken"] = huge.clone().into();
    let refused = modern.request(message);
    expect_refused(&mut modern, refused, huge.len());
    assert!(
        peak < 64 << 10,
        "peak RSS {peak} KiB after one refused request"
    );
}
