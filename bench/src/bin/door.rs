//! The in-process door's cost per call (`LocalClient::call`) over calling
//! the `#[tool]` fn directly, for `add`: 1,000,000 calls each on a
//! current-thread runtime, the median of 5 runs, in ns per call.
//!
//! `cargo run --release -p bench --bin door [-- CALLS [door|direct]]`: with
//! `door` or `direct` only that loop runs (once, untimed), for
//! `perf stat -e instructions` to count what a call costs however loaded
//! the machine is.

use mcp_runtime::{LocalClient, Server, tool, tools};
use serde_json::{Map, Value, json};
use std::hint::black_box;
use std::time::Instant;

/// Add two numbers.
#[tool]
async fn add(a: f64, b: f64) -> f64 {
    a + b
}

/// The median of 5 runs of `run(calls)`, in ns per call.
async fn median<F: AsyncFnMut(usize)>(calls: usize, mut run: F) -> f64 {
    let mut runs = Vec::with_capacity(5);
    for _ in 0..5 {
        let started = Instant::now();
        run(calls).await;
        runs.push(started.elapsed().as_nanos() as f64 / calls as f64);
    }
    runs.sort_by(f64::total_cmp);
    runs[2]
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let calls: usize = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(1_000_000);
    // No rate limit: the default (1,000 calls per second) would refuse most.
    let client: LocalClient = match Server::new("bench", "1")
        .tools(tools![add])
        .no_rate_limit()
        .local()
    {
        Ok(client) => client,
        Err(err) => panic!("{err}"),
    };
    let arguments: Map<String, Value> = match json!({"a": 1.0, "b": 2.0}) {
        Value::Object(map) => map,
        _ => unreachable!(),
    };
    match std::env::args().nth(2).as_deref() {
        Some("direct") => {
            for _ in 0..calls {
                black_box(add(black_box(1.0), black_box(2.0)).await);
            }
            return;
        }
        Some("door") => {
            for _ in 0..calls {
                black_box(client.call("add", arguments.clone()).await.ok());
            }
            return;
        }
        Some("clone") => {
            for _ in 0..calls {
                black_box(black_box(&arguments).clone());
            }
            return;
        }
        _ => {}
    }
    let direct = median(calls, async |n| {
        for _ in 0..n {
            black_box(add(black_box(1.0), black_box(2.0)).await);
        }
    })
    .await;
    let arguments_only = median(calls, async |n| {
        for _ in 0..n {
            black_box(black_box(&arguments).clone());
        }
    })
    .await;
    let door = median(calls, async |n| {
        for _ in 0..n {
            let result = client.call("add", arguments.clone()).await;
            assert!(matches!(&result, Ok(r) if !r.is_error), "{result:?}");
            black_box(result.ok());
        }
    })
    .await;
    println!("calls per run: {calls} (median of 5 runs, current-thread runtime)");
    println!("direct add(1.0, 2.0).await: {direct:>8.1} ns/call");
    println!(
        "LocalClient::call(\"add\"):    {door:>8.1} ns/call (the arguments map cloned per call: {arguments_only:.1} ns of it)"
    );
    println!("difference:                 {:>8.1} ns/call", door - direct);
}
