//! Whether a call may run, the same for every way a call arrives (the
//! wire's `tools/call`, the in-process door): the tool found by name, the
//! caller's scopes checked on the tool that will run, then, with the call's
//! span open, the pending and rate limits. Each refusal is worded here once.

use super::call_span::{CallSpan, Outcome};
use crate::conn::connection::{Connection, ScopeDenial};
use crate::outcome::ToolOutcome;
use crate::protocol::outgoing::ErrorData;
use crate::protocol::trace_context::TraceContext;
use crate::protocol::{ErrorCode, ProtocolVersion, RpcError};
use crate::shared::Shared;
use crate::tool::Tool;
use serde_json::value::RawValue;
use std::sync::Arc;

/// The tool `requested` names, under its registered name, if the caller on
/// `connection` may run it: `-32602` naming it when no tool has the name,
/// `FORBIDDEN` when the caller's token lacks the tool's scopes.
///
/// Authorization is decided here, on the tool that will run, with the
/// caller the transport verified: no transport or method can skip it.
/// (Without a principal, as on stdio, there is no caller to check.)
pub(crate) fn find_tool(
    shared: &Shared,
    connection: &Connection,
    requested: &str,
) -> Result<(Arc<str>, Arc<Tool>), RpcError> {
    let Some((name, tool)) = shared.tools.lookup(requested) else {
        return Err(
            RpcError::invalid_params(format!("Unknown tool: {requested}")).with_data(
                ErrorData::Tool {
                    name: requested.to_owned(),
                }
                .into(),
            ),
        );
    };
    if let Some(principal) = connection.principal()
        && !crate::principal::grants(principal, tool.scopes())
    {
        return Err(deny_scopes(connection, &name, tool.scopes()));
    }
    Ok((name, tool))
}

/// The refusal of a call whose tool needs `scopes` that the caller's
/// token lacks. The transport learns of it from the connection
/// ([`Connection::scope_denial`]), so HTTP answers `403` with the
/// `insufficient_scope` challenge.
fn deny_scopes(connection: &Connection, tool: &Arc<str>, scopes: &[String]) -> RpcError {
    connection.set_scope_denial(ScopeDenial {
        tool: Arc::clone(tool),
        scopes: scopes.to_vec(),
    });
    RpcError::new(
        ErrorCode::FORBIDDEN,
        format!(
            "Forbidden: the tool '{tool}' needs the scopes {:?}; get a token granting them",
            scopes.join(" ")
        ),
    )
}

/// Opens the span of call `id` to `tool` (a child of the caller's trace
/// context, which `trace` finds) and admits the call under the pending
/// limit (with `in_flight` calls running besides it) and the caller's rate
/// limit. A refused call's span is closed, and the refusal is the `isError`
/// outcome the caller answers with: a message the model can act on.
pub(crate) fn admit(
    shared: &Shared,
    connection: &Connection,
    tool: &str,
    id: &RawValue,
    version: ProtocolVersion,
    in_flight: usize,
    trace: impl FnOnce() -> Option<TraceContext>,
) -> Result<CallSpan, ToolOutcome> {
    let span = CallSpan::open(tool, id, version, trace);
    let limits = &shared.limits;
    let refusal = if in_flight >= limits.max_pending {
        format!(
            "The server is busy ({} calls in flight); '{tool}' was not run. Retry when earlier calls have finished.",
            limits.max_pending
        )
    } else {
        match limits.admit(connection.client_key()) {
            Ok(()) => return Ok(span),
            Err(wait) => format!(
                "Rate limit exceeded: '{tool}' was not run. Retry in {} ms.",
                wait.as_millis().max(1)
            ),
        }
    };
    span.close(tool, id, Outcome::IsError);
    Err(ToolOutcome::Error(refusal))
}
