//! The envelope of one line read in a single pass: `jsonrpc`, `id`,
//! `method` and `params` picked out by a streaming visitor that keeps
//! `params` raw (its members found, not parsed) and stops at the first
//! duplicate or malformed key.

use crate::protocol::params::Members;
use crate::protocol::read::{Present, Text};
use serde::Deserialize;

/// The top level of a message, read in one pass, with its params as `P`
/// reads them ([`ReadParams`]).
pub(super) struct Envelope<'a, P> {
    pub(super) jsonrpc: Text<'a>,
    pub(super) id: Present<'a>,
    pub(super) method: Text<'a>,
    pub(super) params: P,
    pub(super) result: Present<'a>,
    pub(super) error: Present<'a>,
}

/// How [`Envelope`] reads `params`, given the `method` read before them.
pub(super) trait ReadParams<'de>: Sized {
    /// No `params` member.
    const ABSENT: Self;
    /// The `params` member's value.
    fn read<A: serde::de::MapAccess<'de>>(
        map: &mut A,
        method: Option<&str>,
    ) -> Result<Self, A::Error>;
}

/// The fallback's way, and every message's but a `tools/call`'s: params
/// captured as sent (`null` included), for [`Params::parse`] or a
/// notification's handler.
impl<'de> ReadParams<'de> for Present<'de> {
    const ABSENT: Self = Present(None);
    fn read<A: serde::de::MapAccess<'de>>(map: &mut A, _: Option<&str>) -> Result<Self, A::Error> {
        map.next_value()
    }
}

/// `params` of the first pass. When `method` came before them and is
/// `tools/call` (the method of nearly every request a server gets, in the
/// order clients write), `prompts/get` or `resources/read` (whose params
/// are among the same members, and which read nothing else), their members
/// are read in this same pass ([`Members`]), not captured whole and read
/// again: a body is mostly its params, so that saves a pass over most of
/// it.
pub(super) enum FirstPass<'a> {
    /// Captured as sent (another method), or absent.
    Raw(Present<'a>),
    /// A `tools/call`'s, `prompts/get`'s or `resources/read`'s members
    /// (`None`: `null`).
    Read(Option<Members<'a>>),
}

impl<'de> ReadParams<'de> for FirstPass<'de> {
    const ABSENT: Self = FirstPass::Raw(Present(None));
    fn read<A: serde::de::MapAccess<'de>>(
        map: &mut A,
        method: Option<&str>,
    ) -> Result<Self, A::Error> {
        use crate::protocol::model::method::{PROMPTS_GET, RESOURCES_READ, TOOLS_CALL};
        if matches!(method, Some(TOOLS_CALL | PROMPTS_GET | RESOURCES_READ)) {
            map.next_value_seed(MembersSeed).map(FirstPass::Read)
        } else {
            map.next_value().map(FirstPass::Raw)
        }
    }
}

/// The top-level keys of a message.
pub(super) enum Key {
    Jsonrpc,
    Id,
    Method,
    Params,
    Result,
    Error,
    Other,
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Key, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Key;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a member name")
            }
            fn visit_str<E>(self, key: &str) -> Result<Key, E> {
                Ok(match key {
                    "jsonrpc" => Key::Jsonrpc,
                    "id" => Key::Id,
                    "method" => Key::Method,
                    "params" => Key::Params,
                    "result" => Key::Result,
                    "error" => Key::Error,
                    _ => Key::Other,
                })
            }
        }
        deserializer.deserialize_identifier(Visitor)
    }
}

/// Reads an [`Envelope`] (what serde's derive would, with params read by
/// `P`: a key sent twice is refused, unknown keys are skipped).
pub(super) struct EnvelopeVisitor<P>(std::marker::PhantomData<P>);

impl<'de, P: ReadParams<'de>> serde::de::Visitor<'de> for EnvelopeVisitor<P> {
    type Value = Envelope<'de, P>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON-RPC message")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        mut map: A,
    ) -> Result<Envelope<'de, P>, A::Error> {
        use serde::de::Error;
        let mut envelope = Envelope {
            jsonrpc: Text(None),
            id: Present(None),
            method: Text(None),
            params: P::ABSENT,
            result: Present(None),
            error: Present(None),
        };
        let mut seen = [false; 6];
        let mut once = |slot: usize, name: &'static str| {
            if std::mem::replace(&mut seen[slot], true) {
                Err(A::Error::duplicate_field(name))
            } else {
                Ok(())
            }
        };
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Jsonrpc => {
                    once(0, "jsonrpc")?;
                    envelope.jsonrpc = map.next_value()?;
                }
                Key::Id => {
                    once(1, "id")?;
                    envelope.id = map.next_value()?;
                }
                Key::Method => {
                    once(2, "method")?;
                    envelope.method = map.next_value()?;
                }
                Key::Params => {
                    once(3, "params")?;
                    envelope.params = P::read(&mut map, envelope.method.0.as_deref())?;
                }
                Key::Result => {
                    once(4, "result")?;
                    envelope.result = map.next_value()?;
                }
                Key::Error => {
                    once(5, "error")?;
                    envelope.error = map.next_value()?;
                }
                Key::Other => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
        }
        Ok(envelope)
    }
}

/// A `tools/call`'s params read in the first pass: an object's
/// [`Members`], or `null`. Anything else fails the pass, and the message is
/// read again the fallback's way ([`parse`]), which says why.
pub(super) struct MembersSeed;

impl<'de> serde::de::DeserializeSeed<'de> for MembersSeed {
    type Value = Option<Members<'de>>;

    fn deserialize<D: serde::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for MembersSeed {
    type Value = Option<Members<'de>>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an object")
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        Members::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(Some)
    }
}

/// The [`Envelope`] of a line that starts with `{`, its params read by `P`.
pub(super) fn read_envelope<'a, P: ReadParams<'a>>(
    line: &'a [u8],
) -> Result<Envelope<'a, P>, serde_json::Error> {
    use serde::Deserializer as _;
    let visitor = EnvelopeVisitor(std::marker::PhantomData);
    // UTF-8 is checked once for the whole line: parsed from a `&str`, the
    // borrowed parts (`params`, then `arguments`) are not checked again. An
    // invalid line goes the byte path, whose errors point at the bad byte.
    match std::str::from_utf8(line) {
        Ok(text) => {
            let mut deserializer = serde_json::Deserializer::from_str(text);
            let envelope = deserializer.deserialize_map(visitor)?;
            deserializer.end().map(|()| envelope)
        }
        Err(_) => {
            let mut deserializer = serde_json::Deserializer::from_slice(line);
            let envelope = deserializer.deserialize_map(visitor)?;
            deserializer.end().map(|()| envelope)
        }
    }
}
