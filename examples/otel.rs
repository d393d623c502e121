//! Run with: cargo run --example otel --features otel (stdio), or over HTTP:
//! cargo run --example otel --features otel,http -- --http 127.0.0.1:8931
//!
//! Each tool call's `mcp.tool_call` span exported through OpenTelemetry,
//! linked to the caller's trace (`params._meta.traceparent` in 2026-07-28
//! requests, or the HTTP `traceparent` header). The exporter prints every
//! finished span as one JSON line on stderr (stdout carries the protocol
//! over stdio); swap it for `opentelemetry-otlp`'s to send spans to a
//! collector (see docs/deployment.md, "Tracing and OpenTelemetry"). Serves stdio,
//! or Streamable HTTP with `--http 127.0.0.1:8931` (feature `http` too).

use mcpfn_runtime::{Server, ToolError, tool, tools};
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{SdkTracerProvider, SpanData, SpanExporter};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value, json};
use std::io::Write;
use tracing_subscriber::Layer;
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::layer::SubscriberExt;

/// The result of `add`.
#[derive(Serialize, JsonSchema)]
struct Sum {
    /// a + b
    sum: f64,
}

/// Add two numbers.
#[tool(read_only, idempotent)]
async fn add(
    /// First addend
    a: f64,
    /// Second addend
    b: f64,
) -> Sum {
    Sum { sum: a + b }
}

/// Echo the text back unchanged.
#[tool(read_only, idempotent)]
async fn echo(
    /// Text to echo
    text: String,
) -> String {
    text
}

/// Always fails: its span records `outcome = "isError"`.
#[tool(read_only)]
async fn fail(
    /// Why it should fail
    reason: Option<String>,
) -> Result<String, ToolError> {
    Err(ToolError::new(
        reason.unwrap_or_else(|| "this tool always fails".to_owned()),
    ))
}

/// Prints each finished span as one JSON line on stderr. (The
/// `opentelemetry-stdout` exporter can only print to stdout, which a stdio
/// server keeps for protocol frames.)
#[derive(Debug)]
struct StderrExporter;

impl SpanExporter for StderrExporter {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        let mut out = String::new();
        for span in batch {
            let attributes: Map<String, Value> = span
                .attributes
                .iter()
                .map(|kv| (kv.key.to_string(), json!(kv.value.to_string())))
                .collect();
            let line = json!({
                "name": span.name,
                "trace_id": span.span_context.trace_id().to_string(),
                "span_id": span.span_context.span_id().to_string(),
                "parent_span_id": span.parent_span_id.to_string(),
                "parent_is_remote": span.parent_span_is_remote,
                "kind": format!("{:?}", span.span_kind),
                "status": format!("{:?}", span.status),
                "attributes": attributes,
            });
            out.push_str(&line.to_string());
            out.push('\n');
        }
        // One write per batch, so lines never interleave with other output.
        let _ = std::io::stderr().lock().write_all(out.as_bytes());
        Ok(())
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    // A simple (unbatched) processor exports each span as it ends, so the
    // example's output follows the calls; a service would batch.
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(StderrExporter)
        .build();
    let tracer = provider.tracer("mcp-runtime-otel-example");
    // Only the runtime's call spans go to OpenTelemetry; ordinary log lines
    // (including the HTTP address) go to stderr as text.
    let calls = Targets::new().with_target("mcpfn_runtime::call", LevelFilter::INFO);
    let subscriber = tracing_subscriber::registry()
        .with(
            tracing_opentelemetry::layer()
                .with_tracer(tracer)
                .with_filter(calls),
        )
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_ansi(false)
                .with_filter(LevelFilter::INFO),
        );
    // Installed first, so the runtime keeps it instead of its own logger.
    tracing::subscriber::set_global_default(subscriber).map_err(std::io::Error::other)?;
    let server = Server::new("otel", env!("CARGO_PKG_VERSION"))
        .no_rate_limit()
        .tools(tools![add, echo, fail]);
    let served = mcpfn_runtime::cli::run(server).await;
    // Flushes what is still buffered (nothing, with the simple processor).
    let _ = provider.shutdown();
    served
}
