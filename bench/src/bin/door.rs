//! The in-process door's cost per call (`LocalClient::call`) and the host's
//! in-process tool path (`mcpfn_host::catalog::Catalog::call` on a
//! `LocalSource`, what a host built on mcp-host runs for a model's call of
//! one of its own `#[tool]` fns) over calling the fn directly, for `add`:
//! 1,000,000 calls each on a current-thread runtime, the median of 7 runs
//! (the modes interleaved), in ns per call.
//!
//! `cargo run --release -p bench --bin door [-- CALLS [door|catalog|direct|clone]]`:
//! with a mode only that loop runs (once, untimed), for
//! `perf stat -e instructions` to count what a call costs however loaded
//! the machine is.

use mcpfn_host::catalog::{Catalog, CatalogOptions, LocalSource, ToolSource};
use mcpfn_runtime::{LocalClient, Server, tool, tools};
use serde_json::{Map, Value, json};
use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

/// Add two numbers.
#[tool]
async fn add(a: f64, b: f64) -> f64 {
    a + b
}

/// Runs of each mode; each run times all `calls` of one mode.
const RUNS: usize = 7;

/// What one loop calls.
#[derive(Clone, Copy, Debug)]
enum Mode {
    /// `add(1.0, 2.0).await`.
    Direct,
    /// Only the caller's clone of the arguments map.
    Clone,
    /// `LocalClient::call`.
    Door,
    /// `Catalog::call` on a `LocalSource`.
    Catalog,
}

/// The things a loop calls.
#[derive(Debug)]
struct Subjects {
    client: LocalClient,
    catalog: Catalog,
    arguments: Map<String, Value>,
    input: Value,
}

impl Subjects {
    /// `calls` calls of `mode`, every result checked.
    async fn run(&self, mode: Mode, calls: usize) {
        match mode {
            Mode::Direct => {
                for _ in 0..calls {
                    black_box(add(black_box(1.0), black_box(2.0)).await);
                }
            }
            Mode::Clone => {
                for _ in 0..calls {
                    black_box(black_box(&self.arguments).clone());
                }
            }
            Mode::Door => {
                for _ in 0..calls {
                    let result = self.client.call("add", self.arguments.clone()).await;
                    assert!(matches!(&result, Ok(r) if !r.is_error), "{result:?}");
                    black_box(result.ok());
                }
            }
            Mode::Catalog => {
                for _ in 0..calls {
                    let result = self.catalog.call("add", self.input.clone()).await;
                    assert!(!result.is_error, "{result:?}");
                    black_box(result);
                }
            }
        }
    }
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
    // The same server behind the catalog: one source, so `add` keeps its
    // name; the input is a `Value`, as a model's `tool_use` input arrives.
    let sources: Vec<Arc<dyn ToolSource>> =
        vec![Arc::new(LocalSource::new("calc", client.clone()))];
    let catalog = match Catalog::from_sources(sources, CatalogOptions::default()).await {
        Ok(catalog) => catalog,
        Err(err) => panic!("{err}"),
    };
    let input = Value::Object(arguments.clone());
    let subjects = Subjects {
        client,
        catalog,
        arguments,
        input,
    };
    let modes = [Mode::Direct, Mode::Clone, Mode::Door, Mode::Catalog];
    let only = match std::env::args().nth(2).as_deref() {
        None => None,
        Some("direct") => Some(Mode::Direct),
        Some("clone") => Some(Mode::Clone),
        Some("door") => Some(Mode::Door),
        Some("catalog") => Some(Mode::Catalog),
        Some(other) => panic!("unknown mode {other} (direct, clone, door, catalog)"),
    };
    if let Some(mode) = only {
        subjects.run(mode, calls).await;
        return;
    }
    // Interleaved, the order rotated each round: on a shared machine the
    // load drifts, and a mode measured only at its end would carry it.
    let mut samples: [Vec<f64>; 4] = Default::default();
    for round in 0..RUNS {
        for k in 0..modes.len() {
            let index = (k + round) % modes.len();
            let started = Instant::now();
            subjects.run(modes[index], calls).await;
            samples[index].push(started.elapsed().as_nanos() as f64 / calls as f64);
        }
    }
    let [direct, arguments_only, door, catalog_ns] = samples.map(|mut runs| {
        runs.sort_by(f64::total_cmp);
        runs[runs.len() / 2]
    });
    println!("calls per run: {calls} (median of {RUNS} interleaved runs, current-thread runtime)");
    println!("direct add(1.0, 2.0).await: {direct:>8.1} ns/call");
    println!(
        "LocalClient::call(\"add\"):    {door:>8.1} ns/call (the arguments map cloned per call: {arguments_only:.1} ns of it)"
    );
    println!("difference:                 {:>8.1} ns/call", door - direct);
    println!(
        "Catalog::call(\"add\") on a LocalSource: {catalog_ns:>8.1} ns/call (the input Value cloned per call, as above)"
    );
    println!(
        "catalog over direct:        {:>8.1} ns/call ({:.0}× the direct call); over LocalClient::call: {:.1} ns/call ({:.2}×)",
        catalog_ns - direct,
        catalog_ns / direct,
        catalog_ns - door,
        catalog_ns / door
    );
}
