//! everything's MCP App: `stats` computes statistics of a list of numbers,
//! and a host that renders MCP Apps shows them with the HTML app at
//! `ui://everything/stats.html` (`stats.html` beside this file), whose Sort
//! button calls `stats_sort`, a tool visible to the app only.

use mcpfn_runtime::{Resource, ResourceBuilder, ResourceUi, tool};
use schemars::JsonSchema;
use serde::Serialize;

/// The app's URI, which both tools name.
const STATS_APP: &str = "ui://everything/stats.html";

/// The app: its HTML document (self-contained: it loads nothing, so it
/// needs no CSP origins), with a border around it.
pub(crate) fn app() -> Result<Resource, mcpfn_runtime::Error> {
    ResourceBuilder::app(STATS_APP, "stats_app", include_str!("stats.html"))
        .title("Stats")
        .description(
            "The numbers `stats` was called with as bars, and their statistics; its Sort button calls `stats_sort`.",
        )
        .ui(ResourceUi::default().prefers_border(true))
        .build()
}

/// The statistics of a list of numbers.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Stats {
    /// How many numbers there are.
    count: usize,
    /// Their sum.
    sum: f64,
    /// Their mean (none for no numbers).
    mean: Option<f64>,
    /// The smallest (none for no numbers).
    min: Option<f64>,
    /// The largest (none for no numbers).
    max: Option<f64>,
}

/// Count, sum, mean, min and max of a list of numbers; a host that renders
/// MCP Apps shows the numbers as bars beside them.
#[tool(
    read_only,
    idempotent,
    open_world = false,
    ui(resource = "ui://everything/stats.html")
)]
pub(crate) async fn stats(
    /// The numbers
    numbers: Vec<f64>,
) -> Stats {
    let sum: f64 = numbers.iter().sum();
    let count = numbers.len();
    let min = numbers.iter().copied().reduce(f64::min);
    let max = numbers.iter().copied().reduce(f64::max);
    Stats {
        count,
        sum,
        mean: (count > 0).then(|| sum / count as f64),
        min,
        max,
    }
}

/// The numbers, sorted.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Sorted {
    /// In the order asked for.
    numbers: Vec<f64>,
}

/// Sort numbers, for the stats app's Sort button; visible to the app only
/// (hosts do not offer it to the model).
#[tool(
    read_only,
    idempotent,
    open_world = false,
    ui(resource = "ui://everything/stats.html", visibility = "app")
)]
pub(crate) async fn stats_sort(
    /// The numbers
    numbers: Vec<f64>,
    /// Largest first (default: smallest first)
    descending: Option<bool>,
) -> Sorted {
    let mut numbers = numbers;
    numbers.sort_by(f64::total_cmp);
    if descending.unwrap_or(false) {
        numbers.reverse();
    }
    Sorted { numbers }
}
