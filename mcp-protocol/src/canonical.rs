//! JSON in one form whatever order a map keeps its keys in: what a digest
//! of a JSON value hashes, so that two peers (or two runs) that serialize
//! the same value differently agree on it (the runtime's sealed argument
//! digests, the host's pinned tool definitions).

use serde_json::Value;

/// `value` as JSON text with every object's keys sorted and no spaces.
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write(value, &mut out);
    out
}

fn write(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::from(key.as_str()).to_string());
                out.push(':');
                write(&map[key], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_are_sorted_at_every_depth_and_strings_escaped() {
        let value = json!({"b": [{"z": 1, "a": "\"x\""}], "a": null, "c": {"y": true, "x": 1.5}});
        assert_eq!(
            canonical_json(&value),
            r#"{"a":null,"b":[{"a":"\"x\"","z":1}],"c":{"x":1.5,"y":true}}"#
        );
    }
}
