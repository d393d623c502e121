//! How a finished call is answered, whoever made it: the one decision from
//! a tool's outcome to a `tools/call` result (structured output checked and
//! wrapped for the revision, content blocks, an `isError` text) or a
//! protocol error. Each caller says only where the answer goes: the wire
//! writes it as a frame on the measured fast path ([`frame`]: borrowed,
//! checked once by `structured_json`), the in-process door and a task's
//! record take the owned model ([`model`]: the outcome's parts moved into
//! it, parsed once). Both read the same rules: the revision's wrapping
//! (`Tool::wraps_output`), the text mirror, the error for output that is
//! not JSON.

use super::call_span::Outcome;
use super::run::Ending;
use crate::content::Content;
use crate::context::elicit::Interrupt;
use crate::outcome::ToolOutcome;
use crate::protocol::frame::Frame;
use crate::protocol::model;
use crate::protocol::outgoing::{
    self, CallToolResultRef, Capabilities, ErrorData, PromptResultRef, Reply,
};
use crate::protocol::{ProtocolVersion, RpcError};
use crate::tool::Tool;
use serde_json::value::RawValue;

/// Renders `outcome`, a call of `tool` under `version`, through `render`:
/// the result the revision shows, or the protocol error the call ended
/// with. A structured output that is not JSON becomes an error result.
pub(crate) fn answer<R>(
    tool: &Tool,
    outcome: &ToolOutcome,
    version: ProtocolVersion,
    render: impl FnOnce(Result<&CallToolResultRef<'_>, &RpcError>) -> R,
) -> R {
    match outcome {
        ToolOutcome::Structured(text) => structured(tool, text, &[], version, render),
        ToolOutcome::StructuredWith { json, content } => {
            structured(tool, json, content, version, render)
        }
        ToolOutcome::Content(blocks) => render(Ok(&CallToolResultRef::Content(blocks))),
        ToolOutcome::Error(message) => render(Ok(&CallToolResultRef::Error(message))),
        ToolOutcome::Protocol(error) => render(Err(error)),
    }
}

fn structured<R>(
    tool: &Tool,
    text: &str,
    content: &[Content],
    version: ProtocolVersion,
    render: impl FnOnce(Result<&CallToolResultRef<'_>, &RpcError>) -> R,
) -> R {
    match outgoing::structured_json(text) {
        Ok(json) => render(Ok(&CallToolResultRef::Structured {
            json: &json,
            wrap: tool.wraps_output(version),
            content,
        })),
        Err(err) => render(Ok(&CallToolResultRef::Error(&not_json(tool, &err)))),
    }
}

/// The wire's answer to call `id`: its response frame, shaped by `reply`.
pub(crate) fn frame(
    reply: Reply<'_>,
    id: &RawValue,
    tool: &Tool,
    outcome: &ToolOutcome,
    version: ProtocolVersion,
) -> Frame {
    if let Some(frames) = &tool.def.prompt {
        return match prompt_answer(tool, outcome) {
            Ok(result) => reply.prompt(result, frames),
            Err(error) => outgoing::rpc_error(Some(id), &error),
        };
    }
    answer(tool, outcome, version, |answer| match answer {
        Ok(result) => reply.call_result(result),
        Err(error) => outgoing::rpc_error(Some(id), error),
    })
}

/// The answer of a prompt's body (`crate::prompt`): the messages it
/// serialized when it ran and the description its runner holds, or the
/// JSON-RPC error it ended with. A prompt has no `isError`: a refusal
/// worded for a tool's model (busy, rate limited, timed out) is the
/// error's message.
pub(crate) fn prompt_answer<'a>(
    tool: &'a Tool,
    outcome: &'a ToolOutcome,
) -> Result<PromptResultRef<'a>, RpcError> {
    match outcome {
        ToolOutcome::Structured(messages) => Ok(PromptResultRef {
            description: tool.def.description.as_deref(),
            messages,
        }),
        ToolOutcome::Protocol(error) => Err(error.clone()),
        ToolOutcome::Error(message) => Err(RpcError::internal_error(message.clone())),
        ToolOutcome::StructuredWith { .. } | ToolOutcome::Content(_) => Err(
            RpcError::internal_error(format!("The prompt '{}' gave no messages", tool.name)),
        ),
    }
}

/// The owned answer of a call that ended as `ending` (the door's, a task's),
/// with how its span records it; `None` when it was cancelled. A call
/// interrupted for a capability is the protocol error naming it; one that
/// asked on a request it no longer has (a task's, after it began) an
/// internal error.
pub(crate) fn ended(
    tool: &Tool,
    ending: Ending,
    version: ProtocolVersion,
) -> (Outcome, Option<Result<model::CallToolResult, RpcError>>) {
    match ending {
        Ending::Cancelled => (Outcome::Cancelled, None),
        Ending::Outcome(ran) => (ran.outcome(), Some(self::model(tool, ran.outcome, version))),
        Ending::Interrupted(Interrupt::MissingCapability(required)) => {
            (Outcome::Error, Some(Err(missing_capability(required))))
        }
        Ending::Interrupted(Interrupt::InputRequired(round)) => (
            Outcome::Error,
            Some(Err(RpcError::internal_error(format!(
                "the tool asked `{}` on the request after its task began",
                round.first().map_or("", |(key, _)| key.as_str())
            )))),
        ),
    }
}

/// `-32021`: the refusal of a call that needs client capabilities the
/// request did not declare, naming them.
pub(crate) fn missing_capability(required: Vec<&'static str>) -> RpcError {
    RpcError::missing_client_capability("Missing required client capability").with_data(
        ErrorData::MissingCapability {
            required: Capabilities(required),
        }
        .into(),
    )
}

/// The owned answer: the model's result, or the protocol error (what the
/// in-process door returns and a task stores), built from the outcome's
/// parts, moved: the same answer as [`frame`]'s, rendered as the model.
pub(crate) fn model(
    tool: &Tool,
    outcome: ToolOutcome,
    version: ProtocolVersion,
) -> Result<model::CallToolResult, RpcError> {
    let structured = |json: String, content: Vec<Content>| {
        let wrap = tool.wraps_output(version);
        model::CallToolResult::structured(json, wrap, content, version)
            .unwrap_or_else(|err| model::CallToolResult::error(not_json(tool, &err)))
    };
    Ok(match outcome {
        ToolOutcome::Structured(json) => structured(json, Vec::new()),
        ToolOutcome::StructuredWith { json, content } => structured(json, content),
        ToolOutcome::Content(blocks) => model::CallToolResult::blocks(blocks),
        ToolOutcome::Error(message) => model::CallToolResult::error(message),
        ToolOutcome::Protocol(error) => return Err(error),
    })
}

/// Why a structured output that is not JSON was not sent.
fn not_json(tool: &Tool, err: &serde_json::Error) -> String {
    format!(
        "The tool '{}' produced a structured result that is not JSON: {err}",
        tool.name
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::Audience;
    use crate::protocol::model::Implementation;
    use crate::protocol::outgoing::server_meta;
    use crate::tool::ToolBuilder;
    use serde_json::{Value, json};

    fn tool(name: &str) -> ToolBuilder {
        ToolBuilder::new(name, |_| Box::pin(async { ToolOutcome::text("") }))
    }

    /// The two renderings of one answer agree: the wire's frame, read back
    /// as the model, is the door's model, for each kind of outcome.
    #[test]
    fn the_frame_and_the_model_say_the_same() {
        let plain = tool("plain").build();
        let number = tool("number")
            .output_schema(json!({"type": "number"}))
            .build();
        let version = ProtocolVersion::LATEST_LEGACY;
        let meta = server_meta(&Implementation::new("s", "1").as_of(version));
        let id = RawValue::from_string("7".to_owned()).unwrap();
        let cases = [
            (&plain, ToolOutcome::Structured(r#"{"a": 1}"#.to_owned())),
            (
                &plain,
                ToolOutcome::Structured("{\n  \"a\": 1\n}".to_owned()),
            ),
            (&number, ToolOutcome::Structured("3".to_owned())),
            (
                &plain,
                ToolOutcome::StructuredWith {
                    json: r#"{"b":2}"#.to_owned(),
                    content: vec![Content::text("and a block")],
                },
            ),
            (
                &plain,
                ToolOutcome::Content(vec![Content::text("x").audience(Audience::User)]),
            ),
            (&plain, ToolOutcome::error("it failed")),
            (&plain, ToolOutcome::Structured("not json".to_owned())),
        ];
        for (tool, outcome) in cases {
            let reply = Reply::new(&id, version, &meta);
            let sent = frame(reply, &id, tool, &outcome, version);
            let response: Value = serde_json::from_slice(&sent.into_bytes()).unwrap();
            let read: model::CallToolResult =
                serde_json::from_value(response["result"].clone()).unwrap();
            assert_eq!(model(tool, outcome, version), Ok(read), "{response}");
        }
        let error = RpcError::invalid_params("bad");
        let reply = Reply::new(&id, version, &meta);
        let outcome = ToolOutcome::Protocol(error.clone());
        let sent = frame(reply, &id, &plain, &outcome, version);
        let response: Value = serde_json::from_slice(&sent.into_bytes()).unwrap();
        assert_eq!(response["error"]["message"], "bad");
        assert_eq!(model(&plain, outcome, version), Err(error));
    }
}
