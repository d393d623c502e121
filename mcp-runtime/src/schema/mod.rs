//! Schema generation for tool inputs and outputs, in one portable profile
//! (clients in use reject or mangle other shapes):
//!
//! - JSON Schema 2020-12 without `$schema` (a URL there invites fetching);
//! - subschemas inlined unless recursive, and `$ref` only to `#/$defs/…` of the
//!   same schema (hosts that strip `$defs` leave dangling references);
//! - optional properties absent from `required`, with a plain type instead of a
//!   `["T","null"]` union (rejected by clients backed by some model APIs);
//! - unit enums as `{"type":"string","enum":[…]}`;
//! - every property the deserializer requires listed in `required` (schemars
//!   reads serde's attributes for this: `default`, `rename`, `flatten`, …);
//! - `format` only with the values JSON Schema 2020-12 defines
//!   ([`STANDARD_FORMATS`]): schemars' `uint32`, `int64`, `double`, … make
//!   validating clients warn on every call. An integer's range is carried by
//!   `minimum`/`maximum` instead: the type's whole range up to 32 bits (`u8`:
//!   0..=255, `i32`: −2^31..=2^31−1), and for wider types only the bound a
//!   JSON number reader keeps exactly (`u64`, `usize`: `minimum: 0`; `i64`:
//!   none). Bounds already present (a header argument's ±(2^53−1), a
//!   `#[schemars(range)]`) are kept where tighter.
//!
//! This module owns the public schema generators; `profile.rs` owns the
//! rewrites that make a generated schema portable. The rewrites into a model
//! API's form (`--dump-tools`) are pure JSON and shared with hosts:
//! [`mcpfn_protocol::model_schema`].

mod profile;

use profile::portable;
use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, SchemaGenerator};
use serde_json::{Map, Value, json};

fn generator(deserialize: bool) -> SchemaGenerator {
    let settings = SchemaSettings::draft2020_12().with(|s| {
        // A `$schema` URL invites clients to fetch it; 2020-12 is the default anyway.
        s.meta_schema = None;
        // Hosts that strip `$defs` leave dangling `$ref`s; inline what can be.
        s.inline_subschemas = true;
    });
    let settings = if deserialize {
        settings.for_deserialize()
    } else {
        settings.for_serialize()
    };
    settings.into_generator()
}

/// The portable schema of what `T`'s `Deserialize` accepts.
pub fn for_deserialize<T: JsonSchema>() -> Value {
    portable(generator(true).into_root_schema_for::<T>().to_value())
}

/// The portable schema of what `T`'s `Serialize` produces.
pub fn for_serialize<T: JsonSchema>() -> Value {
    portable(generator(false).into_root_schema_for::<T>().to_value())
}

/// The inputSchema of an arguments type (a struct: root `type: object`).
pub fn input_schema<T: JsonSchema>() -> Value {
    let mut schema = for_deserialize::<T>();
    if let Some(map) = schema.as_object_mut() {
        let empty_props = map
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(Map::is_empty);
        if empty_props {
            map.remove("properties");
        }
    }
    schema
}

/// The outputSchema of a return type, as 2026-07-28 sessions see it.
pub fn output_schema<T: JsonSchema>() -> Value {
    for_serialize::<T>()
}

/// Whether a schema's root is a choice (`oneOf`/`anyOf`/`allOf`), which some
/// clients cannot take at the top of an outputSchema.
pub(crate) fn has_root_composition(schema: &Value) -> bool {
    ["oneOf", "anyOf", "allOf"]
        .iter()
        .any(|key| schema.get(key).is_some())
}

/// The `format` values JSON Schema 2020-12 defines; no other is advertised.
pub const STANDARD_FORMATS: [&str; 19] = [
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// `{"result": <schema>}` for sessions that need an object root; `$defs` move
/// to the new root so local `$ref`s still resolve.
pub(crate) fn wrap_in_result(schema: &Value) -> Value {
    let mut inner = schema.clone();
    let defs = inner.as_object_mut().and_then(|m| m.remove("$defs"));
    let mut wrapped = json!({
        "type": "object",
        "properties": {"result": inner},
        "required": ["result"],
    });
    if let Some(defs) = defs {
        wrapped["$defs"] = defs;
    }
    wrapped
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `docs/tools.md` says of `null` in output schemas: serde writes
    /// `None` as `null` (the key present), so an output's `Option` keeps its
    /// `["T","null"]` union, required; an input's loses it, not required.
    #[test]
    fn an_output_option_keeps_its_null_an_input_option_loses_it() {
        #[derive(schemars::JsonSchema, serde::Serialize, serde::Deserialize)]
        #[allow(dead_code)]
        struct Found {
            name: Option<String>,
        }
        let output = output_schema::<Found>();
        assert_eq!(
            output,
            json!({
                "type": "object",
                "properties": {"name": {"type": ["string", "null"]}},
                "required": ["name"]
            })
        );
        assert_eq!(
            wrap_in_result(&output_schema::<Option<String>>()),
            json!({
                "type": "object",
                "properties": {"result": {"type": ["string", "null"]}},
                "required": ["result"]
            })
        );
        assert_eq!(
            input_schema::<Found>(),
            json!({"type": "object", "properties": {"name": {"type": "string"}}})
        );
        #[derive(schemars::JsonSchema, serde::Serialize)]
        struct Skipped {
            #[serde(skip_serializing_if = "Option::is_none")]
            name: Option<String>,
        }
        assert_eq!(
            output_schema::<Skipped>(),
            json!({"type": "object", "properties": {"name": {"type": "string"}}})
        );
    }

    #[test]
    fn wrapping_keeps_defs_resolvable() {
        let schema = json!({"type": "array", "items": {"$ref": "#/$defs/X"}, "$defs": {"X": {"type": "string"}}});
        let wrapped = wrap_in_result(&schema);
        assert_eq!(
            wrapped["properties"]["result"]["items"]["$ref"],
            "#/$defs/X"
        );
        assert_eq!(wrapped["$defs"]["X"]["type"], "string");
        assert_eq!(wrapped["required"], json!(["result"]));
    }
}
