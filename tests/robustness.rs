//! The stdio transport under stress, end to end over real pipes: memory under
//! a slow reader, oversized and malformed lines, shutdown while the client
//! does not read, and a client that vanishes.

mod common;

use common::{assert_valid, example_binary, initialize};
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

/// A `kB` field of `/proc/<pid>/status`, in KiB.
fn status_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("proc status");
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|rest| rest.trim().strip_suffix("kB"))
        .and_then(|kib| kib.trim().parse().ok())
        .unwrap_or_else(|| panic!("no {field} in /proc/{pid}/status"))
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
        if reads % 2 == 0 {
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
