//! The HTTP load generator of the benchmark: `add` calls over HTTP/1.1
//! keep-alive connections, each connection with one request in flight.
//!
//! ```text
//! http-load URL [--connections N] [--warm-up N] [--calls N] [--threads N] [--wait]
//! ```
//!
//! It opens `--connections` (64) connections with hyper's client, sends
//! `--warm-up` (2,000) unmeasured calls, then, with `--wait`, prints `ready`
//! and waits for a line on stdin (the benchmark reads the server's CPU time
//! meanwhile), then sends `--calls` (20,000) measured calls and prints one
//! JSON line: `{"calls":…,"elapsed_s":…,"p50_us":…,"p99_us":…}`. It runs on
//! `--threads` (1) tokio threads, so that on a small machine the client takes
//! one core and leaves the rest to the server.
//!
//! Every call is a modern-era (2026-07-28) POST with the headers the spec
//! requires of a client (`Content-Type`, `Accept`, `MCP-Protocol-Version`,
//! `Mcp-Method`, `Mcp-Name`) and the `_meta` envelope in its body; call `i`
//! adds `a = i` and `b = 0.25`. Every response is checked: status 200,
//! `application/json`, the request's id, and the right sum (a byte check on
//! each, a full parse of every 16th and of any the byte check rejects). Any
//! failure ends the run with a message and exit status 1.

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::header::{ACCEPT, CONTENT_TYPE, HOST};
use hyper::{Method, Request, StatusCode};
use serde_json::Value;
use std::io::{self, BufRead, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// The protocol version of every call.
const VERSION: &str = "2026-07-28";

/// Command-line options.
#[derive(Debug)]
struct Options {
    url: hyper::Uri,
    connections: usize,
    warm_up: u64,
    calls: u64,
    threads: usize,
    wait: bool,
}

fn main() {
    if let Err(err) = run() {
        eprintln!("http-load: {err}");
        std::process::exit(1);
    }
}

fn parse_options() -> io::Result<Options> {
    let mut url = None;
    let mut options = Options {
        url: hyper::Uri::from_static("http://127.0.0.1/mcp"),
        connections: 64,
        warm_up: 2_000,
        calls: 20_000,
        threads: 1,
        wait: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| -> io::Result<u64> {
            args.next()
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| io::Error::other(format!("{name} needs a number")))
        };
        match arg.as_str() {
            "--connections" => options.connections = value("--connections")?.max(1) as usize,
            "--warm-up" => options.warm_up = value("--warm-up")?,
            "--calls" => options.calls = value("--calls")?.max(1),
            "--threads" => options.threads = value("--threads")?.max(1) as usize,
            "--wait" => options.wait = true,
            other if !other.starts_with('-') => {
                url = Some(other.parse().map_err(io::Error::other)?);
            }
            other => return Err(io::Error::other(format!("unknown argument {other}"))),
        }
    }
    options.url = url.ok_or_else(|| {
        io::Error::other(
            "usage: http-load URL [--connections N] [--warm-up N] [--calls N] [--threads N] [--wait]",
        )
    })?;
    Ok(options)
}

fn run() -> io::Result<()> {
    let options = parse_options()?;
    let runtime = if options.threads == 1 {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?
    } else {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(options.threads)
            .enable_all()
            .build()?
    };
    runtime.block_on(load(&options))
}

/// One connection's request sender.
type Sender = hyper::client::conn::http1::SendRequest<Full<Bytes>>;

async fn load(options: &Options) -> io::Result<()> {
    let authority = options
        .url
        .authority()
        .ok_or_else(|| io::Error::other("the URL has no host"))?
        .clone();
    let target = Arc::new(Target {
        host: authority.as_str().to_owned(),
        path: options
            .url
            .path_and_query()
            .map_or("/", |p| p.as_str())
            .to_owned(),
    });
    let mut senders = Vec::with_capacity(options.connections);
    for _ in 0..options.connections {
        let stream = tokio::net::TcpStream::connect(authority.as_str()).await?;
        stream.set_nodelay(true)?;
        let (sender, connection) =
            hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
                .await
                .map_err(io::Error::other)?;
        tokio::spawn(connection);
        senders.push(sender);
    }
    // Ids start at 1; the warm-up takes the first ones.
    let (mut senders, _) = phase(senders, &target, 1, options.warm_up).await?;
    if options.wait {
        println!("ready");
        io::stdout().flush()?;
        let mut line = String::new();
        io::stdin().lock().read_line(&mut line)?;
    }
    let start = Instant::now();
    let (rest, mut latencies) = phase(
        std::mem::take(&mut senders),
        &target,
        1 + options.warm_up,
        options.calls,
    )
    .await?;
    let elapsed = start.elapsed();
    drop(rest);
    latencies.sort_unstable();
    let quantile = |q: f64| {
        let n = latencies.len();
        let index = ((n as f64 * q).ceil() as usize).clamp(1, n) - 1;
        latencies[index] as f64 / 1_000.0
    };
    let report = serde_json::json!({
        "calls": latencies.len(),
        "elapsed_s": elapsed.as_secs_f64(),
        "p50_us": quantile(0.50),
        "p99_us": quantile(0.99),
    });
    println!("{report}");
    Ok(())
}

/// Where the calls go.
#[derive(Debug)]
struct Target {
    host: String,
    path: String,
}

/// Sends calls with ids `first..first + count` over all connections (each
/// takes the next id when its previous call is answered). Returns the
/// connections and every call's latency in ns.
async fn phase(
    senders: Vec<Sender>,
    target: &Arc<Target>,
    first: u64,
    count: u64,
) -> io::Result<(Vec<Sender>, Vec<u64>)> {
    let next = Arc::new(AtomicU64::new(first));
    let end = first + count;
    let mut tasks = Vec::with_capacity(senders.len());
    for sender in senders {
        let next = next.clone();
        let target = target.clone();
        tasks.push(tokio::spawn(async move {
            connection(sender, &target, &next, end).await
        }));
    }
    let mut senders = Vec::with_capacity(tasks.len());
    let mut latencies = Vec::with_capacity(count as usize);
    for task in tasks {
        let (sender, mut own) = task.await.map_err(io::Error::other)??;
        senders.push(sender);
        latencies.append(&mut own);
    }
    Ok((senders, latencies))
}

/// One connection's share of a phase.
async fn connection(
    mut sender: Sender,
    target: &Target,
    next: &AtomicU64,
    end: u64,
) -> io::Result<(Sender, Vec<u64>)> {
    let mut latencies = Vec::new();
    let mut expected = Vec::with_capacity(64);
    loop {
        let id = next.fetch_add(1, Ordering::Relaxed);
        if id >= end {
            return Ok((sender, latencies));
        }
        let request = call(target, id)?;
        let start = Instant::now();
        sender.ready().await.map_err(io::Error::other)?;
        let response = sender
            .send_request(request)
            .await
            .map_err(|e| io::Error::other(format!("call {id}: {e}")))?;
        let (parts, body) = response.into_parts();
        let body = body
            .collect()
            .await
            .map_err(|e| io::Error::other(format!("call {id}: {e}")))?
            .to_bytes();
        latencies.push(start.elapsed().as_nanos() as u64);
        let text = || String::from_utf8_lossy(&body[..body.len().min(300)]).into_owned();
        if parts.status != StatusCode::OK {
            return Err(io::Error::other(format!(
                "call {id}: status {}: {}",
                parts.status,
                text()
            )));
        }
        let json = parts
            .headers
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("application/json"));
        if !json {
            return Err(io::Error::other(format!(
                "call {id}: not application/json ({:?}): {}",
                parts.headers.get(CONTENT_TYPE),
                text()
            )));
        }
        check(&body, id, &mut expected).map_err(io::Error::other)?;
    }
}

/// The POST for call `id`.
fn call(target: &Target, id: u64) -> io::Result<Request<Full<Bytes>>> {
    let body = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"add\",\"arguments\":{{\"a\":{id},\"b\":0.25}},\"_meta\":{{\"io.modelcontextprotocol/protocolVersion\":\"{VERSION}\",\"io.modelcontextprotocol/clientCapabilities\":{{}},\"io.modelcontextprotocol/clientInfo\":{{\"name\":\"mcp-bench\",\"version\":\"0.1.0\"}}}}}}}}"
    );
    Request::builder()
        .method(Method::POST)
        .uri(&target.path)
        .header(HOST, &target.host)
        .header(CONTENT_TYPE, "application/json")
        .header(ACCEPT, "application/json, text/event-stream")
        .header("MCP-Protocol-Version", VERSION)
        .header("Mcp-Method", "tools/call")
        .header("Mcp-Name", "add")
        .body(Full::new(Bytes::from(body)))
        .map_err(io::Error::other)
}

/// The sum call `id` must return.
fn expected_sum(id: u64) -> f64 {
    id as f64 + 0.25
}

/// Checks that `body` answers call `id` with the right sum: a byte check
/// (the id, `"structuredContent":{"sum":<sum>}`, no `isError`), and a full
/// parse on every 16th call and whenever the byte check fails.
fn check(body: &[u8], id: u64, expected: &mut Vec<u8>) -> Result<(), String> {
    if !id.is_multiple_of(16) {
        expected.clear();
        expected.extend_from_slice(b"\"structuredContent\":{\"sum\":");
        serde_json::to_writer(&mut *expected, &expected_sum(id)).map_err(|e| e.to_string())?;
        expected.push(b'}');
        let id_marker = format!("\"id\":{id},");
        if find(body, expected) && find(body, id_marker.as_bytes()) && !find(body, b"\"isError\"") {
            return Ok(());
        }
    }
    let text = || String::from_utf8_lossy(&body[..body.len().min(300)]).into_owned();
    let response: Value = serde_json::from_slice(body)
        .map_err(|e| format!("call {id}: unparsable response ({e}): {}", text()))?;
    let result = &response["result"];
    let ok = response["jsonrpc"] == "2.0"
        && response["id"].as_u64() == Some(id)
        && response.get("error").is_none()
        && !matches!(result.get("isError"), Some(Value::Bool(true)))
        && result["structuredContent"]["sum"].as_f64() == Some(expected_sum(id))
        && result["content"][0]["type"] == "text"
        && result["content"][0]["text"]
            .as_str()
            .and_then(|t| serde_json::from_str::<Value>(t).ok())
            .is_some_and(|mirror| mirror == result["structuredContent"]);
    if ok {
        Ok(())
    } else if result["content"][0]["text"]
        .as_str()
        .is_some_and(|t| t.starts_with("Rate limit exceeded"))
    {
        // The server's per-client rate limit (1,000 calls/s by default) is
        // binding: one load generator is one client (one address).
        Err(format!(
            "call {id}: the server refused it under its per-client rate limit; start the server with RATE_LIMIT=off (or a higher RATE_LIMIT=N) for a load test: {}",
            text()
        ))
    } else {
        Err(format!("call {id}: wrong answer: {}", text()))
    }
}

/// Whether `needle` occurs in `haystack`.
fn find(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}
