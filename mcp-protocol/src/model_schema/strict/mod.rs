//! Input schemas for OpenAI strict function calling (`"strict": true`,
//! Structured Outputs), which accepts a subset of JSON Schema only:
//!
//! - the root is an object, never `anyOf`;
//! - every object has `additionalProperties: false` and lists every property
//!   in `required`; an optional property is made nullable (`["T","null"]`
//!   for a primitive type, `anyOf` with `{"type":"null"}` otherwise), and the
//!   runtime takes an explicit `null` for an optional argument as absent;
//! - keywords: `type`, `properties`, `required`, `additionalProperties`,
//!   `items`, `enum`, `const`, `anyOf`, `$ref` (to `#` or `#/$defs/…`),
//!   `$defs`, `description`, `pattern`, `format` (date-time, time, date,
//!   duration, email, hostname, ipv4, ipv6, uuid), `multipleOf`, `minimum`,
//!   `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, `minItems`, `maxItems`;
//! - at most 5,000 properties in all, 10 levels of object nesting, 1,000 enum
//!   values in all, 120,000 characters of property names, definition names,
//!   enum and const values, and 15,000 characters for one string enum of more
//!   than 250 values.
//!
//! Annotations that constrain nothing (`title`, `default`, `examples`,
//! `deprecated`, `readOnly`, `writeOnly`, `$comment`, content annotations)
//! and non-standard keys (`x-mcp-header`, …) are dropped. A `oneOf` whose
//! branches cannot overlap becomes the equivalent `anyOf`. Anything else
//! (maps, free-form objects, `allOf`, `not`, tuples, string lengths, other
//! formats, …) cannot be expressed without accepting more or less than the
//! tool does: the tool is reported, never weakened.
//!
//! This module owns the conversion and its report; `rules.rs` owns what
//! strict mode accepts (keywords, formats, limits, when a `oneOf` may become
//! an `anyOf`).

mod rules;

use rules::{
    FORMATS, KEPT, LARGE_ENUM, MAX_DEPTH, MAX_ENUM_VALUES, MAX_LARGE_ENUM_CHARS, MAX_PROPERTIES,
    MAX_TOTAL_CHARS, REFUSED, disjoint,
};
use serde_json::{Map, Value, json};

/// Totals the limits apply to.
#[derive(Default)]
struct Totals {
    properties: usize,
    enum_values: usize,
    chars: usize,
}

/// The strict form of an inputSchema, or every reason it has none (each
/// with the path of the offending subschema).
pub(crate) fn input_schema(schema: &Value) -> Result<Value, Vec<String>> {
    let mut strict = schema.clone();
    let mut problems = Vec::new();
    let object_root = strict.get("type").and_then(Value::as_str) == Some("object");
    if !object_root {
        problems.push("the root must be `\"type\": \"object\"` (not a union)".to_owned());
    }
    let mut totals = Totals::default();
    convert(&mut strict, "", 1, &mut totals, &mut problems);
    if totals.properties > MAX_PROPERTIES {
        problems.push(format!(
            "{} properties in all; strict mode allows {MAX_PROPERTIES}",
            totals.properties
        ));
    }
    if totals.enum_values > MAX_ENUM_VALUES {
        problems.push(format!(
            "{} enum values in all; strict mode allows {MAX_ENUM_VALUES}",
            totals.enum_values
        ));
    }
    if totals.chars > MAX_TOTAL_CHARS {
        problems.push(format!(
            "{} characters of property names, definition names, enum and const values; strict mode allows {MAX_TOTAL_CHARS}",
            totals.chars
        ));
    }
    if problems.is_empty() {
        Ok(strict)
    } else {
        Err(problems)
    }
}

/// Where a problem is, for the report: `/` for the root.
fn at(path: &str) -> String {
    if path.is_empty() {
        "/".to_owned()
    } else {
        path.to_owned()
    }
}

fn is_object_schema(map: &Map<String, Value>) -> bool {
    match map.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(types)) => types.iter().any(|t| t == "object"),
        None => map.contains_key("properties"),
        _ => false,
    }
}

/// Converts `node` in place, `depth` being its level of object nesting.
fn convert(
    node: &mut Value,
    path: &str,
    depth: usize,
    totals: &mut Totals,
    problems: &mut Vec<String>,
) {
    let Value::Object(map) = node else {
        problems.push(format!(
            "{}: a boolean schema accepts anything or nothing; strict mode needs a type",
            at(path)
        ));
        return;
    };
    let keys: Vec<String> = map.keys().cloned().collect();
    for key in keys {
        let key = key.as_str();
        if KEPT.contains(&key) || key == "oneOf" {
            continue;
        }
        if REFUSED.contains(&key) {
            problems.push(format!(
                "{}: `{key}` is not supported in strict mode",
                at(path)
            ));
        }
        // Annotations (`title`, `default`, …) and non-standard keys
        // (`x-mcp-header`, …) constrain nothing: they go.
        map.remove(key);
    }
    // `{}` or `{"description": …}`: any JSON value (a `serde_json::Value`).
    let typed = [
        "type",
        "enum",
        "const",
        "anyOf",
        "oneOf",
        "$ref",
        "properties",
    ]
    .iter()
    .any(|key| map.contains_key(*key));
    if !typed {
        problems.push(format!(
            "{}: accepts any JSON value; strict mode needs a type",
            at(path)
        ));
        return;
    }
    if let Some(format) = map.get("format").and_then(Value::as_str)
        && !FORMATS.contains(&format)
    {
        problems.push(format!(
            "{}: format `{format}` is not supported in strict mode (only {})",
            at(path),
            FORMATS.join(", ")
        ));
    }
    if let Some(reference) = map.get("$ref").and_then(Value::as_str)
        && reference != "#"
        && !reference.starts_with("#/$defs/")
    {
        problems.push(format!(
            "{}: `$ref` to `{reference}`; strict mode resolves only `#` and `#/$defs/…`",
            at(path)
        ));
    }
    count_values(map, path, totals, problems);
    if let Some(Value::Array(branches)) = map.remove("oneOf") {
        if disjoint(&branches) {
            map.insert("anyOf".into(), Value::Array(branches));
        } else {
            problems.push(format!(
                "{}: `oneOf` whose branches may overlap; strict mode has only `anyOf`, which would accept a value matching several",
                at(path)
            ));
            map.insert("oneOf".into(), Value::Array(branches));
        }
    }
    if let Some(Value::Array(branches)) = map.get_mut("anyOf") {
        for (i, branch) in branches.iter_mut().enumerate() {
            convert(
                branch,
                &format!("{path}/anyOf/{i}"),
                depth,
                totals,
                problems,
            );
        }
    }
    if let Some(items) = map.get_mut("items") {
        convert(items, &format!("{path}/items"), depth, totals, problems);
    }
    if let Some(Value::Object(defs)) = map.get_mut("$defs") {
        for (name, def) in defs.iter_mut() {
            totals.chars += name.chars().count();
            convert(def, &format!("{path}/$defs/{name}"), 1, totals, problems);
        }
    }
    if is_object_schema(map) {
        convert_object(map, path, depth, totals, problems);
    }
}

/// Counts enum and const values, and checks the one-enum limit.
fn count_values(
    map: &Map<String, Value>,
    path: &str,
    totals: &mut Totals,
    problems: &mut Vec<String>,
) {
    let chars = |value: &Value| value.as_str().map_or(0, |s| s.chars().count());
    if let Some(Value::Array(values)) = map.get("enum") {
        totals.enum_values += values.len();
        let enum_chars: usize = values.iter().map(chars).sum();
        totals.chars += enum_chars;
        if values.len() > LARGE_ENUM && enum_chars > MAX_LARGE_ENUM_CHARS {
            problems.push(format!(
                "{}: an enum of {} values with {enum_chars} characters; strict mode allows {MAX_LARGE_ENUM_CHARS} characters in an enum of more than {LARGE_ENUM} values",
                at(path),
                values.len()
            ));
        }
    }
    if let Some(value) = map.get("const") {
        totals.chars += chars(value);
    }
}

/// `additionalProperties: false`, every property required, optional ones
/// nullable; then the properties themselves.
fn convert_object(
    map: &mut Map<String, Value>,
    path: &str,
    depth: usize,
    totals: &mut Totals,
    problems: &mut Vec<String>,
) {
    if depth > MAX_DEPTH {
        problems.push(format!(
            "{}: objects nested {depth} levels deep; strict mode allows {MAX_DEPTH}",
            at(path)
        ));
    }
    match map.get("additionalProperties") {
        Some(Value::Bool(false)) => {}
        // Closing an object whose properties are named only narrows what
        // the model may send; an object without named properties is free-form.
        None if map.contains_key("properties") => {}
        None => problems.push(format!(
            "{}: an object of any shape; strict mode needs every property named",
            at(path)
        )),
        Some(_) => problems.push(format!(
            "{}: an object with arbitrary keys (a map); strict mode needs every property named",
            at(path)
        )),
    }
    map.insert("additionalProperties".into(), false.into());
    let required: Vec<String> = map
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    let mut names = Vec::new();
    if let Some(Value::Object(properties)) = map.get_mut("properties") {
        for (name, property) in properties.iter_mut() {
            totals.properties += 1;
            totals.chars += name.chars().count();
            convert(
                property,
                &format!("{path}/properties/{name}"),
                depth + 1,
                totals,
                problems,
            );
            if !required.contains(name) {
                make_nullable(property);
            }
            names.push(Value::from(name.as_str()));
        }
    } else {
        map.insert("properties".into(), json!({}));
    }
    map.insert("required".into(), Value::Array(names));
}

/// An optional property becomes required and nullable: `null` stands for
/// "absent".
fn make_nullable(property: &mut Value) {
    let Value::Object(map) = property else {
        return;
    };
    let primitive = |t: &Value| {
        matches!(
            t.as_str(),
            Some("string" | "number" | "integer" | "boolean" | "null")
        )
    };
    let plain =
        !map.contains_key("$ref") && !map.contains_key("anyOf") && !map.contains_key("const");
    match map.get_mut("type") {
        Some(Value::String(t)) if plain && primitive(&Value::from(t.as_str())) => {
            let t = std::mem::take(t);
            map.insert("type".into(), json!([t, "null"]));
        }
        Some(Value::Array(types)) if plain && types.iter().all(primitive) => {
            if !types.iter().any(|t| t == "null") {
                types.push("null".into());
            }
        }
        _ => {
            // A bare union (perhaps described) takes `null` as one more branch.
            let bare_union = map.keys().all(|k| k == "anyOf" || k == "description");
            if let Some(Value::Array(branches)) = map.get_mut("anyOf")
                && bare_union
            {
                if !branches
                    .iter()
                    .any(|b| b.get("type") == Some(&"null".into()))
                {
                    branches.push(json!({"type": "null"}));
                }
                return;
            }
            let description = map.remove("description");
            let inner = Value::Object(std::mem::take(map));
            map.insert("anyOf".into(), json!([inner, {"type": "null"}]));
            if let Some(description) = description {
                map.insert("description".into(), description);
            }
            return;
        }
    }
    if let Some(Value::Array(values)) = map.get_mut("enum")
        && !values.iter().any(Value::is_null)
    {
        values.push(Value::Null);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn optional_properties_become_required_and_nullable() {
        let schema = json!({
            "type": "object",
            "properties": {
                "a": {"type": "string", "x-mcp-header": "A", "title": "A"},
                "b": {"type": "string", "enum": ["x", "y"]},
                "c": {"type": "object", "properties": {"d": {"type": "integer", "minimum": 0}}, "required": ["d"]},
                "e": {"$ref": "#/$defs/E", "description": "e"}
            },
            "required": ["a"],
            "$defs": {"E": {"type": "array", "items": {"type": "number"}}}
        });
        let strict = input_schema(&schema).unwrap();
        assert_eq!(strict["properties"]["a"], json!({"type": "string"}));
        assert_eq!(
            strict["properties"]["b"],
            json!({"type": ["string", "null"], "enum": ["x", "y", null]})
        );
        assert_eq!(
            strict["properties"]["c"]["anyOf"][1],
            json!({"type": "null"})
        );
        assert_eq!(
            strict["properties"]["c"]["anyOf"][0]["additionalProperties"],
            false
        );
        assert_eq!(
            strict["properties"]["e"],
            json!({"anyOf": [{"$ref": "#/$defs/E"}, {"type": "null"}], "description": "e"})
        );
        assert_eq!(strict["required"], json!(["a", "b", "c", "e"]));
        assert_eq!(strict["additionalProperties"], false);
    }

    #[test]
    fn what_cannot_be_strict_is_reported_with_its_path() {
        let schema = json!({
            "type": "object",
            "properties": {
                "tags": {"type": "object", "additionalProperties": {"type": "string"}},
                "name": {"type": "string", "minLength": 1},
                "site": {"type": "string", "format": "uri"},
                "any": {}
            }
        });
        let problems = input_schema(&schema).unwrap_err();
        assert_eq!(problems.len(), 4, "{problems:#?}");
        for expected in [
            "/properties/tags: an object with arbitrary keys",
            "/properties/name: `minLength` is not supported",
            "/properties/site: format `uri` is not supported",
            "/properties/any: accepts any JSON value",
        ] {
            assert!(
                problems.iter().any(|p| p.starts_with(expected)),
                "{expected}: {problems:#?}"
            );
        }
    }

    #[test]
    fn one_of_becomes_any_of_only_when_branches_cannot_overlap() {
        let tagged = json!({"type": "object", "properties": {"shape": {"oneOf": [
            {"type": "object", "properties": {"circle": {"type": "number"}}, "required": ["circle"], "additionalProperties": false},
            {"type": "object", "properties": {"square": {"type": "number"}}, "required": ["square"], "additionalProperties": false}
        ]}}, "required": ["shape"]});
        let strict = input_schema(&tagged).unwrap();
        assert!(strict["properties"]["shape"].get("anyOf").is_some());

        let overlapping = json!({"type": "object", "properties": {"n": {"oneOf": [
            {"type": "integer"}, {"type": "number"}
        ]}}, "required": ["n"]});
        assert!(input_schema(&overlapping).unwrap_err()[0].contains("`oneOf`"));
    }

    #[test]
    fn limits_are_checked() {
        let mut object = json!({"type": "string"});
        for _ in 0..11 {
            object = json!({"type": "object", "properties": {"x": object}, "required": ["x"]});
        }
        let problems = input_schema(&object).unwrap_err();
        assert!(
            problems[0].contains("nested 11 levels deep"),
            "{problems:?}"
        );

        let values: Vec<String> = (0..1001).map(|i| format!("v{i}")).collect();
        let schema = json!({"type": "object", "properties": {"e": {"type": "string", "enum": values}}, "required": ["e"]});
        assert!(input_schema(&schema).unwrap_err()[0].contains("1001 enum values"));
    }

    #[test]
    fn a_tool_without_parameters_is_strict() {
        let strict =
            input_schema(&json!({"type": "object", "additionalProperties": false})).unwrap();
        assert_eq!(
            strict,
            json!({"type": "object", "additionalProperties": false, "properties": {}, "required": []})
        );
    }
}
