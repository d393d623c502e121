//! Prompt caching: the `cache_control` breakpoints a request carries,
//! added as the body is written and never stored in the history (a marker
//! kept in a message would stay there and add up past the API's limit of
//! four per request).
//!
//! The API caches prefixes of the prompt in its rendering order, tools,
//! then system, then messages; a breakpoint on a block writes the prefix
//! up to and including that block, and a later request whose prefix up to
//! one of its breakpoints matches a written one (looking back at most 20
//! blocks from each breakpoint) reads it at a tenth of the input price. A
//! request made here carries at most four:
//!
//! 1. the last tool definition: the tools are the same bytes on every
//!    request of a catalog, so a new conversation or a trimmed history
//!    still reads them;
//! 2. the system prompt, sent as one text block for it;
//! 3. the last block of the message just before the newest assistant
//!    message, which is where the previous request ended: its own end
//!    breakpoint wrote exactly that prefix, so this one reads it however
//!    many blocks the newest response and its tool results added (the
//!    20-block lookback alone misses after a response of ten parallel
//!    calls);
//! 4. the last block of the last message, the growing end, which the next
//!    request reads through its breakpoint 3.
//!
//! A message whose `content` is a string is written as one text block
//! when it carries a breakpoint (the API defines the string as shorthand
//! for that block, and only a block can carry `cache_control`). `thinking`
//! and `redacted_thinking` blocks cannot carry one, nor can an empty text
//! block; a message with nothing else gets none. A prefix shorter than
//! the model's minimum (1,024 to 4,096 tokens) is not cached, and the API
//! says so only by reporting no cache tokens.

use serde::Serialize;
use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde_json::{Map, Value};

/// The `cache_control` of every breakpoint: the default 5-minute cache
/// (writes at 1.25× the input price; the 1-hour one costs 2×).
const EPHEMERAL: CacheControl = CacheControl { kind: "ephemeral" };

/// `{"type": "ephemeral"}`.
#[derive(Clone, Copy, Debug, Serialize)]
struct CacheControl {
    #[serde(rename = "type")]
    kind: &'static str,
}

/// The request's `system`: the plain string without caching, else one
/// text block with a breakpoint.
#[derive(Clone, Copy, Debug)]
pub(crate) struct System<'a> {
    text: &'a str,
    cached: bool,
}

impl<'a> System<'a> {
    /// `text` as the request's `system`, with a breakpoint when `cached`
    /// (an empty prompt gets none: the API refuses an empty text block).
    pub(crate) fn new(text: &'a str, cached: bool) -> System<'a> {
        System {
            text,
            cached: cached && !text.is_empty(),
        }
    }
}

impl Serialize for System<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if !self.cached {
            return serializer.serialize_str(self.text);
        }
        let mut seq = serializer.serialize_seq(Some(1))?;
        seq.serialize_element(&TextBlock { text: self.text })?;
        seq.end()
    }
}

/// A text block with a breakpoint.
struct TextBlock<'a> {
    text: &'a str,
}

impl Serialize for TextBlock<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("type", "text")?;
        map.serialize_entry("text", self.text)?;
        map.serialize_entry("cache_control", &EPHEMERAL)?;
        map.end()
    }
}

/// A block (a tool definition, a content block) written with a breakpoint
/// after its own keys (one it carried already is replaced, not repeated).
struct Marked<'a>(&'a Map<String, Value>);

impl Serialize for Marked<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        for (key, value) in self.0.iter().filter(|(key, _)| *key != "cache_control") {
            map.serialize_entry(key, value)?;
        }
        map.serialize_entry("cache_control", &EPHEMERAL)?;
        map.end()
    }
}

/// The request's `tools`, the last one with a breakpoint when caching.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tools<'a> {
    tools: &'a [Value],
    cached: bool,
}

impl<'a> Tools<'a> {
    /// `tools`, the last with a breakpoint when `cached`.
    pub(crate) fn new(tools: &'a [Value], cached: bool) -> Tools<'a> {
        Tools { tools, cached }
    }

    /// No tools: the request has no `tools` field.
    pub(crate) fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }
}

impl Serialize for Tools<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.tools.len()))?;
        let last = self.tools.len().wrapping_sub(1);
        for (index, tool) in self.tools.iter().enumerate() {
            match tool {
                Value::Object(tool) if self.cached && index == last => {
                    seq.serialize_element(&Marked(tool))?;
                }
                _ => seq.serialize_element(tool)?,
            }
        }
        seq.end()
    }
}

/// Where a breakpoint goes in a message: the block index in its `content`
/// array, or its string `content` (written as one text block).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Spot {
    Block(usize),
    Text,
}

/// The request's `messages`, written from the history as it is, with the
/// breakpoints of the module docs applied on the fly to the (at most two)
/// messages that carry one.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Messages<'a> {
    messages: &'a [Value],
    /// `(message index, spot)`, in message order.
    marks: [Option<(usize, Spot)>; 2],
}

impl<'a> Messages<'a> {
    /// `messages`, with the breakpoints at the previous request's end and
    /// at the last message when `cached`.
    pub(crate) fn new(messages: &'a [Value], cached: bool) -> Messages<'a> {
        let mut marks = [None, None];
        if cached && let Some(end) = messages.len().checked_sub(1) {
            // Where the previous request ended: the message just before
            // the newest assistant message (the history alternates roles,
            // so that is the previous request's last message, also when a
            // paused turn is resent ending with the assistant message).
            let previous = messages
                .iter()
                .rposition(|m| m["role"] == "assistant")
                .and_then(|assistant| assistant.checked_sub(1))
                .filter(|previous| *previous != end);
            marks[0] = previous.and_then(|i| spot(&messages[i]).map(|spot| (i, spot)));
            marks[1] = spot(&messages[end]).map(|spot| (end, spot));
        }
        Messages { messages, marks }
    }

    /// How many breakpoints the messages carry.
    #[cfg(test)]
    fn breakpoints(&self) -> usize {
        self.marks.iter().flatten().count()
    }
}

/// Where in `message` a breakpoint can go: its last block that can carry
/// one.
fn spot(message: &Value) -> Option<Spot> {
    match &message["content"] {
        Value::String(text) if !text.is_empty() => Some(Spot::Text),
        Value::Array(blocks) => blocks.iter().rposition(cacheable).map(Spot::Block),
        _ => None,
    }
}

/// Whether the API takes `cache_control` on `block`.
fn cacheable(block: &Value) -> bool {
    match block["type"].as_str() {
        Some("thinking" | "redacted_thinking") | None => false,
        Some("text") => block["text"].as_str().is_some_and(|t| !t.is_empty()),
        Some(_) => block.is_object(),
    }
}

impl Serialize for Messages<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.messages.len()))?;
        for (index, message) in self.messages.iter().enumerate() {
            let mark = self.marks.iter().flatten().find(|(i, _)| *i == index);
            match (mark, message) {
                (Some((_, spot)), Value::Object(message)) => {
                    seq.serialize_element(&MarkedMessage {
                        message,
                        spot: *spot,
                    })?;
                }
                _ => seq.serialize_element(message)?,
            }
        }
        seq.end()
    }
}

/// A message written with a breakpoint at `spot` of its `content`.
struct MarkedMessage<'a> {
    message: &'a Map<String, Value>,
    spot: Spot,
}

impl Serialize for MarkedMessage<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.message.len()))?;
        for (key, value) in self.message {
            if key == "content" {
                map.serialize_entry(
                    key,
                    &MarkedContent {
                        content: value,
                        spot: self.spot,
                    },
                )?;
            } else {
                map.serialize_entry(key, value)?;
            }
        }
        map.end()
    }
}

/// A message's `content` with a breakpoint at `spot`.
struct MarkedContent<'a> {
    content: &'a Value,
    spot: Spot,
}

impl Serialize for MarkedContent<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match (self.content, self.spot) {
            (Value::String(text), Spot::Text) => {
                let mut seq = serializer.serialize_seq(Some(1))?;
                seq.serialize_element(&TextBlock { text })?;
                seq.end()
            }
            (Value::Array(blocks), Spot::Block(at)) => {
                let mut seq = serializer.serialize_seq(Some(blocks.len()))?;
                for (index, block) in blocks.iter().enumerate() {
                    match block {
                        Value::Object(block) if index == at => {
                            seq.serialize_element(&Marked(block))?;
                        }
                        _ => seq.serialize_element(block)?,
                    }
                }
                seq.end()
            }
            (content, _) => content.serialize(serializer),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn written(messages: &[Value]) -> Value {
        serde_json::to_value(Messages::new(messages, true)).unwrap()
    }

    const MARK: &str = "cache_control";

    #[test]
    fn a_string_message_becomes_one_marked_text_block() {
        let messages = [json!({"role": "user", "content": "北京今天天气怎么样"})];
        assert_eq!(
            written(&messages),
            json!([{"role": "user", "content": [
                {"type": "text", "text": "北京今天天气怎么样", "cache_control": {"type": "ephemeral"}}
            ]}])
        );
        assert_eq!(Messages::new(&messages, true).breakpoints(), 1);
    }

    #[test]
    fn the_previous_end_and_the_growing_end_are_marked_nothing_else() {
        let messages = [
            json!({"role": "user", "content": "a"}),
            json!({"role": "assistant", "content": [{"type": "text", "text": "ok"}]}),
            json!({"role": "user", "content": "b"}),
            json!({"role": "assistant", "content": [
                {"type": "text", "text": "calling"},
                {"type": "tool_use", "id": "t1", "name": "f", "input": {}}
            ]}),
            json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "r1"}
            ]}),
        ];
        let out = written(&messages);
        assert_eq!(out[0], messages[0]);
        assert_eq!(out[1], messages[1]);
        assert_eq!(out[2]["content"][0][MARK], json!({"type": "ephemeral"}));
        assert_eq!(out[3], messages[3]);
        assert_eq!(out[4]["content"][0][MARK], json!({"type": "ephemeral"}));
        assert_eq!(out[4]["content"][0]["tool_use_id"], "t1");
        // Nothing stored changed.
        assert!(messages[4]["content"][0].get(MARK).is_none());
    }

    #[test]
    fn a_paused_turn_resent_marks_the_user_message_before_it() {
        let messages = [
            json!({"role": "user", "content": "long task"}),
            json!({"role": "assistant", "content": [{"type": "text", "text": "working"}]}),
        ];
        let out = written(&messages);
        assert_eq!(out[0]["content"][0][MARK], json!({"type": "ephemeral"}));
        assert_eq!(out[1]["content"][0][MARK], json!({"type": "ephemeral"}));
    }

    #[test]
    fn thinking_and_empty_text_blocks_are_passed_over() {
        let messages = [json!({"role": "assistant", "content": [
            {"type": "text", "text": "x"},
            {"type": "text", "text": ""},
            {"type": "thinking", "thinking": "…", "signature": "s"}
        ]})];
        let out = written(&messages);
        assert_eq!(out[0]["content"][0][MARK], json!({"type": "ephemeral"}));
        assert!(out[0]["content"][1].get(MARK).is_none());
        assert!(out[0]["content"][2].get(MARK).is_none());
        let empty = [json!({"role": "user", "content": ""})];
        assert_eq!(written(&empty), json!(empty));
    }

    #[test]
    fn without_caching_the_bytes_are_the_historys() {
        let messages = [
            json!({"role": "user", "content": "a"}),
            json!({"role": "assistant", "content": [{"type": "text", "text": "ok"}]}),
            json!({"role": "user", "content": "b"}),
        ];
        assert_eq!(
            serde_json::to_string(&Messages::new(&messages, false)).unwrap(),
            serde_json::to_string(&messages).unwrap()
        );
        let tools = [json!({"name": "f"}), json!({"name": "g"})];
        assert_eq!(
            serde_json::to_value(Tools::new(&tools, false)).unwrap(),
            json!(tools)
        );
        assert_eq!(
            serde_json::to_value(System::new("s", false)).unwrap(),
            json!("s")
        );
    }

    #[test]
    fn the_last_tool_and_the_system_prompt_are_marked() {
        let tools = [
            json!({"name": "f"}),
            json!({"name": "g", "cache_control": {"type": "x"}}),
        ];
        assert_eq!(
            serde_json::to_string(&Tools::new(&tools, true)).unwrap(),
            r#"[{"name":"f"},{"name":"g","cache_control":{"type":"ephemeral"}}]"#
        );
        assert_eq!(
            serde_json::to_value(System::new("简洁", true)).unwrap(),
            json!([{"type": "text", "text": "简洁", "cache_control": {"type": "ephemeral"}}])
        );
        assert_eq!(
            serde_json::to_value(System::new("", true)).unwrap(),
            json!("")
        );
    }
}
