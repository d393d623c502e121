//! The tools of a request: functions, `"strict": true` where the schema
//! can be expressed in strict mode's subset, and the `null`s a strict
//! model sends for absent arguments taken out again.

use crate::tool_offer::{ToolOffer, openai_strict};
use mcpfn_protocol::model::JsonObject;
use serde_json::{Value, json};

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

/// The Chat Completions entry of `offer`:
/// `{"type":"function","function":{"name","description","parameters"}}`,
/// plus `"strict": true` with the strict form of the schema when `strict`
/// asks for it and the schema allows.
pub fn tool(offer: &ToolOffer, strict: Strict) -> Value {
    if strict == Strict::WhereExpressible
        && let Ok(entry) = strict_tool(offer)
    {
        return entry;
    }
    json!({
        "type": "function",
        "function": {
            "name": offer.name,
            "description": offer.description,
            "parameters": offer.input_schema,
        }
    })
}

/// The request's `tools`, one entry per offer, in order.
pub fn tools(offers: &[ToolOffer], strict: Strict) -> Vec<Value> {
    offers.iter().map(|offer| tool(offer, strict)).collect()
}

/// The strict entry of `offer`, or every reason (with its schema path)
/// strict mode cannot express its schema.
pub fn strict_tool(offer: &ToolOffer) -> Result<Value, Vec<String>> {
    // The offer's schema is flattened already: strict mode refuses a root
    // `anyOf` as the non-strict API does, and the strict conversion would
    // keep one.
    let parameters = openai_strict(&offer.input_schema)?;
    Ok(json!({
        "type": "function",
        "function": {
            "name": offer.name,
            "description": offer.description,
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
