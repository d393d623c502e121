//! The description of one server a client connects to.

use std::collections::BTreeMap;

/// One server: its name, how to reach it ([`Endpoint`]) and whether its
/// tool annotations are believed. A host reads these from its own
/// configuration (mcp-host from an `mcp.json` entry).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerConfig {
    /// The entry's key: the server's name in logs, errors and, when two
    /// servers expose one tool name, the prefix of the names the model sees.
    pub name: String,
    /// How to reach the server.
    pub transport: Endpoint,
    /// Whether the server's tool annotations are believed (default: stdio
    /// `true`, URL `false`).
    pub trusted: bool,
}

/// How to reach a server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Endpoint {
    /// A child process speaking newline-delimited JSON-RPC on stdin/stdout.
    Stdio {
        /// The program to run.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables set for the child, `${VAR}` already replaced.
        env: BTreeMap<String, String>,
        /// The child's working directory (`cwd`), if given.
        cwd: Option<String>,
        /// `"inheritEnv": true`: the child gets the host's whole
        /// environment (API keys included) under `env`, instead of the
        /// SDKs' allow-list.
        inherit_env: bool,
    },
    /// Streamable HTTP.
    Http {
        /// The MCP endpoint (`http://` or `https://`).
        url: String,
        /// Headers sent on every request (e.g. `Authorization`).
        headers: BTreeMap<String, String>,
        /// The entry said `"type": "sse"`: the server may speak only the
        /// 2024-11-05 HTTP+SSE transport, which this host does not.
        declared_sse: bool,
    },
}

impl ServerConfig {
    /// A server run as a child process: `command` with `args`, under the
    /// name `name`; trusted (the user chose to run that program), no extra
    /// environment, the SDKs' allow-list of inherited variables.
    pub fn stdio(
        name: impl Into<String>,
        command: impl Into<String>,
        args: impl IntoIterator<Item = impl Into<String>>,
    ) -> ServerConfig {
        ServerConfig {
            name: name.into(),
            transport: Endpoint::Stdio {
                command: command.into(),
                args: args.into_iter().map(Into::into).collect(),
                env: BTreeMap::new(),
                cwd: None,
                inherit_env: false,
            },
            trusted: true,
        }
    }

    /// A Streamable HTTP server at `url`, under the name `name`; not
    /// trusted (its annotations keep only their `title`), no extra headers.
    pub fn http(name: impl Into<String>, url: impl Into<String>) -> ServerConfig {
        ServerConfig {
            name: name.into(),
            transport: Endpoint::Http {
                url: url.into(),
                headers: BTreeMap::new(),
                declared_sse: false,
            },
            trusted: false,
        }
    }
}
