//! What the program logs on stderr: `--log-level LEVEL` (or `--quiet`,
//! which is `--log-level warn`) for every target, else `RUST_LOG`, else
//! `info` (each tool call, each restart, each server's stderr line), or
//! `warn` at a terminal, where `--stream` shows the calls instead.
//!
//! `RUST_LOG` is read as `level` and `target=level` directives,
//! comma-separated (`warn`, `mcpfn_host=debug,warn`): tracing-subscriber's
//! `Targets`, as mcp-runtime's stdio servers read it, not `EnvFilter`,
//! whose span and field selectors would bring a regex engine into the
//! build for filters an operator of this program does not need. A value
//! this syntax does not take is reported in one line and the default used.

use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::layer::SubscriberExt;

/// The filter when neither a flag nor `RUST_LOG` says otherwise, away
/// from a terminal.
pub(crate) const DEFAULT_FILTER: LevelFilter = LevelFilter::INFO;

/// The levels `--log-level` takes, by name.
pub(crate) const LEVELS: [(&str, LevelFilter); 6] = [
    ("off", LevelFilter::OFF),
    ("error", LevelFilter::ERROR),
    ("warn", LevelFilter::WARN),
    ("info", LevelFilter::INFO),
    ("debug", LevelFilter::DEBUG),
    ("trace", LevelFilter::TRACE),
];

/// The filter for `level` (the flags') or `rust_log` (the variable's
/// value), else `fallback`, and a warning when `rust_log` was given but
/// cannot be used.
fn filter(
    level: Option<LevelFilter>,
    rust_log: Option<String>,
    fallback: LevelFilter,
) -> (Targets, Option<String>) {
    let default = || Targets::new().with_default(fallback);
    if let Some(level) = level {
        return (Targets::new().with_default(level), None);
    }
    match rust_log.filter(|value| !value.trim().is_empty()) {
        None => (default(), None),
        Some(value) => match parse(&value) {
            Ok(targets) => (targets, None),
            Err(problem) => (
                default(),
                Some(format!(
                    "RUST_LOG={value:?} is not a log filter this program reads ({problem}); logging at {fallback}. Use `level` or `target=level` directives, e.g. RUST_LOG=warn or RUST_LOG=mcpfn_host=debug,warn"
                )),
            ),
        },
    }
}

/// `level` or `target=level` directives, comma-separated; the span and
/// field selectors of `EnvFilter` are refused by name rather than ignored.
fn parse(value: &str) -> Result<Targets, String> {
    for directive in value.split(',') {
        let target = directive.split('=').next().unwrap_or_default().trim();
        if let Some(bad) = target
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | ':' | '-')))
        {
            return Err(format!(
                "`{bad}` in `{}`: no span or field filters",
                directive.trim()
            ));
        }
    }
    value
        .parse()
        .map_err(|e: tracing_subscriber::filter::ParseError| e.to_string())
}

/// Installs the program's subscriber: lines without timestamps on stderr,
/// filtered by [`filter`].
pub(crate) fn init(level: Option<LevelFilter>, fallback: LevelFilter) {
    let rust_log = std::env::var("RUST_LOG").ok();
    let (targets, problem) = filter(level, rust_log, fallback);
    let subscriber = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(LevelFilter::TRACE)
        .without_time()
        .finish()
        .with(targets);
    if tracing::subscriber::set_global_default(subscriber).is_ok()
        && let Some(problem) = problem
    {
        eprintln!("mcp-host: {problem}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracing::Level;

    fn allows(targets: &Targets, target: &str, level: Level) -> bool {
        targets.would_enable(target, &level)
    }

    #[test]
    fn a_flag_wins_over_rust_log_which_wins_over_info() {
        let (quiet, problem) = filter(
            Some(LevelFilter::WARN),
            Some("debug".into()),
            DEFAULT_FILTER,
        );
        assert!(problem.is_none());
        assert!(!allows(&quiet, "mcpfn_host::agent::calls", Level::INFO));
        assert!(allows(&quiet, "mcpfn_host::agent::calls", Level::WARN));

        let (env, _) = filter(
            None,
            Some("mcpfn_client=debug,warn".into()),
            LevelFilter::WARN,
        );
        assert!(allows(&env, "mcpfn_client::connection", Level::DEBUG));
        assert!(!allows(&env, "mcpfn_host::agent::calls", Level::INFO));

        for unset in [None, Some(String::new()), Some("  ".into())] {
            let (default, problem) = filter(None, unset, DEFAULT_FILTER);
            assert!(problem.is_none());
            assert!(allows(&default, "mcpfn_host::server", Level::INFO));
            assert!(!allows(&default, "mcpfn_host::server", Level::DEBUG));
        }
        // At a terminal the fallback is warn; RUST_LOG still wins over it.
        let (terminal, _) = filter(None, None, LevelFilter::WARN);
        assert!(!allows(&terminal, "mcpfn_host::server", Level::INFO));
        assert!(allows(&terminal, "mcpfn_host::server", Level::WARN));
        let (asked, _) = filter(None, Some("info".into()), LevelFilter::WARN);
        assert!(allows(&asked, "mcpfn_host::server", Level::INFO));
    }

    #[test]
    fn a_rust_log_this_syntax_does_not_take_is_reported_and_info_used() {
        for value in ["mcpfn_host[call]=debug", "mcpfn_host=loud"] {
            let (targets, problem) = filter(None, Some(value.into()), DEFAULT_FILTER);
            let problem = problem.expect(value);
            assert!(
                problem.starts_with(&format!("RUST_LOG={value:?} is not a log filter")),
                "{problem}"
            );
            assert!(allows(&targets, "mcpfn_host", Level::INFO));
            assert!(!allows(&targets, "mcpfn_host", Level::DEBUG));
        }
    }
}
