//! The one parse of a request's params that every layer decides on: the
//! HTTP front door (its era choice and 2026-07-28 header ladder), the era
//! rules, the routing table and the call (tool name, arguments, the
//! `_meta` envelope, `requestState`). It is made once, by
//! [`super::incoming::parse`], and handed down; no layer reads the raw
//! params for these members again, so no two layers can disagree about
//! what a request names (a forged `_meta` of the wrong type that one layer
//! skipped and another read leniently was a scope bypass).
//!
//! It is strict where a member decides something: params and `_meta` are
//! objects, the members below have their types, a key is not repeated.
//! Anything else is refused (`-32602`, 400 on HTTP) before any layer acts.
//! Members it does not name are left to the method's own params type.

use crate::protocol::meta::{Envelope, read_envelope};
use crate::protocol::read::Text;
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;

/// A request's params, with the members that route, authorize and envelope
/// it read once. Borrowed from the message.
#[derive(Debug, Default)]
pub(crate) struct Params<'a> {
    /// The params object as sent (`None` when absent or `null`), for the
    /// method's own params type. Also `None` for a `tools/call`,
    /// `prompts/get` or `resources/read` whose `method` came before its
    /// `params` (as clients send them): its members were read in the
    /// message's own pass ([`super::incoming::parse`]), and those methods
    /// read nothing else.
    pub raw: Option<&'a RawValue>,
    /// `name` (`tools/call`, `prompts/get`).
    pub name: Option<Cow<'a, str>>,
    /// `arguments`: an object, when present and not `null`.
    pub arguments: Option<&'a RawValue>,
    /// `_meta`: an object, when present.
    pub meta: Option<Box<Meta<'a>>>,
    /// `requestState` (2026-07-28 `tools/call`).
    pub request_state: Option<Cow<'a, str>>,
    /// `inputResponses` (2026-07-28 `tools/call`, `tasks/update`): an
    /// object, when present and not `null`.
    pub input_responses: Option<&'a RawValue>,
    /// `taskId` (`tasks/get`, `tasks/update`, `tasks/cancel`): read here so
    /// that the `Mcp-Name` check and the method see one value.
    pub task_id: Option<Cow<'a, str>>,
    /// `uri` (`resources/read`): read here so that the `Mcp-Name` check
    /// and the method see one value.
    pub uri: Option<Cow<'a, str>>,
}

/// `params._meta`, read in the params' own pass: the reserved keys this
/// server reads ([`Envelope`], the one struct of them, which a client's
/// requests are written from too), and the other keys as sent (a call's
/// context keeps them: see `context::SentMeta`). It derefs to the envelope,
/// so `meta.protocol_version` reads as the key it is.
#[derive(Debug)]
pub(crate) struct Meta<'a> {
    /// Its reserved keys, each of its type.
    pub envelope: Envelope<'a>,
    /// Its other keys, in order, their values as sent.
    pub rest: Vec<(Cow<'a, str>, &'a RawValue)>,
}

impl<'a> std::ops::Deref for Meta<'a> {
    type Target = Envelope<'a>;
    fn deref(&self) -> &Envelope<'a> {
        &self.envelope
    }
}

impl<'a> Meta<'a> {
    /// The value of the other key `key`, as sent (the first, if repeated).
    pub(crate) fn get(&self, key: &str) -> Option<&'a RawValue> {
        self.rest
            .iter()
            .find(|(name, _)| name == key)
            .map(|(_, value)| *value)
    }
}

/// `_meta` as [`Members`] reads it: an object, in the same pass (`null` and
/// anything else is refused, naming `params._meta`).
#[derive(Debug, Default)]
// Boxed: the members are moved through several layers of the one pass,
// and a request without `_meta` should not carry its size.
pub(crate) struct MetaField<'a>(Option<Box<Meta<'a>>>);

impl<'de: 'a, 'a> Deserialize<'de> for MetaField<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer
            .deserialize_any(MetaObject)
            .map(|meta| MetaField(Some(Box::new(meta))))
    }
}

/// Reads [`MetaField`]: an object's members, or a refusal for any other
/// value.
struct MetaObject;

impl<'de> serde::de::Visitor<'de> for MetaObject {
    type Value = Meta<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("params._meta as a JSON object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Meta<'de>, A::Error> {
        let mut rest = Vec::new();
        let mut other = |key, value| rest.push((key, value));
        let envelope = read_envelope(map, "params._meta", Some(&mut other))?;
        Ok(Meta { envelope, rest })
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Meta<'de>, E> {
        Err(not_an_object())
    }

    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<Meta<'de>, E> {
        Err(not_an_object())
    }

    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<Meta<'de>, E> {
        Err(not_an_object())
    }

    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<Meta<'de>, E> {
        Err(not_an_object())
    }

    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<Meta<'de>, E> {
        Err(not_an_object())
    }

    fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<Meta<'de>, E> {
        Err(not_an_object())
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, _: A) -> Result<Meta<'de>, A::Error> {
        Err(not_an_object())
    }
}

fn not_an_object<E: serde::de::Error>() -> E {
    E::custom("params._meta must be a JSON object")
}

/// Why params cannot be read: the message of a `-32602`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct InvalidParams(pub String);

impl std::fmt::Display for InvalidParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The members of params read here. serde refuses a repeated member of a
/// struct ("duplicate field"), so a key sent twice cannot mean one thing to
/// one layer and another to the next.
#[derive(Deserialize)]
pub(crate) struct Members<'a> {
    #[serde(default, borrow)]
    name: Text<'a>,
    #[serde(default, borrow)]
    arguments: Option<&'a RawValue>,
    // Not an `Option`: `"_meta": null` is refused, not read as no `_meta`.
    #[serde(rename = "_meta", default, borrow)]
    meta: MetaField<'a>,
    #[serde(rename = "requestState", default, borrow)]
    request_state: Text<'a>,
    #[serde(rename = "inputResponses", default, borrow)]
    input_responses: Option<&'a RawValue>,
    #[serde(rename = "taskId", default, borrow)]
    task_id: Text<'a>,
    #[serde(default, borrow)]
    uri: Text<'a>,
}

impl<'a> Params<'a> {
    /// Reads `params` (absent and `null` are the same: no params). Must be
    /// an object: callers refuse arrays first, with their own message.
    pub(crate) fn parse(params: Option<&'a RawValue>) -> Result<Params<'a>, InvalidParams> {
        let Some(raw) = params.filter(|raw| raw.get() != "null") else {
            return Ok(Params::default());
        };
        let members: Members<'a> = read_object(raw, "params", "")?;
        Params::of_members(Some(raw), members)
    }

    /// Params from their members, read from `raw` or (`raw: None`) in the
    /// message's own pass: the checks the members' types leave.
    pub(crate) fn of_members(
        raw: Option<&'a RawValue>,
        members: Members<'a>,
    ) -> Result<Params<'a>, InvalidParams> {
        let arguments = object_or_null(members.arguments, "\"arguments\"")?;
        let input_responses = object_or_null(members.input_responses, "\"inputResponses\"")?;
        Ok(Params {
            raw,
            name: members.name.0,
            arguments,
            meta: members.meta.0,
            request_state: members.request_state.0,
            input_responses,
            task_id: members.task_id.0,
            uri: members.uri.0,
        })
    }

    /// Whether `_meta` carries the 2026-07-28 envelope (either of its
    /// required keys): such a request belongs to that era.
    pub(crate) fn enveloped(&self) -> bool {
        self.meta.as_ref().is_some_and(|meta| meta.enveloped())
    }

    /// The envelope's protocol version, if it carries one.
    // Read by the HTTP front door (its era choice); stdio decides the era
    // from the envelope itself.
    #[cfg(any(test, feature = "http"))]
    pub(crate) fn envelope_version(&self) -> Option<&str> {
        self.meta.as_ref()?.protocol_version.as_deref()
    }
}

/// `raw` read as the struct `T`, or why not: it must be a JSON object
/// (checked before serde reads it, since serde reads a JSON array into a
/// struct, position by position). `what` names it in that refusal, `context`
/// prefixes serde's own message.
fn read_object<'a, T: Deserialize<'a>>(
    raw: &'a RawValue,
    what: &str,
    context: &str,
) -> Result<T, InvalidParams> {
    if !is_object(raw) {
        return Err(InvalidParams(format!(
            "Invalid params: {what} must be a JSON object"
        )));
    }
    serde_json::from_str(raw.get()).map_err(|err| {
        InvalidParams(format!(
            "Invalid params: {context}{}",
            crate::protocol::read::without_position(&err)
        ))
    })
}

/// Whether a raw value is a JSON object (raw values start at their first
/// byte: serde_json trims the whitespace around them).
fn is_object(raw: &RawValue) -> bool {
    raw.get().starts_with('{')
}

/// A member that must be an object when present; `null` is absent.
fn object_or_null<'a>(
    value: Option<&'a RawValue>,
    what: &str,
) -> Result<Option<&'a RawValue>, InvalidParams> {
    match value.filter(|raw| raw.get() != "null") {
        Some(raw) if !is_object(raw) => Err(InvalidParams(format!(
            "Invalid params: {what} must be a JSON object"
        ))),
        value => Ok(value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{meta, model};
    use serde_json::json;

    fn parse(text: &str) -> Result<Params<'_>, InvalidParams> {
        let raw: &RawValue = serde_json::from_str(text).unwrap();
        Params::parse(Some(raw))
    }

    fn refused(text: &str) -> String {
        match parse(text) {
            Err(err) => err.0,
            Ok(params) => panic!("accepted {text}: {params:?}"),
        }
    }

    #[test]
    fn reads_the_members_that_decide() {
        let text = json!({
            "name": "add",
            "arguments": {"a": 1},
            "requestState": "s",
            "inputResponses": {},
            "_meta": {
                meta::PROTOCOL_VERSION: "2026-07-28",
                meta::CLIENT_CAPABILITIES: {},
                meta::CLIENT_INFO: {"name": "c", "version": "1"},
                meta::LOG_LEVEL: "info",
                "other": [1],
            },
            "cursor": 5,
        })
        .to_string();
        let params = parse(&text).unwrap();
        assert_eq!(params.name.as_deref(), Some("add"));
        assert_eq!(params.arguments.unwrap().get(), r#"{"a":1}"#);
        assert_eq!(params.request_state.as_deref(), Some("s"));
        assert!(params.enveloped());
        assert_eq!(params.envelope_version(), Some("2026-07-28"));
        let meta = params.meta.unwrap();
        assert_eq!(meta.log_level.as_deref(), Some("info"));
        assert!(meta.client_info.is_some());
        assert_eq!(meta.get("other").map(RawValue::get), Some("[1]"));
        assert_eq!(meta.rest.len(), 1);
    }

    #[test]
    fn names_are_borrowed_from_the_message() {
        let params = parse(r#"{"name":"add"}"#).unwrap();
        assert!(matches!(params.name, Some(Cow::Borrowed("add"))));
    }

    #[test]
    fn absent_and_null_params_are_empty() {
        assert!(Params::parse(None).unwrap().raw.is_none());
        let params = parse("null").unwrap();
        assert!(params.raw.is_none() && params.meta.is_none());
        let params = parse(r#"{"arguments":null,"inputResponses":null}"#).unwrap();
        assert!(params.arguments.is_none() && params.input_responses.is_none());
    }

    #[test]
    fn meta_that_is_no_object_is_refused() {
        for meta in [
            "0",
            "\"x\"",
            "[1]",
            "[\"2026-07-28\",{},null]",
            "null",
            "true",
        ] {
            let message = refused(&format!(r#"{{"name":"t","_meta":{meta}}}"#));
            assert!(message.contains("_meta must be a JSON object"), "{message}");
        }
    }

    #[test]
    fn members_of_the_wrong_type_or_repeated_are_refused() {
        assert!(refused(r#"{"name":5}"#).contains("invalid type"));
        assert!(refused(r#"{"name":null}"#).contains("invalid type"));
        assert!(refused(r#"{"name":"a","name":"b"}"#).contains("duplicate field `name`"));
        assert!(refused(r#"{"arguments":[1]}"#).contains("\"arguments\" must be"));
        assert!(refused(r#"{"arguments":"x"}"#).contains("\"arguments\" must be"));
        assert!(refused(r#"{"inputResponses":[]}"#).contains("\"inputResponses\""));
        assert!(refused(r#"{"requestState":{}}"#).contains("invalid type"));
        assert!(refused("[1]").contains("must be a JSON object"));
        assert!(refused("7").contains("must be a JSON object"));
        let version = format!(r#"{{"_meta":{{"{}":7}}}}"#, meta::PROTOCOL_VERSION);
        assert_eq!(
            refused(&version),
            "Invalid params: params._meta[\"io.modelcontextprotocol/protocolVersion\"] must be a string"
        );
        let caps = format!(r#"{{"_meta":{{"{}":[]}}}}"#, meta::CLIENT_CAPABILITIES);
        assert!(refused(&caps).contains("must be an object"));
        let info = format!(r#"{{"_meta":{{"{}":"me"}}}}"#, meta::CLIENT_INFO);
        assert!(refused(&info).contains("must be an object"));
        let level = format!(r#"{{"_meta":{{"{}":1}}}}"#, meta::LOG_LEVEL);
        assert!(refused(&level).contains("must be a string"));
        let twice = format!(
            r#"{{"_meta":{{"{0}":"2025-11-25","{0}":"2026-07-28"}}}}"#,
            meta::PROTOCOL_VERSION
        );
        assert!(refused(&twice).contains("duplicate field"));
    }

    #[test]
    fn the_serde_keys_match_the_meta_constants() {
        let text = json!({"_meta": {
            meta::PROTOCOL_VERSION: "v",
            meta::CLIENT_CAPABILITIES: {},
            meta::CLIENT_INFO: {},
            meta::LOG_LEVEL: "l",
        }})
        .to_string();
        let meta = parse(&text).unwrap().meta.unwrap();
        assert!(meta.protocol_version.is_some() && meta.client_capabilities.is_some());
        assert!(meta.client_info.is_some() && meta.log_level.is_some());
    }

    /// The envelope a client writes (`mcpfn_protocol::model`) is the
    /// envelope this parse reads: one struct both ways.
    #[test]
    fn the_envelope_a_client_writes_is_the_one_the_server_reads() {
        let envelope = model::ClientCapabilities::default()
            .envelope("2026-07-28", &model::Implementation::new("c", "1"))
            .unwrap()
            .with_progress_token("7")
            .unwrap();
        let params = model::CallToolParams {
            name: "add".into(),
            arguments: Some(model::JsonObject::new()),
            request_state: Some("s".into()),
            meta: Some(envelope),
            ..model::CallToolParams::default()
        };
        let text = serde_json::to_string(&params).unwrap();
        let raw: &serde_json::value::RawValue = serde_json::from_str(&text).unwrap();
        let read = Params::parse(Some(raw)).unwrap();
        assert_eq!(read.envelope_version(), Some("2026-07-28"));
        let meta = read.meta.unwrap();
        assert_eq!(meta.client_capabilities.as_deref().unwrap().get(), "{}");
        assert_eq!(
            meta.client_info.as_deref().unwrap().get(),
            r#"{"name":"c","version":"1"}"#
        );
        assert_eq!(meta.progress_token.as_deref().unwrap().get(), "7");
        assert_eq!(read.request_state.as_deref(), Some("s"));
        // And a client reads it back with the same struct.
        let again: model::CallToolParams<'_> = serde_json::from_str(&text).unwrap();
        assert_eq!(serde_json::to_string(&again).unwrap(), text);
        assert!(crate::protocol::meta::Envelope::new("v", "[]", "{}").is_err());
    }
}
