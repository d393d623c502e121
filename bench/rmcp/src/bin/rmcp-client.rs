//! Load from rmcp's client: the same pattern as the workspace's
//! `bench/src/bin/client-load.rs`, `CALLS` `add` calls with `INFLIGHT` in
//! flight on one connection, every answer checked, then one JSON line on
//! stdout (`rss_kib`: this process's peak RSS, `VmHWM`).
//!
//! ```text
//! rmcp-client (--stdio SERVER | --http URL) (auto|legacy) CALLS INFLIGHT
//! ```
//!
//! `auto` probes `server/discover` at 2026-07-28 and falls back to
//! `initialize`, `legacy` sends `initialize` only.

use rmcp::RoleClient;
use rmcp::model::{CallToolRequestParams, ProtocolVersion};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RunningService};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [kind, target, mode, calls, inflight] = &args[..] else {
        panic!("usage: rmcp-client (--stdio SERVER | --http URL) (auto|legacy) CALLS INFLIGHT");
    };
    let calls: usize = calls.parse().expect("CALLS");
    let inflight: usize = inflight.parse().expect("INFLIGHT");
    let lifecycle = match mode.as_str() {
        "legacy" => ClientLifecycleMode::Initialize,
        "auto" => ClientLifecycleMode::Auto {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            legacy_version: None,
        },
        other => panic!("unknown mode {other}"),
    };
    // One thread, as the other clients in the comparison run.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let service: RunningService<RoleClient, ()> = if kind == "--stdio" {
            let transport = TokioChildProcess::new(tokio::process::Command::new(target))
                .expect("the server starts");
            ().serve_with_lifecycle(transport, lifecycle)
                .await
                .expect("connects")
        } else {
            let transport = StreamableHttpClientTransport::from_uri(target.as_str());
            ().serve_with_lifecycle(transport, lifecycle)
                .await
                .expect("connects")
        };
        load(service, calls, inflight).await;
    });
}

async fn load(service: RunningService<RoleClient, ()>, calls: usize, inflight: usize) {
    let version = service
        .peer()
        .peer_info()
        .map(|info| info.protocol_version.to_string())
        .unwrap_or_default();
    service.list_all_tools().await.expect("tools/list");
    let next = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let workers: Vec<_> = (0..inflight)
        .map(|_| {
            let peer = service.peer().clone();
            let next = Arc::clone(&next);
            tokio::spawn(async move {
                let mut latencies = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= calls {
                        return latencies;
                    }
                    let arguments = serde_json::json!({"a": i, "b": 1});
                    let params = CallToolRequestParams::new("add")
                        .with_arguments(arguments.as_object().cloned().unwrap_or_default());
                    let at = Instant::now();
                    let result = peer.call_tool(params).await.expect("tools/call add");
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
        serde_json::json!({
            "calls": calls,
            "secs": secs,
            "calls_per_s": calls as f64 / secs,
            "p50_us": at(0.50),
            "p99_us": at(0.99),
            "rss_kib": rss_kib,
            "version": version,
        })
    );
    let _ = service.cancel().await;
}
