//! The runtime's error type.

use std::fmt;
use std::io;

/// What can stop a server from starting or serving.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// Two tools were registered under one name.
    DuplicateToolName(String),
    /// Two prompts were registered under one name.
    DuplicatePromptName(String),
    /// A tool's name breaks the specification's rule (tools built by hand or
    /// renamed at run time; `#[tool]` checks at compile time).
    InvalidToolName {
        /// The offending name.
        name: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A tool's inputSchema does not have `type: "object"` at its root.
    InvalidInputSchema(String),
    /// A tool takes a `State<T>` that was never registered with `Server::state`.
    MissingState {
        /// The tool.
        tool: String,
        /// The state's type.
        type_name: &'static str,
    },
    /// Some tools cannot be dumped in a format without changing what they
    /// accept (e.g. a map argument in `openai-strict`).
    NotExpressible {
        /// The format, as [`DumpFormat`](crate::DumpFormat) displays it.
        format: String,
        /// One line per problem: the tool, the schema path and the reason.
        problems: Vec<String>,
    },
    /// Two tools would get one name in a model API dump (`a.b` and `a_b`
    /// are both `a_b` there: see
    /// [`mcpfn_protocol::model_name::model_name`]).
    ModelNameCollision {
        /// The format, as [`DumpFormat`](crate::DumpFormat) displays it.
        format: String,
        /// The MCP name of the tool that got the name first.
        first: String,
        /// The MCP name of the other tool.
        second: String,
        /// The name both would get.
        model_name: String,
    },
    /// The replica tag given to `Server::replica_tag` cannot go into a
    /// session id (1 to 63 ASCII letters, digits, `-` or `_`).
    InvalidReplicaTag(String),
    /// A tool declares a scope that is not an OAuth scope token (tools
    /// built by hand; `#[tool(scopes(...))]` checks at compile time).
    InvalidToolScope {
        /// The tool.
        tool: String,
        /// The offending scope.
        scope: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A tool's MCP Apps `_meta.ui` cannot be served: not the extension's
    /// shape, a `resourceUri` that is not a `ui://` URI, or a visibility
    /// that names no one (tools built by hand; `#[tool(ui(...))]` checks at
    /// compile time).
    InvalidToolUi {
        /// The tool.
        tool: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The authorization settings given to `Server::auth` cannot be served
    /// (say, a relative resource URI or no authorization server).
    InvalidAuth(String),
    /// A tool runs only as a task (`task = "required"`), and this build of
    /// mcp-runtime has no Tasks extension (its `tasks` feature is off).
    TasksFeatureOff {
        /// The tool.
        tool: String,
    },
    /// The skills folder given to `Server::skills_dir` cannot be served as
    /// the Skills extension says (feature `skills`).
    #[cfg(feature = "skills")]
    Skills(SkillsError),
    /// A resource built by hand has a malformed URI template, or none of
    /// its URI (`#[resource]` checks at compile time).
    InvalidResource {
        /// The URI or template as given.
        uri: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Two resources were registered at one URI (or one URI template).
    DuplicateResourceUri(String),
    /// Reading or writing the transport failed.
    Io(io::Error),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::DuplicateToolName(name) => write!(f, "two tools are named \"{name}\""),
            Error::DuplicatePromptName(name) => write!(f, "two prompts are named \"{name}\""),
            Error::InvalidToolName { name, reason } => {
                write!(f, "invalid tool name `{name}`: {reason}")
            }
            Error::InvalidInputSchema(name) => write!(
                f,
                "the inputSchema of tool `{name}` must have `\"type\": \"object\"` at its root"
            ),
            Error::MissingState { tool, type_name } => write!(
                f,
                "tool `{tool}` takes State<{type_name}>, but no such state is registered; add `.state(value)` to the Server"
            ),
            Error::NotExpressible { format, problems } => {
                write!(
                    f,
                    "the tools cannot be dumped as {format} without changing what they accept:"
                )?;
                for problem in problems {
                    write!(f, "\n  {problem}")?;
                }
                Ok(())
            }
            Error::ModelNameCollision {
                format,
                first,
                second,
                model_name,
            } => write!(
                f,
                "tools `{first}` and `{second}` would both be offered to the model as `{model_name}` in the {format} dump (model APIs accept only ^[a-zA-Z0-9_-]{{1,64}}$); rename one of them"
            ),
            Error::TasksFeatureOff { tool } => write!(
                f,
                "tool `{tool}` runs only as a task (task = \"required\"), but mcp-runtime was built without the Tasks extension; add `features = [\"tasks\"]` to the mcp-runtime dependency"
            ),
            Error::InvalidReplicaTag(tag) => write!(
                f,
                "invalid replica tag {tag:?}: use 1 to 63 ASCII letters, digits, '-' or '_'"
            ),
            Error::InvalidToolScope {
                tool,
                scope,
                reason,
            } => write!(
                f,
                "tool `{tool}` declares the scope {scope:?}, which {reason}"
            ),
            Error::InvalidToolUi { tool, reason } => {
                write!(f, "the MCP Apps `_meta.ui` of tool `{tool}` {reason}")
            }
            Error::InvalidAuth(reason) => write!(f, "invalid authorization settings: {reason}"),
            #[cfg(feature = "skills")]
            Error::Skills(err) => err.fmt(f),
            Error::InvalidResource { uri, reason } => {
                write!(f, "invalid resource {uri:?}: {reason}")
            }
            Error::DuplicateResourceUri(uri) => {
                write!(f, "two resources are registered at {uri:?}")
            }
            Error::Io(err) => write!(f, "transport I/O failed: {err}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io(err) => Some(err),
            #[cfg(feature = "skills")]
            Error::Skills(err) => Some(err),
            _ => None,
        }
    }
}

impl From<io::Error> for Error {
    fn from(err: io::Error) -> Error {
        Error::Io(err)
    }
}

impl From<Error> for io::Error {
    fn from(err: Error) -> io::Error {
        match err {
            Error::Io(err) => err,
            other => io::Error::new(io::ErrorKind::InvalidInput, other),
        }
    }
}

/// A skills folder that cannot be served (`mcpfn_runtime::skills`, feature
/// `skills`): the file or directory at fault and why.
#[cfg(feature = "skills")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkillsError {
    path: std::path::PathBuf,
    reason: String,
}

#[cfg(feature = "skills")]
impl SkillsError {
    pub(crate) fn new(path: &std::path::Path, reason: impl Into<String>) -> SkillsError {
        SkillsError {
            path: path.to_path_buf(),
            reason: reason.into(),
        }
    }

    pub(crate) fn io(path: &std::path::Path, err: &std::io::Error) -> SkillsError {
        SkillsError::new(path, format!("cannot be read: {err}"))
    }

    /// The file or directory at fault.
    pub fn path(&self) -> &std::path::Path {
        &self.path
    }

    /// What is wrong with it.
    pub fn reason(&self) -> &str {
        &self.reason
    }
}

#[cfg(feature = "skills")]
impl fmt::Display for SkillsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "skills: {}: {}", self.path.display(), self.reason)
    }
}

#[cfg(feature = "skills")]
impl std::error::Error for SkillsError {}

/// Checks a tool name against the specification: 1–128 characters of
/// `A-Z a-z 0-9 _ - .`.
pub(crate) fn check_tool_name(name: &str) -> Result<(), Error> {
    let reason = if name.is_empty() {
        Some("it is empty".to_owned())
    } else if name.chars().count() > 128 {
        Some(format!("it is {} characters long", name.chars().count()))
    } else {
        name.chars()
            .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
            .map(|c| format!("it contains {c:?}"))
    };
    match reason {
        None => Ok(()),
        Some(reason) => Err(Error::InvalidToolName {
            name: name.to_owned(),
            reason: format!(
                "{reason}; tool names are 1 to 128 characters of A-Z, a-z, 0-9, `_`, `-` and `.`"
            ),
        }),
    }
}

/// Checks an OAuth scope token (RFC 6749 §3.3: `%x21 / %x23-5B / %x5D-7E`,
/// one or more): no spaces (they separate scopes), quotes or backslashes.
/// `Err` says what is wrong, to follow "which".
pub(crate) fn check_scope(scope: &str) -> Result<(), String> {
    if scope.is_empty() {
        return Err("is empty; a scope is one or more visible ASCII characters".to_owned());
    }
    match scope
        .chars()
        .find(|&c| !matches!(c, '!' | '#'..='[' | ']'..='~'))
    {
        None => Ok(()),
        Some(c) => Err(format!(
            "contains {c:?}; a scope is visible ASCII without spaces, `\"` or `\\` (RFC 6749)"
        )),
    }
}
