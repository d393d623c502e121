//! Metrics, their samples, and the markdown report.

use std::collections::BTreeMap;
use std::fmt::Write as _;

/// What a row is compared against.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Goal {
    /// No target; reported for context.
    None,
    /// everything ÷ ceiling must be at least this.
    RatioAtLeast(f64, &'static str),
    /// everything ÷ ceiling must be at most this.
    RatioAtMost(f64, &'static str),
    /// everything's own value must be at most this (in the row's unit).
    AtMost(f64, &'static str),
}

/// Everything the benchmark reports, one table row each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Metric {
    /// `add` calls per second, 64 in flight.
    Throughput64,
    /// p50 latency, 64 in flight.
    P50At64,
    /// p99 latency, 64 in flight.
    P99At64,
    /// Server CPU per call, 64 in flight (schedstat).
    CpuAt64,
    /// `add` calls per second, 1 in flight.
    Throughput1,
    /// p50 latency, 1 in flight.
    P50At1,
    /// p99 latency, 1 in flight.
    P99At1,
    /// Server CPU per call, 1 in flight (schedstat).
    CpuAt1,
    /// Spawn → `initialize` response.
    Startup,
    /// First `tools/list` with TOOLS=N.
    ListCold,
    /// Later `tools/list` with TOOLS=N (median of several).
    ListWarm,
    /// Size of that `tools/list` response.
    ListBytes,
    /// Spawn → `initialize` response with TOOLS=N.
    StartupList,
    /// VmHWM after the call runs (no extra tools).
    PeakRss,
    /// VmHWM after the `tools/list` runs with TOOLS=N.
    PeakRssList,
    /// Clean release build.
    BuildTime,
    /// Release binary as built.
    BinarySize,
    /// Release binary after `strip --strip-all`.
    StrippedSize,
    /// Server CPU per call, 64 in flight (utime+stime ticks).
    CpuTicksAt64,
    /// Server CPU per call, 1 in flight (utime+stime ticks).
    CpuTicksAt1,
}

impl Metric {
    /// The row label.
    pub(crate) fn label(self, tools: usize) -> String {
        self.describe(tools).0.trim().to_owned()
    }

    /// Row label, unit, goal.
    fn describe(self, tools: usize) -> (String, &'static str, Goal) {
        use Metric::*;
        let (label, unit, goal) = match self {
            Throughput64 => (
                "`add` throughput, 64 in flight",
                "calls/s",
                Goal::RatioAtLeast(1.0 / 1.5, "≥ 0.67 (1/1.5)"),
            ),
            P50At64 => ("  latency p50, 64 in flight", "µs", Goal::None),
            P99At64 => ("  latency p99, 64 in flight", "µs", Goal::None),
            CpuAt64 => (
                "server CPU per call, 64 in flight",
                "µs",
                Goal::RatioAtMost(2.5, "≤ 2.5"),
            ),
            Throughput1 => ("`add` throughput, 1 in flight", "calls/s", Goal::None),
            P50At1 => ("  latency p50, 1 in flight", "µs", Goal::None),
            P99At1 => ("  latency p99, 1 in flight", "µs", Goal::None),
            CpuAt1 => (
                "server CPU per call, 1 in flight",
                "µs",
                Goal::RatioAtMost(2.5, "≤ 2.5"),
            ),
            Startup => (
                "startup: spawn → `initialize` response",
                "ms",
                Goal::RatioAtMost(1.3, "≤ 1.3"),
            ),
            ListCold => (
                "`tools/list`, TOOLS=N, first request (cold)",
                "ms",
                Goal::RatioAtMost(1.3, "≤ 1.3"),
            ),
            ListWarm => (
                "`tools/list`, TOOLS=N, later requests (warm)",
                "ms",
                Goal::RatioAtMost(1.3, "≤ 1.3"),
            ),
            ListBytes => ("  `tools/list` response size", "KiB", Goal::None),
            StartupList => ("startup with TOOLS=N", "ms", Goal::None),
            PeakRss => (
                "peak RSS (VmHWM) after the call runs",
                "MiB",
                Goal::AtMost(3.0, "≤ 3 MiB"),
            ),
            PeakRssList => (
                "peak RSS (VmHWM) with TOOLS=N, after `tools/list`",
                "MiB",
                Goal::None,
            ),
            BuildTime => (
                "clean release build (fresh target dir)",
                "s",
                Goal::AtMost(45.0, "≤ 45 s"),
            ),
            BinarySize => ("release binary (profile strips symbols)", "MiB", Goal::None),
            StrippedSize => (
                "release binary after `strip --strip-all`",
                "MiB",
                Goal::AtMost(1.5, "≤ 1.5 MiB"),
            ),
            CpuTicksAt64 => (
                "server CPU per call, 64 in flight, from utime+stime ticks",
                "µs",
                Goal::None,
            ),
            CpuTicksAt1 => (
                "server CPU per call, 1 in flight, from utime+stime ticks",
                "µs",
                Goal::None,
            ),
        };
        (
            label.replace("TOOLS=N", &format!("TOOLS={tools}")),
            unit,
            goal,
        )
    }
}

/// Samples per metric, for one server.
pub(crate) type Samples = BTreeMap<Metric, Vec<f64>>;

/// Adds a sample.
pub(crate) fn push(samples: &mut Samples, metric: Metric, value: f64) {
    samples.entry(metric).or_default().push(value);
}

/// The median of `values` (mean of the middle two for an even count).
pub(crate) fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    if n == 0 {
        f64::NAN
    } else if !n.is_multiple_of(2) {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

/// A number with sensible precision for a table.
pub(crate) fn number(value: f64) -> String {
    if !value.is_finite() {
        "–".to_owned()
    } else if value.abs() >= 1000.0 {
        let whole = value.round() as i64;
        let digits = whole.abs().to_string();
        let mut grouped = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                grouped.push(',');
            }
            grouped.push(c);
        }
        if whole < 0 {
            format!("-{grouped}")
        } else {
            grouped
        }
    } else if value.abs() >= 100.0 {
        format!("{value:.0}")
    } else if value.abs() >= 10.0 {
        format!("{value:.1}")
    } else {
        format!("{value:.2}")
    }
}

/// One evaluated row.
#[derive(Debug)]
pub(crate) struct Row {
    /// The metric.
    pub(crate) metric: Metric,
    /// Whether it has a goal and met it (`None` without a goal).
    pub(crate) met: Option<bool>,
}

/// The results table, and each row's verdict.
pub(crate) fn table(everything: &Samples, ceiling: &Samples, tools: usize) -> (String, Vec<Row>) {
    let mut out = String::new();
    let mut rows = Vec::new();
    out.push_str(
        "| metric | unit | everything | ceiling | everything ÷ ceiling | target | met? |\n",
    );
    out.push_str("|---|---|---:|---:|---:|---|---|\n");
    for (&metric, values) in everything {
        let (label, unit, goal) = metric.describe(tools);
        let e = median(values);
        let c = ceiling.get(&metric).map_or(f64::NAN, |v| median(v));
        let ratio = e / c;
        let (target, met) = match goal {
            Goal::None => (String::new(), None),
            Goal::RatioAtLeast(min, text) => (format!("ratio {text}"), Some(ratio >= min)),
            Goal::RatioAtMost(max, text) => (format!("ratio {text}"), Some(ratio <= max)),
            Goal::AtMost(max, text) => (text.to_owned(), Some(e <= max)),
        };
        let verdict = match met {
            None => "",
            Some(true) => "yes",
            Some(false) => "**no**",
        };
        let _ = writeln!(
            out,
            "| {label} | {unit} | {} | {} | {} | {target} | {verdict} |",
            number(e),
            number(c),
            if ratio.is_finite() {
                format!("{ratio:.2}")
            } else {
                "–".to_owned()
            }
        );
        rows.push(Row { metric, met });
    }
    (out, rows)
}

/// Per-repetition values of the repeated metrics, to show the spread.
pub(crate) fn spread(everything: &Samples, ceiling: &Samples, tools: usize) -> String {
    let mut out = String::new();
    out.push_str("| metric | server | per repetition (in run order) |\n|---|---|---|\n");
    for (&metric, values) in everything {
        if values.len() < 2 {
            continue;
        }
        let (label, unit, _) = metric.describe(tools);
        for (name, samples) in [
            ("everything", Some(values)),
            ("ceiling", ceiling.get(&metric)),
        ] {
            let Some(samples) = samples else { continue };
            let list: Vec<String> = samples.iter().map(|&v| number(v)).collect();
            let _ = writeln!(
                out,
                "| {} ({unit}) | {name} | {} |",
                label.trim(),
                list.join(", ")
            );
        }
    }
    out
}
