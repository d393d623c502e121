//! Why an `mcp.json` cannot be used ([`ConfigError`]) and the error under
//! it ([`Cause`]).

#[allow(clippy::wildcard_imports)]
use super::*;

/// Why an `mcp.json` cannot be used. Each message names the problem and,
/// where there is one, the server; the `mcp-host` program prints it and
/// exits with status 2.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read {}: {source}", .path.display())]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        source: Cause,
    },
    /// The text is not JSON.
    #[error("the config is not JSON: {source}")]
    NotJson {
        /// The parser's error, with line and column.
        source: Cause,
    },
    /// The top level is not an object with `mcpServers` or `servers`.
    #[error(
        "the config has no `mcpServers` object (Claude Desktop form) or `servers` object (VS Code form) at the top level"
    )]
    NoServers,
    /// `mcpServers` or `servers` is there but is not an object.
    #[error("`{key}` is {found}; it must be an object mapping server names to their settings")]
    ServersNotObject {
        /// `mcpServers` or `servers`.
        key: &'static str,
        /// What it is instead (`an array`, …).
        found: &'static str,
    },
    /// Both `mcpServers` and `servers` are there: which one is meant?
    #[error(
        "the config has both `mcpServers` and `servers`; keep one (`mcpServers`: Claude Desktop form, `servers`: VS Code form)"
    )]
    BothForms,
    /// Two entries have the same name.
    #[error("server `{server}` is configured twice")]
    DuplicateServer {
        /// The name.
        server: String,
    },
    /// An entry is not an object.
    #[error(
        "server `{server}`: the entry is {found}; it must be an object with `command` or `url`"
    )]
    EntryNotObject {
        /// The entry's name.
        server: String,
        /// What it is instead.
        found: &'static str,
    },
    /// An entry has neither `command` nor `url`.
    #[error(
        "server `{server}`: the entry has neither `command` (a program to run) nor `url` (an HTTP endpoint)"
    )]
    NoCommandOrUrl {
        /// The entry's name.
        server: String,
    },
    /// An entry has both `command` and `url` and no `type` to choose.
    #[error(
        "server `{server}`: the entry has both `command` and `url`; keep one, or say which with `\"type\": \"stdio\"` or `\"type\": \"http\"`"
    )]
    CommandAndUrl {
        /// The entry's name.
        server: String,
    },
    /// An entry's `type` is none of `stdio`, `http`, `sse`.
    #[error("server `{server}`: unknown `type` `{ty}`; use `stdio`, `http` or `sse`")]
    UnknownType {
        /// The entry's name.
        server: String,
        /// The type given.
        ty: String,
    },
    /// An entry's `type` needs a field the entry lacks (`stdio` without
    /// `command`, `http` without `url`).
    #[error("server `{server}`: `\"type\": \"{ty}\"` needs `{field}`")]
    MissingField {
        /// The entry's name.
        server: String,
        /// The type given.
        ty: &'static str,
        /// The field it needs.
        field: &'static str,
    },
    /// An `env` value names a variable the host's environment does not
    /// have (and gives no `${VAR:-default}`).
    #[error(
        "server `{server}`: `{field}` uses `${{{variable}}}`, which is not set in the host's environment (write `${{{variable}:-default}}` for a default)"
    )]
    UnsetVariable {
        /// The entry's name.
        server: String,
        /// The field (`env.GITHUB_TOKEN`).
        field: String,
        /// The variable.
        variable: String,
    },
    /// `tools` has a key other than `allow` and `deny` (a misspelt
    /// `allow` would otherwise offer every tool).
    #[error("server `{server}`: `tools.{key}` is not a filter; `tools` takes `allow` and `deny`")]
    UnknownFilter {
        /// The entry's name.
        server: String,
        /// The key.
        key: String,
    },
    /// A field has the wrong shape.
    #[error("server `{server}`: `{field}` must be {expected}")]
    InvalidField {
        /// The entry's name.
        server: String,
        /// The field (`args`, `env.HOME`, …).
        field: String,
        /// What it must be.
        expected: &'static str,
    },
}

/// The error under a [`ConfigError`] (the operating system's, the JSON
/// parser's): shared by the clones of the error that carries it, and
/// compared by what it says, since neither has an equality of its own.
#[derive(Clone, Debug)]
pub struct Cause(Arc<dyn std::error::Error + Send + Sync>);

impl Cause {
    pub(super) fn new(error: impl std::error::Error + Send + Sync + 'static) -> Cause {
        Cause(Arc::new(error))
    }
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for Cause {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

impl PartialEq for Cause {
    fn eq(&self, other: &Cause) -> bool {
        self.0.to_string() == other.0.to_string()
    }
}

impl Eq for Cause {}
