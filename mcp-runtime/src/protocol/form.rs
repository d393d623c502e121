//! The `requestedSchema` of a form-mode elicitation as typed data: a flat
//! object of primitive fields (`PrimitiveSchemaDefinition` of 2025-11-25
//! and 2026-07-28): strings, numbers, booleans, and the enum kinds of
//! SEP-1330, each with an optional default (SEP-1034). The builder is
//! `mcpfn_runtime::FormField`.

use serde::Serialize;
use serde_json::{Map, Value};

/// One option of a titled enum: the value sent back and the label shown.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct TitledValue {
    /// `const`: the value sent back.
    #[serde(rename = "const")]
    pub value: String,
    /// The label shown.
    pub title: String,
}

/// The `items` of a multi-select field.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub(crate) enum Items {
    /// `{"type":"string","enum":[…]}`.
    Untitled {
        /// Always `string`.
        #[serde(rename = "type")]
        kind: &'static str,
        /// The choices.
        #[serde(rename = "enum")]
        values: Vec<String>,
    },
    /// `{"anyOf":[{"const":…,"title":…}]}`.
    Titled {
        /// The choices with their labels.
        #[serde(rename = "anyOf")]
        any_of: Vec<TitledValue>,
    },
}

/// One field of a form: `type` and what that type allows.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct FieldSchema {
    /// `type`: `string`, `number`, `integer` or `boolean`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// A label.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What to enter.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// A string format (`email`, `uri`, `date`, `date-time`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// `minLength`.
    #[serde(rename = "minLength", skip_serializing_if = "Option::is_none")]
    pub min_length: Option<u64>,
    /// `maxLength`.
    #[serde(rename = "maxLength", skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u64>,
    /// The least number allowed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub minimum: Option<f64>,
    /// The greatest number allowed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub maximum: Option<f64>,
    /// `enum`: the allowed strings.
    #[serde(rename = "enum", skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<String>>,
    /// Deprecated labels of `enum` (`LegacyTitledEnumSchema`).
    #[serde(rename = "enumNames", skip_serializing_if = "Option::is_none")]
    pub value_names: Option<Vec<String>>,
    /// `oneOf`: the allowed strings with labels.
    #[serde(rename = "oneOf", skip_serializing_if = "Option::is_none")]
    pub one_of: Option<Vec<TitledValue>>,
    /// A multi-select field's `items`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items: Option<Items>,
    /// `minItems`.
    #[serde(rename = "minItems", skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// `maxItems`.
    #[serde(rename = "maxItems", skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The value the client proposes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
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
#[derive(Debug, Serialize)]
pub(crate) struct FormSchema<'a> {
    /// Always `object`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Each field's schema by name.
    pub properties: Map<String, Value>,
    /// The fields that must be answered.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub required: &'a [String],
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
