//! One call as a tool's handler receives it, and decoding its arguments
//! with error messages a model can act on.

use crate::context::Context;
use crate::outcome::ToolOutcome;
use crate::protocol::ProtocolVersion;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::sync::Arc;

/// Longest argument path quoted in an error message; deeper paths are cut.
const MAX_PATH_IN_MESSAGE: usize = 60;

/// A call's arguments: the wire's text, read once by the tool's own
/// deserializer, or the in-process door's object, which is never written
/// out as text on the happy path.
#[derive(Debug)]
pub(crate) enum Arguments {
    /// Absent (read as `{}`).
    None,
    /// The `arguments` object as the client sent it (shared with the
    /// call's `requestState` digest, which reads it only if one is sealed).
    Raw(Arc<str>),
    /// An object handed over in-process (always a `Value::Object`).
    Local(Value),
}

impl Arguments {
    /// The arguments as JSON text: the wire's as sent, a local object
    /// written out (only off the happy path: errors, header bounds).
    fn text(&self) -> Cow<'_, str> {
        match self {
            Arguments::None => Cow::Borrowed("{}"),
            Arguments::Raw(raw) => Cow::Borrowed(raw),
            Arguments::Local(value) => Cow::Owned(value.to_string()),
        }
    }

    /// The arguments as an object, if they are one (header bounds), or why
    /// the wire's text cannot be read as one. The params parse has checked
    /// that it is an object, but not how deep it nests: a tree past
    /// serde_json's depth limit is refused here, never passed unchecked.
    pub(crate) fn object(&self) -> Result<Option<Cow<'_, Map<String, Value>>>, serde_json::Error> {
        match self {
            Arguments::None => Ok(None),
            Arguments::Raw(raw) => serde_json::from_str(raw).map(|map| Some(Cow::Owned(map))),
            Arguments::Local(Value::Object(map)) => Ok(Some(Cow::Borrowed(map))),
            Arguments::Local(_) => Ok(None),
        }
    }
}

/// One call of a tool, as its handler receives it.
#[derive(Debug)]
pub struct ToolCall {
    pub(crate) name: Arc<str>,
    pub(crate) arguments: Arguments,
    pub(crate) version: ProtocolVersion,
    pub(crate) context: Context,
}

impl ToolCall {
    /// The call's context: progress, logging, cancellation, elicitation, state.
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// The name the tool was called by.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The protocol revision of the calling session or request.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.version
    }

    /// Deserializes the arguments (absent arguments read as `{}`). On failure
    /// the `Err` is the `isError` result to return: it names the field and what
    /// was expected, so a model can correct itself.
    pub fn arguments<T: DeserializeOwned>(&self) -> Result<T, ToolOutcome> {
        // In-process arguments are read from the object itself: one more
        // instantiation of `T`'s deserializer (over `&Value`), for the happy
        // path only. A failure takes the text path below, so the messages
        // (and the null-member retry) are the wire's, word for word.
        if let Arguments::Local(value) = &self.arguments
            && let Ok(value) = T::deserialize(value)
        {
            return Ok(value);
        }
        let text = self.arguments.text();
        let text = text.as_ref();
        // The happy path parses once without tracking the path; only a
        // failure is parsed again to name the field for the model.
        if let Ok(value) = serde_json::from_str(text) {
            return Ok(value);
        }
        // Strict function calling (OpenAI) sends `null` for every optional
        // property left out, but serde takes `null` as absent only for an
        // `Option`: a `#[serde(default)]` field refuses it. A null member
        // means "absent", so try once more without them.
        // Parsed again from text, not `from_value`: one instantiation of
        // `T`'s deserializer per tool instead of two keeps binaries small.
        if let Ok(mut tree) = serde_json::from_str::<Value>(text)
            && drop_null_members(&mut tree)
            && let Ok(value) = serde_json::from_str(&tree.to_string())
        {
            return Ok(value);
        }
        let mut de = serde_json::Deserializer::from_str(text);
        match serde_path_to_error::deserialize::<_, T>(&mut de) {
            Ok(value) => Ok(value),
            Err(err) => {
                let mut path = err.path().to_string();
                if path.len() > MAX_PATH_IN_MESSAGE {
                    let cut = path.floor_char_boundary(MAX_PATH_IN_MESSAGE);
                    path.truncate(cut);
                    path.push('…');
                }
                let mut inner = crate::protocol::read::without_position(err.inner());
                if inner.starts_with("recursion limit exceeded") {
                    inner = "nested more than 128 levels deep".to_owned();
                }
                let message = if path == "." {
                    format!("Invalid arguments for tool '{}': {inner}.", self.name)
                } else {
                    format!(
                        "Invalid arguments for tool '{}': `{path}`: {inner}.",
                        self.name
                    )
                };
                Err(ToolOutcome::Error(message))
            }
        }
    }
}

/// Removes every object member whose value is `null`, at any depth;
/// whether there was one.
fn drop_null_members(value: &mut Value) -> bool {
    match value {
        Value::Object(map) => {
            let before = map.len();
            map.retain(|_, v| !v.is_null());
            let mut dropped = map.len() != before;
            for member in map.values_mut() {
                dropped |= drop_null_members(member);
            }
            dropped
        }
        Value::Array(items) => items
            .iter_mut()
            .fold(false, |dropped, item| drop_null_members(item) | dropped),
        _ => false,
    }
}
