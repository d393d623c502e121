//! Load from mcp-host's `McpClient`: `--calls` (20,000) `add` calls with
//! `--inflight` (64) in flight on one connection, every answer checked, then
//! one JSON line on stdout: `{"calls","secs","calls_per_s","p50_us","p99_us",
//! "rss_kib","version"}` (`rss_kib`: this process's peak RSS, `VmHWM`).
//!
//! ```text
//! client-load (--stdio SERVER | --http URL) [--mode auto|legacy|modern]
//!     [--calls N] [--inflight N]
//! ```
//!
//! The peers in `bench/clients/` (TypeScript and Python SDK clients) follow
//! the same pattern and print the same line; `clients` runs them all.

use mcpfn_client::{CallOptions, ClientOptions, McpClient, Mode};
use mcpfn_client::{Endpoint, ServerConfig};
use serde_json::json;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

fn main() {
    let mut args = std::env::args().skip(1);
    let mut transport = None;
    let mut mode = Mode::Auto;
    let mut calls = 20_000usize;
    let mut inflight = 64usize;
    while let Some(arg) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| panic!("{arg} needs a value"));
        match arg.as_str() {
            "--stdio" => {
                transport = Some(Endpoint::Stdio {
                    command: value(),
                    args: Vec::new(),
                    // This process's environment, as the peers pass theirs
                    // (`clients` sets `RATE_LIMIT=off` there).
                    env: std::env::vars().collect(),
                    cwd: None,
                    inherit_env: false,
                });
            }
            "--http" => {
                transport = Some(Endpoint::Http {
                    url: value(),
                    headers: BTreeMap::new(),
                    declared_sse: false,
                });
            }
            "--mode" => {
                mode = match value().as_str() {
                    "auto" => Mode::Auto,
                    "legacy" => Mode::Legacy,
                    "modern" => Mode::Modern,
                    other => panic!("unknown mode {other}"),
                };
            }
            "--calls" => calls = value().parse().expect("--calls N"),
            "--inflight" => inflight = value().parse().expect("--inflight N"),
            other => panic!("unknown argument {other}"),
        }
    }
    let transport = transport.expect("--stdio SERVER or --http URL");
    let config = ServerConfig {
        name: "everything".into(),
        transport,
        trusted: true,
    };
    // One thread, as the Node.js and asyncio peers run: the comparison is of
    // the clients' cost per call, not of how many cores each can use.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(load(config, mode, calls, inflight));
}

async fn load(config: ServerConfig, mode: Mode, calls: usize, inflight: usize) {
    let client = McpClient::connect_with(config, ClientOptions::mode(mode))
        .await
        .expect("connects");
    let version = client.protocol_version().await;
    client.list_tools().await.expect("tools/list");
    let next = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let workers: Vec<_> = (0..inflight)
        .map(|_| {
            let client = client.clone();
            let next = Arc::clone(&next);
            tokio::spawn(async move {
                let mut latencies = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= calls {
                        return latencies;
                    }
                    let arguments = json!({"a": i, "b": 1});
                    let at = Instant::now();
                    let result = client
                        .call_tool(
                            "add",
                            arguments.as_object().cloned(),
                            CallOptions::default(),
                        )
                        .await
                        .expect("tools/call add");
                    latencies.push(at.elapsed());
                    let sum = result
                        .structured_content
                        .as_ref()
                        .and_then(|s| s["sum"].as_f64());
                    assert_eq!(sum, Some(i as f64 + 1.0), "call {i}: {result:?}");
                }
            })
        })
        .collect();
    let mut latencies: Vec<Duration> = Vec::with_capacity(calls);
    for worker in workers {
        latencies.extend(worker.await.expect("a worker"));
    }
    let secs = started.elapsed().as_secs_f64();
    client.close().await;
    latencies.sort_unstable();
    let at = |q: f64| {
        latencies
            .get(((latencies.len() as f64 * q) as usize).min(latencies.len() - 1))
            .map_or(0.0, |d| d.as_secs_f64() * 1e6)
    };
    let rss_kib = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .unwrap_or(0);
    println!(
        "{}",
        json!({
            "calls": calls,
            "secs": secs,
            "calls_per_s": calls as f64 / secs,
            "p50_us": at(0.50),
            "p99_us": at(0.99),
            "rss_kib": rss_kib,
            "version": version.to_string(),
        })
    );
}
