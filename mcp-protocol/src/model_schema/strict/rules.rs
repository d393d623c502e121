//! What OpenAI's strict mode accepts: the keywords kept and refused, the
//! formats, the documented limits, and when a `oneOf`'s branches cannot
//! overlap (so it may become the equivalent `anyOf`).

use serde_json::Value;

/// Keywords strict mode accepts and that are kept as they are.
pub(super) const KEPT: [&str; 20] = [
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "$ref",
    "$defs",
    "description",
    "pattern",
    "format",
    "multipleOf",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minItems",
    "maxItems",
];

/// Standard keywords that constrain values and that strict mode refuses.
pub(super) const REFUSED: [&str; 22] = [
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
    "patternProperties",
    "propertyNames",
    "minProperties",
    "maxProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contains",
    "minContains",
    "maxContains",
    "uniqueItems",
    "prefixItems",
    "minLength",
    "maxLength",
    "contentSchema",
    "definitions",
];

/// The `format` values strict mode accepts.
pub(super) const FORMATS: [&str; 9] = [
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// OpenAI's documented limits.
pub(super) const MAX_PROPERTIES: usize = 5_000;
pub(super) const MAX_DEPTH: usize = 10;
pub(super) const MAX_ENUM_VALUES: usize = 1_000;
pub(super) const MAX_TOTAL_CHARS: usize = 120_000;
pub(super) const LARGE_ENUM: usize = 250;
pub(super) const MAX_LARGE_ENUM_CHARS: usize = 15_000;

/// Whether no value can match two of `branches`, judged on what serde's
/// enum representations produce: different types, different constants, or
/// objects told apart by a tag or by a key only one of them allows.
pub(super) fn disjoint(branches: &[Value]) -> bool {
    branches.iter().enumerate().all(|(i, a)| {
        branches[i + 1..]
            .iter()
            .all(|b| distinct_pair(a, b) || distinct_pair(b, a))
    })
}

fn distinct_pair(a: &Value, b: &Value) -> bool {
    let single_type = |v: &Value| v.get("type").and_then(Value::as_str).map(str::to_owned);
    if let (Some(ta), Some(tb)) = (single_type(a), single_type(b))
        && ta != tb
        && !matches!(
            (ta.as_str(), tb.as_str()),
            ("integer", "number") | ("number", "integer")
        )
    {
        return true;
    }
    let constants = |v: &Value| -> Option<Vec<Value>> {
        match (v.get("const"), v.get("enum")) {
            (Some(c), _) => Some(vec![c.clone()]),
            (None, Some(Value::Array(values))) => Some(values.clone()),
            _ => None,
        }
    };
    if let (Some(ca), Some(cb)) = (constants(a), constants(b)) {
        return ca.iter().all(|v| !cb.contains(v));
    }
    let (Some(pa), Some(pb)) = (
        a.get("properties").and_then(Value::as_object),
        b.get("properties").and_then(Value::as_object),
    ) else {
        return false;
    };
    let required = |v: &Value| -> Vec<String> {
        v.get("required")
            .and_then(Value::as_array)
            .map(|r| {
                r.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    };
    // A key `a` requires that `b` forbids (externally tagged enums).
    let b_closed = b.get("additionalProperties") == Some(&Value::Bool(false));
    if b_closed && required(a).iter().any(|key| !pb.contains_key(key)) {
        return true;
    }
    // A tag both require, with different constants (internally tagged enums).
    required(a).iter().any(|key| {
        required(b).contains(key)
            && match (pa.get(key), pb.get(key)) {
                (Some(x), Some(y)) => distinct_pair(x, y) && constants(x).is_some(),
                _ => false,
            }
    })
}
