//! Tool schemas as model APIs take them: pure JSON rewrites of a tool's
//! `inputSchema`, for servers that dump their tools in a model API's format
//! and for hosts that hand other servers' tools to a model.
//!
//! - [`for_model_api`]: the schema without non-standard keys, as the
//!   Anthropic Messages API's `input_schema` and OpenAI's `parameters` carry
//!   it;
//! - [`openai_strict`]: the schema in the subset OpenAI strict function
//!   calling accepts, or every reason it cannot be;
//! - [`visit_schemas`]: the walk both use (and the server's schema profile),
//!   over schema positions only.

mod strict;

use serde_json::{Map, Value};

/// Calls `f` on every schema object (the root and its subschemas, parents
/// before children, so `f` may remove keys whose subschemas should not be
/// visited). Only schema positions are visited: a property named `format`
/// or `required`, or an object inside `enum`/`default`, is data and left
/// alone. Boolean schemas are skipped. The subschema keywords are
/// schemars' (`transform_subschemas`): both 2020-12's and draft-07's.
///
/// ```
/// use mcpfn_protocol::model_schema::visit_schemas;
/// let mut schema = serde_json::json!({
///     "type": "object",
///     "properties": {"format": {"type": "string", "format": "uuid"}},
/// });
/// let mut seen = 0;
/// visit_schemas(&mut schema, &mut |_| seen += 1);
/// assert_eq!(seen, 2);
/// ```
pub fn visit_schemas(value: &mut Value, f: &mut impl FnMut(&mut Map<String, Value>)) {
    let Value::Object(map) = value else {
        return;
    };
    f(map);
    for (key, value) in map.iter_mut() {
        match key.as_str() {
            "not"
            | "if"
            | "then"
            | "else"
            | "contains"
            | "additionalProperties"
            | "propertyNames"
            | "additionalItems" => visit_schemas(value, f),
            "allOf" | "anyOf" | "oneOf" | "prefixItems" => {
                if let Value::Array(branches) = value {
                    branches.iter_mut().for_each(|v| visit_schemas(v, f));
                }
            }
            // Draft-07's array form of `items` too.
            "items" => match value {
                Value::Array(items) => items.iter_mut().for_each(|v| visit_schemas(v, f)),
                item => visit_schemas(item, f),
            },
            "properties" | "patternProperties" | "$defs" | "definitions" => {
                if let Value::Object(named) = value {
                    named.values_mut().for_each(|v| visit_schemas(v, f));
                }
            }
            _ => {}
        }
    }
}

/// Every keyword of JSON Schema 2020-12 (core, applicator, unevaluated,
/// validation, meta-data, format and content vocabularies), and draft-07's
/// `definitions` (hand-written schemas may still point there).
const STANDARD_KEYWORDS: [&str; 58] = [
    "$schema",
    "$id",
    "$ref",
    "$anchor",
    "$dynamicRef",
    "$dynamicAnchor",
    "$vocabulary",
    "$comment",
    "$defs",
    "definitions",
    "prefixItems",
    "items",
    "contains",
    "additionalProperties",
    "properties",
    "patternProperties",
    "dependentSchemas",
    "propertyNames",
    "if",
    "then",
    "else",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "unevaluatedItems",
    "unevaluatedProperties",
    "type",
    "const",
    "enum",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
    "title",
    "description",
    "default",
    "deprecated",
    "readOnly",
    "writeOnly",
    "examples",
    "format",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
];

/// `schema` as the model APIs' tool arrays carry it (Anthropic
/// `input_schema`, OpenAI `parameters`): without non-standard keys
/// (`x-mcp-header`, extensions), which model APIs may reject and which mean
/// nothing to the model. The same function a server's `--dump-tools
/// anthropic` and `openai` dumps use and a host applies to tools listed by
/// other servers.
///
/// ```
/// let schema = serde_json::json!({
///     "type": "object",
///     "properties": {"region": {"type": "string", "x-mcp-header": "Region"}},
/// });
/// let clean = mcpfn_protocol::model_schema::for_model_api(&schema);
/// assert_eq!(clean["properties"]["region"], serde_json::json!({"type": "string"}));
/// ```
pub fn for_model_api(schema: &Value) -> Value {
    let mut schema = schema.clone();
    visit_schemas(&mut schema, &mut |node| {
        node.retain(|key, _| STANDARD_KEYWORDS.contains(&key.as_str()));
    });
    schema
}

/// `schema` in the subset OpenAI strict function calling accepts (every
/// property required, optional ones nullable, `additionalProperties:
/// false`), or every reason it cannot be expressed there, each with its
/// schema path. The conversion a server's `--dump-tools openai-strict` uses
/// and a host applies to tools listed by other servers; a host that sends a
/// strict schema must drop the `null`s the model then sends for optional
/// arguments before calling a server that does not take `null` as absent.
///
/// ```
/// let schema = serde_json::json!({
///     "type": "object",
///     "properties": {"q": {"type": "string"}, "limit": {"type": "integer"}},
///     "required": ["q"],
/// });
/// let strict = mcpfn_protocol::model_schema::openai_strict(&schema).unwrap();
/// // Every property required (in the map's order), the optional one nullable.
/// assert_eq!(strict["required"], serde_json::json!(["limit", "q"]));
/// assert_eq!(strict["properties"]["limit"]["type"], serde_json::json!(["integer", "null"]));
/// assert_eq!(strict["additionalProperties"], false);
/// ```
pub fn openai_strict(schema: &Value) -> Result<Value, Vec<String>> {
    strict::input_schema(schema)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_schema_positions_lose_their_non_standard_keys() {
        let schema = json!({
            "type": "object",
            "x-extension": 1,
            "properties": {
                "x-mcp-header": {"type": "string", "x-mcp-header": "Region"},
                "when": {"default": {"x-kept": true}, "enum": [{"x-kept": 1}]},
                "list": {"type": "array", "items": [{"x-drop": 1}], "prefixItems": [{"x-drop": 1}]},
            },
            "$defs": {"D": {"anyOf": [{"x-drop": 1, "type": "null"}], "not": {"x-drop": 1}}},
        });
        assert_eq!(
            for_model_api(&schema),
            json!({
                "type": "object",
                "properties": {
                    "x-mcp-header": {"type": "string"},
                    "when": {"default": {"x-kept": true}, "enum": [{"x-kept": 1}]},
                    "list": {"type": "array", "items": [{}], "prefixItems": [{}]},
                },
                "$defs": {"D": {"anyOf": [{"type": "null"}], "not": {}}},
            })
        );
    }
}
