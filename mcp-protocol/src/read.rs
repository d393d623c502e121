//! The small readers every parse of a peer's message shares (the envelope
//! of a message, its params, the `_meta` keys): members borrowed from the
//! line, and serde's error text as a peer should read it. Below
//! [`crate::meta`] here and the server's reader of messages in
//! `mcp-runtime`, which all read with them.

use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;

/// A field that distinguishes "absent" (`None`) from `null` (`Some("null")`).
#[derive(Debug, Default)]
pub struct Present<'a>(pub Option<&'a RawValue>);

impl<'de: 'a, 'a> Deserialize<'de> for Present<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        <&'a RawValue>::deserialize(deserializer).map(|raw| Present(Some(raw)))
    }
}

/// A string borrowed from the line unless it has escapes. serde borrows a
/// `Cow<str>` only as a field of its own, not inside an `Option`: there it
/// would allocate for every message.
#[derive(Debug, Default)]
pub struct Text<'a>(pub Option<Cow<'a, str>>);

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Cow<'de, str>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Self::Value, E> {
                Ok(Cow::Borrowed(text))
            }
            fn visit_str<E>(self, text: &str) -> Result<Self::Value, E> {
                Ok(Cow::Owned(text.to_owned()))
            }
        }
        deserializer
            .deserialize_str(Visitor)
            .map(|text| Text(Some(text)))
    }
}

/// serde_json's message without the " at line 1 column 7" tail, which means
/// nothing to a client that sent a single line.
pub fn without_position(err: &serde_json::Error) -> String {
    let text = err.to_string();
    match text.rfind(" at line ") {
        Some(at) => text[..at].to_owned(),
        None => text,
    }
}
