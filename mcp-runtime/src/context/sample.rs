//! Sampling: asking the client's model for a message (`ctx.sample`). The
//! request builder and the typed answer; the wire shapes are in
//! `protocol/sampling.rs`.

use crate::outcome::ToolError;
use crate::protocol::sampling::{
    CreateMessageParamsRef, CreateMessageResultRef, ModelHint, ModelPreferences, ResultContent,
    Role, SamplingContent, SamplingMessage,
};
use serde::Deserialize as _;
use serde_json::Value;

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
    messages: Vec<SamplingMessage>,
    max_tokens: u32,
    system_prompt: Option<String>,
    temperature: Option<f64>,
    stop_sequences: Vec<String>,
    model_preferences: ModelPreferences,
    metadata: Option<Value>,
}

impl SampleRequest {
    /// A request continuing `messages`, with `maxTokens` 1000 until
    /// [`SampleRequest::max_tokens`] says otherwise.
    pub fn new(messages: impl IntoIterator<Item = SamplingMessage>) -> SampleRequest {
        SampleRequest {
            messages: messages.into_iter().collect(),
            max_tokens: DEFAULT_MAX_TOKENS,
            system_prompt: None,
            temperature: None,
            stop_sequences: Vec::new(),
            model_preferences: ModelPreferences::default(),
            metadata: None,
        }
    }

    /// A request of one user message of text.
    pub fn prompt(text: impl Into<String>) -> SampleRequest {
        SampleRequest::new([SamplingMessage::user(text)])
    }

    /// The most tokens the model may produce (`maxTokens`).
    pub fn max_tokens(mut self, max_tokens: u32) -> SampleRequest {
        self.max_tokens = max_tokens;
        self
    }

    /// The system prompt the server would like used (`systemPrompt`).
    pub fn system_prompt(mut self, prompt: impl Into<String>) -> SampleRequest {
        self.system_prompt = Some(prompt.into());
        self
    }

    /// The sampling temperature.
    pub fn temperature(mut self, temperature: f64) -> SampleRequest {
        self.temperature = Some(temperature);
        self
    }

    /// Adds a sequence that stops sampling (`stopSequences`).
    pub fn stop_sequence(mut self, sequence: impl Into<String>) -> SampleRequest {
        self.stop_sequences.push(sequence.into());
        self
    }

    /// Adds a model name hint (`modelPreferences.hints`, in order of
    /// preference; the client treats it as a substring and may ignore it).
    pub fn model_hint(mut self, name: impl Into<String>) -> SampleRequest {
        self.model_preferences
            .hints
            .push(ModelHint { name: name.into() });
        self
    }

    /// How much cost, speed and intelligence matter, each in `0..=1`
    /// (`modelPreferences.*Priority`; values outside are clamped).
    pub fn priorities(mut self, cost: f64, speed: f64, intelligence: f64) -> SampleRequest {
        let unit = |v: f64| Some(if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) });
        self.model_preferences.cost_priority = unit(cost);
        self.model_preferences.speed_priority = unit(speed);
        self.model_preferences.intelligence_priority = unit(intelligence);
        self
    }

    /// Provider-specific `metadata` passed through to the client.
    pub fn metadata(mut self, metadata: Value) -> SampleRequest {
        self.metadata = Some(metadata);
        self
    }

    /// The conversation.
    pub fn messages(&self) -> &[SamplingMessage] {
        &self.messages
    }

    /// The `params` of `sampling/createMessage` as the typed model holds
    /// them, for the in-process door.
    pub(crate) fn model(&self) -> crate::protocol::model::CreateMessageParams {
        crate::protocol::model::CreateMessageParams {
            messages: self.messages.clone(),
            max_tokens: self.max_tokens,
            system_prompt: self.system_prompt.clone(),
            temperature: self.temperature,
            stop_sequences: self.stop_sequences.clone(),
            model_preferences: (!self.model_preferences.is_empty())
                .then(|| preferences_value(&self.model_preferences)),
            include_context: None,
            metadata: self.metadata.clone(),
            meta: None,
        }
    }

    /// The `params` of `sampling/createMessage`.
    pub(crate) fn wire(&self) -> CreateMessageParamsRef<'_> {
        CreateMessageParamsRef {
            messages: &self.messages,
            max_tokens: self.max_tokens,
            system_prompt: self.system_prompt.as_deref(),
            temperature: self.temperature,
            stop_sequences: &self.stop_sequences,
            model_preferences: &self.model_preferences,
            metadata: self.metadata.as_ref(),
        }
    }
}

/// `modelPreferences` as the typed model holds it (built by hand: a
/// `Value` serializer for one struct would cost more code than this).
fn preferences_value(preferences: &ModelPreferences) -> Value {
    let mut map = serde_json::Map::new();
    if !preferences.hints.is_empty() {
        let hints = preferences
            .hints
            .iter()
            .map(|hint| serde_json::json!({ "name": hint.name }))
            .collect();
        map.insert("hints".into(), Value::Array(hints));
    }
    for (key, priority) in [
        ("costPriority", preferences.cost_priority),
        ("speedPriority", preferences.speed_priority),
        ("intelligencePriority", preferences.intelligence_priority),
    ] {
        if let Some(priority) = priority {
            map.insert(key.into(), priority.into());
        }
    }
    Value::Object(map)
}

/// The client's answer to a [`SampleRequest`]: the model's message.
#[derive(Clone, Debug, PartialEq)]
pub struct SampleResult {
    /// Who speaks it (normally [`Role::Assistant`]).
    pub role: Role,
    /// The message: one block, or several (2025-11-25 clients may send a list).
    pub content: Vec<SamplingContent>,
    /// The model that produced it.
    pub model: String,
    /// Why sampling stopped (`endTurn`, `stopSequence`, `maxTokens`, …), if known.
    pub stop_reason: Option<String>,
}

impl SampleResult {
    /// Reads a `CreateMessageResult` from the client.
    pub(crate) fn from_result(value: &Value) -> Result<SampleResult, ToolError> {
        let result = CreateMessageResultRef::deserialize(value).map_err(|err| {
            ToolError::new(format!("the client's sampling answer is not valid: {err}"))
        })?;
        Ok(SampleResult {
            role: result.role,
            content: match result.content {
                ResultContent::One(block) => vec![block],
                ResultContent::Many(blocks) => blocks,
            },
            model: result.model,
            stop_reason: result.stop_reason,
        })
    }

    /// The text of the message (its text blocks joined), if it has any.
    pub fn text(&self) -> Option<String> {
        let texts: Vec<&str> = self
            .content
            .iter()
            .filter_map(SamplingContent::as_text)
            .collect();
        (!texts.is_empty()).then(|| texts.concat())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
        assert_eq!(
            serde_json::to_value(request.wire()).unwrap(),
            json!({
                "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
                "maxTokens": 100,
                "systemPrompt": "terse",
                "temperature": 0.5,
                "stopSequences": ["END"],
                "modelPreferences": {"hints": [{"name": "claude"}], "costPriority": 1.0, "speedPriority": 0.5, "intelligencePriority": 0.0},
                "metadata": {"k": 1}
            })
        );
    }

    #[test]
    fn answers_are_typed_and_bad_ones_refused() {
        let result = SampleResult::from_result(&json!({
            "role": "assistant", "content": {"type": "text", "text": "ok"}, "model": "m", "stopReason": "endTurn"
        }))
        .unwrap();
        assert_eq!(result.text().as_deref(), Some("ok"));
        assert_eq!(result.model, "m");
        assert_eq!(result.role, Role::Assistant);
        let err = SampleResult::from_result(&json!({"action": "accept"})).unwrap_err();
        assert!(err.to_string().contains("not valid"), "{err}");
    }
}
