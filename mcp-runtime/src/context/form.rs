//! Typed form fields for [`ElicitRequest::new`](super::elicit::ElicitRequest::new):
//! the primitive fields a form-mode elicitation may ask for, defaults
//! (SEP-1034) and the single- and multi-select enums, titled or not
//! (SEP-1330). The wire shape is in `protocol/form.rs`.

use crate::protocol::form::{FieldSchema, Items, TitledValue};
use serde_json::Value;

/// One field of an elicitation form.
///
/// ```
/// use mcpfn_runtime::{ElicitRequest, FormField};
/// let request = ElicitRequest::new("Your details")
///     .field("name", FormField::string().title("Name").default("John Doe").required())
///     .field("age", FormField::integer().minimum(0.0).default(30))
///     .field("plan", FormField::titled_select([("free", "Free"), ("pro", "Pro")]))
///     .field("topics", FormField::multi_select(["rust", "mcp"]).default(["mcp"]));
/// assert_eq!(request.message(), "Your details");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct FormField {
    pub(crate) schema: FieldSchema,
    pub(crate) required: bool,
}

fn strings<S: Into<String>>(values: impl IntoIterator<Item = S>) -> Vec<String> {
    values.into_iter().map(Into::into).collect()
}

fn titled<V: Into<String>, T: Into<String>>(
    options: impl IntoIterator<Item = (V, T)>,
) -> Vec<TitledValue> {
    options
        .into_iter()
        .map(|(value, title)| TitledValue {
            value: value.into(),
            title: title.into(),
        })
        .collect()
}

impl FormField {
    fn of(kind: &'static str) -> FormField {
        FormField {
            schema: FieldSchema::of(kind),
            required: false,
        }
    }

    /// A text field.
    pub fn string() -> FormField {
        FormField::of("string")
    }

    /// A number field.
    pub fn number() -> FormField {
        FormField::of("number")
    }

    /// An integer field.
    pub fn integer() -> FormField {
        FormField::of("integer")
    }

    /// A yes/no field.
    pub fn boolean() -> FormField {
        FormField::of("boolean")
    }

    /// One of `values`, shown as they are (`{"type":"string","enum":[…]}`).
    pub fn select<S: Into<String>>(values: impl IntoIterator<Item = S>) -> FormField {
        let mut field = FormField::string();
        field.schema.values = Some(strings(values));
        field
    }

    /// One of the `(value, label)` options, the user seeing the labels
    /// (`oneOf` of `{"const":…,"title":…}`).
    pub fn titled_select<V: Into<String>, T: Into<String>>(
        options: impl IntoIterator<Item = (V, T)>,
    ) -> FormField {
        let mut field = FormField::string();
        field.schema.one_of = Some(titled(options));
        field
    }

    /// One of `values` labelled by `names` in order (`enumNames`, deprecated
    /// since 2025-11-25 in favour of [`FormField::titled_select`]; for
    /// clients that only know it).
    pub fn legacy_titled_select<V: Into<String>, N: Into<String>>(
        values: impl IntoIterator<Item = V>,
        names: impl IntoIterator<Item = N>,
    ) -> FormField {
        let mut field = FormField::select(values);
        field.schema.value_names = Some(strings(names));
        field
    }

    /// Any number of `values` (`{"type":"array","items":{"type":"string","enum":[…]}}`).
    pub fn multi_select<S: Into<String>>(values: impl IntoIterator<Item = S>) -> FormField {
        let mut field = FormField::of("array");
        field.schema.items = Some(Items::Untitled {
            kind: "string",
            values: strings(values),
        });
        field
    }

    /// Any number of the `(value, label)` options (`items.anyOf`).
    pub fn titled_multi_select<V: Into<String>, T: Into<String>>(
        options: impl IntoIterator<Item = (V, T)>,
    ) -> FormField {
        let mut field = FormField::of("array");
        field.schema.items = Some(Items::Titled {
            any_of: titled(options),
        });
        field
    }

    /// The label shown for the field.
    pub fn title(mut self, title: impl Into<String>) -> FormField {
        self.schema.title = Some(title.into());
        self
    }

    /// The help text shown for the field.
    pub fn description(mut self, description: impl Into<String>) -> FormField {
        self.schema.description = Some(description.into());
        self
    }

    /// The value the form starts with (SEP-1034); it should have the field's
    /// type (a string for text and single selects, a list of strings for
    /// multi-selects).
    pub fn default(mut self, value: impl Into<Value>) -> FormField {
        self.schema.default = Some(value.into());
        self
    }

    /// The user must fill the field in.
    pub fn required(mut self) -> FormField {
        self.required = true;
        self
    }

    /// A string format the client may check: `email`, `uri`, `date` or `date-time`.
    pub fn format(mut self, format: impl Into<String>) -> FormField {
        self.schema.format = Some(format.into());
        self
    }

    /// Bounds on a text field's length.
    pub fn length(mut self, min: Option<u64>, max: Option<u64>) -> FormField {
        self.schema.min_length = min;
        self.schema.max_length = max;
        self
    }

    /// The smallest number allowed.
    pub fn minimum(mut self, minimum: f64) -> FormField {
        self.schema.minimum = Some(minimum);
        self
    }

    /// The largest number allowed.
    pub fn maximum(mut self, maximum: f64) -> FormField {
        self.schema.maximum = Some(maximum);
        self
    }

    /// Bounds on how many options a multi-select takes.
    pub fn items(mut self, min: Option<u64>, max: Option<u64>) -> FormField {
        self.schema.min_items = min;
        self.schema.max_items = max;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ElicitRequest;
    use crate::protocol::ProtocolVersion;
    use serde_json::json;

    fn schema(request: &ElicitRequest) -> Value {
        serde_json::to_value(request.wire(ProtocolVersion::V2025_11_25)).unwrap()["requestedSchema"]
            .clone()
    }

    #[test]
    fn fields_build_the_requested_schema_in_order_and_replace_by_name() {
        let request = ElicitRequest::new("m")
            .field("a", FormField::string().required())
            .field("b", FormField::boolean().default(false))
            .field("a", FormField::integer().minimum(1.0).maximum(9.0));
        assert_eq!(
            schema(&request),
            json!({"type": "object", "properties": {
                "a": {"type": "integer", "minimum": 1.0, "maximum": 9.0},
                "b": {"type": "boolean", "default": false}
            }}),
            "replacing `a` drops its `required`"
        );
        let request = ElicitRequest::new("m").field(
            "email",
            FormField::string()
                .title("Email")
                .format("email")
                .length(Some(3), Some(99))
                .required(),
        );
        assert_eq!(
            schema(&request),
            json!({"type": "object", "properties": {"email": {"type": "string", "title": "Email",
                "format": "email", "minLength": 3, "maxLength": 99}}, "required": ["email"]})
        );
        assert_eq!(
            schema(&ElicitRequest::new("m")),
            json!({"type": "object", "properties": {}})
        );
    }

    #[test]
    fn the_enum_kinds_of_sep_1330() {
        let request = ElicitRequest::new("m")
            .field("one", FormField::select(["x", "y"]).default("x"))
            .field("titled", FormField::titled_select([("x", "X")]))
            .field("legacy", FormField::legacy_titled_select(["x"], ["X"]))
            .field(
                "many",
                FormField::multi_select(["x", "y"])
                    .items(Some(1), None)
                    .default(["y"].as_slice()),
            )
            .field("titled_many", FormField::titled_multi_select([("x", "X")]));
        assert_eq!(
            schema(&request)["properties"],
            json!({
                "one": {"type": "string", "enum": ["x", "y"], "default": "x"},
                "titled": {"type": "string", "oneOf": [{"const": "x", "title": "X"}]},
                "legacy": {"type": "string", "enum": ["x"], "enumNames": ["X"]},
                "many": {"type": "array", "items": {"type": "string", "enum": ["x", "y"]},
                    "minItems": 1, "default": ["y"]},
                "titled_many": {"type": "array", "items": {"anyOf": [{"const": "x", "title": "X"}]}}
            })
        );
    }
}
