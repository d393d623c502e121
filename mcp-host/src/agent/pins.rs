//! Pinned tool definitions: a server may change a tool's description or
//! schema between two listings (a "rug pull"), or add a tool, after the
//! user approved it. Each tool's definition (the whole `Tool` as its
//! server listed it: name, title, description, schemas, annotations, icons,
//! `_meta`) is recorded by a SHA-256 digest of its canonical JSON the first
//! time it is offered; a server with no pins yet is trusted on first use.
//! Afterwards a changed definition, or a new tool of a server already
//! pinned, is held back (not offered, a call of it refused) until the
//! [`Approver`] approves it ([`Approver::approve_definition`]): asked once
//! per definition and run; one declined is left out with one warning line
//! naming the server, the tool and what changed.
//!
//! [`Pins`] keeps the digests, for the run only ([`Pins::in_memory`], the
//! default) or in a file ([`Pins::open`]), written again (atomically,
//! owner-only) after each change:
//!
//! ```json
//! {
//!   "version": 1,
//!   "servers": {
//!     "everything": {
//!       "add": "sha256:5f0c…",
//!       "echo": "sha256:9a41…"
//!     }
//!   }
//! }
//! ```
//!
//! The host's own in-process tools are not pinned: they are its code.

use super::approval::{Approver, Decision};
pub use super::definition::DefinitionChange;
use crate::catalog::{Catalog, CatalogTool};
use mcp_protocol::model::Tool;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The pins file's format version.
const VERSION: u64 = 1;

/// The declined definitions remembered in a run.
const MAX_DECLINED: usize = 10_000;

/// The largest pins file read, in bytes: a file of digests, not a place
/// for anything large.
const MAX_PINS_FILE: u64 = 16 * 1024 * 1024;

/// Why a pins file cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PinsError {
    /// It could not be read.
    #[error("the pins file {path} cannot be read: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// What failed.
        #[source]
        source: std::io::Error,
    },
    /// It is not a pins file.
    #[error("the pins file {path} is not valid: {reason}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// It could not be written.
    #[error("the pins file {path} cannot be written: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// What failed.
        #[source]
        source: std::io::Error,
    },
}

/// The approved definitions' digests, per server, per tool (see the module
/// docs).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pins {
    path: Option<PathBuf>,
    servers: BTreeMap<String, BTreeMap<String, String>>,
}

impl Pins {
    /// Pins kept for this run only.
    pub fn in_memory() -> Pins {
        Pins::default()
    }

    /// The pins of the file at `path` (none yet when it does not exist),
    /// written back there after each change. An unreadable or invalid file
    /// is an error naming it.
    pub fn open(path: impl Into<PathBuf>) -> Result<Pins, PinsError> {
        let path = path.into();
        let text = match std::fs::File::open(&path) {
            Ok(file) => {
                let mut text = String::new();
                std::io::Read::read_to_string(
                    &mut std::io::Read::take(file, MAX_PINS_FILE + 1),
                    &mut text,
                )
                .map_err(|source| PinsError::Read {
                    path: path.clone(),
                    source,
                })?;
                if text.len() as u64 > MAX_PINS_FILE {
                    return Err(PinsError::Invalid {
                        path,
                        reason: format!("it is larger than {MAX_PINS_FILE} bytes"),
                    });
                }
                text
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Pins {
                    path: Some(path),
                    servers: BTreeMap::new(),
                });
            }
            Err(source) => return Err(PinsError::Read { path, source }),
        };
        let servers = parse(&text).map_err(|reason| PinsError::Invalid {
            path: path.clone(),
            reason,
        })?;
        Ok(Pins {
            path: Some(path),
            servers,
        })
    }

    /// The file the pins are kept in, if any.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The digest approved for `server`'s tool `tool`.
    pub fn get(&self, server: &str, tool: &str) -> Option<&str> {
        self.servers.get(server)?.get(tool).map(String::as_str)
    }

    /// Whether any tool of `server` is pinned (its first use is over).
    pub fn knows_server(&self, server: &str) -> bool {
        self.servers.contains_key(server)
    }

    /// Approves `digest` for `server`'s tool `tool` (not yet saved).
    pub fn pin(&mut self, server: &str, tool: &str, digest: &str) {
        self.servers
            .entry(server.to_owned())
            .or_default()
            .insert(tool.to_owned(), digest.to_owned());
    }

    /// The pins as the file holds them.
    pub fn to_json(&self) -> String {
        let servers: serde_json::Map<String, Value> = self
            .servers
            .iter()
            .map(|(server, tools)| {
                let tools: serde_json::Map<String, Value> = tools
                    .iter()
                    .map(|(tool, digest)| (tool.clone(), Value::String(digest.clone())))
                    .collect();
                (server.clone(), Value::Object(tools))
            })
            .collect();
        let file = serde_json::json!({"version": VERSION, "servers": servers});
        // A `Value` always serializes.
        serde_json::to_string_pretty(&file).unwrap_or_default() + "\n"
    }

    /// Writes the file, if there is one: a temporary file beside it,
    /// readable by the owner only, synced, then renamed over it, so a crash
    /// leaves the old pins or the new ones, never half of them.
    pub fn save(&self) -> Result<(), PinsError> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let error = |source| PinsError::Write {
            path: path.clone(),
            source,
        };
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "pins".into());
        let temporary = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let written = options.open(&temporary).and_then(|mut file| {
            file.write_all(self.to_json().as_bytes())?;
            file.sync_all()
        });
        if let Err(e) = written.and_then(|()| std::fs::rename(&temporary, path)) {
            let _ = std::fs::remove_file(&temporary);
            return Err(error(e));
        }
        Ok(())
    }
}

/// The servers of a pins file's text.
fn parse(text: &str) -> Result<BTreeMap<String, BTreeMap<String, String>>, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let Value::Object(root) = value else {
        return Err("it is not a JSON object".into());
    };
    match root.get("version") {
        Some(Value::Number(n)) if n.as_u64() == Some(VERSION) => {}
        Some(other) => return Err(format!("its version is {other}; this host reads {VERSION}")),
        None => return Err("it has no `version`".into()),
    }
    if let Some(key) = root.keys().find(|k| *k != "version" && *k != "servers") {
        return Err(format!("unknown key `{key}`"));
    }
    let Some(Value::Object(servers)) = root.get("servers") else {
        return Err("`servers` is not an object".into());
    };
    let mut pins = BTreeMap::new();
    for (server, tools) in servers {
        let Value::Object(tools) = tools else {
            return Err(format!("`servers.{server}` is not an object"));
        };
        let mut pinned = BTreeMap::new();
        for (tool, digest) in tools {
            match digest.as_str() {
                Some(digest) if is_digest(digest) => {
                    pinned.insert(tool.clone(), digest.to_owned());
                }
                _ => {
                    return Err(format!(
                        "`servers.{server}.{tool}` is not a digest (`sha256:` and 64 hex digits)"
                    ));
                }
            }
        }
        pins.insert(server.clone(), pinned);
    }
    Ok(pins)
}

fn is_digest(text: &str) -> bool {
    text.strip_prefix("sha256:").is_some_and(|hex| {
        hex.len() == 64
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// The digest of `tool`'s definition: `sha256:` and the hex SHA-256 of its
/// canonical JSON (object keys sorted, no spaces).
pub fn digest(tool: &Tool) -> String {
    let value = serde_json::to_value(tool).unwrap_or(Value::Null);
    let hash = Sha256::digest(mcp_protocol::canonical::canonical_json(&value).as_bytes());
    let mut text = String::with_capacity(7 + 64);
    text.push_str("sha256:");
    for byte in hash {
        let _ = write!(text, "{byte:02x}");
    }
    text
}

/// What the agent decides about definitions: the pins, what was asked in
/// this run, and who is asked.
#[derive(Debug)]
pub(super) struct PinGate {
    state: Mutex<GateState>,
    approver: Arc<dyn Approver>,
}

#[derive(Debug, Default)]
struct GateState {
    pins: Pins,
    /// The definition approved last per (server, tool), for showing a
    /// change against it.
    approved: BTreeMap<(String, String), Tool>,
    /// The definitions declined in this run, by digest: asked once.
    declined: BTreeSet<(String, String, String)>,
}

impl PinGate {
    pub(super) fn new(pins: Pins, approver: Arc<dyn Approver>) -> PinGate {
        PinGate {
            state: Mutex::new(GateState {
                pins,
                ..GateState::default()
            }),
            approver,
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, GateState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The model names of `listed`'s tools held back: all but those whose
    /// definition is pinned (or whose server is new: pinned now) and those
    /// the approver approves; `previous` is the catalog before, whose
    /// definitions a change is shown against.
    pub(super) async fn held(
        &self,
        listed: &Catalog,
        previous: Option<&Catalog>,
    ) -> BTreeSet<String> {
        let mut to_ask: Vec<(&CatalogTool, String, bool)> = Vec::new();
        let mut held: BTreeSet<String> = BTreeSet::new();
        let mut changed = false;
        {
            let mut state = self.state();
            let new_servers: BTreeSet<&str> = listed
                .tools()
                .iter()
                .map(|t| t.server.as_str())
                .filter(|s| !listed.is_in_process(s) && !state.pins.knows_server(s))
                .collect();
            for entry in listed.tools() {
                if listed.is_in_process(&entry.server) {
                    continue;
                }
                let digest = digest(&entry.tool);
                let key = (entry.server.clone(), entry.tool.name.clone());
                if new_servers.contains(entry.server.as_str()) {
                    state.pins.pin(&entry.server, &entry.tool.name, &digest);
                    state.approved.insert(key, entry.tool.clone());
                    changed = true;
                    continue;
                }
                match state.pins.get(&entry.server, &entry.tool.name) {
                    Some(pinned) if pinned == digest => {
                        state
                            .approved
                            .entry(key)
                            .or_insert_with(|| entry.tool.clone());
                    }
                    pinned => {
                        let new_tool = pinned.is_none();
                        let declined = (key.0, key.1, digest.clone());
                        if state.declined.contains(&declined) {
                            held.insert(entry.model_name.clone());
                        } else {
                            to_ask.push((entry, digest, new_tool));
                        }
                    }
                }
            }
        }
        for (entry, digest, new_tool) in to_ask {
            let key = (entry.server.clone(), entry.tool.name.clone());
            let previous_tool = self.state().approved.get(&key).cloned().or_else(|| {
                previous
                    .and_then(|p| p.tool(&entry.model_name))
                    .map(|t| t.tool.clone())
                    .filter(|_| !new_tool)
            });
            let change = DefinitionChange {
                server: &entry.server,
                model_name: &entry.model_name,
                tool: &entry.tool,
                previous: previous_tool.as_ref(),
                new_tool,
            };
            let decision = self.approver.approve_definition(&change).await;
            let mut state = self.state();
            match decision {
                Decision::Run => {
                    state.pins.pin(&entry.server, &entry.tool.name, &digest);
                    state.approved.insert(key, entry.tool.clone());
                    changed = true;
                    tracing::info!(server = %entry.server, tool = %entry.tool.name, "tool definition approved");
                }
                // No one to ask is no approval: held back the same way.
                Decision::Decline | Decision::Unasked => {
                    // Asked again after this many: a server changing its
                    // definitions without end cannot grow it without bound.
                    if state.declined.len() >= MAX_DECLINED {
                        state.declined.clear();
                    }
                    tracing::warn!(
                        server = %entry.server,
                        tool = %entry.tool.name,
                        "tool held back, not offered until approved (--approve ask): {}",
                        change.summary()
                    );
                    state.declined.insert((key.0, key.1, digest));
                    held.insert(entry.model_name.clone());
                }
            }
        }
        if changed {
            let pins = self.state().pins.clone();
            if let Err(e) = pins.save() {
                tracing::warn!(error = %e, "the approvals are kept for this run only");
            }
        }
        held
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(value: Value) -> Tool {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn the_digest_is_of_the_canonical_definition() {
        let a = tool(
            json!({"name": "t", "description": "d", "inputSchema": {"type": "object", "properties": {"x": {}, "a": {}}}}),
        );
        let b = tool(
            json!({"inputSchema": {"properties": {"a": {}, "x": {}}, "type": "object"}, "description": "d", "name": "t"}),
        );
        assert_eq!(digest(&a), digest(&b));
        assert!(is_digest(&digest(&a)), "{}", digest(&a));
        let c = tool(json!({"name": "t", "description": "d!", "inputSchema": {"type": "object"}}));
        assert_ne!(digest(&a), digest(&c));
        let mut annotated = a.clone();
        annotated.annotations = Some(mcp_protocol::model::ToolAnnotations {
            read_only_hint: Some(true),
            ..Default::default()
        });
        assert_ne!(digest(&a), digest(&annotated));
    }

    #[test]
    fn a_pins_file_round_trips_and_a_bad_one_is_named() {
        let dir = std::env::temp_dir().join(format!("mcp-host-pins-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("pins.json");
        let _ = std::fs::remove_file(&path);
        let mut pins = Pins::open(&path).unwrap();
        let d = digest(&tool(json!({"name": "t", "inputSchema": {}})));
        pins.pin("s", "t", &d);
        pins.save().unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let again = Pins::open(&path).unwrap();
        assert_eq!(again.get("s", "t"), Some(d.as_str()));
        std::fs::write(
            &path,
            "{\"version\": 1, \"servers\": {\"s\": {\"t\": \"md5:x\"}}}",
        )
        .unwrap();
        let error = Pins::open(&path).unwrap_err().to_string();
        assert!(
            error.contains(path.to_str().unwrap()) && error.contains("`servers.s.t`"),
            "{error}"
        );
        std::fs::write(&path, "[]").unwrap();
        assert!(
            Pins::open(&path)
                .unwrap_err()
                .to_string()
                .contains("not valid")
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The digest of a fixed definition, as every pins file written so far
    /// holds it: a change to the canonical form or to what is hashed would
    /// invalidate every user's pins, so it must be a deliberate one.
    #[test]
    fn the_digest_of_a_known_definition_is_unchanged() {
        let known = tool(json!({
            "name": "get_weather",
            "title": "Weather",
            "description": "The weather at a place.",
            "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}},
                "required": ["city"]},
            "annotations": {"readOnlyHint": true}
        }));
        // sha256 of {"annotations":{"readOnlyHint":true},"description":…,
        // "inputSchema":{…},"name":"get_weather","title":"Weather"}: keys
        // sorted, no spaces.
        assert_eq!(
            digest(&known),
            "sha256:b940772b578c1f560c6ac4368748894f20de39f66a4b95b025e06f41df2d6074"
        );
    }
}
