//! Conversions between MCP and the model APIs' tool use, each a pure
//! function.
//!
//! **Tools.** [`claude_tool`] gives the Anthropic Messages API's
//! `{name, description, input_schema}`; [`openai_tool`] the Chat Completions
//! API's `{"type":"function","function":{name, description, parameters}}`,
//! with `"strict": true` where the schema can be expressed in strict mode's
//! subset ([`Strict`]). The schema rewrites are mcp-protocol's, the ones a server's
//! `--dump-tools anthropic|openai|openai-strict` use
//! ([`mcp_protocol::model_schema::for_model_api`],
//! [`mcp_protocol::model_schema::openai_strict`]). A strict schema makes every
//! optional argument required and nullable, so the model sends `null` for
//! "absent"; [`strip_absent_nulls`] takes those out again before the call,
//! since an MCP server need not accept `null` for an optional argument.
//! A root `oneOf`/`anyOf`/`allOf`/`not`/`enum`, which both APIs refuse
//! (failing every request, not just this tool), is flattened into the
//! root's properties, and the choice it expressed is said in a sentence
//! added to the description.
//!
//! **Results to Claude.** [`claude_tool_result`] gives one `tool_result`
//! block (to go, with the others of the same turn, in one `role: user`
//! message):
//!
//! | MCP | Claude |
//! |---|---|
//! | one text block, nothing else | `"content": "<text>"` |
//! | text | `{"type":"text","text"}` (empty ones dropped) |
//! | image (JPEG, PNG, GIF, WebP) | `{"type":"image","source":{"type":"base64","media_type","data"}}` |
//! | image of another type | a text note saying what was left out |
//! | audio | a text note (the API takes no audio) |
//! | resource link | text: name, URI, type, size, description |
//! | embedded text resource | `{"type":"document","source":{"type":"text","media_type":"text/plain","data"},"title":<uri>}` |
//! | embedded PDF | `{"type":"document","source":{"type":"base64","media_type":"application/pdf","data"},"title":<uri>}` |
//! | embedded image blob | as an image |
//! | other embedded blob | a text note |
//! | only `structuredContent` | its JSON as text |
//! | `isError: true` | `"is_error": true` |
//!
//! Images and PDFs are passed on only as canonical base64 (line breaks
//! removed, the URL-safe alphabet and missing padding repaired; anything
//! else becomes a note), and an image goes with the type its first bytes
//! show when they show one: both APIs refuse the *whole request* for one
//! undecodable image or one whose bytes contradict its type, which would
//! let one broken tool end the conversation. Block annotations (`audience`,
//! `priority`) are not acted on: every block goes to the model.
//!
//! **Results to OpenAI.** A `role: tool` message carries text only, so
//! [`openai_tool_message`] gives the text (the same notes and renderings, an
//! embedded text resource inline after its URI, `Error: ` before the text
//! of an `isError` result since the message has no error flag) and, for each
//! image, a note in the text plus an `image_url` part with a `data:` URL.
//! [`openai_tool_messages`] assembles one turn: one `role: tool` message per
//! call, in order, then, if any call returned images, **one `role: user`
//! message right after the tool messages** carrying them (a user message may
//! not come between the tool messages of one assistant turn). PDFs are
//! described in text, not attached.
//!
//! **Failures.** A call that produced no result ([`CallFailure`]: a JSON-RPC
//! error, a name never offered, a timeout, a server gone, a call declined)
//! becomes an `isError` result whose text says why
//! ([`CallFailure::to_result`]), so the model can react.

use mcp_protocol::model::{
    AudioContent, CallToolResult, ContentBlock, JsonObject, ResourceContents, ResourceLinkContent,
    RpcError, Tool,
};
use mcp_client::{ClientError, McpError};
use serde_json::{Map, Value, json};
use std::borrow::Cow;
use std::fmt;
use std::time::Duration;

/// The image media types both the Anthropic API (`image` blocks) and
/// OpenAI's `image_url` parts accept (OpenAI: GIF not animated; the API
/// checks that itself).
pub const IMAGE_TYPES: [&str; 4] = ["image/jpeg", "image/png", "image/gif", "image/webp"];

/// The tool's description for the model: its description, else its title,
/// else empty (both APIs take an empty one; the model then has the name).
fn description(tool: &Tool) -> &str {
    tool.description
        .as_deref()
        .or(tool.title.as_deref())
        .unwrap_or_default()
}

/// The input schema as the model APIs take it, and a sentence for the
/// description when flattening the root lost a choice between argument
/// sets: standard keywords only, an object root (MCP requires
/// `"type": "object"`; a server that leaves it out still gets a schema both
/// APIs accept), and no `oneOf`/`anyOf`/`allOf`/`not`/`enum` at the root.
///
/// The Anthropic API refuses the whole request ("input_schema does not
/// support oneOf, allOf, or anyOf at the top level") and OpenAI's refuses
/// those and `not`/`enum` at the root, so one such tool from one server
/// would break every request. The branches' properties move to the root
/// (`allOf`'s required ones stay required); the server still validates,
/// and a model that sends a wrong combination gets its error.
fn model_schema(tool: &Tool) -> (Value, Option<String>) {
    let mut schema =
        mcp_protocol::model_schema::for_model_api(&Value::Object(tool.input_schema.clone()));
    let mut hint = None;
    if let Value::Object(map) = &mut schema {
        hint = flatten_root(map);
        map.insert("type".into(), "object".into());
    }
    (schema, hint)
}

/// Root keywords neither API takes.
const ROOT_REFUSED: [&str; 5] = ["oneOf", "anyOf", "allOf", "not", "enum"];

/// Moves the properties of a root `oneOf`/`anyOf`/`allOf` to the root and
/// drops the refused keywords; says which argument sets a `oneOf`/`anyOf`
/// required, when its branches required different ones.
fn flatten_root(root: &mut Map<String, Value>) -> Option<String> {
    let mut choices = Vec::new();
    for key in ["allOf", "oneOf", "anyOf"] {
        let Some(Value::Array(branches)) = root.remove(key) else {
            continue;
        };
        let mut sets = Vec::new();
        for branch in branches {
            let Value::Object(mut branch) = branch else {
                continue;
            };
            // A `$defs` of a branch is not reachable from the root's `$ref`s.
            branch.remove("$defs");
            let required = match branch.remove("required") {
                Some(Value::Array(required)) => required,
                _ => Vec::new(),
            };
            if let Some(Value::Object(properties)) = branch.remove("properties") {
                let root_properties = root
                    .entry("properties")
                    .or_insert_with(|| Value::Object(Map::new()));
                if let Value::Object(root_properties) = root_properties {
                    for (name, property) in properties {
                        root_properties.entry(name).or_insert(property);
                    }
                }
            }
            if key == "allOf" {
                let root_required = root
                    .entry("required")
                    .or_insert_with(|| Value::Array(Vec::new()));
                if let Value::Array(root_required) = root_required {
                    for name in required {
                        if !root_required.contains(&name) {
                            root_required.push(name);
                        }
                    }
                }
            } else {
                let names: Vec<String> = required
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|name| format!("`{name}`"))
                    .collect();
                sets.push(names.join(" and "));
            }
        }
        sets.dedup();
        if sets.len() > 1 && sets.iter().any(|set| !set.is_empty()) {
            let sets: Vec<String> = sets
                .into_iter()
                .map(|set| {
                    if set.is_empty() {
                        "none".to_owned()
                    } else {
                        set
                    }
                })
                .collect();
            let verb = if key == "oneOf" {
                "exactly one"
            } else {
                "at least one"
            };
            choices.push(format!(
                "The arguments must match {verb} of these sets of required arguments: {}.",
                sets.join("; ")
            ));
        }
    }
    for key in ROOT_REFUSED {
        root.remove(key);
    }
    (!choices.is_empty()).then(|| choices.join(" "))
}

/// The description with the flattening's sentence, if any.
fn described(tool: &Tool, hint: Option<String>) -> String {
    match hint {
        Some(hint) if description(tool).is_empty() => hint,
        Some(hint) => format!("{}\n\n{hint}", description(tool)),
        None => description(tool).to_owned(),
    }
}

/// The Anthropic Messages API entry of `tool`, offered as `model_name`:
/// `{"name", "description", "input_schema"}`.
pub fn claude_tool(model_name: &str, tool: &Tool) -> Value {
    let (schema, hint) = model_schema(tool);
    json!({
        "name": model_name,
        "description": described(tool, hint),
        "input_schema": schema,
    })
}

/// Whether OpenAI tools are offered in strict mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Strict {
    /// Never: `parameters` is the tool's schema.
    #[default]
    Off,
    /// `"strict": true` for each tool whose schema strict mode can express;
    /// the others as with [`Strict::Off`].
    WhereExpressible,
}

/// The OpenAI Chat Completions entry of `tool`, offered as `model_name`:
/// `{"type":"function","function":{"name","description","parameters"}}`,
/// plus `"strict": true` with the strict form of the schema when `strict`
/// asks for it and the schema allows.
pub fn openai_tool(model_name: &str, tool: &Tool, strict: Strict) -> Value {
    if strict == Strict::WhereExpressible
        && let Ok(entry) = openai_strict_tool(model_name, tool)
    {
        return entry;
    }
    let (schema, hint) = model_schema(tool);
    json!({
        "type": "function",
        "function": {
            "name": model_name,
            "description": described(tool, hint),
            "parameters": schema,
        }
    })
}

/// The strict OpenAI entry of `tool`, or every reason (with its schema
/// path) strict mode cannot express its schema.
pub fn openai_strict_tool(model_name: &str, tool: &Tool) -> Result<Value, Vec<String>> {
    // Flattened first: strict mode refuses a root `anyOf` as the
    // non-strict API does, and mcp-runtime's conversion would keep one.
    let (schema, hint) = model_schema(tool);
    let parameters = mcp_protocol::model_schema::openai_strict(&schema)?;
    Ok(json!({
        "type": "function",
        "function": {
            "name": model_name,
            "description": described(tool, hint),
            "parameters": parameters,
            "strict": true,
        }
    }))
}

/// Removes from `arguments` each `null` a strict-mode model sent for an
/// argument the tool's `input_schema` does not require and does not allow
/// to be `null`: strict mode made it required-and-nullable, and `null`
/// there means "absent". Nested objects, array items and `$ref`s to
/// `#/$defs/…` are followed; anything else is left as it is.
pub fn strip_absent_nulls(arguments: &mut Value, input_schema: &JsonObject) {
    strip(arguments, input_schema, input_schema, 0);
}

/// How deep [`strip_absent_nulls`] follows schemas (recursive `$ref`s end).
const MAX_STRIP_DEPTH: usize = 32;

fn strip(value: &mut Value, schema: &JsonObject, root: &JsonObject, depth: usize) {
    if depth > MAX_STRIP_DEPTH {
        return;
    }
    let schema = resolve(schema, root);
    match value {
        Value::Object(object) => {
            let Some(Value::Object(properties)) = schema.get("properties") else {
                return;
            };
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            object.retain(|name, value| {
                !(value.is_null()
                    && !required.contains(&name.as_str())
                    && properties
                        .get(name)
                        .and_then(Value::as_object)
                        .is_some_and(|p| !allows_null(resolve(p, root))))
            });
            for (name, value) in object.iter_mut() {
                if let Some(Value::Object(property)) = properties.get(name) {
                    strip(value, property, root, depth + 1);
                }
            }
        }
        Value::Array(items) => {
            if let Some(Value::Object(item)) = schema.get("items") {
                for value in items {
                    strip(value, item, root, depth + 1);
                }
            }
        }
        _ => {}
    }
}

/// `schema`, or what its `$ref` to `#/$defs/…` points at.
fn resolve<'a>(schema: &'a JsonObject, root: &'a JsonObject) -> &'a JsonObject {
    schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/$defs/"))
        .and_then(|name| root.get("$defs")?.get(name)?.as_object())
        .unwrap_or(schema)
}

/// Whether the tool's own schema accepts `null` (then `null` is a value,
/// not "absent").
fn allows_null(schema: &JsonObject) -> bool {
    let null_type = |t: &Value| t == "null";
    match schema.get("type") {
        Some(Value::String(t)) if t == "null" => return true,
        Some(Value::Array(types)) if types.iter().any(null_type) => return true,
        _ => {}
    }
    if schema.get("const") == Some(&Value::Null) {
        return true;
    }
    if let Some(Value::Array(values)) = schema.get("enum")
        && values.iter().any(Value::is_null)
    {
        return true;
    }
    ["anyOf", "oneOf"].iter().any(|key| {
        schema
            .get(*key)
            .and_then(Value::as_array)
            .is_some_and(|branches| {
                branches
                    .iter()
                    .filter_map(Value::as_object)
                    .any(allows_null)
            })
    }) || !schema.contains_key("type")
        && !schema.contains_key("const")
        && !schema.contains_key("enum")
        && !schema.contains_key("anyOf")
        && !schema.contains_key("oneOf")
        && !schema.contains_key("$ref")
}

/// Bytes that `base64` decodes to (padding and whitespace not counted).
fn decoded_len(base64: &str) -> usize {
    let digits = base64
        .bytes()
        .filter(|b| {
            b.is_ascii_alphanumeric() || *b == b'+' || *b == b'/' || *b == b'-' || *b == b'_'
        })
        .count();
    digits * 3 / 4
}

/// A media type compared as the APIs expect it: lower case, parameters
/// dropped, and the common `image/jpg` taken for `image/jpeg`.
fn normalized_media_type(mime_type: &str) -> String {
    let base = mime_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    if base == "image/jpg" {
        "image/jpeg".to_owned()
    } else {
        base
    }
}

/// `data` as standard, padded base64 without whitespace (what both APIs
/// take: a bad image fails the whole request, not just this result), or
/// `None` when it is not base64. Line breaks are removed and the URL-safe
/// alphabet and missing padding are repaired; anything else is refused.
fn canonical_base64(data: &str) -> Option<Cow<'_, str>> {
    let standard = |b: u8| b.is_ascii_alphanumeric() || b == b'+' || b == b'/';
    let body = data.trim_end_matches('=');
    let padding = data.len() - body.len();
    if !body.is_empty()
        && body.bytes().all(standard)
        && padding <= 2
        && (body.len() + padding).is_multiple_of(4)
        && body.len() % 4 != 1
    {
        return Some(Cow::Borrowed(data));
    }
    let mut fixed: String = data
        .chars()
        .filter(|c| !c.is_ascii_whitespace())
        .map(|c| match c {
            '-' => '+',
            '_' => '/',
            c => c,
        })
        .collect();
    let body_len = fixed.trim_end_matches('=').len();
    fixed.truncate(body_len);
    if fixed.is_empty() || !fixed.bytes().all(standard) || fixed.len() % 4 == 1 {
        return None;
    }
    while !fixed.len().is_multiple_of(4) {
        fixed.push('=');
    }
    Some(Cow::Owned(fixed))
}

/// The image type the first bytes of base64 `data` show: JPEG, PNG, GIF or
/// WebP, the four both APIs take.
fn sniff_image(data: &str) -> Option<&'static str> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    // 16 digits: the 12 bytes a WebP header needs.
    let mut bytes = Vec::with_capacity(12);
    for chunk in data.as_bytes().chunks(4).take(4) {
        if chunk.len() < 4 || chunk.contains(&b'=') {
            break;
        }
        let mut n = 0u32;
        for &c in chunk {
            n = n << 6 | value(c)?;
        }
        bytes.extend_from_slice(&n.to_be_bytes()[1..]);
    }
    if bytes.starts_with(&[0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a]) {
        Some("image/png")
    } else if bytes.starts_with(&[0xff, 0xd8, 0xff]) {
        Some("image/jpeg")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if bytes.len() >= 12 && bytes.starts_with(b"RIFF") && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

/// The media type and data to send an image with, or why it is left out:
/// the type its bytes show when they show one (the APIs refuse an image
/// whose bytes contradict its type), else the declared type if the APIs take
/// it.
fn sendable_image<'a>(
    declared: &str,
    data: &'a str,
) -> Result<(&'static str, Cow<'a, str>), &'static str> {
    let data = canonical_base64(data).ok_or("its data is not valid base64")?;
    let declared = normalized_media_type(declared);
    let media_type = sniff_image(&data)
        .or_else(|| IMAGE_TYPES.iter().copied().find(|t| *t == declared))
        .ok_or("the model APIs accept JPEG, PNG, GIF and WebP images only")?;
    Ok((media_type, data))
}

/// What an image not passed on was.
fn image_note(mime_type: &str, data: &str, why: &str) -> String {
    format!(
        "[The tool returned an image ({mime_type}, {} bytes) that is not shown: {why}.]",
        decoded_len(data)
    )
}

/// What audio returned by a tool becomes: a note (neither API takes audio
/// in tool results).
pub(crate) fn audio_note(audio: &AudioContent) -> String {
    format!(
        "[The tool returned audio ({}, {} bytes) that is not shown: the model API takes no audio in tool results.]",
        audio.mime_type,
        decoded_len(&audio.data)
    )
}

/// What a resource link becomes: its name, URI, type, size and description.
pub(crate) fn link_text(link: &ResourceLinkContent) -> String {
    let mut text = format!(
        "Resource link: {} <{}>",
        link.title.as_deref().unwrap_or(&link.name),
        link.uri
    );
    match (&link.mime_type, link.size) {
        (Some(mime), Some(size)) => text.push_str(&format!(" ({mime}, {size} bytes)")),
        (Some(mime), None) => text.push_str(&format!(" ({mime})")),
        (None, Some(size)) => text.push_str(&format!(" ({size} bytes)")),
        (None, None) => {}
    }
    if let Some(description) = &link.description {
        text.push('\n');
        text.push_str(description);
    }
    text
}

/// A binary embedded resource no API block takes.
fn blob_note(uri: &str, mime_type: Option<&str>, blob: &str) -> String {
    format!(
        "[The tool returned the resource <{uri}> ({}, {} bytes of binary data) that is not shown.]",
        mime_type.unwrap_or("no media type"),
        decoded_len(blob)
    )
}

/// The text of a result with no content but `structuredContent`, or of an
/// error result with nothing at all.
fn fallback_text(result: &CallToolResult) -> Option<String> {
    if !result.content.is_empty() {
        return None;
    }
    match &result.structured_content {
        Some(structured) => Some(structured.to_string()),
        None if result.is_error => {
            Some("The tool reported an error and gave no details.".to_owned())
        }
        None => None,
    }
}

/// The `content` of a Claude `tool_result` for `result`: a plain string for
/// a single text, else an array of blocks; `None` when there is nothing to
/// send (a successful call with no output).
pub fn claude_tool_result_content(result: &CallToolResult) -> Option<Value> {
    let text = |text: String| json!({"type": "text", "text": text});
    let mut blocks = Vec::new();
    if let Some(fallback) = fallback_text(result) {
        blocks.push(text(fallback));
    }
    for block in &result.content {
        match block {
            // The API refuses empty text blocks inside an array.
            ContentBlock::Text(t) if t.text.is_empty() => {}
            ContentBlock::Text(t) => blocks.push(text(t.text.clone())),
            ContentBlock::Image(image) => {
                blocks.push(match sendable_image(&image.mime_type, &image.data) {
                    Ok((media_type, data)) => claude_image(media_type, &data),
                    Err(why) => text(image_note(&image.mime_type, &image.data, why)),
                });
            }
            ContentBlock::Resource(embedded) => blocks.push(match &embedded.resource {
                // The API refuses an empty document.
                ResourceContents::Text { uri, text: body, .. } if body.is_empty() => {
                    text(format!("[The tool returned the resource <{uri}>, which is empty.]"))
                }
                ResourceContents::Text { uri, text, .. } => json!({
                    "type": "document",
                    "source": {"type": "text", "media_type": "text/plain", "data": text},
                    "title": uri,
                }),
                ResourceContents::Blob {
                    uri,
                    mime_type,
                    blob,
                } => {
                    let declared = mime_type.as_deref().unwrap_or("");
                    let pdf = normalized_media_type(declared) == "application/pdf";
                    match canonical_base64(blob) {
                        Some(data) if pdf => json!({
                            "type": "document",
                            "source": {"type": "base64", "media_type": "application/pdf", "data": data},
                            "title": uri,
                        }),
                        _ => match sendable_image(declared, blob) {
                            Ok((media_type, data)) => claude_image(media_type, &data),
                            Err(_) => text(blob_note(uri, mime_type.as_deref(), blob)),
                        },
                    }
                }
            }),
            ContentBlock::Audio(audio) => blocks.push(text(audio_note(audio))),
            ContentBlock::ResourceLink(link) => blocks.push(text(link_text(link))),
        }
    }
    match blocks.len() {
        0 => None,
        1 if blocks[0]["type"] == "text" => Some(blocks.swap_remove(0)["text"].take()),
        _ => Some(Value::Array(blocks)),
    }
}

fn claude_image(media_type: &str, data: &str) -> Value {
    json!({
        "type": "image",
        "source": {"type": "base64", "media_type": media_type, "data": data},
    })
}

/// The Claude `tool_result` block answering the `tool_use` whose `id` is
/// `tool_use_id`: `{"type":"tool_result","tool_use_id","content"[,"is_error":true]}`.
pub fn claude_tool_result(tool_use_id: &str, result: &CallToolResult) -> Value {
    let mut block = Map::new();
    block.insert("type".into(), "tool_result".into());
    block.insert("tool_use_id".into(), tool_use_id.into());
    if let Some(content) = claude_tool_result_content(result) {
        block.insert("content".into(), content);
    }
    if result.is_error {
        block.insert("is_error".into(), true.into());
    }
    Value::Object(block)
}

/// One call's result in OpenAI's shape: the `role: tool` message, and the
/// images that must travel in a `role: user` message after the turn's tool
/// messages.
#[derive(Clone, Debug, PartialEq)]
pub struct OpenAiToolOutput {
    /// `{"role":"tool","tool_call_id","content":<text>}`.
    pub message: Value,
    /// `{"type":"image_url","image_url":{"url":"data:…"}}` parts, in the
    /// order the result gave them.
    pub images: Vec<Value>,
}

/// The `role: tool` message answering the tool call `tool_call_id`, and its
/// images (see the module docs). `first_image` numbers the images (the
/// notes say "image 3"), so that a turn's images have distinct numbers.
pub fn openai_tool_message(
    tool_call_id: &str,
    result: &CallToolResult,
    first_image: usize,
) -> OpenAiToolOutput {
    openai_tool_output(tool_call_id, result, Some(first_image))
}

/// The `role: tool` message answering the tool call `tool_call_id`, text
/// only: each image is a note saying what it was (a tool message carries
/// text only). What the `mcp-host` program sends: one message per call and
/// nothing between them.
pub fn openai_tool_text_message(tool_call_id: &str, result: &CallToolResult) -> Value {
    openai_tool_output(tool_call_id, result, None).message
}

/// [`openai_tool_message`] when `first_image` is `Some`; images as notes
/// only when `None`.
fn openai_tool_output(
    tool_call_id: &str,
    result: &CallToolResult,
    first_image: Option<usize>,
) -> OpenAiToolOutput {
    let mut parts: Vec<String> = Vec::new();
    let mut images = Vec::new();
    if let Some(fallback) = fallback_text(result) {
        parts.push(fallback);
    }
    for block in &result.content {
        match block {
            ContentBlock::Text(t) => parts.push(t.text.clone()),
            ContentBlock::Image(image) => match sendable_image(&image.mime_type, &image.data) {
                Ok(_) if first_image.is_none() => parts.push(image_note(
                    &image.mime_type,
                    &image.data,
                    "a tool message carries text only",
                )),
                Ok((media_type, data)) => {
                    let first_image = first_image.unwrap_or(1);
                    let number = first_image + images.len();
                    parts.push(format!(
                        "[Image {number} ({media_type}) is in the user message after the tool results.]"
                    ));
                    images.push(json!({
                        "type": "image_url",
                        "image_url": {"url": format!("data:{media_type};base64,{data}")},
                    }));
                }
                Err(why) => parts.push(image_note(&image.mime_type, &image.data, why)),
            },
            ContentBlock::Resource(embedded) => parts.push(match &embedded.resource {
                ResourceContents::Text { uri, text, .. } => format!("Resource <{uri}>:\n{text}"),
                ResourceContents::Blob {
                    uri,
                    mime_type,
                    blob,
                } => blob_note(uri, mime_type.as_deref(), blob),
            }),
            ContentBlock::Audio(audio) => parts.push(audio_note(audio)),
            ContentBlock::ResourceLink(link) => parts.push(link_text(link)),
        }
    }
    let mut content = parts.join("\n");
    if result.is_error {
        content.insert_str(0, "Error: ");
    }
    OpenAiToolOutput {
        message: json!({"role": "tool", "tool_call_id": tool_call_id, "content": content}),
        images,
    }
}

/// One turn's results in OpenAI's shape, `(tool_call_id, result)` in the
/// order of the assistant's `tool_calls`: a `role: tool` message each, then
/// one `role: user` message with every image, if there are any.
pub fn openai_tool_messages<'a>(
    results: impl IntoIterator<Item = (&'a str, &'a CallToolResult)>,
) -> Vec<Value> {
    let mut messages = Vec::new();
    let mut images = Vec::new();
    for (id, result) in results {
        let output = openai_tool_message(id, result, images.len() + 1);
        messages.push(output.message);
        images.extend(output.images);
    }
    if !images.is_empty() {
        let mut content = vec![json!({
            "type": "text",
            "text": "The images returned by the tool calls above, in order:",
        })];
        content.extend(images);
        messages.push(json!({"role": "user", "content": content}));
    }
    messages
}

/// The arguments of an OpenAI tool call (`function.arguments`, a JSON
/// *string*) as the object `tools/call` takes; an empty string is `{}`.
pub fn parse_openai_arguments(arguments: &str) -> Result<Value, CallFailure> {
    if arguments.trim().is_empty() {
        return Ok(json!({}));
    }
    match serde_json::from_str::<Value>(arguments) {
        Ok(object @ Value::Object(_)) => Ok(object),
        Ok(other) => Err(CallFailure::InvalidArguments {
            reason: format!("the arguments must be a JSON object, not `{other}`"),
        }),
        Err(error) => Err(CallFailure::InvalidArguments {
            reason: format!("the arguments are not valid JSON ({error})"),
        }),
    }
}

/// A tool call that produced no result of its own.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum CallFailure {
    /// The server answered `tools/call` with a JSON-RPC error.
    Rpc(RpcError),
    /// The model asked for a name that was never offered.
    UnknownTool {
        /// The name the model used.
        name: String,
    },
    /// The model's arguments could not be used (not JSON, not an object).
    InvalidArguments {
        /// What is wrong with them.
        reason: String,
    },
    /// No answer in time; the call was cancelled.
    Timeout {
        /// How long the host waited.
        after: Duration,
    },
    /// The server is not running or not reachable.
    ServerGone {
        /// The server's config name.
        server: String,
        /// What happened (exit status, connection error).
        reason: String,
    },
    /// The server ran the call as a task (the Tasks extension) that ended
    /// without a result: cancelled on the server's side, or forgotten.
    TaskEnded {
        /// What happened to the task.
        reason: String,
    },
    /// The user declined to run the call.
    Declined,
    /// The host did not run the call for another reason (a guard on the
    /// number of calls, a policy).
    NotRun {
        /// Why, for the model.
        reason: String,
    },
    /// The server answered, but the answer could not be used (too large to
    /// hold, malformed).
    Unusable {
        /// The server's config name.
        server: String,
        /// What was wrong with it.
        reason: String,
    },
}

/// The longest JSON-RPC `data` quoted to the model, in bytes.
const MAX_ERROR_DATA: usize = 1_000;

impl fmt::Display for CallFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallFailure::Rpc(error) => {
                match error.code {
                    -32602 => write!(
                        f,
                        "The server rejected the call's arguments (JSON-RPC error -32602): {}",
                        error.message
                    )?,
                    code => write!(
                        f,
                        "The server answered the call with JSON-RPC error {code}: {}",
                        error.message
                    )?,
                }
                if let Some(data) = &error.data {
                    let mut data = data.to_string();
                    if data.len() > MAX_ERROR_DATA {
                        let mut end = MAX_ERROR_DATA;
                        while !data.is_char_boundary(end) {
                            end -= 1;
                        }
                        data.truncate(end);
                        data.push('…');
                    }
                    write!(f, " ({data})")?;
                }
                Ok(())
            }
            CallFailure::UnknownTool { name } => write!(
                f,
                "There is no tool named `{name}`; call one of the tools offered."
            ),
            CallFailure::InvalidArguments { reason } => {
                write!(f, "The call was not made: {reason}.")
            }
            CallFailure::Timeout { after } => write!(
                f,
                "The tool did not answer within {} s; the call was cancelled.",
                after.as_secs_f64()
            ),
            CallFailure::ServerGone { server, reason } => write!(
                f,
                "The server `{server}` that provides this tool is not available ({reason}); the call was not completed."
            ),
            CallFailure::TaskEnded { reason } => write!(
                f,
                "The server ran the call as a task that ended without a result: {reason}."
            ),
            CallFailure::Declined => f.write_str("The user declined to run this tool call."),
            CallFailure::NotRun { reason } => write!(f, "The call was not run: {reason}."),
            CallFailure::Unusable { server, reason } => write!(
                f,
                "The server `{server}` answered, but the answer could not be used: {reason}."
            ),
        }
    }
}

impl std::error::Error for CallFailure {}

impl CallFailure {
    /// The failure a model sees for a call to `server` that failed with
    /// `error`.
    pub fn from_error(error: &McpError, server: &str) -> CallFailure {
        match error {
            McpError::Client(ClientError::Rpc(e)) => CallFailure::Rpc(e.clone()),
            McpError::Client(ClientError::Timeout { after, .. }) => {
                CallFailure::Timeout { after: *after }
            }
            McpError::TaskEnded {
                task_id, reason, ..
            } => CallFailure::TaskEnded {
                reason: format!("task `{task_id}` {reason}"),
            },
            McpError::Client(error @ ClientError::TooManyPending { .. }) => CallFailure::NotRun {
                reason: error.to_string(),
            },
            McpError::Client(
                error @ (ClientError::AnswerTooLarge { .. }
                | ClientError::TooLarge { .. }
                | ClientError::Malformed { .. }),
            ) => CallFailure::Unusable {
                server: server.to_owned(),
                reason: error.to_string(),
            },
            other => CallFailure::ServerGone {
                server: server.to_owned(),
                reason: other.to_string(),
            },
        }
    }

    /// The `isError` result the model sees for this failure.
    pub fn to_result(&self) -> CallToolResult {
        CallToolResult::error(self.to_string())
    }
}

#[cfg(test)]
mod tests;
