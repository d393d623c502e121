//! An entry's own overrides of the host's settings for its server, in
//! either form of the file: how long it may take to start and how often it
//! is started again, `"startTimeout"` (seconds, a positive number) and
//! `"restarts"` (a whole number, 0 or more); and the caps on its tool
//! listing ([`mcpfn_client::ListLimits`]), `"maxTools"`, `"maxListPages"`,
//! `"maxListBytes"` and `"maxListMemory"` (bytes; each a positive whole
//! number; `--max-tools`, `--max-list-pages`, `--max-list-bytes`,
//! `--max-list-memory`).
//!
//! Neither Claude Desktop, Claude Code nor VS Code documents a field for
//! these in `mcp.json` (Claude Code reads its start timeout from the
//! `MCP_TIMEOUT` variable; Codex's TOML has `startup_timeout_sec`), so the
//! names follow the file's camelCase and the unit is the program's
//! (`--start-timeout SECONDS`, `--restarts N`). An entry's value wins over
//! the flag's.

use super::ConfigError;
use serde_json::{Map, Value};
use std::time::Duration;

/// An entry's own start timeout and restart count; `None` where the entry
/// says nothing (the host's setting applies).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Lifecycle {
    /// `"startTimeout"`: how long the server may take to start and list
    /// its tools.
    pub start_timeout: Option<Duration>,
    /// `"restarts"`: how many times it is started again when it dies.
    pub restarts: Option<u32>,
    /// `"maxTools"`: the most tools of its listing kept.
    pub max_tools: Option<usize>,
    /// `"maxListPages"`: the most pages of its listing followed.
    pub max_list_pages: Option<usize>,
    /// `"maxListBytes"`: the most bytes of its listing, all pages together.
    pub max_list_bytes: Option<usize>,
    /// `"maxListMemory"`: the most memory its parsed listing may take.
    pub max_list_memory: Option<usize>,
}

impl Lifecycle {
    /// `limits` with this entry's caps over them.
    pub fn list_limits(&self, limits: mcpfn_client::ListLimits) -> mcpfn_client::ListLimits {
        mcpfn_client::ListLimits {
            max_tools: self.max_tools.unwrap_or(limits.max_tools),
            max_pages: self.max_list_pages.unwrap_or(limits.max_pages),
            max_bytes: self.max_list_bytes.unwrap_or(limits.max_bytes),
            max_tree_bytes: self.max_list_memory.unwrap_or(limits.max_tree_bytes),
        }
    }
}

/// Reads the entry `name`'s two fields.
pub(super) fn read(name: &str, entry: &Map<String, Value>) -> Result<Lifecycle, ConfigError> {
    let invalid = |field: &str, expected| ConfigError::InvalidField {
        server: name.to_owned(),
        field: field.to_owned(),
        expected,
    };
    let start_timeout = match entry.get("startTimeout") {
        None => None,
        Some(value) => Some(
            value
                .as_f64()
                .filter(|s| *s > 0.0)
                .and_then(|s| Duration::try_from_secs_f64(s).ok())
                .ok_or_else(|| invalid("startTimeout", "a positive number of seconds"))?,
        ),
    };
    let restarts = match entry.get("restarts") {
        None => None,
        Some(value) => Some(
            value
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| invalid("restarts", "a whole number, 0 or more"))?,
        ),
    };
    let cap = |field: &str| match entry.get(field) {
        None => Ok(None),
        Some(value) => value
            .as_u64()
            .filter(|n| *n > 0)
            .and_then(|n| usize::try_from(n).ok())
            .map(Some)
            .ok_or_else(|| invalid(field, "a positive whole number")),
    };
    Ok(Lifecycle {
        start_timeout,
        restarts,
        max_tools: cap("maxTools")?,
        max_list_pages: cap("maxListPages")?,
        max_list_bytes: cap("maxListBytes")?,
        max_list_memory: cap("maxListMemory")?,
    })
}

#[cfg(test)]
mod tests {
    use super::super::McpConfig;
    use super::*;

    #[test]
    fn both_forms_carry_a_start_timeout_and_restarts_per_server() {
        for key in ["mcpServers", "servers"] {
            let config = McpConfig::parse(&format!(
                r#"{{"{key}": {{
                    "slow": {{"command": "npx", "startTimeout": 90, "restarts": 0}},
                    "half": {{"url": "https://h/mcp", "startTimeout": 0.5}},
                    "plain": {{"command": "a"}}
                }}}}"#
            ))
            .unwrap();
            assert_eq!(
                config.lifecycle("slow"),
                Lifecycle {
                    start_timeout: Some(Duration::from_secs(90)),
                    restarts: Some(0),
                    ..Lifecycle::default()
                }
            );
            assert_eq!(
                config.lifecycle("half").start_timeout,
                Some(Duration::from_millis(500))
            );
            assert_eq!(config.lifecycle("plain"), Lifecycle::default());
            assert_eq!(config.lifecycle("nowhere"), Lifecycle::default());
        }
    }

    #[test]
    fn an_entry_caps_its_listing_over_the_hosts_caps() {
        let config = McpConfig::parse(
            r#"{"servers": {"big": {"command": "a", "maxTools": 5000, "maxListPages": 7,
                "maxListBytes": 1048576, "maxListMemory": 2097152}, "small": {"command": "b", "maxTools": 3}}}"#,
        )
        .unwrap();
        let host = mcpfn_client::ListLimits {
            max_tools: 10,
            ..mcpfn_client::ListLimits::default()
        };
        assert_eq!(
            config.lifecycle("big").list_limits(host),
            mcpfn_client::ListLimits {
                max_tools: 5000,
                max_pages: 7,
                max_bytes: 1 << 20,
                max_tree_bytes: 2 << 20,
            }
        );
        let small = config.lifecycle("small").list_limits(host);
        assert_eq!((small.max_tools, small.max_pages), (3, host.max_pages));
        assert_eq!(config.lifecycle("other").list_limits(host), host);
    }

    #[test]
    fn a_bad_value_names_the_server_the_field_and_what_it_must_be() {
        for (entry, message) in [
            (
                r#"{"command": "a", "maxTools": 0}"#,
                "server `w`: `maxTools` must be a positive whole number",
            ),
            (
                r#"{"command": "a", "maxListBytes": "1"}"#,
                "server `w`: `maxListBytes` must be a positive whole number",
            ),
            (
                r#"{"command": "a", "startTimeout": 0}"#,
                "server `w`: `startTimeout` must be a positive number of seconds",
            ),
            (
                r#"{"command": "a", "startTimeout": "30"}"#,
                "server `w`: `startTimeout` must be a positive number of seconds",
            ),
            (
                r#"{"command": "a", "restarts": -1}"#,
                "server `w`: `restarts` must be a whole number, 0 or more",
            ),
            (
                r#"{"command": "a", "restarts": 1.5}"#,
                "server `w`: `restarts` must be a whole number, 0 or more",
            ),
        ] {
            let error =
                McpConfig::parse(&format!(r#"{{"mcpServers": {{"w": {entry}}}}}"#)).unwrap_err();
            assert_eq!(error.to_string(), message, "{entry}");
        }
    }
}
