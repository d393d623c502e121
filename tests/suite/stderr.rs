//! Stderr and logging over real pipes: a host that never reads stderr still
//! gets every answer, and the log filter, timestamps, startup and per-call
//! lines behave as documented.

use crate::common;

use common::{REPLY_TIMEOUT, call, example_binary, initialize, stdout_lines};
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

/// `everything` with stderr piped and left unread until [`Server::finish`].
struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Server {
    /// Spawns `everything` with exactly these logging variables (the test's
    /// own `RUST_LOG`, `MCP_LOG` and `RUST_BACKTRACE` are not passed on).
    fn spawn(env: &[(&str, &str)]) -> Server {
        let mut child = Command::new(example_binary("everything"))
            .env_remove("RUST_LOG")
            .env_remove("MCP_LOG")
            .env("RUST_BACKTRACE", "0")
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("example starts");
        let lines = stdout_lines(&mut child);
        Server {
            stdin: child.stdin.take(),
            child,
            lines,
        }
    }

    fn request(&mut self, message: Value) -> Value {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{message}").expect("write");
        stdin.flush().expect("flush");
        let line = self
            .lines
            .recv_timeout(REPLY_TIMEOUT)
            .unwrap_or_else(|e| panic!("no answer to {} ({e}): the server hangs", message["id"]));
        let response: Value = serde_json::from_str(&line).expect("a JSON frame");
        assert_eq!(response["id"], message["id"], "{response}");
        response
    }

    /// Starts reading stderr, closes stdin, waits for the exit; returns the
    /// exit status and all of stderr.
    fn finish(mut self) -> (ExitStatus, String) {
        let mut stderr = self.child.stderr.take().expect("piped stderr");
        let reader = std::thread::spawn(move || {
            let mut text = Vec::new();
            stderr.read_to_end(&mut text).expect("read stderr");
            String::from_utf8_lossy(&text).into_owned()
        });
        drop(self.stdin.take());
        let deadline = Instant::now() + REPLY_TIMEOUT;
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                break status;
            }
            assert!(
                Instant::now() < deadline,
                "the server did not exit after stdin closed"
            );
            std::thread::sleep(Duration::from_millis(10));
        };
        (status, reader.join().expect("stderr reader"))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A started legacy session.
fn session(env: &[(&str, &str)]) -> Server {
    let mut server = Server::spawn(env);
    let response = server.request(initialize(0, "2025-11-25"));
    assert_eq!(response["result"]["protocolVersion"], "2025-11-25");
    server
}

/// Whether `line` opens with an RFC 3339 UTC timestamp, e.g.
/// `2026-12-01T09:46:28.890569Z`.
fn starts_with_timestamp(line: &str) -> bool {
    let Some((stamp, _)) = line.split_once(' ') else {
        return false;
    };
    let shape = "dddd-dd-ddTdd:dd:dd.";
    stamp.len() > shape.len() + 1
        && stamp.ends_with('Z')
        && stamp[..shape.len()]
            .chars()
            .zip(shape.chars())
            .all(|(c, s)| if s == 'd' { c.is_ascii_digit() } else { c == s })
        && stamp[shape.len()..stamp.len() - 1]
            .chars()
            .all(|c| c.is_ascii_digit())
}

#[test]
fn a_host_that_never_reads_stderr_still_gets_every_answer() {
    // 40 prints of 8 KiB: more than the stderr pipe (64 KiB) and the
    // server's stderr queue (64 KiB) hold together, so some must be dropped.
    let mut server = session(&[]);
    let first = server.request(call(1, "panic", json!({}), false));
    assert_eq!(first["result"]["isError"], true);
    let text = "x".repeat(8 << 10);
    for id in 2..42 {
        let response = server.request(call(id, "noisy", json!({"text": text}), false));
        assert_eq!(
            response["result"]["content"][0]["text"],
            "printed 8192 bytes"
        );
    }
    let last = server.request(call(42, "panic", json!({}), false));
    assert_eq!(last["result"]["isError"], true);
    let sum = server.request(call(43, "add", json!({"a": 1, "b": 2}), false));
    assert_eq!(sum["result"]["structuredContent"]["sum"], 3.0);

    let (status, stderr) = server.finish();
    assert!(status.success(), "{status}");
    // The first panic reached stderr before it filled, reported as the
    // default hook does: thread, location, message.
    assert!(
        stderr.contains("thread 'main' panicked at examples/everything/tools.rs:"),
        "{}",
        &stderr[..stderr.len().min(2000)]
    );
    assert!(stderr.contains("\nthe `panic` tool panicked, as it always does\n"));
    let report = stderr
        .lines()
        .find(|line| line.contains("stderr was not read: "))
        .unwrap_or_else(|| panic!("no dropped-bytes line; stderr ends with: {}", tail(&stderr)));
    assert!(starts_with_timestamp(report), "{report}");
    assert!(report.contains(" WARN "), "{report}");
    let dropped: u64 = report
        .split("stderr was not read: ")
        .nth(1)
        .and_then(|rest| rest.strip_suffix(" bytes of logs dropped"))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("unexpected report: {report}"));
    assert!(dropped > 0, "{report}");
}

/// A tool that writes 1 MB straight to fd 2 (`eprintln!`) while the host
/// never reads stderr: the writes land in the stderr guard's pipe and then
/// the bounded queue, so the protocol goes on and a `ping` right after is
/// answered within 2 s. Before the guard covered fd 2, the tool's thread (the
/// runtime's) sat in the pipe write once the 64 KiB pipe was full, and the
/// ping was still unanswered after 10 s.
#[test]
fn a_tool_writing_to_fd_2_cannot_block_the_server() {
    const PING_LIMIT: Duration = Duration::from_secs(2);
    let mut server = session(&[]);
    let stdin = server.stdin.as_mut().expect("stdin open");
    let noisy = call(
        1,
        "noisy",
        json!({"text": "e".repeat(1_000), "to": "stderr", "times": 1_000}),
        false,
    );
    writeln!(stdin, "{noisy}").expect("write");
    stdin.flush().expect("flush");
    let answered = server
        .lines
        .recv_timeout(REPLY_TIMEOUT)
        .unwrap_or_else(|e| panic!("no answer to the noisy call ({e}): the server hangs"));
    let answered: Value = serde_json::from_str(&answered).expect("a JSON frame");
    assert_eq!(
        answered["result"]["content"][0]["text"],
        "printed 1000000 bytes"
    );
    let stdin = server.stdin.as_mut().expect("stdin open");
    let sent = Instant::now();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":2,"method":"ping"}}"#).expect("write");
    stdin.flush().expect("flush");
    let pong = server
        .lines
        .recv_timeout(PING_LIMIT)
        .unwrap_or_else(|e| panic!("ping unanswered after {PING_LIMIT:?} ({e})"));
    let took = sent.elapsed();
    eprintln!("ping answered in {took:?} after 1 MB written to an unread stderr");
    let pong: Value = serde_json::from_str(&pong).expect("a JSON frame");
    assert_eq!(pong, json!({"jsonrpc": "2.0", "id": 2, "result": {}}));

    let (status, stderr) = server.finish();
    assert!(status.success(), "{status}");
    assert!(
        stderr.contains("noisy says: eee"),
        "what fit reached the real stderr: {}",
        tail(&stderr)
    );
    assert!(
        stderr.contains("bytes of logs dropped"),
        "the rest was dropped and counted: {}",
        tail(&stderr)
    );
}

fn tail(text: &str) -> &str {
    let mut start = text.len().saturating_sub(500);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}

#[test]
fn a_debug_filter_logs_one_line_per_call() {
    let mut server = session(&[("RUST_LOG", "debug")]);
    let sum = server.request(call(7, "add", json!({"a": 1, "b": 2}), false));
    assert_eq!(sum["result"]["isError"], Value::Null);
    let failed = server.request(call(8, "fail", json!({}), false));
    assert_eq!(failed["result"]["isError"], true);
    let (status, stderr) = server.finish();
    assert!(status.success(), "{status}");
    let calls: Vec<&str> = stderr
        .lines()
        .filter(|line| line.contains(" tool call "))
        .collect();
    assert_eq!(calls.len(), 2, "{stderr}");
    for (line, tool, id, is_error) in [(calls[0], "add", 7, false), (calls[1], "fail", 8, true)] {
        assert!(starts_with_timestamp(line), "{line}");
        assert!(
            line.contains(" DEBUG mcpfn_runtime::call: tool call "),
            "{line}"
        );
        assert!(line.contains(&format!(" tool={tool} id={id} ")), "{line}");
        assert!(line.contains(" duration="), "{line}");
        assert!(line.ends_with(&format!(" is_error={is_error}")), "{line}");
    }
}

#[test]
fn an_invalid_filter_is_named_in_a_warning_and_warn_applies() {
    // MCP_LOG wins over RUST_LOG even when it is invalid: no debug lines.
    let mut server = session(&[("MCP_LOG", "bogus["), ("RUST_LOG", "debug")]);
    server.request(call(1, "add", json!({"a": 1, "b": 2}), false));
    let (status, stderr) = server.finish();
    assert!(status.success(), "{status}");
    let warning = stderr
        .lines()
        .find(|line| line.contains(" WARN "))
        .unwrap_or_else(|| panic!("no warning: {stderr}"));
    assert!(starts_with_timestamp(warning), "{warning}");
    assert!(
        warning.contains(r#"MCP_LOG="bogus[" is not a valid log filter"#),
        "{warning}"
    );
    assert!(warning.contains("the default level, warn"), "{warning}");
    assert!(
        !stderr.contains(" DEBUG ") && !stderr.contains(" INFO "),
        "{stderr}"
    );
}

#[test]
fn log_lines_carry_timestamps_and_a_startup_line() {
    // MCP_LOG wins over RUST_LOG: info, not debug.
    let mut server = session(&[("MCP_LOG", "info"), ("RUST_LOG", "debug")]);
    let pid = server.child.id();
    server.request(call(1, "add", json!({"a": 1, "b": 2}), false));
    let (status, stderr) = server.finish();
    assert!(status.success(), "{status}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert!(!lines.is_empty());
    for line in &lines {
        assert!(starts_with_timestamp(line), "{line}");
        assert!(!line.contains(" DEBUG "), "{line}");
    }
    let startup = lines[0];
    assert!(
        startup.contains(
            " INFO mcpfn_runtime::server: serving server=everything version=0.1.0 transport=\"stdio\""
        ),
        "{startup}"
    );
    assert!(startup.ends_with(&format!(" pid={pid}")), "{startup}");
}
