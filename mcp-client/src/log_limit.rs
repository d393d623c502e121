//! Bounds on what a server may put in the host's log: each forwarded line
//! (its stderr, its `notifications/message`) is cut to [`LOG_LINE_BYTES`],
//! and lines past a token bucket ([`LOG_BURST`] at once, [`LOG_RATE`] a
//! second after that) are counted, not written. The count is logged when
//! logging resumes (at most every [`REPORT_EVERY`], so that a steady flood
//! does not double its own lines) and when the server's log ends.

use std::time::{Duration, Instant};

/// The longest forwarded log line, in bytes; the rest is cut with a note
/// of how much.
pub const LOG_LINE_BYTES: usize = 4096;
/// How many lines a server may log at once before the rate applies: a
/// start-up banner or a stack trace passes whole.
pub const LOG_BURST: u32 = 100;
/// How many lines a second a server may log after its burst: far more
/// than a person reads, and at most 80 KiB/s of host stderr per source.
pub const LOG_RATE: u32 = 20;

/// The shortest time between two counts of dropped lines.
const REPORT_EVERY: Duration = Duration::from_secs(5);

/// One server's token bucket for one log source.
#[derive(Debug)]
pub(crate) struct LogLimiter {
    server: String,
    source: &'static str,
    tokens: f64,
    refilled: Instant,
    dropped: u64,
    reported: Option<Instant>,
}

impl LogLimiter {
    /// A full bucket for `server`'s `source` (`stderr`, `log notification`).
    pub(crate) fn new(server: impl Into<String>, source: &'static str) -> Self {
        LogLimiter {
            server: server.into(),
            source,
            tokens: f64::from(LOG_BURST),
            refilled: Instant::now(),
            dropped: 0,
            reported: None,
        }
    }

    /// Whether the next line may be written. When it may after some were
    /// refused, how many were is logged first.
    pub(crate) fn admit(&mut self) -> bool {
        let now = Instant::now();
        let elapsed = now.duration_since(self.refilled).as_secs_f64();
        self.refilled = now;
        self.tokens = (self.tokens + elapsed * f64::from(LOG_RATE)).min(f64::from(LOG_BURST));
        if self.tokens < 1.0 {
            self.dropped += 1;
            return false;
        }
        self.tokens -= 1.0;
        if self
            .reported
            .is_none_or(|at| now.duration_since(at) >= REPORT_EVERY)
        {
            self.report();
            self.reported = Some(now);
        }
        true
    }

    /// Logs how many lines were refused since the last report, if any.
    fn report(&mut self) {
        if self.dropped > 0 {
            tracing::warn!(
                target: "mcpfn_host::server",
                server = %self.server,
                "server `{}`: {} {} lines dropped (more than {LOG_BURST} at once or {LOG_RATE} a second)",
                self.server,
                self.dropped,
                self.source,
            );
            self.dropped = 0;
        }
    }
}

impl Drop for LogLimiter {
    fn drop(&mut self) {
        self.report();
    }
}

/// `bytes` as text of at most [`LOG_LINE_BYTES`], control characters
/// replaced (no escape sequence reaches a terminal), and a note of how many
/// bytes were cut (`cut` more were never kept).
pub(crate) fn cut_line(bytes: &[u8], cut: usize) -> String {
    let keep = bytes.len().min(LOG_LINE_BYTES);
    let cut = cut + (bytes.len() - keep);
    let text = String::from_utf8_lossy(&bytes[..keep]);
    let mut text = crate::text::excerpt(&text, text.len());
    if cut > 0 {
        text.push_str(&format!("… ({cut} bytes cut)"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_passes_then_lines_are_counted() {
        let mut limiter = LogLimiter::new("x", "stderr");
        let passed = (0..1000).filter(|_| limiter.admit()).count();
        // The burst, plus whatever trickled in while the loop ran.
        assert!((100..=105).contains(&passed), "{passed}");
        assert!(limiter.dropped >= 895);
    }

    #[test]
    fn lines_are_cut_with_a_note() {
        assert_eq!(cut_line(b"short", 0), "short");
        let long = vec![b'a'; LOG_LINE_BYTES + 10];
        let text = cut_line(&long, 5);
        assert!(text.ends_with("… (15 bytes cut)"), "{}", &text[4000..]);
        assert_eq!(cut_line(b"\x1b[31mred", 0), "\u{FFFD}[31mred");
    }
}
