//! Streamed Messages responses: `message_start` (the message with empty
//! `content` and the input's usage), per block `content_block_start` (the
//! block, its text or input still empty), `content_block_delta`s
//! (`text_delta`, `input_json_delta` pieces of the input's JSON,
//! `thinking_delta`, `signature_delta`, `citations_delta`) and
//! `content_block_stop`, then `message_delta` (`stop_reason`, the usage so
//! far, cumulative) and `message_stop`; `ping` anywhere, `error` instead
//! of the rest. A block of a kind this crate does not know is kept as its
//! start and deltas of known kinds make it, so it goes back verbatim.

use super::read_response;
use crate::provider::stream::{Assembler, Delta, invalid, parse_bounded};
use crate::provider::{ProviderError, Reply};
use serde_json::{Map, Value, json};

const API: &str = "the Anthropic API";

/// The message being built.
#[derive(Debug)]
pub(crate) struct MessageAssembler {
    content: Vec<Value>,
    /// The input JSON of the open `tool_use`-like block, as it streams.
    partial_json: Option<String>,
    stop_reason: Value,
    usage: Map<String, Value>,
    started: bool,
    stopped: bool,
    tree_limit: usize,
}

impl MessageAssembler {
    /// An assembler whose events and inputs parse within `tree_limit`.
    pub(crate) fn new(tree_limit: usize) -> MessageAssembler {
        MessageAssembler {
            content: Vec::new(),
            partial_json: None,
            stop_reason: Value::Null,
            usage: Map::new(),
            started: false,
            stopped: false,
            tree_limit,
        }
    }

    /// The block `event["index"]` names, which must be the last one started
    /// (blocks stream one after another).
    fn block(&mut self, event: &Value) -> Result<&mut Map<String, Value>, ProviderError> {
        let index = event["index"].as_u64();
        let last = self.content.len().checked_sub(1);
        match (index, last) {
            (Some(i), Some(last)) if i == last as u64 => self.content[last]
                .as_object_mut()
                .ok_or_else(|| invalid(API, "a content block is not an object".into())),
            _ => Err(invalid(
                API,
                format!("an event names block {index:?}, not the open one {last:?}"),
            )),
        }
    }

    fn merge_usage(&mut self, usage: &Value) {
        if let Some(usage) = usage.as_object() {
            for (name, value) in usage {
                if !value.is_null() {
                    self.usage.insert(name.clone(), value.clone());
                }
            }
        }
    }
}

/// Appends `piece` to the string field `name` of `block`.
fn append(block: &mut Map<String, Value>, name: &str, piece: &Value) -> Result<(), ProviderError> {
    let piece = piece
        .as_str()
        .ok_or_else(|| invalid(API, format!("a `{name}` delta is not a string")))?;
    match block.entry(name).or_insert_with(|| json!("")) {
        Value::String(text) => {
            text.push_str(piece);
            Ok(())
        }
        _ => Err(invalid(API, format!("a block's `{name}` is not a string"))),
    }
}

impl Assembler for MessageAssembler {
    fn event(
        &mut self,
        data: &str,
        on_delta: &mut (dyn FnMut(Delta<'_>) + Send),
    ) -> Result<(), ProviderError> {
        let event = parse_bounded(API, data, self.tree_limit)?;
        match event["type"].as_str().unwrap_or_default() {
            "message_start" => {
                self.started = true;
                self.merge_usage(&event["message"]["usage"]);
            }
            "content_block_start" => {
                if event["index"].as_u64() != Some(self.content.len() as u64)
                    || self.partial_json.is_some()
                {
                    return Err(invalid(
                        API,
                        format!(
                            "block {} started out of order",
                            event["index"].as_u64().unwrap_or(u64::MAX)
                        ),
                    ));
                }
                let block = event["content_block"].clone();
                if !block.is_object() {
                    return Err(invalid(API, "a `content_block` is not an object".into()));
                }
                self.content.push(block);
            }
            "content_block_delta" => {
                let delta = &event["delta"];
                let kind = delta["type"].as_str().unwrap_or_default();
                if kind == "input_json_delta" {
                    self.block(&event)?;
                    let piece = delta["partial_json"].as_str().unwrap_or_default();
                    self.partial_json
                        .get_or_insert_with(String::new)
                        .push_str(piece);
                    return Ok(());
                }
                let block = self.block(&event)?;
                match kind {
                    "text_delta" => {
                        append(block, "text", &delta["text"])?;
                        if let Some(text) = delta["text"].as_str().filter(|t| !t.is_empty()) {
                            on_delta(Delta::Text(text));
                        }
                    }
                    "thinking_delta" => append(block, "thinking", &delta["thinking"])?,
                    "signature_delta" => {
                        block.insert("signature".into(), delta["signature"].clone());
                    }
                    "citations_delta" => {
                        match block.entry("citations").or_insert_with(|| json!([])) {
                            Value::Array(citations) => citations.push(delta["citation"].clone()),
                            _ => {
                                return Err(invalid(
                                    API,
                                    "a block's `citations` is not a list".into(),
                                ));
                            }
                        }
                    }
                    // A delta kind newer than this crate: its block keeps
                    // what the known kinds made of it.
                    other => tracing::debug!(kind = other, "unknown Anthropic delta skipped"),
                }
            }
            "content_block_stop" => {
                let partial = self.partial_json.take();
                let limit = self.tree_limit;
                let block = self.block(&event)?;
                if let Some(json) = partial {
                    // The whole input comes in pieces; none at all is `{}`.
                    let input = if json.trim().is_empty() {
                        json!({})
                    } else {
                        parse_bounded(API, &json, limit)?
                    };
                    block.insert("input".into(), input);
                }
            }
            "message_delta" => {
                if let Some(reason) = event["delta"].get("stop_reason") {
                    self.stop_reason = reason.clone();
                }
                self.merge_usage(&event["usage"]);
            }
            "message_stop" => self.stopped = true,
            "error" => {
                let error = &event["error"];
                return Err(invalid(
                    API,
                    format!(
                        "the stream ended with a `{}` error: {}",
                        error["type"].as_str().unwrap_or("unknown"),
                        error["message"].as_str().unwrap_or_default()
                    ),
                ));
            }
            // `ping`, and event kinds newer than this crate.
            _ => {}
        }
        Ok(())
    }

    fn finish(self: Box<Self>) -> Result<Reply, ProviderError> {
        if !self.started || !self.stopped {
            return Err(invalid(
                API,
                "the stream ended before its `message_stop`".into(),
            ));
        }
        read_response(json!({
            "content": self.content,
            "stop_reason": self.stop_reason,
            "usage": self.usage,
        }))
    }
}
