//! A tool's definition on the wire, and which of its fields each revision
//! may carry (`title`, `outputSchema`, `annotations`, `icons`, `_meta`).

use super::ProtocolVersion;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// The JSON array of `definitions` (a `tools/list` page), written at its final
/// size: a page of a thousand tools is half a megabyte, which growing by
/// doubling would copy many times over.
pub(crate) fn definitions_array<'a, I>(definitions: I) -> String
where
    I: Iterator<Item = &'a RawValue> + Clone,
{
    let size = definitions
        .clone()
        .map(|definition| definition.get().len() + 1)
        .sum::<usize>()
        + 2;
    let mut array = String::with_capacity(size);
    array.push('[');
    for (i, definition) in definitions.enumerate() {
        if i > 0 {
            array.push(',');
        }
        array.push_str(definition.get());
    }
    array.push(']');
    array
}

/// A tool definition as one revision sees it; serialized once per revision
/// by the registry (with schemas `S` as cached JSON text), or turned into a
/// `Value` for dumps (with schemas as values).
#[derive(Debug, Serialize)]
pub(crate) struct ToolDefinition<'a, S> {
    name: &'a str,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<&'a Map<String, Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    annotations: Option<AnnotationsWire<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    icons: Option<&'a [Icon]>,
    #[serde(rename = "inputSchema")]
    input_schema: S,
    #[serde(rename = "outputSchema", skip_serializing_if = "Option::is_none")]
    output_schema: Option<S>,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
}

/// Everything a definition is made from, for every revision.
#[derive(Debug)]
pub(crate) struct ToolFields<'a, S> {
    /// The tool's name.
    pub name: &'a str,
    /// A title for display.
    pub title: Option<&'a str>,
    /// What it does.
    pub description: Option<&'a str>,
    /// The `inputSchema`.
    pub input_schema: S,
    /// The outputSchema as this revision needs it (wrapped or not).
    pub output_schema: Option<S>,
    /// The behaviour hints.
    pub annotations: &'a Annotations,
    /// Icons for display.
    pub icons: &'a [Icon],
    /// `_meta` of the definition.
    pub meta: &'a Map<String, Value>,
}

impl<'a, S: Serialize> ToolDefinition<'a, S> {
    /// The definition of `tool` for a session of `version`.
    pub(crate) fn new(tool: ToolFields<'a, S>, version: ProtocolVersion) -> Self {
        let carries = version.carries();
        // Before `title` existed on tools, `annotations.title` carried it.
        let annotations_title = tool.title.filter(|_| !carries.structured_output);
        ToolDefinition {
            name: tool.name,
            meta: Some(tool.meta).filter(|m| carries.structured_output && !m.is_empty()),
            annotations: carries
                .annotations
                .then(|| AnnotationsWire::new(tool.annotations, annotations_title))
                .flatten(),
            description: tool.description,
            icons: Some(tool.icons).filter(|i| carries.icons && !i.is_empty()),
            input_schema: tool.input_schema,
            output_schema: tool.output_schema.filter(|_| carries.structured_output),
            title: tool.title.filter(|_| carries.structured_output),
        }
    }
}

/// The four behaviour hints of a tool; `None` leaves the client's default.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Annotations {
    /// `readOnlyHint`.
    pub read_only: Option<bool>,
    /// `destructiveHint`.
    pub destructive: Option<bool>,
    /// `idempotentHint`.
    pub idempotent: Option<bool>,
    /// `openWorldHint`.
    pub open_world: Option<bool>,
}

#[derive(Debug, Serialize)]
struct AnnotationsWire<'a> {
    #[serde(rename = "destructiveHint", skip_serializing_if = "Option::is_none")]
    destructive: Option<bool>,
    #[serde(rename = "idempotentHint", skip_serializing_if = "Option::is_none")]
    idempotent: Option<bool>,
    #[serde(rename = "openWorldHint", skip_serializing_if = "Option::is_none")]
    open_world: Option<bool>,
    #[serde(rename = "readOnlyHint", skip_serializing_if = "Option::is_none")]
    read_only: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
}

impl<'a> AnnotationsWire<'a> {
    /// `None` when there is nothing to say.
    fn new(hints: &Annotations, title: Option<&'a str>) -> Option<Self> {
        let wire = AnnotationsWire {
            destructive: hints.destructive,
            idempotent: hints.idempotent,
            open_world: hints.open_world,
            read_only: hints.read_only,
            title,
        };
        let empty = *hints == Annotations::default() && title.is_none();
        (!empty).then_some(wire)
    }
}

/// The model's icon: its fields are in key order, as this fast path writes
/// a definition's keys, so it serializes here as it does everywhere.
pub use crate::protocol::model::Icon;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_definitions_array_is_what_serde_json_writes() {
        let texts = [
            r#"{"name":"a"}"#,
            r#"{"name":"b","inputSchema":{"type":"object"}}"#,
        ];
        let raw: Vec<Box<RawValue>> = texts
            .iter()
            .map(|text| RawValue::from_string((*text).to_owned()).unwrap())
            .collect();
        for n in 0..=raw.len() {
            let expected = serde_json::to_string(&raw[..n]).unwrap();
            let written = definitions_array(raw[..n].iter().map(|def| &**def));
            assert_eq!(written, expected);
            // Sized once: at most the comma counted for the last item spare.
            assert!(written.capacity() <= written.len() + 1, "{n}");
        }
    }

    fn render(version: ProtocolVersion) -> String {
        let schema = json!({"type": "object"});
        let meta: Map<String, Value> = [("k".to_owned(), Value::from(1))].into_iter().collect();
        let annotations = Annotations {
            read_only: Some(true),
            ..Annotations::default()
        };
        let icons = [Icon::new("https://x/i.png").sizes("any")];
        let fields = ToolFields {
            name: "t",
            title: Some("T"),
            description: Some("d"),
            input_schema: &schema,
            output_schema: Some(&schema),
            annotations: &annotations,
            icons: &icons,
            meta: &meta,
        };
        serde_json::to_string(&ToolDefinition::new(fields, version)).unwrap()
    }

    #[test]
    fn each_revision_gets_the_fields_it_knows() {
        assert_eq!(
            render(ProtocolVersion::V2024_11_05),
            r#"{"name":"t","description":"d","inputSchema":{"type":"object"}}"#
        );
        assert_eq!(
            render(ProtocolVersion::V2025_03_26),
            r#"{"name":"t","annotations":{"readOnlyHint":true,"title":"T"},"description":"d","inputSchema":{"type":"object"}}"#
        );
        assert_eq!(
            render(ProtocolVersion::V2025_06_18),
            r#"{"name":"t","_meta":{"k":1},"annotations":{"readOnlyHint":true},"description":"d","inputSchema":{"type":"object"},"outputSchema":{"type":"object"},"title":"T"}"#
        );
        assert_eq!(
            render(ProtocolVersion::V2025_11_25),
            r#"{"name":"t","_meta":{"k":1},"annotations":{"readOnlyHint":true},"description":"d","icons":[{"sizes":["any"],"src":"https://x/i.png"}],"inputSchema":{"type":"object"},"outputSchema":{"type":"object"},"title":"T"}"#
        );
    }
}
