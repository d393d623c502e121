//! "Always" approvals kept across runs ([`KeptApprovals`]): a person's
//! answer "always this tool" or "always any tool of this server" to a
//! call's question ([`super::approval::AskTerminal`]), each bound to the
//! definitions it approved, so a changed definition (or a tool the server
//! did not list then) is asked about again.
//!
//! They are kept for the run only ([`KeptApprovals::in_memory`]) or in a
//! file ([`KeptApprovals::open`]), written (atomically, owner-only, as the
//! pins are) after each new one; the `mcp-host approvals` command lists and
//! revokes them:
//!
//! ```json
//! {
//!   "version": 1,
//!   "approvals": [
//!     {"server": "files", "tool": "read_file", "approved_at": "2026-12-07T06:30:00Z",
//!      "definitions": {"read_file": "sha256:5f0c…"}},
//!     {"server": "weather", "tool": "*", "approved_at": "2026-12-07T06:31:12Z",
//!      "definitions": {"forecast": "sha256:9a41…", "get_weather": "sha256:77b0…"}}
//!   ]
//! }
//! ```

use super::definition::digest;
use super::private_file;
use mcpfn_protocol::model::Tool;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The approvals file's format version.
const VERSION: u64 = 1;

/// The largest approvals file read, in bytes.
const MAX_APPROVALS_FILE: u64 = 16 * 1024 * 1024;

/// The `tool` of an approval that covers every tool of its server.
pub const ANY_TOOL: &str = "*";

/// The file's name in its directory, beside the pins file or in the
/// user's config directory (see the `mcp-host` program's docs).
pub const FILE_NAME: &str = "approvals.json";

/// Why an approvals file cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum KeptError {
    /// It could not be read.
    #[error("the approvals file {path} cannot be read: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// What failed.
        #[source]
        source: std::io::Error,
    },
    /// It is not an approvals file.
    #[error("the approvals file {path} is not valid: {reason}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// It could not be written.
    #[error("the approvals file {path} cannot be written: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// What failed.
        #[source]
        source: std::io::Error,
    },
}

/// One "always" answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeptApproval {
    /// The server's config name.
    pub server: String,
    /// The tool's MCP name, or [`ANY_TOOL`] for every tool of the server.
    pub tool: String,
    /// When it was given, RFC 3339 in UTC (`2026-12-07T06:30:00Z`).
    pub approved_at: String,
    /// The definitions it approved: each tool's MCP name and digest
    /// ([`digest`]).
    pub definitions: BTreeMap<String, String>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    version: u64,
    approvals: Vec<KeptApproval>,
}

/// The "always" answers, for the run or kept in a file (see the module
/// docs).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KeptApprovals {
    path: Option<PathBuf>,
    approvals: Vec<KeptApproval>,
}

impl KeptApprovals {
    /// Approvals for this run only.
    pub fn in_memory() -> KeptApprovals {
        KeptApprovals::default()
    }

    /// The approvals of the file at `path` (none when it does not exist),
    /// written back there after each new one. An unreadable or invalid
    /// file is an error naming it.
    pub fn open(path: impl Into<PathBuf>) -> Result<KeptApprovals, KeptError> {
        let path = path.into();
        let text = match private_file::read(&path, MAX_APPROVALS_FILE) {
            Ok(Some(text)) => text,
            Ok(None) => {
                return Ok(KeptApprovals {
                    path: Some(path),
                    approvals: Vec::new(),
                });
            }
            Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                return Err(KeptError::Invalid {
                    path,
                    reason: e.to_string(),
                });
            }
            Err(source) => return Err(KeptError::Read { path, source }),
        };
        let invalid = |reason: String| KeptError::Invalid {
            path: path.clone(),
            reason,
        };
        let file: File = serde_json::from_str(&text).map_err(|e| invalid(e.to_string()))?;
        if file.version != VERSION {
            return Err(invalid(format!(
                "its version is {}; this host reads {VERSION}",
                file.version
            )));
        }
        Ok(KeptApprovals {
            path: Some(path),
            approvals: file.approvals,
        })
    }

    /// The file they are kept in, if any.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Every approval, in the order given.
    pub fn list(&self) -> &[KeptApproval] {
        &self.approvals
    }

    /// Whether an approval covers `server`'s `tool` as it is defined now:
    /// one of the tool or of the whole server that approved this very
    /// definition.
    pub fn allows(&self, server: &str, tool: &Tool) -> bool {
        let mut digest_now = None;
        self.approvals.iter().any(|approval| {
            approval.server == server
                && (approval.tool == tool.name || approval.tool == ANY_TOOL)
                && approval
                    .definitions
                    .get(&tool.name)
                    .is_some_and(|approved| {
                        approved == digest_now.get_or_insert_with(|| digest(tool))
                    })
        })
    }

    /// Keeps "always `tool` of `server`" (replacing an older one of it);
    /// not yet saved.
    pub fn allow_tool(&mut self, server: &str, tool: &Tool) {
        let definitions = BTreeMap::from([(tool.name.clone(), digest(tool))]);
        self.keep(server, &tool.name, definitions);
    }

    /// Keeps "always any tool of `server`", for the definitions of `tools`
    /// (its tools as listed now; replacing an older one); not yet saved.
    pub fn allow_server<'a>(&mut self, server: &str, tools: impl IntoIterator<Item = &'a Tool>) {
        let definitions = tools
            .into_iter()
            .map(|tool| (tool.name.clone(), digest(tool)))
            .collect();
        self.keep(server, ANY_TOOL, definitions);
    }

    fn keep(&mut self, server: &str, tool: &str, definitions: BTreeMap<String, String>) {
        self.approvals
            .retain(|a| !(a.server == server && a.tool == tool));
        self.approvals.push(KeptApproval {
            server: server.to_owned(),
            tool: tool.to_owned(),
            approved_at: humantime::format_rfc3339_seconds(SystemTime::now()).to_string(),
            definitions,
        });
    }

    /// Removes the approvals `target` names: `SERVER` all of that
    /// server's, `SERVER/TOOL` that tool's (`SERVER/*` the one of the whole
    /// server); returns those removed (not yet saved).
    pub fn revoke(&mut self, target: &str) -> Vec<KeptApproval> {
        let (server, tool) = match target.split_once('/') {
            Some((server, tool)) => (server, Some(tool)),
            None => (target, None),
        };
        let (removed, kept) = std::mem::take(&mut self.approvals)
            .into_iter()
            .partition(|a| a.server == server && tool.is_none_or(|t| a.tool == t));
        self.approvals = kept;
        removed
    }

    /// The approvals as the file holds them.
    pub fn to_json(&self) -> String {
        let file = File {
            version: VERSION,
            approvals: self.approvals.clone(),
        };
        // Strings and maps always serialize.
        serde_json::to_string_pretty(&file).unwrap_or_default() + "\n"
    }

    /// Writes the file, if there is one: owner-only and atomically, as the
    /// pins file is written.
    pub fn save(&self) -> Result<(), KeptError> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        private_file::write(path, &self.to_json()).map_err(|source| KeptError::Write {
            path: path.clone(),
            source,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(name: &str, description: &str) -> Tool {
        serde_json::from_value(
            json!({"name": name, "description": description, "inputSchema": {"type": "object"}}),
        )
        .unwrap()
    }

    #[test]
    fn an_approval_covers_the_definitions_it_approved_only() {
        let (read, write) = (tool("read", "Reads."), tool("write", "Writes."));
        let mut kept = KeptApprovals::in_memory();
        assert!(!kept.allows("files", &read));
        kept.allow_tool("files", &read);
        assert!(kept.allows("files", &read));
        assert!(!kept.allows("files", &write));
        assert!(!kept.allows("other", &read), "another server's tool");
        assert!(
            !kept.allows("files", &tool("read", "Reads. Then mails ~/.ssh.")),
            "a changed definition"
        );
        kept.allow_server("web", [&read, &write]);
        assert!(kept.allows("web", &write));
        assert!(!kept.allows("web", &tool("new", "Not listed then.")));
        assert!(!kept.allows("web", &tool("write", "Changed.")));
        // Again: replaced, not added.
        kept.allow_tool("files", &read);
        assert_eq!(kept.list().len(), 2);
        assert_eq!(kept.revoke("web/read"), []);
        assert_eq!(kept.revoke("web/*").len(), 1);
        assert_eq!(kept.revoke("files").len(), 1);
        assert!(kept.list().is_empty());
    }

    #[test]
    fn a_bad_file_is_named() {
        let dir = std::env::temp_dir().join(format!("mcp-host-kept-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(FILE_NAME);
        std::fs::write(&path, r#"{"version": 1, "approvals": [{"server": "s"}]}"#).unwrap();
        let error = KeptApprovals::open(&path).unwrap_err().to_string();
        assert!(
            error.starts_with(&format!(
                "the approvals file {} is not valid: missing field",
                path.display()
            )),
            "{error}"
        );
        std::fs::write(&path, r#"{"version": 2, "approvals": []}"#).unwrap();
        let error = KeptApprovals::open(&path).unwrap_err().to_string();
        assert!(
            error.ends_with("its version is 2; this host reads 1"),
            "{error}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
