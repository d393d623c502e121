//! What a tool call gives the model, whatever the API: the failures that
//! become an `isError` result saying why ([`CallFailure`]), and the rules
//! both dialects share for content no API takes as it is (the renderings
//! of audio, resource links and binary resources as text, and which images
//! may be sent).
//!
//! A call that produced no result ([`CallFailure`]: a JSON-RPC error, a
//! name never offered, a timeout, a server gone, a call declined) becomes
//! an `isError` result whose text says why ([`CallFailure::to_result`]),
//! so the model can react.
//!
//! Images and PDFs are passed on only as canonical base64 (line breaks
//! removed, the URL-safe alphabet and missing padding repaired; anything
//! else becomes a note), and an image goes with the type its first bytes
//! show when they show one: both APIs refuse the *whole request* for one
//! undecodable image or one whose bytes contradict its type, which would
//! let one broken tool end the conversation. Block annotations (`audience`,
//! `priority`) are not acted on: every block goes to the model.

use mcpfn_client::{ClientError, McpError};
use mcpfn_protocol::model::{AudioContent, CallToolResult, ResourceLinkContent, RpcError};
use std::borrow::Cow;
use std::fmt;
use std::time::Duration;

/// The image media types both the Anthropic API (`image` blocks) and
/// OpenAI's `image_url` parts accept (OpenAI: GIF not animated; the API
/// checks that itself).
pub(crate) const IMAGE_TYPES: [&str; 4] = ["image/jpeg", "image/png", "image/gif", "image/webp"];

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
pub(crate) fn normalized_media_type(mime_type: &str) -> String {
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
pub(crate) fn canonical_base64(data: &str) -> Option<Cow<'_, str>> {
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
pub(crate) fn sendable_image<'a>(
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

/// Who gave the content a note is about: a tool's result, or what the
/// host put in a message itself (a prompt's messages, an attachment).
pub(crate) const FROM_TOOL: &str = "The tool returned";
/// See [`FROM_TOOL`].
pub(crate) const FROM_SERVER: &str = "The server sent";

/// What an image not passed on was.
pub(crate) fn image_note(mime_type: &str, data: &str, why: &str) -> String {
    image_note_from(FROM_TOOL, mime_type, data, why)
}

/// What an image not passed on was, `from` whom ([`FROM_TOOL`], [`FROM_SERVER`]).
pub(crate) fn image_note_from(from: &str, mime_type: &str, data: &str, why: &str) -> String {
    format!(
        "[{from} an image ({mime_type}, {} bytes) that is not shown: {why}.]",
        decoded_len(data)
    )
}

/// What audio returned by a tool becomes: a note (neither API takes audio
/// in tool results).
pub(crate) fn audio_note(audio: &AudioContent) -> String {
    audio_note_from(FROM_TOOL, audio)
}

/// What audio becomes, `from` whom ([`FROM_TOOL`], [`FROM_SERVER`]).
pub(crate) fn audio_note_from(from: &str, audio: &AudioContent) -> String {
    format!(
        "[{from} audio ({}, {} bytes) that is not shown: the model API takes no audio here.]",
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
pub(crate) fn blob_note(uri: &str, mime_type: Option<&str>, blob: &str) -> String {
    blob_note_from(FROM_TOOL, uri, mime_type, blob)
}

/// A binary resource no API block takes, `from` whom ([`FROM_TOOL`], [`FROM_SERVER`]).
pub(crate) fn blob_note_from(from: &str, uri: &str, mime_type: Option<&str>, blob: &str) -> String {
    format!(
        "[{from} the resource <{uri}> ({}, {} bytes of binary data) that is not shown.]",
        mime_type.unwrap_or("no media type"),
        decoded_len(blob)
    )
}

/// The text of a result with no content but `structuredContent`, or of an
/// error result with nothing at all.
pub(crate) fn fallback_text(result: &CallToolResult) -> Option<String> {
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
    /// The user interrupted the line while the call ran: it was cancelled
    /// and may or may not have taken effect.
    Interrupted,
    /// The line's time limit passed while the call ran: it was cancelled
    /// and may or may not have taken effect.
    LineTimedOut {
        /// The line's time limit.
        after: Duration,
    },
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
            CallFailure::Interrupted => f.write_str(
                "The user interrupted this call before it returned a result; it was cancelled and may or may not have taken effect.",
            ),
            CallFailure::LineTimedOut { after } => write!(
                f,
                "The line's time limit ({} s) passed before this call returned a result; it was cancelled and may or may not have taken effect.",
                after.as_secs_f64()
            ),
            CallFailure::NotRun { reason } => write!(f, "The call was not run: {reason}."),
            CallFailure::Unusable { server, reason } => write!(
                f,
                "The server `{server}` answered, but the answer could not be used: {reason}."
            ),
        }
    }
}

/// The server's JSON-RPC error is the cause of a [`CallFailure::Rpc`].
impl std::error::Error for CallFailure {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CallFailure::Rpc(error) => Some(error),
            _ => None,
        }
    }
}

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
