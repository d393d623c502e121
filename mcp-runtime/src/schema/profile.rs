//! The portable profile's rewrites (see the parent module's docs), applied
//! to every schema the generators produce: formats, integer ranges, root
//! self-references, optional properties and unit enums.

use super::STANDARD_FORMATS;
use mcpfn_protocol::model_schema::visit_schemas;
use schemars::Schema;
use schemars::transform::{RestrictFormats, Transform};
use serde_json::{Map, Value};

/// Applies the portable profile (see the module docs) to a generated schema.
pub(super) fn portable(mut schema: Value) -> Value {
    let root_name = schema
        .get("title")
        .and_then(Value::as_str)
        .unwrap_or("Root")
        .to_owned();
    tidy_root(&mut schema);
    move_root_self_references(&mut schema, &root_name);
    visit_schemas(&mut schema, &mut |node| {
        integer_range_from_format(node);
        optional_without_null(node);
        unit_enum_as_string_enum(node);
        if node
            .get("required")
            .and_then(Value::as_array)
            .is_some_and(Vec::is_empty)
        {
            node.remove("required");
        }
    });
    if let Ok(root) = <&mut Schema>::try_from(&mut schema) {
        let mut restrict = RestrictFormats::default();
        // No `$schema` to infer the dialect from: name the allowed formats.
        restrict.infer_from_meta_schema = false;
        restrict.allowed_formats = STANDARD_FORMATS.iter().map(|f| (*f).into()).collect();
        restrict.transform(root);
    }
    schema
}

/// The range of an integer `format` of schemars, as (minimum, maximum):
/// `None` where the bound cannot be written as a JSON number every reader
/// keeps exactly (beyond ±(2^53−1)).
fn integer_format_range(format: &str) -> Option<(Option<i64>, Option<i64>)> {
    Some(match format {
        "int8" => (Some(i8::MIN.into()), Some(i8::MAX.into())),
        "int16" => (Some(i16::MIN.into()), Some(i16::MAX.into())),
        "int32" => (Some(i32::MIN.into()), Some(i32::MAX.into())),
        "int64" | "int128" | "int" => (None, None),
        "uint8" => (Some(0), Some(u8::MAX.into())),
        "uint16" => (Some(0), Some(u16::MAX.into())),
        "uint32" => (Some(0), Some(u32::MAX.into())),
        "uint64" | "uint128" | "uint" => (Some(0), None),
        _ => return None,
    })
}

/// Moves the range an integer `format` implies into `minimum`/`maximum`
/// (keeping a tighter bound already there); the format itself is removed
/// with every other non-standard one.
fn integer_range_from_format(map: &mut Map<String, Value>) {
    let Some((min, max)) = map
        .get("format")
        .and_then(Value::as_str)
        .and_then(integer_format_range)
    else {
        return;
    };
    let tighter = |existing: Option<&Value>, bound: i64, keep_larger: bool| -> Value {
        match existing.and_then(Value::as_f64) {
            Some(current) if (current > bound as f64) == keep_larger => {
                existing.cloned().unwrap_or_default()
            }
            _ => bound.into(),
        }
    };
    if let Some(min) = min {
        let value = tighter(map.get("minimum"), min, true);
        map.insert("minimum".into(), value);
    }
    if let Some(max) = max {
        let value = tighter(map.get("maximum"), max, false);
        map.insert("maximum".into(), value);
    }
}

/// A recursive root type refers to itself as `"$ref": "#"`, which breaks as
/// soon as the schema is embedded (e.g. wrapped as `{"result": …}`). Give the
/// root a name in `$defs` and point the references there.
fn move_root_self_references(schema: &mut Value, root_name: &str) {
    fn retarget(value: &mut Value, target: &str) -> bool {
        let mut found = false;
        match value {
            Value::Object(map) => {
                if map.get("$ref").and_then(Value::as_str) == Some("#") {
                    map.insert("$ref".into(), target.into());
                    found = true;
                }
                for child in map.values_mut() {
                    found |= retarget(child, target);
                }
            }
            Value::Array(items) => {
                for item in items {
                    found |= retarget(item, target);
                }
            }
            _ => {}
        }
        found
    }
    let target = format!("#/$defs/{root_name}");
    if !retarget(schema, &target) {
        return;
    }
    let Some(root) = schema.as_object_mut() else {
        return;
    };
    let mut definition = root.clone();
    definition.remove("$defs");
    let defs = root
        .entry("$defs")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Some(defs) = defs.as_object_mut() {
        defs.insert(root_name.to_owned(), Value::Object(definition));
    }
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
/// already says "optional". (The deserializer still takes an explicit `null`
/// for an `Option` as absent: the schema is stricter there, never looser.)
fn optional_without_null(map: &mut Map<String, Value>) {
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
    let Some(Value::Object(props)) = map.get_mut("properties") else {
        return;
    };
    for (name, prop) in props.iter_mut() {
        if !required.contains(name) {
            strip_null(prop);
        }
    }
}

/// schemars describes a unit enum whose variants carry doc comments as a
/// `oneOf` of string constants; clients and model APIs handle
/// `{"type":"string","enum":[…]}` far better. Variant docs move into the
/// description.
fn unit_enum_as_string_enum(map: &mut Map<String, Value>) {
    for key in ["oneOf", "anyOf"] {
        let Some(Value::Array(branches)) = map.get(key) else {
            continue;
        };
        let mut values = Vec::new();
        let mut notes = Vec::new();
        for branch in branches {
            let Some(branch) = branch.as_object() else {
                return;
            };
            if branch.get("type").and_then(Value::as_str) != Some("string")
                || branch
                    .keys()
                    .any(|k| !matches!(k.as_str(), "type" | "const" | "enum" | "description"))
            {
                return;
            }
            let branch_values: Vec<Value> = match (branch.get("const"), branch.get("enum")) {
                (Some(value), None) => vec![value.clone()],
                (None, Some(Value::Array(values))) => values.clone(),
                _ => return,
            };
            if let Some(description) = branch.get("description").and_then(Value::as_str) {
                for value in &branch_values {
                    notes.push(format!(
                        "{}: {description}",
                        value.as_str().unwrap_or_default()
                    ));
                }
            }
            values.extend(branch_values);
        }
        map.remove(key);
        map.insert("type".into(), "string".into());
        map.insert("enum".into(), Value::Array(values));
        if !notes.is_empty() {
            let notes = notes.join("; ");
            let description = match map.get("description").and_then(Value::as_str) {
                Some(existing) => format!("{existing} ({notes})"),
                None => notes,
            };
            map.insert("description".into(), description.into());
        }
        return;
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn formats_and_ranges_touch_schemas_not_data() {
        let schema = portable(json!({
            "type": "object",
            "properties": {
                "format": {"type": "integer", "format": "uint32", "minimum": 1},
                "required": {"type": "string", "format": "uuid"},
                "when": {"type": "string", "format": "date-time", "default": {"format": "int8"}}
            },
            "required": ["format"]
        }));
        assert_eq!(
            schema["properties"]["format"],
            json!({"type": "integer", "minimum": 1, "maximum": 4_294_967_295_u32})
        );
        assert_eq!(schema["properties"]["required"]["format"], "uuid");
        assert_eq!(
            schema["properties"]["when"]["default"],
            json!({"format": "int8"}),
            "a default value is data"
        );
        assert_eq!(schema["required"], json!(["format"]));
    }

    #[test]
    fn optional_properties_lose_their_null() {
        let mut value = json!({
            "type": "object",
            "properties": {
                "a": {"type": ["string", "null"]},
                "b": {"type": "string", "enum": ["x", "y", null]},
                "c": {"anyOf": [{"type": "integer"}, {"type": "null"}], "description": "c"},
                "d": {"type": ["string", "null"]}
            },
            "required": ["d"]
        });
        let schema = &mut value;
        optional_without_null(schema.as_object_mut().unwrap());
        assert_eq!(schema["properties"]["a"], json!({"type": "string"}));
        assert_eq!(schema["properties"]["b"]["enum"], json!(["x", "y"]));
        assert_eq!(
            schema["properties"]["c"],
            json!({"type": "integer", "description": "c"})
        );
        assert_eq!(schema["properties"]["d"]["type"], json!(["string", "null"]));
    }
}
