//! What a tool call records about itself, the one place that observes
//! calls: its `tracing` span (`mcp.tool_call`, linked to the caller's W3C
//! trace context) and its debug line, and how it ended ([`Outcome`]).

use crate::outcome::ToolOutcome;
use crate::protocol::ProtocolVersion;
use crate::protocol::trace_context::TraceContext;
use serde_json::value::RawValue;
use std::time::{Duration, Instant};
use tracing::Span;
use tracing::field::{Empty, display};

/// The target of the per-call log lines and spans, kept from before this
/// module moved: users filter on it (`MCP_LOG=mcpfn_runtime::call=debug`).
pub(super) const LOG_TARGET: &str = "mcpfn_runtime::call";

/// How a call ended, as its span's `outcome` field says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// A result.
    Ok,
    /// A result with `isError: true` (the tool's error, a panic, a refusal
    /// by the rate or pending limit, a busy server).
    IsError,
    /// A JSON-RPC error response (a spent `requestState`, a missing client
    /// capability).
    Error,
    /// Cancelled by the client, or its client went away: nothing was sent.
    Cancelled,
    /// The call ran past its timeout (answered with `isError: true`).
    Timeout,
    /// 2026-07-28: an `input_required` result (the tool asked the user).
    InputRequired,
}

impl Outcome {
    fn as_str(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::IsError => "isError",
            Outcome::Error => "error",
            Outcome::Cancelled => "cancelled",
            Outcome::Timeout => "timeout",
            Outcome::InputRequired => "inputRequired",
        }
    }

    pub(crate) fn of(outcome: &ToolOutcome) -> Outcome {
        match outcome {
            ToolOutcome::Error(_) => Outcome::IsError,
            ToolOutcome::Protocol(_) => Outcome::Error,
            _ => Outcome::Ok,
        }
    }
}

/// The `tracing` span of one tool call (`mcp.tool_call`, target
/// [`LOG_TARGET`], level INFO), entered while the tool runs, and the call's
/// debug line. With no subscriber interested in either, opening it is a
/// cached callsite check and it reads no clock. Dropped before it was
/// closed (the call's task was aborted), it records `cancelled`.
pub(crate) struct CallSpan {
    span: Span,
    /// When the call started, until it is closed; read only when the span
    /// or the debug line will use it (else `None` from the start, and
    /// closing costs a branch).
    started: Option<Instant>,
}

impl CallSpan {
    /// Opens the span of call `id` to `tool` under `version`, a child of
    /// the caller's trace context when `trace` finds one (asked only when
    /// the span is enabled).
    pub(crate) fn open(
        tool: &str,
        id: &RawValue,
        version: ProtocolVersion,
        trace: impl FnOnce() -> Option<TraceContext>,
    ) -> CallSpan {
        let span = tracing::info_span!(
            target: LOG_TARGET,
            "mcp.tool_call",
            otel.kind = "server",
            otel.status_code = Empty,
            mcp.method.name = crate::protocol::model::method::TOOLS_CALL,
            gen_ai.tool.name = tool,
            jsonrpc.request.id = id.get(),
            mcp.protocol.version = version.as_str(),
            mcp.era = if version.is_modern() { "stateless" } else { "legacy" },
            outcome = Empty,
            duration_ms = Empty,
            traceparent = Empty,
            tracestate = Empty,
        );
        let traced = !span.is_disabled();
        if traced && let Some(trace) = trace() {
            span.record("traceparent", display(&trace));
            if let Some(state) = &trace.state {
                span.record("tracestate", &**state);
            }
            #[cfg(feature = "opentelemetry")]
            otel::set_parent(&span, &trace);
        }
        let logged = tracing::enabled!(target: LOG_TARGET, tracing::Level::DEBUG);
        CallSpan {
            span,
            started: (traced || logged).then(Instant::now),
        }
    }

    /// The span, to enter while the tool's future is polled.
    pub(crate) fn span(&self) -> &Span {
        &self.span
    }

    /// Records how the call ended and writes its debug line (outside the
    /// span: the line carries the call's fields itself).
    #[inline]
    pub(crate) fn close(mut self, tool: &str, id: &RawValue, outcome: Outcome) {
        if let Some(started) = self.started.take() {
            self.finish(started, tool, id, outcome);
        }
    }

    fn finish(&self, started: Instant, tool: &str, id: &RawValue, outcome: Outcome) {
        let elapsed = started.elapsed();
        self.record(outcome, elapsed);
        tracing::debug!(
            target: LOG_TARGET,
            tool = %tool,
            id = %id.get(),
            duration = ?elapsed,
            outcome = outcome.as_str(),
            is_error = matches!(outcome, Outcome::IsError | Outcome::Timeout),
            "tool call"
        );
    }

    fn record(&self, outcome: Outcome, elapsed: Duration) {
        if self.span.is_disabled() {
            return;
        }
        self.span.record("outcome", outcome.as_str());
        self.span
            .record("duration_ms", elapsed.as_secs_f64() * 1000.0);
        let failed = matches!(
            outcome,
            Outcome::IsError | Outcome::Error | Outcome::Timeout
        );
        self.span
            .record("otel.status_code", if failed { "error" } else { "ok" });
    }
}

impl Drop for CallSpan {
    fn drop(&mut self) {
        if let Some(started) = self.started {
            self.record(Outcome::Cancelled, started.elapsed());
        }
    }
}

/// Linking the span to the caller's trace for `tracing-opentelemetry`.
#[cfg(feature = "opentelemetry")]
mod otel {
    use super::TraceContext;
    use opentelemetry::trace::{
        SpanContext, SpanId, TraceContextExt, TraceFlags, TraceId, TraceState,
    };
    use tracing_opentelemetry::OpenTelemetrySpanExt;

    /// Makes the caller's span the OpenTelemetry parent of `span`. Without
    /// an OpenTelemetry layer in the subscriber this does nothing.
    pub(super) fn set_parent(span: &tracing::Span, trace: &TraceContext) {
        let state = trace
            .state
            .as_deref()
            .and_then(|state| state.parse::<TraceState>().ok())
            .unwrap_or_default();
        let remote = SpanContext::new(
            TraceId::from_bytes(trace.trace_id),
            SpanId::from_bytes(trace.parent_id),
            TraceFlags::new(trace.flags),
            true,
            state,
        );
        // Refused only without an OpenTelemetry layer: nothing to link then.
        let _ = span.set_parent(opentelemetry::Context::new().with_remote_span_context(remote));
    }
}
