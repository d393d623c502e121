//! The `tools/call` result: structured output with its text mirror,
//! content blocks, or an error, shaped for the request's revision, and the
//! fast path that writes the most frequent of them.

use super::results::Reply;
use super::results::Trailer;
use crate::protocol::ProtocolVersion;
use crate::protocol::call_model::Wrapped;
use crate::protocol::content::Content;
use crate::protocol::frame::{Frame, FrameKind};
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;
use std::borrow::Cow;

/// The server's zero-copy rendering of a `tools/call` result
/// ([`crate::protocol::model::CallToolResult`] is the concept): the tool's
/// outcome, borrowed, shaped for the revision as it is written.
#[derive(Debug)]
pub(crate) enum CallToolResultRef<'a> {
    /// Structured output (`structuredContent` where the revision has it)
    /// and its text mirror, then `content`; `wrap` puts the output under
    /// `{"result": …}`.
    Structured {
        /// The output, already JSON.
        json: &'a RawValue,
        /// Whether to put it under `{"result": …}`.
        wrap: bool,
        /// The blocks after the text mirror.
        content: &'a [Content],
    },
    /// Content blocks, shaped for the revision as they are written.
    Content(&'a [Content]),
    /// An `isError` result with this text.
    Error(&'a str),
}

/// A text content block.
#[derive(Serialize)]
struct TextBlock<T> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: T,
}

impl<T: Serialize> TextBlock<T> {
    fn new(text: T) -> Self {
        TextBlock { kind: "text", text }
    }
}

/// The structured result of a call, ready to send: `text` compacted to one
/// line when needed; `Err` when it is not JSON.
pub(crate) fn structured_json(text: &str) -> Result<Cow<'_, RawValue>, serde_json::Error> {
    let raw: &RawValue = serde_json::from_str(text)?;
    // Hand-built outcomes may hold pretty JSON: a newline would split the frame.
    if !text.contains(['\n', '\r']) {
        return Ok(Cow::Borrowed(raw));
    }
    let value: Value = serde_json::from_str(text)?;
    Ok(Cow::Owned(serde_json::value::to_raw_value(&value)?))
}

/// [`CallToolResultRef`] for one revision, with its closing fields.
struct CallToolBody<'a> {
    result: &'a CallToolResultRef<'a>,
    version: ProtocolVersion,
    trailer: Option<Trailer<'a>>,
}

/// Content blocks as a session of `version` reads them.
struct Blocks<'a> {
    blocks: &'a [Content],
    version: ProtocolVersion,
}

impl Serialize for Blocks<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.blocks.len()))?;
        for block in self.blocks {
            seq.serialize_element(&block.wire(self.version))?;
        }
        seq.end()
    }
}

/// A structured result's `content`: the text mirror, then its blocks.
struct Mirrored<'a, T> {
    mirror: TextBlock<T>,
    then: Blocks<'a>,
}

impl<T: Serialize> Serialize for Mirrored<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(1 + self.then.blocks.len()))?;
        seq.serialize_element(&self.mirror)?;
        for block in self.then.blocks {
            seq.serialize_element(&block.wire(self.then.version))?;
        }
        seq.end()
    }
}

impl<'a> CallToolBody<'a> {
    fn mirrored<'t>(&self, text: &'t str, blocks: &'a [Content]) -> Mirrored<'a, &'t str> {
        Mirrored {
            mirror: TextBlock::new(text),
            then: Blocks {
                blocks,
                version: self.version,
            },
        }
    }
}

impl Serialize for CallToolBody<'_> {
    // A map written field by field, closing fields included: the hot path
    // of every call, so no flattening machinery and no intermediate text.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut body = serializer.serialize_map(None)?;
        match self.result {
            CallToolResultRef::Structured {
                json,
                wrap: true,
                content,
            } => {
                let wrapped = Wrapped { result: json };
                // The mirror is short: one small string, as cheap as
                // streaming it through a formatter and simpler.
                let text = serde_json::to_string(&wrapped).map_err(serde::ser::Error::custom)?;
                body.serialize_entry("content", &self.mirrored(text.as_str(), content))?;
                if self.version.carries().structured_output {
                    body.serialize_entry("structuredContent", &wrapped)?;
                }
            }
            CallToolResultRef::Structured {
                json,
                wrap: false,
                content,
            } => {
                body.serialize_entry("content", &self.mirrored(json.get(), content))?;
                if self.version.carries().structured_output {
                    body.serialize_entry("structuredContent", json)?;
                }
            }
            CallToolResultRef::Content(blocks) => {
                let blocks = Blocks {
                    blocks,
                    version: self.version,
                };
                body.serialize_entry("content", &blocks)?;
            }
            CallToolResultRef::Error(text) => {
                body.serialize_entry("content", &[TextBlock::new(*text)])?;
                body.serialize_entry("isError", &true)?;
            }
        }
        if let Some(trailer) = &self.trailer {
            body.serialize_entry("resultType", trailer.result_type)?;
            body.serialize_entry("_meta", trailer.meta)?;
        }
        body.end()
    }
}

impl Reply<'_> {
    /// A `tools/call` result.
    pub(crate) fn call_result(&self, result: &CallToolResultRef<'_>) -> Frame {
        if let CallToolResultRef::Structured {
            json,
            wrap: false,
            content: [],
        } = result
        {
            return self.structured_call_result(json);
        }
        self.typed_call_result(result)
    }

    /// The typed rendering of every `tools/call` result; the definition that
    /// [`Reply::structured_call_result`] must match byte for byte.
    fn typed_call_result(&self, result: &CallToolResultRef<'_>) -> Frame {
        let capacity = match result {
            CallToolResultRef::Structured { json, content, .. } => {
                2 * json.get().len() + 64 + 256 * content.len()
            }
            CallToolResultRef::Error(text) => text.len() + 64,
            CallToolResultRef::Content(_) => 256,
        };
        self.respond(
            CallToolBody {
                result,
                version: self.version,
                trailer: self.trailer("complete"),
            },
            capacity,
        )
    }

    /// The most frequent message of all, an unwrapped structured result
    /// without more blocks,
    /// written as its fixed parts around the three variable ones (id, the
    /// text mirror, the structured JSON) instead of key by key through
    /// serde: per call this saves a large share of the result's instructions
    /// (BENCHMARKS.md, "Figures behind design choices"). The
    /// bytes are those of [`Reply::typed_call_result`] (checked for every
    /// revision in the tests below); any other result takes the typed path.
    fn structured_call_result(&self, json: &RawValue) -> Frame {
        let json = json.get();
        let carries = self.version.carries();
        let mut out = Vec::with_capacity(2 * json.len() + 64 + self.overhead());
        out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
        out.extend_from_slice(self.id.get().as_bytes());
        out.extend_from_slice(b",\"result\":{\"content\":[{\"type\":\"text\",\"text\":");
        // A &str always serializes (as an escaped JSON string).
        serde_json::to_writer(&mut out, json).unwrap_or_default();
        out.extend_from_slice(b"}]");
        if carries.structured_output {
            out.extend_from_slice(b",\"structuredContent\":");
            out.extend_from_slice(json.as_bytes());
        }
        if carries.envelope {
            out.extend_from_slice(b",\"resultType\":\"complete\",\"_meta\":");
            out.extend_from_slice(self.server_meta.get().as_bytes());
        }
        out.extend_from_slice(b"}}\n");
        Frame::Owned(out, FrameKind::Result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::outgoing::results::tests::meta;
    use crate::protocol::outgoing::tests::{raw, text};

    #[test]
    fn the_structured_fast_path_writes_the_typed_bytes() {
        let meta = meta();
        for id in ["7", "\"a\\\"b\"", "-12345678901234"] {
            let id = raw(id);
            for version in ProtocolVersion::ALL {
                let reply = Reply::new(&id, version, &meta);
                for json in [
                    r#"{"sum":3.0}"#,
                    r#"{"s":"q\"u\\o\u00e9\n"}"#,
                    "[1,2]",
                    "null",
                ] {
                    let json = raw(json);
                    let fast = text(reply.call_result(&CallToolResultRef::Structured {
                        json: &json,
                        wrap: false,
                        content: &[],
                    }));
                    let typed = text(reply.typed_call_result(&CallToolResultRef::Structured {
                        json: &json,
                        wrap: false,
                        content: &[],
                    }));
                    assert_eq!(fast, typed, "{version}");
                }
            }
        }
    }

    /// A call result is written into the buffer its estimate allocated,
    /// never a larger one: the estimate covers the 2026-07-28 trailer (the
    /// server's `_meta`, here a server with a long title), so no call pays
    /// for a reallocation and a copy of its response.
    #[test]
    fn a_call_result_fits_its_estimate() {
        use crate::protocol::model::Implementation;
        let info = Implementation {
            title: Some("A server whose title alone is longer than a fixed allowance".repeat(4)),
            version: "1.2.3-with-a-long-prerelease-tag".to_owned(),
            ..Implementation::new("everything", "1")
        };
        let meta = crate::protocol::outgoing::server_meta(&info);
        let id = raw("\"a-request-id-of-some-length\"");
        let json = raw(r#"{"sum":7.25}"#);
        let error = "The tool failed; retry with other arguments.";
        for version in ProtocolVersion::ALL {
            let reply = Reply::new(&id, version, &meta);
            let results = [
                (
                    CallToolResultRef::Structured {
                        json: &json,
                        wrap: false,
                        content: &[],
                    },
                    2 * json.get().len() + 64,
                ),
                (CallToolResultRef::Error(error), error.len() + 64),
            ];
            for (result, body) in results {
                let Frame::Owned(bytes, _) = reply.call_result(&result) else {
                    panic!("a call result is one buffer");
                };
                let estimate = body + reply.overhead();
                assert!(
                    bytes.len() <= estimate,
                    "{version}: {} > {estimate}",
                    bytes.len()
                );
                assert_eq!(bytes.capacity(), estimate, "{version}: the buffer grew");
            }
        }
    }

    /// The fast path is the rendering of the canonical type: for every
    /// revision, its bytes are those of the `model::CallToolResult` a client
    /// reads back (the text mirror, `structuredContent` where the revision
    /// has it), closed with the revision's `resultType` and `_meta`.
    #[test]
    fn the_structured_fast_path_writes_the_model_result() {
        use crate::protocol::model::{self, ContentBlock, RequestId, TextContent};

        #[derive(serde::Serialize)]
        struct Closed<'a> {
            #[serde(flatten)]
            result: model::CallToolResult,
            #[serde(flatten)]
            trailer: Option<Trailer<'a>>,
        }

        let meta = meta();
        for (raw_id, id) in [
            ("7", RequestId::Number(7)),
            ("\"a\\\"b\"", RequestId::String("a\"b".to_owned())),
        ] {
            let raw_id = raw(raw_id);
            for version in ProtocolVersion::ALL {
                let reply = Reply::new(&raw_id, version, &meta);
                for json in [r#"{"sum":3.0}"#, r#"{"s":"q\"u\\o\n"}"#, "[1,2]", "null"] {
                    let fast = text(reply.call_result(&CallToolResultRef::Structured {
                        json: &raw(json),
                        wrap: false,
                        content: &[],
                    }));
                    let result = model::CallToolResult {
                        content: vec![ContentBlock::Text(TextContent {
                            text: json.to_owned(),
                            annotations: None,
                            meta: None,
                        })],
                        structured_content: version
                            .carries()
                            .structured_output
                            .then(|| serde_json::from_str(json).unwrap()),
                        ..model::CallToolResult::default()
                    };
                    let canonical = model::JsonRpcResponse::new(
                        id.clone(),
                        Closed {
                            result,
                            trailer: reply.trailer("complete"),
                        },
                    );
                    let canonical = serde_json::to_string(&canonical).unwrap() + "\n";
                    assert_eq!(fast, canonical, "{version}");
                }
            }
        }
    }

    #[test]
    fn structured_output_is_wrapped_and_mirrored_per_revision() {
        let id = raw("1");
        let meta = meta();
        let json = raw("3.0");
        let wrapped = CallToolResultRef::Structured {
            json: &json,
            wrap: true,
            content: &[],
        };
        let v0618 = Reply::new(&id, ProtocolVersion::V2025_06_18, &meta);
        assert_eq!(
            text(v0618.call_result(&wrapped)),
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"{\\\"result\\\":3.0}\"}],\
             \"structuredContent\":{\"result\":3.0}}}\n"
        );
        let plain = CallToolResultRef::Structured {
            json: &json,
            wrap: false,
            content: &[],
        };
        let v0326 = Reply::new(&id, ProtocolVersion::V2025_03_26, &meta);
        assert_eq!(
            text(v0326.call_result(&plain)),
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"3.0\"}]}}\n"
        );
    }

    #[test]
    fn blocks_follow_the_text_mirror_in_every_revision() {
        let id = raw("1");
        let meta = meta();
        let json = raw(r#"{"n":2}"#);
        let blocks = [
            Content::image(b"GIF89a", "image/gif"),
            Content::audio(b"RIFF", "audio/wav"),
        ];
        for version in ProtocolVersion::ALL {
            let reply = Reply::new(&id, version, &meta);
            for wrap in [false, true] {
                let result = CallToolResultRef::Structured {
                    json: &json,
                    wrap,
                    content: &blocks,
                };
                let frame: Value = serde_json::from_str(&text(reply.call_result(&result))).unwrap();
                let result = &frame["result"];
                let value = if wrap {
                    serde_json::json!({"result": {"n": 2}})
                } else {
                    serde_json::json!({"n": 2})
                };
                let audio = if version.carries().audio {
                    serde_json::json!({"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"})
                } else {
                    serde_json::json!({"type": "text", "text": "[audio/wav audio of 8 base64 bytes omitted: this protocol version cannot carry audio]"})
                };
                assert_eq!(
                    result["content"],
                    serde_json::json!([
                        {"type": "text", "text": value.to_string()},
                        {"type": "image", "data": "R0lGODlh", "mimeType": "image/gif"},
                        audio,
                    ]),
                    "{version}"
                );
                assert_eq!(
                    result.get("structuredContent"),
                    version.carries().structured_output.then_some(&value),
                    "{version}"
                );
            }
        }
        // Without blocks, the typed path writes what the fast path does.
        let reply = Reply::new(&id, ProtocolVersion::V2025_06_18, &meta);
        assert_eq!(
            text(reply.typed_call_result(&CallToolResultRef::Structured {
                json: &json,
                wrap: false,
                content: &blocks[..1],
            })),
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"{\\\"n\\\":2}\"},\
             {\"data\":\"R0lGODlh\",\"mimeType\":\"image/gif\",\"type\":\"image\"}],\"structuredContent\":{\"n\":2}}}\n"
        );
    }

    #[test]
    fn pretty_structured_json_is_compacted_and_broken_json_refused() {
        assert_eq!(structured_json("{\"a\":1}").unwrap().get(), "{\"a\":1}");
        assert_eq!(
            structured_json("{\n \"a\": 1\n}").unwrap().get(),
            "{\"a\":1}"
        );
        assert!(structured_json("{").is_err());
    }
}
