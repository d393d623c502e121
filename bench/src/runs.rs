//! The measured workloads: `add` calls with a window of requests in flight,
//! and `tools/list`. Every response is checked: each id is answered exactly
//! once, each `add` result carries the right sum (a cheap byte check on every
//! response, a full parse on every 16th and on any response the byte check
//! does not accept).

use crate::procfs;
use crate::session::{Session, read_line};
use serde_json::Value;
use std::io::{self, Write};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The outcome of a run of `add` calls.
#[derive(Debug)]
pub(crate) struct CallRun {
    /// Wall time from the first request written to the last response read.
    pub(crate) elapsed: Duration,
    /// Per-call latency (request written → response read), sorted, in ns.
    pub(crate) latencies_ns: Vec<u64>,
    /// Server on-CPU time during the run (all threads), in ns.
    pub(crate) cpu_ns: u64,
    /// Server utime + stime during the run, in clock ticks.
    pub(crate) cpu_ticks: u64,
}

impl CallRun {
    /// Calls per second.
    pub(crate) fn throughput(&self) -> f64 {
        self.latencies_ns.len() as f64 / self.elapsed.as_secs_f64()
    }

    /// The latency at quantile `q` (0..=1), in µs.
    pub(crate) fn latency_us(&self, q: f64) -> f64 {
        let n = self.latencies_ns.len();
        if n == 0 {
            return f64::NAN;
        }
        let index = ((n as f64 * q).ceil() as usize).clamp(1, n) - 1;
        self.latencies_ns[index] as f64 / 1_000.0
    }

    /// Server CPU time per call, in µs.
    pub(crate) fn cpu_per_call_us(&self) -> f64 {
        self.cpu_ns as f64 / 1_000.0 / self.latencies_ns.len() as f64
    }
}

/// The `tools/call` request for `add` with id `id`: `a = id`, `b = 0.25`.
fn call_request(id: u64) -> Vec<u8> {
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"add\",\"arguments\":{{\"a\":{id},\"b\":0.25}}}}}}\n"
    )
    .into_bytes()
}

/// The sum the server must return for request `id`.
fn expected_sum(id: u64) -> f64 {
    id as f64 + 0.25
}

/// Checks a response to `call_request`, returning its id.
struct Checker {
    /// `"structuredContent":{"sum":` — the byte check looks for this followed
    /// by the expected number and `}`.
    marker: &'static [u8],
    /// Scratch for the expected bytes.
    expected: Vec<u8>,
}

impl Checker {
    fn new() -> Checker {
        Checker {
            marker: b"\"structuredContent\":{\"sum\":",
            expected: Vec::with_capacity(64),
        }
    }

    /// The id of a response, after checking it answers `add` correctly.
    fn check(&mut self, line: &[u8], full: bool) -> Result<u64, String> {
        if !full && let Some(id) = fast_id(line) {
            self.expected.clear();
            self.expected.extend_from_slice(self.marker);
            // serde_json writes f64 the way both servers do (ryu).
            serde_json::to_writer(&mut self.expected, &expected_sum(id))
                .map_err(|e| e.to_string())?;
            self.expected.push(b'}');
            if find(line, &self.expected).is_some() && find(line, b"\"isError\"").is_none() {
                return Ok(id);
            }
        }
        full_check(line)
    }
}

/// The id of a response whose `"id":` is an integer, found without parsing.
fn fast_id(line: &[u8]) -> Option<u64> {
    let start = find(line, b"\"id\":")? + 5;
    let digits = line[start..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    std::str::from_utf8(&line[start..start + digits])
        .ok()?
        .parse()
        .ok()
}

/// Parses a response in full and checks it is the right `add` result.
fn full_check(line: &[u8]) -> Result<u64, String> {
    let text = || String::from_utf8_lossy(&line[..line.len().min(300)]).into_owned();
    let response: Value = serde_json::from_slice(line)
        .map_err(|e| format!("unparsable response ({e}): {}", text()))?;
    let id = response["id"]
        .as_u64()
        .ok_or_else(|| format!("response without an integer id: {}", text()))?;
    let result = &response["result"];
    let expected = expected_sum(id);
    let ok = response["jsonrpc"] == "2.0"
        && response.get("error").is_none()
        && !matches!(result.get("isError"), Some(Value::Bool(true)))
        && result["structuredContent"]["sum"].as_f64() == Some(expected)
        && result["content"][0]["type"] == "text"
        && result["content"][0]["text"]
            .as_str()
            .and_then(|t| serde_json::from_str::<Value>(t).ok())
            .is_some_and(|mirror| mirror == result["structuredContent"]);
    if ok {
        Ok(id)
    } else {
        Err(format!("wrong answer for id {id}: {}", text()))
    }
}

/// Position of `needle` in `haystack`.
fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Marks `id` answered; fails on ids out of range or answered twice.
fn mark(seen: &mut [bool], id: u64, first_id: u64) -> Result<usize, String> {
    let index = id
        .checked_sub(first_id)
        .and_then(|i| usize::try_from(i).ok())
        .filter(|&i| i < seen.len())
        .ok_or_else(|| format!("response for an id never sent: {id}"))?;
    if std::mem::replace(&mut seen[index], true) {
        return Err(format!("id {id} answered twice"));
    }
    Ok(index)
}

/// Runs `calls` `add` calls with ids `first_id..`, keeping `window` requests
/// in flight: a writer thread sends a request whenever a response has come
/// back (all that are due in one write), this thread reads and checks.
pub(crate) fn pipelined(
    session: &mut Session,
    calls: usize,
    window: usize,
    first_id: u64,
) -> io::Result<CallRun> {
    let requests: Vec<Vec<u8>> = (0..calls as u64)
        .map(|i| call_request(first_id + i))
        .collect();
    let pid = session.pid;
    let (cpu0, ticks0) = (procfs::cpu_ns(pid)?, procfs::cpu_ticks(pid)?);
    let start = Instant::now();
    let (stdin, stdout) = session.pipes()?;
    let (credit_tx, credit_rx) = mpsc::channel::<()>();
    let (sent, received) = std::thread::scope(|scope| {
        let writer = scope.spawn(move || -> io::Result<Vec<u64>> {
            let mut sent = vec![0u64; calls];
            let mut credits = window;
            let mut next = 0;
            let mut batch = Vec::with_capacity(window * 160);
            while next < calls {
                if credits == 0 {
                    if credit_rx.recv().is_err() {
                        break; // the reader gave up
                    }
                    credits += 1;
                }
                while credit_rx.try_recv().is_ok() {
                    credits += 1;
                }
                batch.clear();
                let now = start.elapsed().as_nanos() as u64;
                while credits > 0 && next < calls {
                    batch.extend_from_slice(&requests[next]);
                    sent[next] = now;
                    next += 1;
                    credits -= 1;
                }
                stdin.write_all(&batch)?;
            }
            Ok(sent)
        });
        let read = (|| -> io::Result<Vec<u64>> {
            let mut received = vec![0u64; calls];
            let mut seen = vec![false; calls];
            let mut checker = Checker::new();
            let mut line = Vec::with_capacity(512);
            for n in 0..calls {
                read_line(stdout, &mut line, "server")?;
                let id = checker
                    .check(&line, n % 16 == 0)
                    .map_err(io::Error::other)?;
                let index = mark(&mut seen, id, first_id).map_err(io::Error::other)?;
                received[index] = start.elapsed().as_nanos() as u64;
                // The writer may have finished already; then nobody listens.
                let _ = credit_tx.send(());
            }
            Ok(received)
        })();
        drop(credit_tx);
        let sent = writer
            .join()
            .map_err(|_| io::Error::other("writer thread panicked"))?;
        Ok::<_, io::Error>((sent, read))
    })?;
    let elapsed = start.elapsed();
    let (sent, received) = (sent?, received.map_err(|e| session.bad(e.to_string()))?);
    let (cpu1, ticks1) = (procfs::cpu_ns(pid)?, procfs::cpu_ticks(pid)?);
    let mut latencies_ns: Vec<u64> = received
        .iter()
        .zip(&sent)
        .map(|(r, s)| r.saturating_sub(*s))
        .collect();
    latencies_ns.sort_unstable();
    Ok(CallRun {
        elapsed,
        latencies_ns,
        cpu_ns: cpu1.saturating_sub(cpu0),
        cpu_ticks: ticks1.saturating_sub(ticks0),
    })
}

/// Runs `calls` `add` calls one at a time from this thread.
pub(crate) fn serial(session: &mut Session, calls: usize, first_id: u64) -> io::Result<CallRun> {
    let requests: Vec<Vec<u8>> = (0..calls as u64)
        .map(|i| call_request(first_id + i))
        .collect();
    let pid = session.pid;
    let (cpu0, ticks0) = (procfs::cpu_ns(pid)?, procfs::cpu_ticks(pid)?);
    let mut latencies_ns = Vec::with_capacity(calls);
    let mut seen = vec![false; calls];
    let mut checker = Checker::new();
    let mut line = Vec::with_capacity(512);
    let start = Instant::now();
    for (n, request) in requests.iter().enumerate() {
        let sent = Instant::now();
        session.send(request)?;
        session.recv(&mut line)?;
        latencies_ns.push(sent.elapsed().as_nanos() as u64);
        let id = checker
            .check(&line, n % 16 == 0)
            .map_err(|e| session.bad(e))?;
        mark(&mut seen, id, first_id).map_err(|e| session.bad(e))?;
        if id != first_id + n as u64 {
            return Err(session.bad(format!(
                "answered id {id} while {} was in flight",
                first_id + n as u64
            )));
        }
    }
    let elapsed = start.elapsed();
    let (cpu1, ticks1) = (procfs::cpu_ns(pid)?, procfs::cpu_ticks(pid)?);
    latencies_ns.sort_unstable();
    Ok(CallRun {
        elapsed,
        latencies_ns,
        cpu_ns: cpu1.saturating_sub(cpu0),
        cpu_ticks: ticks1.saturating_sub(ticks0),
    })
}

/// One `tools/list` request: the time to the whole response, and the response.
pub(crate) fn list_tools(
    session: &mut Session,
    id: u64,
    line: &mut Vec<u8>,
) -> io::Result<Duration> {
    let request = format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/list\"}}\n");
    let start = Instant::now();
    session.send(request.as_bytes())?;
    session.recv(line)?;
    Ok(start.elapsed())
}

/// The `tools` array of a `tools/list` response with id `id`, checked to be
/// a single page of uniquely named tools.
pub(crate) fn tools_of(session: &Session, line: &[u8], id: u64) -> io::Result<Vec<Value>> {
    let mut response: Value =
        serde_json::from_slice(line).map_err(|e| session.bad(format!("tools/list: {e}")))?;
    if response["id"] != id {
        return Err(session.bad(format!("tools/list answered with id {}", response["id"])));
    }
    if response["result"].get("nextCursor").is_some() {
        return Err(
            session.bad("tools/list was paginated; the benchmark expects one page".to_owned())
        );
    }
    let Value::Array(tools) = response["result"]["tools"].take() else {
        return Err(session.bad("tools/list result has no tools array".to_owned()));
    };
    let mut names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    names.sort_unstable();
    names.dedup();
    if names.len() != tools.len() {
        return Err(session.bad("tools/list has unnamed or duplicate tools".to_owned()));
    }
    Ok(tools)
}
