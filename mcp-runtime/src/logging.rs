//! Logging to stderr: stdout belongs to the protocol.

use tracing::Level;

/// Installs a stderr `tracing` subscriber unless one is already set.
pub(crate) fn init_stderr() {
    let level = std::env::var("MCP_LOG")
        .ok()
        .and_then(|text| text.parse::<Level>().ok())
        .unwrap_or(Level::WARN);
    let subscriber = StderrSubscriber { level };
    // Err means the program installed its own subscriber, which wins.
    let _ = tracing::subscriber::set_global_default(subscriber);
}

/// A minimal subscriber: one line per event on stderr, no spans.
struct StderrSubscriber {
    level: Level,
}

impl tracing::Subscriber for StderrSubscriber {
    fn enabled(&self, metadata: &tracing::Metadata<'_>) -> bool {
        *metadata.level() <= self.level
    }

    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }

    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}

    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}

    fn event(&self, event: &tracing::Event<'_>) {
        let mut line = format!(
            "{} {}:",
            event.metadata().level(),
            event.metadata().target()
        );
        event.record(&mut FieldWriter(&mut line));
        line.push('\n');
        use std::io::Write;
        // Nowhere to report a failed log write.
        let _ = std::io::stderr().lock().write_all(line.as_bytes());
    }

    fn enter(&self, _: &tracing::span::Id) {}

    fn exit(&self, _: &tracing::span::Id) {}
}

struct FieldWriter<'a>(&'a mut String);

impl tracing::field::Visit for FieldWriter<'_> {
    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        use std::fmt::Write;
        let _ = write!(self.0, " {}={value:?}", field.name());
    }

    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        use std::fmt::Write;
        if field.name() == "message" {
            let _ = write!(self.0, " {value:?}");
        } else {
            let _ = write!(self.0, " {}={value:?}", field.name());
        }
    }
}
