//! The client's side of `x-mcp-header` (2026-07-28, HTTP): which tools a
//! client must drop because a header annotation breaks the spec's rules,
//! and the `Mcp-Param-*` (and `Mcp-Name`) header values of a call.
//!
//! The rules (all MUST, DIGEST §8.5): the value is a non-empty RFC 9110
//! token without control characters, unique in the schema
//! case-insensitively, on a property typed `integer`, `string` or
//! `boolean` (one type, not a list), reachable from the root through
//! `properties` alone (never through `items`, composition, conditionals or
//! `$ref`). One annotation anywhere else invalidates the whole tool.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value};
use std::collections::HashSet;

/// One mirrored argument: where it is in the arguments and its header name
/// (the part after `Mcp-Param-`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct HeaderParam {
    /// Property names from the arguments' root.
    pub(crate) path: Vec<String>,
    /// The `x-mcp-header` value.
    pub(crate) name: String,
}

const KEYWORD: &str = "x-mcp-header";

/// The most header parameters one tool may declare: each becomes a request
/// header, and HTTP servers refuse requests past about 100 headers (hyper's
/// default), so a tool past this could never be called.
pub(crate) const MAX_HEADER_PARAMS: usize = 64;

/// The header parameters of `input_schema`, or why the tool must be dropped.
pub(crate) fn header_params(input_schema: &Map<String, Value>) -> Result<Vec<HeaderParam>, String> {
    let mut found = Vec::new();
    walk(input_schema, true, &mut Vec::new(), &mut found)?;
    let mut seen = HashSet::with_capacity(found.len());
    for param in &found {
        if !seen.insert(param.name.to_ascii_lowercase()) {
            return Err(format!(
                "x-mcp-header `{}` is given twice (case-insensitively)",
                param.name
            ));
        }
    }
    Ok(found)
}

fn walk(
    schema: &Map<String, Value>,
    reachable: bool,
    path: &mut Vec<String>,
    found: &mut Vec<HeaderParam>,
) -> Result<(), String> {
    if let Some(value) = schema.get(KEYWORD) {
        let at = if path.is_empty() {
            "the schema's root".to_owned()
        } else {
            format!("property `{}`", path.join("."))
        };
        if !reachable || path.is_empty() {
            return Err(format!(
                "x-mcp-header on {at} is not reachable from the root through `properties` alone"
            ));
        }
        let Some(name) = value.as_str() else {
            return Err(format!("x-mcp-header on {at} is not a string"));
        };
        check_token(name).map_err(|why| format!("x-mcp-header `{name}` on {at} {why}"))?;
        match schema.get("type") {
            Some(Value::String(t)) if matches!(t.as_str(), "string" | "integer" | "boolean") => {}
            Some(Value::String(t)) => {
                return Err(format!(
                    "x-mcp-header `{name}` on {at} is on a property of type `{t}` (only string, integer or boolean)"
                ));
            }
            _ => {
                return Err(format!(
                    "x-mcp-header `{name}` on {at} needs one `type` of string, integer or boolean"
                ));
            }
        }
        if found.len() == MAX_HEADER_PARAMS {
            return Err(format!(
                "more than {MAX_HEADER_PARAMS} x-mcp-header parameters (one request header each)"
            ));
        }
        found.push(HeaderParam {
            path: path.clone(),
            name: name.to_owned(),
        });
    }
    for (key, value) in schema {
        if key == "properties"
            && let Value::Object(properties) = value
        {
            for (property, sub) in properties {
                if let Value::Object(sub) = sub {
                    path.push(property.clone());
                    walk(sub, reachable, path, found)?;
                    path.pop();
                }
            }
            continue;
        }
        // Every other keyword's subschemas are not statically reachable.
        walk_value(value, path, found)?;
    }
    Ok(())
}

fn walk_value(
    value: &Value,
    path: &mut Vec<String>,
    found: &mut Vec<HeaderParam>,
) -> Result<(), String> {
    match value {
        Value::Object(map) => walk(map, false, path, found),
        Value::Array(items) => items.iter().try_for_each(|v| walk_value(v, path, found)),
        _ => Ok(()),
    }
}

/// An RFC 9110 token: `1*tchar` (which excludes control characters).
fn check_token(name: &str) -> Result<(), &'static str> {
    if name.is_empty() {
        return Err("is empty");
    }
    let tchar = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
    if name.bytes().any(|b| b.is_ascii_control()) {
        return Err("holds control characters");
    }
    if !name.bytes().all(tchar) {
        return Err("is not an HTTP token (letters, digits and !#$%&'*+-.^_`|~)");
    }
    Ok(())
}

/// The headers mirroring `arguments` for `params`: `(Mcp-Param-Name, value)`
/// for each argument with a value (absent or `null`: no header).
pub(crate) fn param_headers(
    params: &[HeaderParam],
    arguments: Option<&Map<String, Value>>,
) -> Vec<(String, String)> {
    let Some(arguments) = arguments else {
        return Vec::new();
    };
    params
        .iter()
        .filter_map(|param| {
            let mut at = arguments.get(param.path.first()?)?;
            for key in &param.path[1..] {
                at = at.as_object()?.get(key)?;
            }
            let text = match at {
                Value::String(s) => s.clone(),
                Value::Bool(b) => b.to_string(),
                Value::Number(n) => n.to_string(),
                _ => return None,
            };
            Some((format!("Mcp-Param-{}", param.name), encode(&text)))
        })
        .collect()
}

/// A header value: the text when it is plain visible ASCII without leading
/// or trailing whitespace and not itself shaped like the sentinel, else
/// `=?base64?<base64 of UTF-8>?=`.
pub(crate) fn encode(text: &str) -> String {
    let sentinel_shaped = text.starts_with("=?base64?") && text.ends_with("?=");
    let plain = text.bytes().all(|b| (0x20..0x7f).contains(&b))
        && !text.starts_with(' ')
        && !text.ends_with(' ')
        && !sentinel_shaped;
    if plain {
        text.to_owned()
    } else {
        format!("=?base64?{}?=", STANDARD.encode(text.as_bytes()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn nested_properties_are_found() {
        let s = schema(json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "opts": {"type": "object", "properties": {"shard": {"type": "integer", "x-mcp-header": "Shard"}}}
        }}));
        let params = header_params(&s).unwrap();
        assert_eq!(params.len(), 2);
        let args = json!({"region": "eu", "opts": {"shard": 3}});
        let mut headers = param_headers(&params, args.as_object());
        headers.sort();
        assert_eq!(
            headers,
            vec![
                ("Mcp-Param-Region".to_owned(), "eu".to_owned()),
                ("Mcp-Param-Shard".to_owned(), "3".to_owned())
            ]
        );
        assert!(param_headers(&params, json!({"region": null}).as_object()).is_empty());
    }

    #[test]
    fn every_rule_is_enforced() {
        let bad = [
            json!({"properties": {"a": {"type": "number", "x-mcp-header": "A"}}}),
            json!({"properties": {"a": {"type": ["string", "null"], "x-mcp-header": "A"}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": ""}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": "A B"}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": "A\r\n"}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": "R"}, "b": {"type": "string", "x-mcp-header": "r"}}}),
            json!({"properties": {"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}}}),
            json!({"anyOf": [{"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}]}),
            json!({"$defs": {"x": {"type": "string", "x-mcp-header": "A"}}}),
            json!({"properties": (0..=MAX_HEADER_PARAMS)
                .map(|i| (format!("p{i}"), json!({"type": "string", "x-mcp-header": format!("P{i}")})))
                .collect::<Map<String, Value>>()}),
        ];
        for s in bad {
            assert!(header_params(&schema(s.clone())).is_err(), "{s}");
        }
    }

    #[test]
    fn values_are_encoded_as_the_spec_shows() {
        assert_eq!(encode("us-west1"), "us-west1");
        assert_eq!(encode("Hello, 世界"), "=?base64?SGVsbG8sIOS4lueVjA==?=");
        assert_eq!(encode(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(encode("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
    }
}
