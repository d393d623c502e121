//! A header value as text: plain visible ASCII, or the sentinel
//! `=?base64?<base64 of UTF-8>?=` for anything else (non-ASCII text,
//! control characters, edge spaces, and text that itself looks like the
//! sentinel).

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use std::borrow::Cow;
use std::fmt;

const SENTINEL_START: &str = "=?base64?";
const SENTINEL_END: &str = "?=";

/// Why a header value cannot be read as text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BadValue {
    /// A byte outside visible ASCII (and tab).
    NotVisibleAscii,
    /// A control character (tab included).
    ControlCharacter,
    /// The sentinel's content is not base64.
    BadBase64,
    /// The sentinel's base64 does not decode to UTF-8.
    NotUtf8,
}

impl fmt::Display for BadValue {
    /// The reason, to follow "the X header": "holds control characters".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BadValue::NotVisibleAscii => {
                "holds characters other than visible ASCII; encode them as =?base64?…?="
            }
            BadValue::ControlCharacter => "holds control characters",
            BadValue::BadBase64 => "holds an =?base64?…?= value that is not valid base64",
            BadValue::NotUtf8 => "holds base64 that is not UTF-8",
        })
    }
}

impl std::error::Error for BadValue {}

/// `text` as a header value: itself when it is visible ASCII (inner spaces
/// allowed) without leading or trailing spaces and not shaped like the
/// sentinel, else the sentinel around its base64.
///
/// ```
/// use mcpfn_protocol::http::encode_value;
/// assert_eq!(encode_value("us-west1"), "us-west1");
/// assert_eq!(encode_value("Hello, 世界"), "=?base64?SGVsbG8sIOS4lueVjA==?=");
/// ```
pub fn encode_value(text: &str) -> String {
    let sentinel_shaped = text.starts_with(SENTINEL_START) && text.ends_with(SENTINEL_END);
    let plain = text.bytes().all(|b| (0x20..0x7f).contains(&b))
        && !text.starts_with(' ')
        && !text.ends_with(' ')
        && !sentinel_shaped;
    if plain {
        text.to_owned()
    } else {
        format!(
            "{SENTINEL_START}{}{SENTINEL_END}",
            STANDARD.encode(text.as_bytes())
        )
    }
}

/// The text of header value `value` (its bytes as received): borrowed when
/// plain, decoded from the sentinel (the only copy) otherwise.
///
/// ```
/// use mcpfn_protocol::http::{BadValue, decode_value};
/// assert_eq!(decode_value(b"=?base64?SGVsbG8sIOS4lueVjA==?=").unwrap(), "Hello, 世界");
/// assert_eq!(decode_value(b"us-west1").unwrap(), "us-west1");
/// assert_eq!(decode_value(b"=?base64?!!?="), Err(BadValue::BadBase64));
/// ```
pub fn decode_value(value: &[u8]) -> Result<Cow<'_, str>, BadValue> {
    // Visible ASCII and tab, as `http::HeaderValue::to_str` accepts.
    if !value
        .iter()
        .all(|&b| b == b'\t' || (0x20..0x7f).contains(&b))
    {
        return Err(BadValue::NotVisibleAscii);
    }
    if value.iter().any(u8::is_ascii_control) {
        return Err(BadValue::ControlCharacter);
    }
    let text =
        std::str::from_utf8(value).unwrap_or_else(|_| unreachable!("checked to be ASCII above"));
    match text
        .strip_prefix(SENTINEL_START)
        .and_then(|rest| rest.strip_suffix(SENTINEL_END))
    {
        Some(encoded) => {
            let bytes = STANDARD.decode(encoded).map_err(|_| BadValue::BadBase64)?;
            String::from_utf8(bytes)
                .map(Cow::Owned)
                .map_err(|_| BadValue::NotUtf8)
        }
        None => Ok(Cow::Borrowed(text)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_encoded_as_the_spec_shows() {
        assert_eq!(encode_value("us-west1"), "us-west1");
        assert_eq!(
            encode_value("Hello, 世界"),
            "=?base64?SGVsbG8sIOS4lueVjA==?="
        );
        assert_eq!(encode_value(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(encode_value("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
        assert_eq!(encode_value("=?base64?x?="), "=?base64?PT9iYXNlNjQ/eD89?=");
    }

    #[test]
    fn sentinels_decode_and_plain_values_pass() {
        assert_eq!(
            decode_value(b"=?base64?SGVsbG8sIOS4lueVjA==?=").unwrap(),
            "Hello, 世界"
        );
        assert_eq!(decode_value(b"us-west1").unwrap(), "us-west1");
        assert_eq!(decode_value(b"=?base64?!!?="), Err(BadValue::BadBase64));
        assert_eq!(decode_value(b"=?base64?/w==?="), Err(BadValue::NotUtf8));
        assert_eq!(decode_value(b"a\tb"), Err(BadValue::ControlCharacter));
        assert_eq!(decode_value("é".as_bytes()), Err(BadValue::NotVisibleAscii));
    }

    #[test]
    fn what_is_encoded_decodes_to_itself() {
        for text in [
            "plain",
            "in ner",
            " edge",
            "tab\there",
            "Grüße",
            "=?base64?x?=",
            "",
        ] {
            assert_eq!(decode_value(encode_value(text).as_bytes()).unwrap(), text);
        }
    }
}
