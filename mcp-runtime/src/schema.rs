//! Schema generation for tool inputs and outputs, in one portable profile:
//! JSON Schema 2020-12 without `$schema`, subschemas inlined where they are not
//! recursive, optional properties with a plain type instead of a `null` union.

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

/// The inputSchema of an arguments type: root `type: object`.
pub fn input_schema<T: JsonSchema>() -> Value {
    let mut schema = generator(true).into_root_schema_for::<T>().to_value();
    tidy_root(&mut schema);
    optional_without_null(&mut schema);
    if let Some(map) = schema.as_object_mut() {
        let empty_props = map
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(Map::is_empty);
        if empty_props {
            map.remove("properties");
        }
        if map.get("required").and_then(Value::as_array).is_some_and(Vec::is_empty) {
            map.remove("required");
        }
    }
    schema
}

/// The outputSchema of a return type, as 2026-07-28 sessions see it.
pub(crate) fn output_schema<T: JsonSchema>() -> Value {
    let mut schema = generator(false).into_root_schema_for::<T>().to_value();
    tidy_root(&mut schema);
    schema
}

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

/// The root's `title` is the Rust type's name (e.g. the hidden args struct),
/// which means nothing to a model.
fn tidy_root(schema: &mut Value) {
    if let Some(map) = schema.as_object_mut() {
        map.remove("title");
    }
}

/// Properties that are not required advertise their plain type: clients
/// backed by some model APIs reject `["T","null"]` unions, and absence
/// already says "optional".
fn optional_without_null(schema: &mut Value) {
    let Some(map) = schema.as_object_mut() else {
        return;
    };
    let required: Vec<String> = map
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default();
    let Some(Value::Object(props)) = map.get_mut("properties") else {
        return;
    };
    for (name, prop) in props.iter_mut() {
        if !required.contains(name) {
            strip_null(prop);
        }
    }
}

fn strip_null(prop: &mut Value) {
    let Some(map) = prop.as_object_mut() else {
        return;
    };
    if let Some(Value::Array(types)) = map.get("type") {
        let rest: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
        let replacement = match rest.len() {
            1 => rest.into_iter().next().unwrap_or_default(),
            _ => Value::Array(rest),
        };
        map.insert("type".into(), replacement);
    }
    if let Some(Value::Array(values)) = map.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(options)) = map.get(key) {
            let rest: Vec<Value> = options
                .iter()
                .filter(|o| o.get("type").and_then(Value::as_str) != Some("null"))
                .cloned()
                .collect();
            if rest.len() == 1 && options.len() == 2 {
                map.remove(key);
                if let Some(Value::Object(only)) = rest.into_iter().next() {
                    for (k, v) in only {
                        map.entry(k).or_insert(v);
                    }
                }
            }
        }
    }
}

/// Joins doc-comment lines the way rustdoc does: one leading space dropped
/// per line, surrounding blank lines trimmed.
pub fn doc_text(lines: &[&str]) -> String {
    let joined: Vec<&str> = lines
        .iter()
        .flat_map(|chunk| chunk.lines())
        .map(|line| line.strip_prefix(' ').unwrap_or(line))
        .collect();
    joined.join("\n").trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doc_text_follows_rustdoc() {
        assert_eq!(doc_text(&[" Add two numbers.", "", " More."]), "Add two numbers.\n\nMore.");
        assert_eq!(doc_text(&[]), "");
    }

    #[test]
    fn wrapping_keeps_defs_resolvable() {
        let schema = json!({"type": "array", "items": {"$ref": "#/$defs/X"}, "$defs": {"X": {"type": "string"}}});
        let wrapped = wrap_in_result(&schema);
        assert_eq!(wrapped["properties"]["result"]["items"]["$ref"], "#/$defs/X");
        assert_eq!(wrapped["$defs"]["X"]["type"], "string");
        assert_eq!(wrapped["required"], json!(["result"]));
    }

    #[test]
    fn optional_properties_lose_their_null() {
        let mut schema = json!({
            "type": "object",
            "properties": {
                "a": {"type": ["string", "null"]},
                "b": {"type": "string", "enum": ["x", "y", null]},
                "c": {"anyOf": [{"type": "integer"}, {"type": "null"}], "description": "c"},
                "d": {"type": ["string", "null"]}
            },
            "required": ["d"]
        });
        optional_without_null(&mut schema);
        assert_eq!(schema["properties"]["a"], json!({"type": "string"}));
        assert_eq!(schema["properties"]["b"]["enum"], json!(["x", "y"]));
        assert_eq!(schema["properties"]["c"], json!({"type": "integer", "description": "c"}));
        assert_eq!(schema["properties"]["d"]["type"], json!(["string", "null"]));
    }
}
