//! `resources/read` over stdio, `everything` against the ceiling: the rate
//! of reads of `everything://filler/{bytes}` (a text of that many bytes,
//! which the ceiling answers with the same bytes) for a small content (64
//! bytes, 16 reads in flight, and 64 as `tools/call` is measured) and a
//! 1 MiB one (4 in flight), 5 interleaved repetitions after a warm-up, the
//! median of each. Every response is
//! checked: its id is one in flight, and its text has exactly the bytes
//! asked for.
//!
//! ```sh
//! cargo build --release -p examples --example everything --no-default-features
//! cargo build --release -p bench --bin ceiling
//! cargo run --release -p bench --bin resources
//! ```
//!
//! `resources once SERVER BYTES READS WINDOW` reads only that workload
//! (after a tenth of it unmeasured) from SERVER: one process per server,
//! to time `everything` and the ceiling side by side as whole processes
//! (`/usr/bin/time`, or any tool that runs two commands in turn).

use std::collections::HashSet;
use std::io::{self, BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Instant;

const REPS: usize = 5;

/// One workload: a content size, how many reads, how many in flight.
struct Workload {
    label: &'static str,
    bytes: usize,
    reads: u64,
    window: u64,
}

const WORKLOADS: [Workload; 3] = [
    Workload {
        label: "64 B",
        bytes: 64,
        reads: 40_000,
        window: 16,
    },
    Workload {
        label: "64 B",
        bytes: 64,
        reads: 100_000,
        window: 64,
    },
    Workload {
        label: "1 MiB",
        bytes: 1 << 20,
        reads: 400,
        window: 4,
    },
];

struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Server {
    fn spawn(program: &PathBuf) -> io::Result<Server> {
        let mut child = Command::new(program)
            .env("RATE_LIMIT", "off")
            .env_remove("MCP_LOG")
            .env_remove("RUST_LOG")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", program.display())))?;
        let stdin = child
            .stdin
            .take()
            .ok_or_else(|| io::Error::other("stdin"))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| io::Error::other("stdout"))?;
        let mut server = Server {
            child,
            stdin,
            stdout: BufReader::with_capacity(1 << 20, stdout),
        };
        server.stdin.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"mcp-bench\",\"version\":\"0\"}}}\n")?;
        let mut line = Vec::new();
        server.stdout.read_until(b'\n', &mut line)?;
        server
            .stdin
            .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")?;
        Ok(server)
    }

    fn request(&mut self, id: u64, bytes: usize) -> io::Result<()> {
        let line = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"resources/read\",\"params\":{{\"uri\":\"everything://filler/{bytes}\"}}}}\n"
        );
        self.stdin.write_all(line.as_bytes())
    }

    /// Reads `reads` of `bytes` with `window` in flight; reads per second.
    fn run(&mut self, first_id: u64, work: &Workload, reads: u64) -> io::Result<f64> {
        let mut in_flight = HashSet::new();
        let mut next = first_id;
        let end = first_id + reads;
        let started = Instant::now();
        while next < end && in_flight.len() < work.window as usize {
            self.request(next, work.bytes)?;
            in_flight.insert(next);
            next += 1;
        }
        let mut line = Vec::with_capacity(work.bytes + 256);
        while !in_flight.is_empty() {
            line.clear();
            if self.stdout.read_until(b'\n', &mut line)? == 0 {
                return Err(io::Error::other("the server closed stdout"));
            }
            let id = check(&line, work.bytes)?;
            if !in_flight.remove(&id) {
                return Err(io::Error::other(format!(
                    "a response to id {id}, not in flight"
                )));
            }
            if next < end {
                self.request(next, work.bytes)?;
                in_flight.insert(next);
                next += 1;
            }
        }
        Ok(reads as f64 / started.elapsed().as_secs_f64())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The id of a `resources/read` response whose text is `bytes` long.
fn check(line: &[u8], bytes: usize) -> io::Result<u64> {
    let bad =
        || io::Error::other(String::from_utf8_lossy(&line[..line.len().min(200)]).into_owned());
    let text = std::str::from_utf8(line).map_err(|_| bad())?;
    let id: u64 = text
        .strip_prefix("{\"jsonrpc\":\"2.0\",\"id\":")
        .and_then(|rest| rest.split(',').next())
        .and_then(|id| id.parse().ok())
        .ok_or_else(bad)?;
    let body = text.split("\"text\":\"").nth(1).ok_or_else(bad)?;
    let got = body.bytes().take_while(|b| *b == b'x').count();
    if got != bytes {
        return Err(bad());
    }
    Ok(id)
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// `once SERVER BYTES READS WINDOW`: one workload against SERVER.
fn once(args: &[String]) -> io::Result<()> {
    let number = |at: usize| -> io::Result<u64> {
        args.get(at)
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| io::Error::other("usage: resources once SERVER BYTES READS WINDOW"))
    };
    let program = PathBuf::from(args.first().ok_or_else(|| io::Error::other("SERVER"))?);
    let work = Workload {
        label: "once",
        bytes: number(1)? as usize,
        reads: number(2)?,
        window: number(3)?,
    };
    let mut server = Server::spawn(&program)?;
    server.run(1, &work, (work.reads / 10).max(work.window))?;
    let rate = server.run(1_000_000, &work, work.reads)?;
    println!(
        "{}: {} reads of {} bytes, {} in flight: {rate:.1} reads/s",
        program.display(),
        work.reads,
        work.bytes,
        work.window
    );
    Ok(())
}

fn main() -> io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().is_some_and(|mode| mode == "once") {
        return once(&args[1..]);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"));
    let everything = target.join("release/examples/everything");
    let ceiling = target.join("release/ceiling");
    println!(
        "| content | in flight | everything reads/s | ceiling reads/s | everything ÷ ceiling |"
    );
    println!("|---|---:|---:|---:|---:|");
    for work in &WORKLOADS {
        let mut rates = [Vec::new(), Vec::new()];
        for rep in 0..REPS {
            let order: [(usize, &PathBuf); 2] = if rep % 2 == 0 {
                [(0, &everything), (1, &ceiling)]
            } else {
                [(1, &ceiling), (0, &everything)]
            };
            for (slot, program) in order {
                let mut server = Server::spawn(program)?;
                server.run(1, work, (work.reads / 10).max(work.window))?;
                rates[slot].push(server.run(1_000_000, work, work.reads)?);
            }
        }
        let (e, c) = (median(&mut rates[0]), median(&mut rates[1]));
        println!(
            "| {} | {} | {e:.0} | {c:.0} | {:.2} |",
            work.label,
            work.window,
            e / c
        );
        eprintln!(
            "{}: everything {:?}, ceiling {:?}",
            work.label, rates[0], rates[1]
        );
    }
    Ok(())
}
