//! Streamed Chat Completions responses: `chat.completion.chunk`s whose
//! `choices[0].delta` carries pieces of the message (`role`, `content`,
//! `refusal`, and `tool_calls` entries by `index`: the first with the
//! call's `id`, `type` and `function.name`, the rest pieces of
//! `function.arguments`), a chunk with the `finish_reason`, with
//! `stream_options.include_usage` a last chunk of no choices and the
//! `usage`, and `data: [DONE]`.

use super::read_response;
use crate::provider::stream::{Assembler, Delta, invalid, parse_bounded};
use crate::provider::{ProviderError, Reply};
use serde_json::{Map, Value, json};

const API: &str = "the OpenAI API";

/// One call as it streams.
#[derive(Debug, Default)]
struct CallParts {
    id: String,
    kind: Option<String>,
    name: String,
    arguments: String,
}

/// The message being built.
#[derive(Debug)]
pub(crate) struct ChunkAssembler {
    content: Option<String>,
    refusal: Option<String>,
    calls: Vec<CallParts>,
    finish_reason: Value,
    usage: Value,
    done: bool,
    tree_limit: usize,
}

impl ChunkAssembler {
    /// An assembler whose chunks parse within `tree_limit`.
    pub(crate) fn new(tree_limit: usize) -> ChunkAssembler {
        ChunkAssembler {
            content: None,
            refusal: None,
            calls: Vec::new(),
            finish_reason: Value::Null,
            usage: Value::Null,
            done: false,
            tree_limit,
        }
    }

    fn call_delta(&mut self, delta: &Value) -> Result<(), ProviderError> {
        let index = delta["index"].as_u64().unwrap_or(u64::MAX);
        // Calls come in order: an index is an open call or the next one, so
        // a peer cannot make the host allocate for a call it never sends.
        if index == self.calls.len() as u64 {
            self.calls.push(CallParts::default());
        } else if index > self.calls.len() as u64 {
            return Err(invalid(
                API,
                format!("tool call {index} came before call {}", self.calls.len()),
            ));
        }
        let call = &mut self.calls[index as usize];
        if let Some(id) = delta["id"].as_str() {
            call.id.push_str(id);
        }
        if let Some(kind) = delta["type"].as_str() {
            call.kind = Some(kind.to_owned());
        }
        let function = &delta["function"];
        if let Some(name) = function["name"].as_str() {
            call.name.push_str(name);
        }
        if let Some(arguments) = function["arguments"].as_str() {
            call.arguments.push_str(arguments);
        }
        Ok(())
    }
}

impl Assembler for ChunkAssembler {
    fn event(
        &mut self,
        data: &str,
        on_delta: &mut (dyn FnMut(Delta<'_>) + Send),
    ) -> Result<(), ProviderError> {
        if data.trim() == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        let chunk = parse_bounded(API, data, self.tree_limit)?;
        if let Some(error) = chunk.get("error") {
            return Err(invalid(
                API,
                format!(
                    "the stream ended with an error: {}",
                    error["message"].as_str().unwrap_or_default()
                ),
            ));
        }
        if !chunk["usage"].is_null() {
            self.usage = chunk["usage"].clone();
        }
        let Some(choice) = chunk["choices"].as_array().and_then(|c| c.first()) else {
            return Ok(());
        };
        let delta = &choice["delta"];
        if let Some(text) = delta["content"].as_str() {
            self.content.get_or_insert_with(String::new).push_str(text);
            if !text.is_empty() {
                on_delta(Delta::Text(text));
            }
        }
        if let Some(text) = delta["refusal"].as_str() {
            self.refusal.get_or_insert_with(String::new).push_str(text);
        }
        if let Some(calls) = delta["tool_calls"].as_array() {
            for call in calls {
                self.call_delta(call)?;
            }
        }
        if let Some(reason) = choice["finish_reason"].as_str() {
            self.finish_reason = json!(reason);
        }
        Ok(())
    }

    fn finish(self: Box<Self>) -> Result<Reply, ProviderError> {
        if !self.done {
            return Err(invalid(API, "the stream ended before `[DONE]`".into()));
        }
        let mut message = Map::new();
        message.insert("role".into(), json!("assistant"));
        message.insert("content".into(), json!(self.content));
        if let Some(refusal) = self.refusal {
            message.insert("refusal".into(), json!(refusal));
        }
        if !self.calls.is_empty() {
            let calls: Vec<Value> = self
                .calls
                .into_iter()
                .map(|call| {
                    json!({
                        "id": call.id,
                        "type": call.kind.unwrap_or_else(|| "function".into()),
                        "function": {"name": call.name, "arguments": call.arguments},
                    })
                })
                .collect();
            message.insert("tool_calls".into(), Value::Array(calls));
        }
        read_response(json!({
            "choices": [{"index": 0, "message": message, "finish_reason": self.finish_reason}],
            "usage": self.usage,
        }))
    }
}
