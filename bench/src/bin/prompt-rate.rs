//! `prompts/get` beside `tools/call` on one `everything` server over stdio:
//! the rate of `prompts/get translate` (two messages, three arguments)
//! against `tools/call add`, 64 in flight and 1 in flight, the workloads
//! interleaved and rotated per round, the median of `ROUNDS`; every
//! response is checked (its id answered once, the right result in it).
//!
//! `cargo build --release -p examples --example everything && cargo run --release -p bench --bin prompt-rate [-- CALLS]`
//! (`EVERYTHING=path` for another binary).
//!
//! `prompt-rate once SERVER [CALLS]` runs only `prompts/get translate`
//! (after 2,000 unmeasured), 64 in flight, against SERVER, which may be
//! the ceiling (`target/release/ceiling` answers it with the same bytes):
//! one process per server, to time side by side as whole processes
//! (`/usr/bin/time`, or any tool that runs two commands in turn).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Instant;

/// Rounds of each workload; each round times `calls` requests of one.
const ROUNDS: usize = 5;
/// Requests in flight in the pipelined runs.
const WINDOW: usize = 64;

/// One kind of request and what its response must contain.
#[derive(Clone, Copy)]
struct Workload {
    name: &'static str,
    request: fn(u64) -> String,
    expect: &'static str,
}

fn add(id: u64) -> String {
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"add\",\"arguments\":{{\"a\":1,\"b\":2}}}}}}\n"
    )
}

fn prompt(id: u64) -> String {
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"prompts/get\",\"params\":{{\"name\":\"translate\",\"arguments\":{{\"language\":\"French\",\"text\":\"Good morning\",\"tone\":\"formal\"}}}}}}\n"
    )
}

const WORKLOADS: [Workload; 2] = [
    Workload {
        name: "tools/call add",
        request: add,
        expect: "\"structuredContent\":{\"sum\":3.0}",
    },
    Workload {
        name: "prompts/get translate",
        request: prompt,
        expect: "into French, in a formal tone",
    },
];

struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Server {
    fn spawn(binary: &str) -> Server {
        let mut child = Command::new(binary)
            .env("RATE_LIMIT", "off")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|err| panic!("{binary}: {err}"));
        let stdin = child.stdin.take().expect("piped");
        let stdout = BufReader::new(child.stdout.take().expect("piped"));
        let mut server = Server {
            child,
            stdin,
            stdout,
            next_id: 1,
        };
        server.write(
            "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"bench\",\"version\":\"1\"}}}\n",
        );
        let init = server.line();
        assert!(init.contains("\"protocolVersion\""), "{init}");
        server.write("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
        server
    }

    fn write(&mut self, text: &str) {
        self.stdin.write_all(text.as_bytes()).expect("write");
        self.stdin.flush().expect("flush");
    }

    fn line(&mut self) -> String {
        let mut line = String::new();
        self.stdout.read_line(&mut line).expect("read");
        assert!(!line.is_empty(), "the server closed stdout");
        line
    }

    /// `calls` requests of `workload` with `window` in flight; seconds taken.
    fn run(&mut self, workload: Workload, calls: usize, window: usize) -> f64 {
        let first = self.next_id;
        self.next_id += calls as u64;
        let mut seen = vec![false; calls];
        let started = Instant::now();
        let mut sent = 0;
        let mut batch = String::new();
        while sent < window.min(calls) {
            batch.push_str(&(workload.request)(first + sent as u64));
            sent += 1;
        }
        self.write(&batch);
        for _ in 0..calls {
            let line = self.line();
            assert!(line.contains(workload.expect), "{line}");
            let id = id_of(&line).unwrap_or_else(|| panic!("no id: {line}"));
            let slot = &mut seen[(id - first) as usize];
            assert!(!*slot, "id {id} answered twice");
            *slot = true;
            if sent < calls {
                self.write(&(workload.request)(first + sent as u64));
                sent += 1;
            }
        }
        started.elapsed().as_secs_f64()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The number after `"id":` in a response.
fn id_of(line: &str) -> Option<u64> {
    let rest = &line[line.find("\"id\":")? + 5..];
    let end = rest.find(|c: char| !c.is_ascii_digit())?;
    rest[..end].parse().ok()
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// `once SERVER [CALLS]`: `prompts/get` alone against SERVER.
fn once(binary: &str, calls: usize) {
    let mut server = Server::spawn(binary);
    server.run(WORKLOADS[1], 2_000, WINDOW);
    let seconds = server.run(WORKLOADS[1], calls, WINDOW);
    println!(
        "{binary}: {calls} prompts/get, {WINDOW} in flight: {:.0} req/s",
        calls as f64 / seconds
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [mode, binary, rest @ ..] = args.as_slice()
        && mode == "once"
    {
        let calls = rest.first().and_then(|n| n.parse().ok()).unwrap_or(50_000);
        return once(binary, calls);
    }
    let calls: usize = args.first().and_then(|n| n.parse().ok()).unwrap_or(20_000);
    let binary = std::env::var("EVERYTHING")
        .unwrap_or_else(|_| "target/release/examples/everything".to_owned());
    let mut server = Server::spawn(&binary);
    // Warm-up, unmeasured.
    for workload in WORKLOADS {
        server.run(workload, 2_000, WINDOW);
    }
    println!(
        "{calls} requests per run, median of {ROUNDS} interleaved rounds, one `everything` over stdio"
    );
    for window in [WINDOW, 1] {
        let runs = if window == 1 { calls / 4 } else { calls };
        let mut rates: [Vec<f64>; 2] = Default::default();
        for round in 0..ROUNDS {
            for k in 0..WORKLOADS.len() {
                let index = (k + round) % WORKLOADS.len();
                let seconds = server.run(WORKLOADS[index], runs, window);
                rates[index].push(runs as f64 / seconds);
            }
        }
        let [call, get] = rates.map(median);
        println!(
            "{window:>2} in flight: {:<22} {call:>9.0} req/s | {:<22} {get:>9.0} req/s | prompts/get ÷ tools/call {:.2}",
            WORKLOADS[0].name,
            WORKLOADS[1].name,
            get / call
        );
    }
}
