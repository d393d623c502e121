//! One resource update fanned out to 1,000 subscribers: the time from
//! `Notifier::resource_updated` to the last subscriber's receipt of its
//! `notifications/resources/updated`, each subscriber a 2026-07-28
//! `subscriptions/listen` stream on its own loopback TCP connection to a
//! Streamable HTTP server in this process, server and subscribers on one
//! thread (a current-thread runtime: the work is counted, not hidden on
//! another core). Three paths:
//!
//! - `local`: told to the server the streams are on;
//! - `memory`: told to a second server sharing a `MemoryStore` (the relay
//!   through the store, in process);
//! - `redis` (only with `REDIS_URL` set): told to a second server, both on
//!   that Redis (`RedisStore`): what replicas behind a load balancer do.
//!
//! Each path: 7 updates, a new URI each (every stream listens to all 7),
//! the median and the worst time to the last delivery, and the median time
//! to the first.
//!
//! `cargo run --release -p bench --bin fanout [-- SUBSCRIBERS]`

use mcpfn_runtime::store::{MemoryStore, RedisStore};
use mcpfn_runtime::{Notifier, Server};
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::mpsc;

/// Updates per path.
const ROUNDS: usize = 7;

/// What each subscriber's reader counts.
const UPDATED: &[u8] = b"notifications/resources/updated";

/// A free loopback address (a moment ago).
fn free_addr() -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("address")
}

/// Serves `server` on a free address; returns it once it accepts.
async fn serve(server: Server) -> SocketAddr {
    let addr = free_addr();
    tokio::spawn(server.serve_http(addr));
    let deadline = Instant::now() + Duration::from_secs(10);
    while TcpStream::connect(addr).await.is_err() {
        assert!(Instant::now() < deadline, "the server did not listen");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    addr
}

/// A server that lets one client (this process) hold every stream.
fn server(name: &str, subscribers: usize) -> Server {
    Server::new(name, "0")
        .max_streams_per_client(subscribers + 16)
        .max_http_connections(subscribers + 64)
        .max_http_connections_per_address(subscribers + 64)
}

/// Opens a listen stream for `uris` at `addr`, waits for its
/// acknowledgement, then reports on `receipts` the instant of each update
/// it carries.
async fn subscribe(
    addr: SocketAddr,
    id: usize,
    uris: &[String],
    receipts: mpsc::UnboundedSender<Instant>,
) {
    let body = serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
        "params": {"notifications": {"resourceSubscriptions": uris},
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "fanout", "version": "0"},
                "io.modelcontextprotocol/clientCapabilities": {}}}})
    .to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: subscriptions/listen\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut stream = TcpStream::connect(addr).await.expect("connect");
    stream.write_all(request.as_bytes()).await.expect("write");
    let mut seen = Vec::new();
    let mut buffer = vec![0u8; 16 << 10];
    while !contains(&seen, b"notifications/subscriptions/acknowledged") {
        let n = stream.read(&mut buffer).await.expect("read");
        assert!(n > 0, "the stream ended before its acknowledgement");
        seen.extend_from_slice(&buffer[..n]);
    }
    let _ = receipts.send(Instant::now());
    tokio::spawn(async move {
        // A match may straddle two reads: keep the tail of the last.
        let mut carry: Vec<u8> = Vec::new();
        loop {
            let n = match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => return,
                Ok(n) => n,
            };
            let now = Instant::now();
            carry.extend_from_slice(&buffer[..n]);
            let found = carry
                .windows(UPDATED.len())
                .filter(|w| *w == UPDATED)
                .count();
            for _ in 0..found {
                let _ = receipts.send(now);
            }
            let keep = carry.len().min(UPDATED.len() - 1);
            if found > 0 {
                carry.clear();
            } else {
                carry.drain(..carry.len() - keep);
            }
        }
    });
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// `ROUNDS` updates told to `teller`, each awaited at all `subscribers`
/// streams of `addr`: (first, last) delivery after each tell.
async fn measure(
    teller: &Notifier,
    addr: SocketAddr,
    subscribers: usize,
    label: &str,
) -> Vec<(Duration, Duration)> {
    let uris: Vec<String> = (0..ROUNDS).map(|r| format!("test://{label}/{r}")).collect();
    let (tx, mut receipts) = mpsc::unbounded_channel();
    for id in 0..subscribers {
        subscribe(addr, id, &uris, tx.clone()).await;
    }
    for _ in 0..subscribers {
        receipts.recv().await.expect("an acknowledgement");
    }
    // Let the relay (memory, Redis) settle before the first update.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut rounds = Vec::new();
    for uri in &uris {
        let told = Instant::now();
        teller.resource_updated(uri);
        let mut first = None;
        let mut last = told;
        for _ in 0..subscribers {
            let at = tokio::time::timeout(Duration::from_secs(30), receipts.recv())
                .await
                .unwrap_or_else(|_| panic!("{label}: not every subscriber got {uri}"))
                .expect("readers alive");
            first.get_or_insert(at);
            last = last.max(at);
        }
        rounds.push((first.unwrap_or(told) - told, last - told));
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    rounds
}

fn ms(d: Duration) -> String {
    format!("{:.2}", d.as_secs_f64() * 1000.0)
}

fn report(label: &str, subscribers: usize, mut rounds: Vec<(Duration, Duration)>) {
    let mut firsts: Vec<Duration> = rounds.iter().map(|r| r.0).collect();
    firsts.sort();
    rounds.sort_by_key(|r| r.1);
    let median = rounds[rounds.len() / 2].1;
    let worst = rounds[rounds.len() - 1].1;
    println!(
        "| {label} | {subscribers} | {} | {} | {} |",
        ms(firsts[firsts.len() / 2]),
        ms(median),
        ms(worst)
    );
}

fn main() {
    let subscribers: usize = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(1_000);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        println!("| path | subscribers | first delivery, median (ms) | last delivery, median (ms) | last delivery, worst (ms) |");
        println!("|---|---:|---:|---:|---:|");
        let alone = server("fanout-local", subscribers);
        let notifier = alone.notifier();
        let addr = serve(alone).await;
        report("local", subscribers, measure(&notifier, addr, subscribers, "local").await);

        // Clones of a store share it: two servers, one store.
        let shared = MemoryStore::new();
        let teller = server("fanout-teller", 1).store(shared.clone());
        let told = teller.notifier();
        let _teller = serve(teller).await;
        let listener = serve(server("fanout-memory", subscribers).store(shared)).await;
        report("memory", subscribers, measure(&told, listener, subscribers, "memory").await);

        if let Ok(url) = std::env::var("REDIS_URL") {
            let redis = RedisStore::open(&url).expect("REDIS_URL").prefix("fanout-bench:");
            let teller = server("fanout-teller-redis", 1).store(redis.clone());
            let told = teller.notifier();
            let _teller = serve(teller).await;
            let listener = serve(server("fanout-redis", subscribers).store(redis)).await;
            report("redis", subscribers, measure(&told, listener, subscribers, "redis").await);
        }
    });
}
