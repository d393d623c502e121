//! The tool surface without serving: the `tools/list` result and the tool
//! arrays of model APIs, for gateways, hosts and build scripts.

use crate::protocol::ProtocolVersion;
use crate::tool::Tool;
use serde_json::{Map, Value, json};
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
}

impl DumpFormat {
    /// The names [`DumpFormat::from_str`] accepts.
    pub const NAMES: [&'static str; 4] = ["mcp", "mcp-2026-07-28", "anthropic", "openai"];
}

impl FromStr for DumpFormat {
    type Err = String;

    /// `mcp` (2025-11-25), `mcp-<version>`, `anthropic`, `openai`.
    fn from_str(text: &str) -> Result<DumpFormat, String> {
        match text {
            "mcp" => Ok(DumpFormat::Mcp(ProtocolVersion::LATEST_LEGACY)),
            "anthropic" => Ok(DumpFormat::Anthropic),
            "openai" => Ok(DumpFormat::OpenAi),
            other => other
                .strip_prefix("mcp-")
                .and_then(ProtocolVersion::parse)
                .map(DumpFormat::Mcp)
                .ok_or_else(|| {
                    format!(
                        "unknown dump format `{other}`; use one of: mcp, mcp-<protocol version> (e.g. mcp-2026-07-28), anthropic, openai"
                    )
                }),
        }
    }
}

impl fmt::Display for DumpFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DumpFormat::Mcp(version) => write!(f, "mcp-{version}"),
            DumpFormat::Anthropic => f.write_str("anthropic"),
            DumpFormat::OpenAi => f.write_str("openai"),
        }
    }
}

/// One tool of a dump, with the size of its compact JSON.
#[derive(Clone, Debug, PartialEq)]
pub struct DumpEntry {
    /// The tool's name.
    pub name: String,
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
}

impl ToolDump {
    pub(crate) fn new(format: DumpFormat, tools: &[&Tool], list_ttl_ms: u64) -> ToolDump {
        let entries = tools
            .iter()
            .map(|tool| {
                let json = entry(format, tool);
                DumpEntry {
                    name: tool.name.clone(),
                    bytes: json.to_string().len(),
                    json,
                }
            })
            .collect();
        let envelope = match format {
            DumpFormat::Mcp(version) if version.is_modern() => {
                let mut map = Map::new();
                map.insert("ttlMs".into(), list_ttl_ms.into());
                map.insert("cacheScope".into(), "public".into());
                map.insert("resultType".into(), "complete".into());
                Some(map)
            }
            DumpFormat::Mcp(_) => Some(Map::new()),
            _ => None,
        };
        ToolDump {
            format,
            entries,
            envelope,
        }
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

    /// One line per tool with its size, then the total: what `--dump-tools`
    /// prints on stderr.
    pub fn size_report(&self) -> String {
        let width = self
            .entries
            .iter()
            .map(|e| e.name.len())
            .max()
            .unwrap_or(4)
            .max(5);
        let mut report = String::new();
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

fn entry(format: DumpFormat, tool: &Tool) -> Value {
    let description = tool.def.description.clone().unwrap_or_default();
    match format {
        DumpFormat::Mcp(version) => tool.definition(version),
        DumpFormat::Anthropic => json!({
            "name": tool.name,
            "description": description,
            "input_schema": tool.input_schema(),
        }),
        DumpFormat::OpenAi => json!({
            "type": "function",
            "function": {
                "name": tool.name,
                "description": description,
                "parameters": tool.input_schema(),
            }
        }),
    }
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
                .contains("anthropic")
        );
        for name in DumpFormat::NAMES {
            assert!(name.parse::<DumpFormat>().is_ok());
        }
    }
}
