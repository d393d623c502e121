//! Sampling: asking the client's model for a message (`ctx.sample`). The
//! request builder over the model's `CreateMessageParams`, and the answer,
//! the model's `CreateMessageResult` (message types in
//! `mcp-protocol/src/sampling.rs`).

use crate::outcome::ToolError;
use crate::protocol::model::{CreateMessageParams, ModelHint, SamplingMessage};
use serde::Deserialize as _;
use serde_json::Value;

/// The client's answer to a [`SampleRequest`]: the model's message, one
/// content block or a list (the model's `CreateMessageResult`).
pub use crate::protocol::model::CreateMessageResult as SampleResult;

/// The `maxTokens` of a [`SampleRequest`] that does not set one.
const DEFAULT_MAX_TOKENS: u32 = 1000;

/// A `sampling/createMessage` request: the conversation the client's model
/// continues, and how.
///
/// ```
/// use mcpfn_runtime::{SampleRequest, SamplingMessage};
/// let request = SampleRequest::new([SamplingMessage::user("Summarize: …")])
///     .max_tokens(200)
///     .system_prompt("You are terse.")
///     .temperature(0.2)
///     .model_hint("claude");
/// assert_eq!(request.messages().len(), 1);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct SampleRequest {
    // The model's params, built in place: the wire borrows them as they are.
    params: CreateMessageParams,
}

impl SampleRequest {
    /// A request continuing `messages`, with `maxTokens` 1000 until
    /// [`SampleRequest::max_tokens`] says otherwise.
    pub fn new(messages: impl IntoIterator<Item = SamplingMessage>) -> SampleRequest {
        SampleRequest {
            params: CreateMessageParams {
                messages: messages.into_iter().collect(),
                max_tokens: DEFAULT_MAX_TOKENS,
                system_prompt: None,
                temperature: None,
                stop_sequences: Vec::new(),
                model_preferences: None,
                include_context: None,
                metadata: None,
                meta: None,
            },
        }
    }

    /// A request of one user message of text.
    pub fn prompt(text: impl Into<String>) -> SampleRequest {
        SampleRequest::new([SamplingMessage::user(text)])
    }

    /// The most tokens the model may produce (`maxTokens`).
    pub fn max_tokens(mut self, max_tokens: u32) -> SampleRequest {
        self.params.max_tokens = max_tokens;
        self
    }

    /// The system prompt the server would like used (`systemPrompt`).
    pub fn system_prompt(mut self, prompt: impl Into<String>) -> SampleRequest {
        self.params.system_prompt = Some(prompt.into());
        self
    }

    /// The sampling temperature.
    pub fn temperature(mut self, temperature: f64) -> SampleRequest {
        self.params.temperature = Some(temperature);
        self
    }

    /// Adds a sequence that stops sampling (`stopSequences`).
    pub fn stop_sequence(mut self, sequence: impl Into<String>) -> SampleRequest {
        self.params.stop_sequences.push(sequence.into());
        self
    }

    /// Adds a model name hint (`modelPreferences.hints`, in order of
    /// preference; the client treats it as a substring and may ignore it).
    pub fn model_hint(mut self, name: impl Into<String>) -> SampleRequest {
        self.params
            .model_preferences
            .get_or_insert_with(Default::default)
            .hints
            .push(ModelHint {
                name: Some(name.into()),
            });
        self
    }

    /// How much cost, speed and intelligence matter, each in `0..=1`
    /// (`modelPreferences.*Priority`; values outside are clamped).
    pub fn priorities(mut self, cost: f64, speed: f64, intelligence: f64) -> SampleRequest {
        let unit = |v: f64| Some(if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) });
        let preferences = self
            .params
            .model_preferences
            .get_or_insert_with(Default::default);
        preferences.cost_priority = unit(cost);
        preferences.speed_priority = unit(speed);
        preferences.intelligence_priority = unit(intelligence);
        self
    }

    /// Provider-specific `metadata` passed through to the client.
    pub fn metadata(mut self, metadata: Value) -> SampleRequest {
        self.params.metadata = Some(metadata);
        self
    }

    /// The conversation.
    pub fn messages(&self) -> &[SamplingMessage] {
        &self.params.messages
    }

    /// The `params` of `sampling/createMessage` (written by reference on
    /// the wire; cloned for the in-process door, which takes them owned).
    pub(crate) fn params(&self) -> &CreateMessageParams {
        &self.params
    }
}

/// Reads a client's `CreateMessageResult`.
pub(crate) fn read_result(value: &Value) -> Result<SampleResult, ToolError> {
    SampleResult::deserialize(value)
        .map_err(|err| ToolError::new(format!("the client's sampling answer is not valid: {err}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::model::Role;
    use serde_json::json;

    #[test]
    fn the_builder_fills_the_params() {
        let request = SampleRequest::prompt("hi")
            .max_tokens(100)
            .system_prompt("terse")
            .temperature(0.5)
            .stop_sequence("END")
            .model_hint("claude")
            .priorities(2.0, 0.5, f64::NAN)
            .metadata(json!({"k": 1}));
        // Byte for byte: the keys in the order the schema lists them.
        assert_eq!(
            serde_json::to_string(request.params()).unwrap(),
            concat!(
                r#"{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"#,
                r#""maxTokens":100,"systemPrompt":"terse","temperature":0.5,"stopSequences":["END"],"#,
                r#""modelPreferences":{"hints":[{"name":"claude"}],"costPriority":1.0,"speedPriority":0.5,"intelligencePriority":0.0},"#,
                r#""metadata":{"k":1}}"#
            )
        );
    }

    #[test]
    fn answers_are_typed_and_bad_ones_refused() {
        let result = read_result(&json!({
            "role": "assistant", "content": {"type": "text", "text": "ok"}, "model": "m", "stopReason": "endTurn"
        }))
        .unwrap();
        assert_eq!(result.text().as_deref(), Some("ok"));
        assert_eq!(result.model, "m");
        assert_eq!(result.role, Role::Assistant);
        let err = read_result(&json!({"action": "accept"})).unwrap_err();
        assert!(err.to_string().contains("not valid"), "{err}");
    }
}
