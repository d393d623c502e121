//! The `requestedSchema` of a form-mode elicitation as typed data: a flat
//! object of primitive fields (`PrimitiveSchemaDefinition` of 2025-11-25
//! and 2026-07-28): strings, numbers, booleans, and the enum kinds of
//! SEP-1330, each with an optional default (SEP-1034). The builder is
//! `crate::elicit::FormField`.

use serde::Serialize;
use serde_json::{Map, Value};

/// One option of a titled enum: the value sent back and the label shown.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct TitledValue {
    #[serde(rename = "const")]
    pub(crate) value: String,
    pub(crate) title: String,
}

/// The `items` of a multi-select field.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub(crate) enum Items {
    /// `{"type":"string","enum":[…]}`.
    Untitled {
        #[serde(rename = "type")]
        kind: &'static str,
        #[serde(rename = "enum")]
        values: Vec<String>,
    },
    /// `{"anyOf":[{"const":…,"title":…}]}`.
    Titled {
        #[serde(rename = "anyOf")]
        any_of: Vec<TitledValue>,
    },
}

/// One field of a form: `type` and what that type allows.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct FieldSchema {
    #[serde(rename = "type")]
    pub(crate) kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) format: Option<String>,
    #[serde(rename = "minLength", skip_serializing_if = "Option::is_none")]
    pub(crate) min_length: Option<u64>,
    #[serde(rename = "maxLength", skip_serializing_if = "Option::is_none")]
    pub(crate) max_length: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) minimum: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) maximum: Option<f64>,
    #[serde(rename = "enum", skip_serializing_if = "Option::is_none")]
    pub(crate) values: Option<Vec<String>>,
    /// Deprecated labels of `enum` (`LegacyTitledEnumSchema`).
    #[serde(rename = "enumNames", skip_serializing_if = "Option::is_none")]
    pub(crate) value_names: Option<Vec<String>>,
    #[serde(rename = "oneOf", skip_serializing_if = "Option::is_none")]
    pub(crate) one_of: Option<Vec<TitledValue>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) items: Option<Items>,
    #[serde(rename = "minItems", skip_serializing_if = "Option::is_none")]
    pub(crate) min_items: Option<u64>,
    #[serde(rename = "maxItems", skip_serializing_if = "Option::is_none")]
    pub(crate) max_items: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) default: Option<Value>,
}

impl FieldSchema {
    /// A field of `kind` with nothing else set.
    pub(crate) fn of(kind: &'static str) -> FieldSchema {
        FieldSchema {
            kind,
            title: None,
            description: None,
            format: None,
            min_length: None,
            max_length: None,
            minimum: None,
            maximum: None,
            values: None,
            value_names: None,
            one_of: None,
            items: None,
            min_items: None,
            max_items: None,
            default: None,
        }
    }
}

/// A whole `requestedSchema`: `{"type":"object","properties":{…},"required":[…]}`.
#[derive(Serialize)]
pub(crate) struct FormSchema<'a> {
    #[serde(rename = "type")]
    pub(crate) kind: &'static str,
    pub(crate) properties: Map<String, Value>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub(crate) required: &'a [String],
}

/// `requestedSchema` of `fields` (in order), `required` naming some of them.
pub(crate) fn form_schema(fields: &[(String, FieldSchema)], required: &[String]) -> Value {
    let properties = fields
        .iter()
        .map(|(name, field)| {
            let value = serde_json::to_value(field).unwrap_or(Value::Null);
            (name.clone(), value)
        })
        .collect();
    serde_json::to_value(FormSchema {
        kind: "object",
        properties,
        required,
    })
    .unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fields_write_only_what_is_set() {
        let mut name = FieldSchema::of("string");
        name.default = Some(json!("John Doe"));
        let mut tags = FieldSchema::of("array");
        tags.items = Some(Items::Titled {
            any_of: vec![TitledValue {
                value: "a".into(),
                title: "A".into(),
            }],
        });
        let schema = form_schema(
            &[("name".into(), name), ("tags".into(), tags)],
            &["name".into()],
        );
        assert_eq!(
            schema,
            json!({"type": "object", "properties": {
                "name": {"type": "string", "default": "John Doe"},
                "tags": {"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}]}}
            }, "required": ["name"]})
        );
    }
}
