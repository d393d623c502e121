//! `mcp.json`: the servers a host connects to.
//!
//! Both forms users have are read:
//!
//! - Claude Desktop (and Claude Code's `.mcp.json`):
//!   `{"mcpServers": {NAME: {"command", "args", "env"} | {"url", "headers"}}}`;
//! - VS Code (`.vscode/mcp.json`):
//!   `{"servers": {NAME: {"type": "stdio"|"http"|"sse", ...}}}`.
//!
//! In either form an entry may carry `"type"` (`stdio`, `http`, or `sse`,
//! which VS Code and Claude Code document); without one, `command` makes a
//! stdio server and `url` an HTTP one. `"sse"` is accepted because VS Code
//! documents it beside `"http"` (and itself tries Streamable HTTP first);
//! this host speaks Streamable HTTP only, so such a server is reached that
//! way and [`Endpoint::Http::declared_sse`] records what the entry said, for
//! a better error if the server speaks only the old HTTP+SSE transport.
//!
//! `"trusted": true|false` says whether the server's tool annotations
//! (`readOnlyHint`, …) are believed; the default is `true` for a stdio server
//! (the user chose to run that program) and `false` for a URL.
//!
//! Servers come out **sorted by name** (byte order), not in file order: the
//! catalog's tool order, and so the model's prompt prefix and its cache,
//! then stays the same when a user reorders entries, and serde_json (built
//! here without `preserve_order`) has no file order to give anyway. A name
//! given twice is an error rather than "last one wins".
//!
//! **What a stdio server gets in its environment**: only `HOME`, `LOGNAME`,
//! `PATH`, `SHELL`, `TERM` and `USER` of the host's own (on Windows
//! `APPDATA`, `HOMEDRIVE`, `HOMEPATH`, `LOCALAPPDATA`, `PATH`,
//! `PROCESSOR_ARCHITECTURE`, `SYSTEMDRIVE`, `SYSTEMROOT`, `TEMP`, `USERNAME`,
//! `USERPROFILE`), as the official TypeScript and Python SDKs pass, plus the
//! entry's `env`; never the host's API keys. `"inheritEnv": true` on an
//! entry passes the host's whole environment instead. In `env` values,
//! `${VAR}` and `${env:VAR}` (VS Code's spelling) are replaced by the host's
//! variable `VAR` when the file is read, and `${VAR:-default}` by `default`
//! when `VAR` is unset or empty (Claude Code's spelling), so
//! `"env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}` passes exactly that secret;
//! a variable that is unset without a default is a [`ConfigError`] naming
//! the server and the variable.
//!
//! **Filters.** `"tools": {"allow": ["get_*", "echo"], "deny": ["get_secret"]}`
//! on an entry (either form) says which of the server's tools are offered:
//! exact MCP tool names, `*` for any run of characters, `deny` winning over
//! `allow` ([`crate::filter`]). A `tools` value of another shape, or with a
//! key other than `allow` and `deny`, is a [`ConfigError`] naming the server
//! and the field. `"disabled": true` leaves the server out: it is not
//! started, and only `disabled` of its entry is read (a server is often
//! disabled because its entry does not work yet); [`McpConfig::disabled`]
//! names it.
//!
//! An HTTP entry may carry `"oauth": {"clientId", "clientSecret", "scopes",
//! "redirectPort"}` ([`OAuthSettings`], [`McpConfig::oauth`]) for a server
//! that asks for OAuth authorization.
//!
//! `"startTimeout"` (seconds) and `"restarts"` on an entry override the
//! host's start timeout and restart count for that server ([`lifecycle`]).
//!
//! Not supported, and said so in [`McpConfig::warnings`]: VS Code's
//! `${input:…}` and other variables (used as written), variables outside
//! `env` values, and `envFile`. Other unknown fields are ignored, as the
//! hosts that define the formats do.

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::filter::ToolFilter;
use mcpfn_client::{Endpoint, ServerConfig};

mod duplicates;
mod entry;
mod error;
pub mod lifecycle;
mod variables;
use duplicates::duplicate_server;
use entry::{kind, oauth_settings, server};
pub use error::{Cause, ConfigError};
pub use lifecycle::Lifecycle;
use variables::{expand, mentions_variable};

/// A parsed `mcp.json`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct McpConfig {
    form: ConfigForm,
    servers: Vec<ServerConfig>,
    /// The `tools` filter of each server that has one.
    filters: BTreeMap<String, ToolFilter>,
    /// The names of the `"disabled": true` entries, sorted.
    disabled: Vec<String>,
    /// Each entry's own start timeout and restarts, by server name; only
    /// entries that give one.
    lifecycles: BTreeMap<String, Lifecycle>,
    warnings: Vec<String>,
    /// The `"oauth"` objects of HTTP entries, by server name.
    oauth: BTreeMap<String, OAuthSettings>,
}

/// An HTTP entry's `"oauth": {"clientId", "clientSecret", "scopes",
/// "redirectPort"}`: how the host identifies itself to the server's
/// authorization server (all optional: without `clientId` the host
/// registers itself). `clientSecret` takes `${VAR}` like `env` values.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OAuthSettings {
    /// A pre-registered client id.
    pub client_id: Option<String>,
    /// Its secret, for a confidential client.
    pub client_secret: Option<String>,
    /// Scopes to ask for when the server's challenge names none.
    pub scopes: Vec<String>,
    /// The loopback port of the redirect listener (the one registered with
    /// the authorization server for a pre-registered client).
    pub redirect_port: Option<u16>,
}

/// One entry, read.
enum Entry {
    /// A server to start, and its filter.
    Enabled(ServerConfig, ToolFilter),
    /// `"disabled": true`.
    Disabled,
}

/// Which of the two forms a file used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConfigForm {
    /// `{"mcpServers": {...}}` (Claude Desktop, Claude Code).
    ClaudeDesktop,
    /// `{"servers": {...}}` (VS Code).
    VsCode,
}

impl McpConfig {
    /// Reads and parses the file at `path`.
    pub fn load(path: impl AsRef<Path>) -> Result<McpConfig, ConfigError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|error| ConfigError::Unreadable {
            path: path.to_owned(),
            source: Cause::new(error),
        })?;
        let config = McpConfig::parse(&text)?;
        for warning in &config.warnings {
            tracing::warn!(config = %path.display(), "{warning}");
        }
        Ok(config)
    }

    /// Parses the text of an `mcp.json`; `${VAR}` in `env` values comes
    /// from this process's environment.
    pub fn parse(text: &str) -> Result<McpConfig, ConfigError> {
        McpConfig::parse_with(text, |name| std::env::var(name).ok())
    }

    /// [`parse`](Self::parse), with `${VAR}` in `env` values looked up by
    /// `lookup` instead of in this process's environment.
    pub fn parse_with(
        text: &str,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<McpConfig, ConfigError> {
        let root: Value = serde_json::from_str(text).map_err(|error| ConfigError::NotJson {
            source: Cause::new(error),
        })?;
        let Value::Object(root) = root else {
            return Err(ConfigError::NoServers);
        };
        let (form, key) = match (root.get("mcpServers"), root.get("servers")) {
            (Some(_), Some(_)) => return Err(ConfigError::BothForms),
            (Some(_), None) => (ConfigForm::ClaudeDesktop, "mcpServers"),
            (None, Some(_)) => (ConfigForm::VsCode, "servers"),
            (None, None) => return Err(ConfigError::NoServers),
        };
        let Some(Value::Object(entries)) = root.get(key) else {
            return Err(ConfigError::ServersNotObject {
                key,
                found: kind(&root[key]),
            });
        };
        // `Value` keeps the last of two equal keys; a second, ordered pass
        // over the same text sees them all.
        if let Some(server) = duplicate_server(text, key) {
            return Err(ConfigError::DuplicateServer { server });
        }
        let mut warnings = Vec::new();
        let mut servers = Vec::new();
        let mut filters = BTreeMap::new();
        let mut disabled = Vec::new();
        for (name, entry) in entries {
            match server(name, entry, &lookup, &mut warnings)? {
                Entry::Enabled(server, filter) => {
                    if !filter.is_open() {
                        filters.insert(name.clone(), filter);
                    }
                    servers.push(server);
                }
                Entry::Disabled => disabled.push(name.clone()),
            }
        }
        disabled.sort();
        // Sorted here, not left to `Map`: with serde_json's `preserve_order`
        // (which any crate in a build can turn on) it iterates in file order.
        servers.sort_by(|a, b| a.name.cmp(&b.name));
        let mut oauth = BTreeMap::new();
        let mut lifecycles = BTreeMap::new();
        for (name, entry) in entries {
            if let Some(settings) = oauth_settings(name, entry, &lookup)? {
                oauth.insert(name.clone(), settings);
            }
            if let Value::Object(entry) = entry {
                let lifecycle = lifecycle::read(name, entry)?;
                if lifecycle != Lifecycle::default() {
                    lifecycles.insert(name.clone(), lifecycle);
                }
            }
        }
        Ok(McpConfig {
            form,
            servers,
            filters,
            disabled,
            lifecycles,
            warnings,
            oauth,
        })
    }

    /// Which form the file used.
    pub fn form(&self) -> ConfigForm {
        self.form
    }

    /// The servers to start, sorted by name (the disabled ones left out).
    pub fn servers(&self) -> &[ServerConfig] {
        &self.servers
    }

    /// The names of the entries with `"disabled": true`, sorted: not
    /// started, not failures.
    pub fn disabled(&self) -> &[String] {
        &self.disabled
    }

    /// The `tools` filter of the server named `name` (an open one when its
    /// entry has none).
    pub fn tool_filter(&self, name: &str) -> ToolFilter {
        self.filters.get(name).cloned().unwrap_or_default()
    }

    /// Every server's filter that is not open, by server name.
    pub fn tool_filters(&self) -> &BTreeMap<String, ToolFilter> {
        &self.filters
    }

    /// The server named `name`.
    pub fn server(&self, name: &str) -> Option<&ServerConfig> {
        self.servers.iter().find(|s| s.name == name)
    }

    /// The `"oauth"` settings of the server named `name`, if its entry has
    /// them.
    pub fn oauth(&self, name: &str) -> Option<&OAuthSettings> {
        self.oauth.get(name)
    }

    /// The entry `name`'s own start timeout and restarts (none given, or
    /// no such entry: [`Lifecycle::default`]).
    pub fn lifecycle(&self, name: &str) -> Lifecycle {
        self.lifecycles.get(name).copied().unwrap_or_default()
    }

    /// What the file asks for that this host does not do (variables left
    /// unsubstituted, `envFile` ignored, a field ignored because `type`
    /// chose the other transport): one sentence each, naming the server.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(text: &str) -> ConfigError {
        McpConfig::parse(text).unwrap_err()
    }

    #[test]
    fn the_claude_desktop_form_is_read() {
        let config = McpConfig::parse(
            r#"{"mcpServers": {
                "weather": {"url": "https://xxx.com/mcp", "headers": {"Authorization": "Bearer t"}},
                "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/path"], "env": {"DEBUG": "1"}}
            }}"#,
        )
        .unwrap();
        assert_eq!(config.form(), ConfigForm::ClaudeDesktop);
        assert_eq!(
            config.servers(),
            [
                ServerConfig {
                    name: "filesystem".into(),
                    transport: Endpoint::Stdio {
                        command: "npx".into(),
                        args: vec![
                            "-y".into(),
                            "@modelcontextprotocol/server-filesystem".into(),
                            "/path".into()
                        ],
                        env: [("DEBUG".to_owned(), "1".to_owned())].into(),
                        cwd: None,
                        inherit_env: false,
                    },
                    trusted: true,
                },
                ServerConfig {
                    name: "weather".into(),
                    transport: Endpoint::Http {
                        url: "https://xxx.com/mcp".into(),
                        headers: [("Authorization".to_owned(), "Bearer t".to_owned())].into(),
                        declared_sse: false,
                    },
                    trusted: false,
                },
            ]
        );
        assert!(config.warnings().is_empty());
    }

    #[test]
    fn the_vs_code_form_is_read_with_its_types() {
        let config = McpConfig::parse(
            r#"{"inputs": [], "servers": {
                "memory": {"type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"], "cwd": "/tmp"},
                "api": {"type": "http", "url": "http://localhost:3000/mcp"},
                "old": {"type": "sse", "url": "http://localhost:3001/sse"},
                "untyped": {"command": "server"}
            }}"#,
        )
        .unwrap();
        assert_eq!(config.form(), ConfigForm::VsCode);
        let names: Vec<&str> = config.servers().iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["api", "memory", "old", "untyped"]);
        assert!(matches!(
            &config.server("memory").unwrap().transport,
            Endpoint::Stdio { cwd: Some(cwd), .. } if cwd == "/tmp"
        ));
        assert!(matches!(
            config.server("old").unwrap().transport,
            Endpoint::Http {
                declared_sse: true,
                ..
            }
        ));
        assert!(matches!(
            config.server("api").unwrap().transport,
            Endpoint::Http {
                declared_sse: false,
                ..
            }
        ));
    }

    #[test]
    fn trusted_defaults_by_transport_and_can_be_set() {
        let config = McpConfig::parse(
            r#"{"mcpServers": {
                "local": {"command": "a"},
                "local-untrusted": {"command": "a", "trusted": false},
                "remote": {"url": "https://r/mcp"},
                "remote-trusted": {"url": "https://r/mcp", "trusted": true}
            }}"#,
        )
        .unwrap();
        let trusted: Vec<(&str, bool)> = config
            .servers()
            .iter()
            .map(|s| (s.name.as_str(), s.trusted))
            .collect();
        assert_eq!(
            trusted,
            [
                ("local", true),
                ("local-untrusted", false),
                ("remote", false),
                ("remote-trusted", true)
            ]
        );
    }

    #[test]
    fn servers_are_sorted_by_name_whatever_the_file_order() {
        let a = McpConfig::parse(r#"{"mcpServers": {"b": {"command": "b"}, "a": {"command": "a"}, "C": {"command": "c"}}}"#).unwrap();
        let b = McpConfig::parse(r#"{"mcpServers": {"a": {"command": "a"}, "C": {"command": "c"}, "b": {"command": "b"}}}"#).unwrap();
        assert_eq!(a, b);
        let names: Vec<&str> = a.servers().iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["C", "a", "b"]);
    }

    #[test]
    fn each_invalid_file_gets_an_error_naming_the_problem_and_the_server() {
        let cases: [(&str, &str); 14] = [
            (
                "{",
                "the config is not JSON: EOF while parsing an object at line 1 column 1",
            ),
            ("[]", "the config has no `mcpServers` object"),
            (
                r#"{"other": {}}"#,
                "the config has no `mcpServers` object (Claude Desktop form) or `servers` object (VS Code form) at the top level",
            ),
            (
                r#"{"mcpServers": []}"#,
                "`mcpServers` is an array; it must be an object",
            ),
            (
                r#"{"mcpServers": {}, "servers": {}}"#,
                "the config has both `mcpServers` and `servers`; keep one",
            ),
            (
                r#"{"servers": {"w": "npx"}}"#,
                "server `w`: the entry is a string; it must be an object with `command` or `url`",
            ),
            (
                r#"{"servers": {"w": {"args": []}}}"#,
                "server `w`: the entry has neither `command` (a program to run) nor `url` (an HTTP endpoint)",
            ),
            (
                r#"{"servers": {"w": {"type": "websocket", "url": "ws://x"}}}"#,
                "server `w`: unknown `type` `websocket`; use `stdio`, `http` or `sse`",
            ),
            (
                r#"{"servers": {"w": {"type": "stdio", "url": "http://x"}}}"#,
                "server `w`: `\"type\": \"stdio\"` needs `command`",
            ),
            (
                r#"{"servers": {"w": {"command": "a", "url": "http://x"}}}"#,
                "server `w`: the entry has both `command` and `url`",
            ),
            (
                r#"{"mcpServers": {"w": {"command": "a", "args": "-v"}}}"#,
                "server `w`: `args` must be an array of strings",
            ),
            (
                r#"{"mcpServers": {"w": {"command": "a", "env": {"N": 1}}}}"#,
                "server `w`: `env.N` must be a string",
            ),
            (
                r#"{"mcpServers": {"w": {"url": "ftp://x"}}}"#,
                "server `w`: `url` must be an http:// or https:// URL",
            ),
            (
                r#"{"mcpServers": {"w": {"command": "a"}, "w": {"command": "b"}}}"#,
                "server `w` is configured twice",
            ),
        ];
        for (text, expected) in cases {
            let message = error(text).to_string();
            assert!(
                message.starts_with(expected),
                "{text}\n  gave: {message}\n  want: {expected}"
            );
        }
        assert_eq!(
            error(r#"{"mcpServers": {"w": {"command": "a", "trusted": "yes"}}}"#),
            ConfigError::InvalidField {
                server: "w".into(),
                field: "trusted".into(),
                expected: "true or false"
            }
        );
        assert_eq!(
            error(r#"{"servers": {"w": {"type": 3, "command": "a"}}}"#).to_string(),
            "server `w`: `type` must be a string"
        );
    }

    #[test]
    fn what_is_not_supported_is_warned_about() {
        let config = McpConfig::parse(
            r#"{"servers": {
                "a": {"type": "stdio", "command": "x", "env": {"KEY": "${input:key}"}, "envFile": "${workspaceFolder}/.env"},
                "b": {"type": "http", "url": "https://b/mcp", "command": "ignored", "inheritEnv": true}
            }}"#,
        )
        .unwrap();
        let warnings = config.warnings().join("\n");
        for expected in [
            "server `a`: `envFile` is not supported",
            "server `a`: `${…}` variables other than `${VAR}` and `${env:VAR}` in `env` values are not substituted",
            "server `b`: `command` is ignored (`type` is `http`)",
            "server `b`: `inheritEnv` is ignored",
        ] {
            assert!(warnings.contains(expected), "{expected}\n in {warnings}");
        }
    }

    fn lookup(name: &str) -> Option<String> {
        match name {
            "GITHUB_TOKEN" => Some("ghp_secret".into()),
            "EMPTY" => Some(String::new()),
            "W_SECRET" => Some("secret".into()),
            _ => None,
        }
    }

    fn stdio_env(config: &McpConfig, server: &str) -> (BTreeMap<String, String>, bool) {
        match &config.server(server).unwrap().transport {
            Endpoint::Stdio {
                env, inherit_env, ..
            } => (env.clone(), *inherit_env),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn env_values_expand_the_hosts_variables() {
        let config = McpConfig::parse_with(
            r#"{"mcpServers": {"gh": {"command": "x", "env": {
                "GITHUB_TOKEN": "${GITHUB_TOKEN}",
                "VS": "token=${env:GITHUB_TOKEN};",
                "DEFAULTED": "${MISSING:-fallback}",
                "EMPTY_DEFAULTED": "${EMPTY:-d}",
                "EMPTY": "[${EMPTY}]",
                "KEPT": "${input:key} ${workspaceFolder} $HOME ${ unclosed"
            }}}}"#,
            lookup,
        )
        .unwrap();
        let (env, inherit) = stdio_env(&config, "gh");
        assert!(!inherit);
        let expected: BTreeMap<String, String> = [
            ("GITHUB_TOKEN", "ghp_secret"),
            ("VS", "token=ghp_secret;"),
            ("DEFAULTED", "fallback"),
            ("EMPTY_DEFAULTED", "d"),
            ("EMPTY", "[]"),
            ("KEPT", "${input:key} ${workspaceFolder} $HOME ${ unclosed"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        assert_eq!(env, expected);
        // `${input:key}` is left as written, and said so.
        assert_eq!(config.warnings().len(), 1, "{:?}", config.warnings());
    }

    #[test]
    fn an_unset_variable_is_an_error_naming_server_field_and_variable() {
        let error = McpConfig::parse_with(
            r#"{"mcpServers": {"gh": {"command": "x", "env": {"TOKEN": "Bearer ${NOPE}"}}}}"#,
            lookup,
        )
        .unwrap_err();
        assert_eq!(
            error,
            ConfigError::UnsetVariable {
                server: "gh".into(),
                field: "env.TOKEN".into(),
                variable: "NOPE".into()
            }
        );
        assert!(
            error
                .to_string()
                .starts_with("server `gh`: `env.TOKEN` uses `${NOPE}`, which is not set"),
            "{error}"
        );
    }

    #[test]
    fn oauth_settings_are_read_with_the_secret_expanded() {
        let config = McpConfig::parse_with(
            r#"{"mcpServers": {"w": {"url": "https://w.test/mcp", "oauth": {"clientId": "c",
                "clientSecret": "${W_SECRET}", "scopes": ["a", "b"], "redirectPort": 8765}},
                "x": {"url": "https://x.test/mcp"}}}"#,
            lookup,
        )
        .unwrap();
        assert_eq!(
            config.oauth("w"),
            Some(&OAuthSettings {
                client_id: Some("c".into()),
                client_secret: Some("secret".into()),
                scopes: vec!["a".into(), "b".into()],
                redirect_port: Some(8765),
            })
        );
        assert_eq!(config.oauth("x"), None);
        let bad = McpConfig::parse(
            r#"{"servers": {"w": {"url": "https://w.test", "oauth": {"redirectPort": 0}}}}"#,
        );
        assert_eq!(
            bad.unwrap_err().to_string(),
            "server `w`: `oauth.redirectPort` must be a port number (1 to 65535)"
        );
    }

    #[test]
    fn inherit_env_is_a_boolean_opt_in() {
        let config = McpConfig::parse_with(
            r#"{"servers": {"all": {"command": "x", "inheritEnv": true}, "some": {"command": "x", "inheritEnv": false}, "default": {"command": "x"}}}"#,
            lookup,
        )
        .unwrap();
        assert!(stdio_env(&config, "all").1);
        assert!(!stdio_env(&config, "some").1);
        assert!(!stdio_env(&config, "default").1);
        assert_eq!(
            McpConfig::parse_with(
                r#"{"servers": {"all": {"command": "x", "inheritEnv": "yes"}}}"#,
                lookup
            )
            .unwrap_err()
            .to_string(),
            "server `all`: `inheritEnv` must be true or false"
        );
    }

    #[test]
    fn tool_filters_and_disabled_are_read_in_both_forms() {
        for key in ["mcpServers", "servers"] {
            let config = McpConfig::parse(&format!(
                r#"{{"{key}": {{
                    "fs": {{"command": "a", "tools": {{"allow": ["read_*", "list"], "deny": ["read_secret"]}}}},
                    "web": {{"url": "https://w/mcp", "tools": {{"deny": ["*"]}}}},
                    "plain": {{"command": "b", "disabled": false}},
                    "off": {{"disabled": true, "command": "c", "env": {{"T": "${{NOT_SET_ANYWHERE}}"}}}},
                    "off2": {{"disabled": true}}
                }}}}"#
            ))
            .unwrap();
            let names: Vec<&str> = config.servers().iter().map(|s| s.name.as_str()).collect();
            assert_eq!(names, ["fs", "plain", "web"], "{key}");
            assert_eq!(config.disabled(), ["off", "off2"]);
            assert_eq!(
                config.tool_filter("fs"),
                ToolFilter::new(
                    Some(vec!["read_*".into(), "list".into()]),
                    vec!["read_secret".into()]
                )
            );
            assert_eq!(
                config.tool_filter("web"),
                ToolFilter::new(None, vec!["*".into()])
            );
            assert!(config.tool_filter("plain").is_open());
            assert_eq!(config.tool_filters().len(), 2);
        }
    }

    #[test]
    fn a_malformed_filter_is_an_error_naming_the_server_and_the_field() {
        let cases = [
            (
                r#"{"mcpServers": {"w": {"command": "a", "tools": ["echo"]}}}"#,
                "server `w`: `tools` must be an object with `allow` and/or `deny`",
            ),
            (
                r#"{"mcpServers": {"w": {"command": "a", "tools": {"allow": "echo"}}}}"#,
                "server `w`: `tools.allow` must be an array of tool names",
            ),
            (
                r#"{"servers": {"w": {"command": "a", "tools": {"deny": ["ok", 3]}}}}"#,
                "server `w`: `tools.deny` must be an array of tool names",
            ),
            (
                r#"{"servers": {"w": {"command": "a", "tools": {"allow": [""]}}}}"#,
                "server `w`: `tools.allow` must be an array of tool names",
            ),
            (
                r#"{"servers": {"w": {"command": "a", "tools": {"alow": ["echo"]}}}}"#,
                "server `w`: `tools.alow` is not a filter; `tools` takes `allow` and `deny`",
            ),
            (
                r#"{"servers": {"w": {"command": "a", "disabled": "yes"}}}"#,
                "server `w`: `disabled` must be true or false",
            ),
        ];
        for (text, expected) in cases {
            let message = error(text).to_string();
            assert!(
                message.starts_with(expected),
                "{text}\n  gave: {message}\n  want: {expected}"
            );
        }
    }

    #[test]
    fn an_unreadable_file_names_the_path() {
        let error = McpConfig::load("/nonexistent/mcp.json").unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("cannot read /nonexistent/mcp.json: "),
            "{error}"
        );
    }

    #[test]
    fn the_operating_systems_and_the_parsers_errors_are_the_causes() {
        use std::error::Error;
        let unreadable = McpConfig::load("/nonexistent/mcp.json").unwrap_err();
        let os = std::fs::read_to_string("/nonexistent/mcp.json").unwrap_err();
        assert_eq!(unreadable.source().unwrap().to_string(), os.to_string());
        let not_json = error("{");
        let parser = serde_json::from_str::<Value>("{").unwrap_err();
        assert_eq!(not_json.source().unwrap().to_string(), parser.to_string());
        // Compared by what they say, as the errors were when they held text.
        assert_eq!(not_json, error("{"));
        assert_ne!(not_json, error("{\"a\""));
        assert!(error("[]").source().is_none());
    }
}
