//! The tool surface without serving: the `tools/list` result and the tool
//! arrays of model APIs, for gateways, hosts and build scripts.

use crate::error::Error;
use crate::protocol::ProtocolVersion;
use crate::tool::Tool;
use mcpfn_protocol::model_name::model_name;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// What shape a dump takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DumpFormat {
    /// The MCP `tools/list` result as a session of this version receives it.
    Mcp(ProtocolVersion),
    /// The Anthropic Messages API `tools` array: `name`, `description`, `input_schema`.
    Anthropic,
    /// The OpenAI `tools` array: `{"type":"function","function":{name, description, parameters}}`.
    OpenAi,
    /// The OpenAI `tools` array for strict function calling: `"strict": true`
    /// and parameters in the subset strict mode accepts (every property
    /// required, optional ones nullable, `additionalProperties: false`).
    /// Dumping fails with [`Error::NotExpressible`], naming each tool and
    /// schema path, when a tool cannot be expressed that way.
    OpenAiStrict,
}

impl DumpFormat {
    /// The names [`DumpFormat::from_str`] accepts.
    pub const NAMES: [&'static str; 5] = [
        "mcp",
        "mcp-2026-07-28",
        "anthropic",
        "openai",
        "openai-strict",
    ];
}

impl FromStr for DumpFormat {
    type Err = UnknownDumpFormat;

    /// `mcp` (2025-11-25), `mcp-<version>`, `anthropic`, `openai`, `openai-strict`.
    fn from_str(text: &str) -> Result<DumpFormat, UnknownDumpFormat> {
        match text {
            "mcp" => Ok(DumpFormat::Mcp(ProtocolVersion::LATEST_LEGACY)),
            "anthropic" => Ok(DumpFormat::Anthropic),
            "openai" => Ok(DumpFormat::OpenAi),
            "openai-strict" => Ok(DumpFormat::OpenAiStrict),
            other => other
                .strip_prefix("mcp-")
                .and_then(ProtocolVersion::parse)
                .map(DumpFormat::Mcp)
                .ok_or_else(|| UnknownDumpFormat(other.to_owned())),
        }
    }
}

/// A name [`DumpFormat::from_str`] does not know; it displays as the message
/// a user reads (the name, and the formats there are).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownDumpFormat(String);

impl UnknownDumpFormat {
    /// The name that was given.
    pub fn name(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for UnknownDumpFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown dump format `{}`; use one of: mcp, mcp-<protocol version> (e.g. mcp-2026-07-28), anthropic, openai, openai-strict",
            self.0
        )
    }
}

impl std::error::Error for UnknownDumpFormat {}

impl fmt::Display for DumpFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DumpFormat::Mcp(version) => write!(f, "mcp-{version}"),
            DumpFormat::Anthropic => f.write_str("anthropic"),
            DumpFormat::OpenAi => f.write_str("openai"),
            DumpFormat::OpenAiStrict => f.write_str("openai-strict"),
        }
    }
}

/// One tool of a dump, with the size of its compact JSON.
#[derive(Clone, Debug, PartialEq)]
pub struct DumpEntry {
    /// The tool's name in the dump: its MCP name in the `mcp` formats; in
    /// the model API formats the name those APIs accept
    /// (`^[a-zA-Z0-9_-]{1,64}$`), mapped by
    /// [`mcpfn_protocol::model_name::model_name`] when the MCP name is not
    /// one (`files.read` → `files_read`).
    pub name: String,
    /// The tool's MCP name, what `tools/call` takes; the same as `name`
    /// unless the dump's format had to map it.
    pub mcp_name: String,
    /// The tool's entry in the dump's format.
    pub json: Value,
    /// Bytes of `json` serialized compactly: what the entry costs on the wire
    /// and, roughly, in a model's context.
    pub bytes: usize,
}

/// A server's tools in one [`DumpFormat`].
#[derive(Clone, Debug, PartialEq)]
pub struct ToolDump {
    format: DumpFormat,
    entries: Vec<DumpEntry>,
    /// Fields around the array for formats that are objects (`tools/list` results).
    envelope: Option<Map<String, Value>>,
    warnings: Vec<String>,
}

impl ToolDump {
    /// The dump of `tools`; fails when a tool cannot be expressed in
    /// `format` (see [`DumpFormat::OpenAiStrict`]).
    ///
    /// In the model API formats each name is mapped as a host maps it
    /// ([`mcpfn_protocol::model_name::model_name`], unprefixed: one server,
    /// hashing with `server`, its name): a changed name is a warning, and
    /// two tools that would get one name fail the dump with
    /// [`Error::ModelNameCollision`].
    pub(crate) fn new(
        format: DumpFormat,
        server: &str,
        tools: &[&Tool],
        list_ttl_ms: u64,
    ) -> Result<ToolDump, Error> {
        let mut entries = Vec::with_capacity(tools.len());
        let mut problems = Vec::new();
        let mut renamed = Vec::new();
        // The first tool given each model name, to name both of a collision.
        let mut taken: BTreeMap<String, &str> = BTreeMap::new();
        // A host lists an app-only tool (MCP Apps) to the app, never to its
        // model: the model API formats leave it out.
        let tools: Vec<&Tool> = tools
            .iter()
            .copied()
            .filter(|tool| matches!(format, DumpFormat::Mcp(_)) || tool.visible_to_model())
            .collect();
        for tool in &tools {
            let name = match format {
                DumpFormat::Mcp(_) => tool.name.clone(),
                DumpFormat::Anthropic | DumpFormat::OpenAi | DumpFormat::OpenAiStrict => {
                    model_name(server, &tool.name, false)
                }
            };
            if let Some(first) = taken.get(&name) {
                return Err(Error::ModelNameCollision {
                    format: format.to_string(),
                    first: (*first).to_owned(),
                    second: tool.name.clone(),
                    model_name: name,
                });
            }
            taken.insert(name.clone(), &tool.name);
            if name != tool.name {
                renamed.push(format!(
                    "tool `{}` is offered to the model as `{name}`: model APIs accept only names matching ^[a-zA-Z0-9_-]{{1,64}}$ (a host maps it the same way; rename the tool to choose the name yourself)",
                    tool.name
                ));
            }
            match entry(format, &name, tool) {
                Ok(json) => entries.push(DumpEntry {
                    name,
                    mcp_name: tool.name.clone(),
                    bytes: json.to_string().len(),
                    json,
                }),
                Err(reasons) => problems.extend(
                    reasons
                        .into_iter()
                        .map(|reason| format!("tool `{}`: {reason}", tool.name)),
                ),
            }
        }
        if !problems.is_empty() {
            return Err(Error::NotExpressible {
                format: format.to_string(),
                problems,
            });
        }
        let envelope = match format {
            DumpFormat::Mcp(version) => Some(crate::protocol::outgoing::list_result_fields(
                version,
                list_ttl_ms,
            )),
            _ => None,
        };
        Ok(ToolDump {
            format,
            entries,
            envelope,
            warnings: renamed
                .into_iter()
                .chain(tools.iter().flat_map(|tool| missing_descriptions(tool)))
                .collect(),
        })
    }

    /// What a reader of the dump should know: each tool whose name the
    /// format had to map (`tool `files.read` is offered to the model as
    /// `files_read`: …`), then each tool and each argument without a
    /// description (legal, but the model then guesses from names).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The format.
    pub fn format(&self) -> DumpFormat {
        self.format
    }

    /// The tools, sorted by name, each with its size.
    pub fn entries(&self) -> &[DumpEntry] {
        &self.entries
    }

    /// Bytes of all entries together (compact JSON, separators excluded).
    pub fn total_bytes(&self) -> usize {
        self.entries.iter().map(|e| e.bytes).sum()
    }

    /// The dump as its format defines it: a `tools/list` result object, or
    /// the bare `tools` array of the model APIs.
    pub fn to_json(&self) -> Value {
        let tools = Value::Array(self.entries.iter().map(|e| e.json.clone()).collect());
        match &self.envelope {
            Some(envelope) => {
                let mut map = Map::new();
                map.insert("tools".into(), tools);
                map.extend(envelope.clone());
                Value::Object(map)
            }
            None => tools,
        }
    }

    /// One `warning:` line per [`ToolDump::warnings`] entry, one line per
    /// tool with its size, then the total: what `--dump-tools` prints on
    /// stderr.
    pub fn size_report(&self) -> String {
        let width = self
            .entries
            .iter()
            .map(|e| e.name.len())
            .max()
            .unwrap_or(4)
            .max(5);
        let mut report = String::new();
        for warning in &self.warnings {
            report.push_str(&format!("warning: {warning}\n"));
        }
        for entry in &self.entries {
            report.push_str(&format!(
                "{:<width$}  {:>7} bytes\n",
                entry.name, entry.bytes
            ));
        }
        report.push_str(&format!(
            "{:<width$}  {:>7} bytes in {} tools ({})\n",
            "total",
            self.total_bytes(),
            self.entries.len(),
            self.format
        ));
        report
    }
}

/// A tool's entry in `format` under `name`, or why it has none.
fn entry(format: DumpFormat, name: &str, tool: &Tool) -> Result<Value, Vec<String>> {
    let description = tool.def.description.clone().unwrap_or_default();
    Ok(match format {
        DumpFormat::Mcp(version) => tool.definition(version),
        DumpFormat::Anthropic => json!({
            "name": name,
            "description": description,
            "input_schema": mcpfn_protocol::model_schema::for_model_api(tool.input_schema()),
        }),
        DumpFormat::OpenAi => json!({
            "type": "function",
            "function": {
                "name": name,
                "description": description,
                "parameters": mcpfn_protocol::model_schema::for_model_api(tool.input_schema()),
            }
        }),
        DumpFormat::OpenAiStrict => json!({
            "type": "function",
            "function": {
                "name": name,
                "description": description,
                "parameters": mcpfn_protocol::model_schema::openai_strict(tool.input_schema())?,
                "strict": true,
            }
        }),
    })
}

/// A warning for the tool and for each of its arguments without a description.
fn missing_descriptions(tool: &Tool) -> Vec<String> {
    let described = |text: Option<&str>| text.is_some_and(|text| !text.trim().is_empty());
    let mut warnings = Vec::new();
    if !described(tool.def.description.as_deref()) {
        warnings.push(format!(
            "tool `{}` has no description; the model sees only its name (add a doc comment)",
            tool.name
        ));
    }
    if let Some(properties) = tool
        .input_schema()
        .get("properties")
        .and_then(Value::as_object)
    {
        for (name, property) in properties {
            if !described(property.get("description").and_then(Value::as_str)) {
                warnings.push(format!(
                    "argument `{name}` of tool `{}` has no description (add a doc comment on the parameter)",
                    tool.name
                ));
            }
        }
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_parse_by_name() {
        assert_eq!(
            "mcp".parse(),
            Ok(DumpFormat::Mcp(ProtocolVersion::V2025_11_25))
        );
        assert_eq!(
            "mcp-2026-07-28".parse(),
            Ok(DumpFormat::Mcp(ProtocolVersion::V2026_07_28))
        );
        assert_eq!("openai".parse(), Ok(DumpFormat::OpenAi));
        assert!(
            "yaml"
                .parse::<DumpFormat>()
                .unwrap_err()
                .to_string()
                .contains("anthropic")
        );
        for name in DumpFormat::NAMES {
            assert!(name.parse::<DumpFormat>().is_ok());
        }
    }
}
