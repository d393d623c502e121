//! The HTTP report's figures: the metrics, their goals, and the markdown table
//! of medians and ratios.

use super::{Samples, Server};
use crate::report::{median, number};
use std::fmt::Write as _;

/// The HTTP metrics, one table row each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Metric {
    Throughput,
    P50,
    P99,
    Cpu,
    CpuTicks,
    PeakRss,
}

/// What a row must show for `everything`.
#[derive(Debug, Clone, Copy)]
pub(super) enum Goal {
    /// Reported for context only.
    None,
    /// Higher is better: ÷ ceiling ≥ 1/1.5 and ÷ rmcp > 1.
    Higher,
    /// Lower is better: ÷ ceiling ≤ 1.5 and ÷ rmcp < 1.
    Lower,
}

impl Metric {
    const ALL: [Metric; 6] = [
        Metric::Throughput,
        Metric::P50,
        Metric::P99,
        Metric::Cpu,
        Metric::CpuTicks,
        Metric::PeakRss,
    ];

    /// Row label, unit, goal.
    pub(super) fn describe(self) -> (&'static str, &'static str, Goal) {
        match self {
            Metric::Throughput => ("`add` throughput, 64 connections", "calls/s", Goal::Higher),
            Metric::P50 => ("  latency p50", "µs", Goal::Lower),
            Metric::P99 => ("  latency p99", "µs", Goal::Lower),
            Metric::Cpu => ("server CPU per call", "µs", Goal::Lower),
            Metric::CpuTicks => (
                "server CPU per call, from utime+stime ticks",
                "µs",
                Goal::None,
            ),
            Metric::PeakRss => ("peak RSS (VmHWM) after the run", "MiB", Goal::Lower),
        }
    }
}

pub(super) fn push(samples: &mut Samples, metric: Metric, value: f64) {
    samples.entry(metric).or_default().push(value);
}

/// The median of a metric, NaN when not measured.
pub(super) fn cell(samples: &Samples, metric: Metric) -> f64 {
    samples.get(&metric).map_or(f64::NAN, |v| median(v))
}

/// A ratio for the table.
pub(super) fn ratio(value: f64) -> String {
    if value.is_finite() {
        format!("{value:.2}")
    } else {
        "–".to_owned()
    }
}

/// The HTTP table, and the labels of the rows whose targets were missed.
pub(super) fn table(
    e: &Samples,
    c: &Samples,
    r: &Samples,
    with_everything: bool,
) -> (String, Vec<String>) {
    let mut out = String::from(
        "| metric | unit | everything | http-ceiling | rmcp | everything ÷ ceiling | everything ÷ rmcp | rmcp ÷ ceiling | target | met? |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---|---|\n",
    );
    let mut unmet = Vec::new();
    for metric in Metric::ALL {
        let (label, unit, goal) = metric.describe();
        let (ev, cv, rv) = (cell(e, metric), cell(c, metric), cell(r, metric));
        let (vs_ceiling, vs_rmcp) = (ev / cv, ev / rv);
        let (target, met) = match goal {
            Goal::None => ("", None),
            Goal::Higher => (
                "÷ ceiling ≥ 0.67 (1/1.5), ÷ rmcp > 1",
                Some(vs_ceiling >= 1.0 / 1.5 && vs_rmcp > 1.0),
            ),
            Goal::Lower => (
                "÷ ceiling ≤ 1.5, ÷ rmcp < 1",
                Some(vs_ceiling <= 1.5 && vs_rmcp < 1.0),
            ),
        };
        let verdict = match (met, with_everything) {
            (None, _) => "",
            (Some(_), false) => "not measured",
            (Some(true), true) => "yes",
            (Some(false), true) => {
                unmet.push(label.trim().to_owned());
                "**no**"
            }
        };
        let _ = writeln!(
            out,
            "| {label} | {unit} | {} | {} | {} | {} | {} | {} | {target} | {verdict} |",
            number(ev),
            number(cv),
            number(rv),
            ratio(vs_ceiling),
            ratio(vs_rmcp),
            ratio(rv / cv),
        );
    }
    (out, unmet)
}

/// Per-repetition values, to show the spread.
pub(super) fn spread(servers: &[&Server], samples: &[Samples]) -> String {
    let mut out =
        String::from("| metric | server | per repetition (in run order) |\n|---|---|---|\n");
    for metric in Metric::ALL {
        let (label, unit, _) = metric.describe();
        for (server, samples) in servers.iter().zip(samples) {
            let Some(values) = samples.get(&metric) else {
                continue;
            };
            let list: Vec<String> = values.iter().map(|&v| number(v)).collect();
            let _ = writeln!(
                out,
                "| {} ({unit}) | {} | {} |",
                label.trim(),
                server.label,
                list.join(", ")
            );
        }
    }
    out
}
