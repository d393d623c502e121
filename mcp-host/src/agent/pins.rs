//! Pinned tool definitions: a server may change a tool's description or
//! schema between two listings (a "rug pull"), or add a tool, after the
//! user approved it. Each tool's definition (the whole `Tool` as its
//! server listed it: name, title, description, schemas, annotations, icons,
//! `_meta`) is recorded by a SHA-256 digest of its canonical JSON the first
//! time it is offered; a server with no pins yet is trusted on first use.
//! Afterwards a changed definition, or a new tool of a server already
//! pinned, is held back (not offered, a call of it refused) until the
//! [`Approver`](super::approval::Approver) approves it
//! ([`Approver::approve_definition`](super::approval::Approver::approve_definition)):
//! asked once per definition and run; one declined is left out with one warning line
//! naming the server, the tool and what changed.
//!
//! [`Pins`] keeps, per tool, the digest and the approved definition
//! itself, so a change between two runs is shown against what was
//! approved (the old and the new description, every schema field added,
//! removed or changed) just as a change within one run is. They are kept
//! for the run only ([`Pins::in_memory`], the default) or in a file
//! ([`Pins::open`]), written again (atomically, owner-only) after each
//! change:
//!
//! ```json
//! {
//!   "version": 2,
//!   "servers": {
//!     "everything": {
//!       "add": {
//!         "digest": "sha256:5f0c…",
//!         "definition": {"name": "add", "description": "Adds two numbers.", "inputSchema": {…}}
//!       }
//!     }
//!   }
//! }
//! ```
//!
//! A file of version 1 (each tool's digest alone, `"add": "sha256:5f0c…"`)
//! is still read; it is written as version 2 on the next change, each
//! definition added as soon as the server lists the approved one again.
//! A definition larger than [`MAX_KEPT_DEFINITION`] bytes is kept by its
//! digest alone.
//!
//! The host's own in-process tools are not pinned: they are its code.
//! The agent applies these rules to each listing in its private
//! `pin_gate` module; this one is the pins and their file.

pub use super::definition::DefinitionChange;
pub use super::definition::digest;
use super::private_file;
use mcpfn_protocol::model::Tool;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The pins file's format version; [`OLD_VERSION`] is read too.
const VERSION: u64 = 2;
/// The version whose tools are digests alone.
const OLD_VERSION: u64 = 1;

/// The largest pins file read, in bytes.
const MAX_PINS_FILE: u64 = 64 * 1024 * 1024;

/// The largest definition kept whole, in bytes of canonical JSON: a
/// server's words are not a reason for an unbounded file.
pub const MAX_KEPT_DEFINITION: usize = 64 * 1024;

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

/// One approved definition: its digest, and the definition itself when
/// it is known (not from a version 1 file, not too large).
#[derive(Clone, Debug, PartialEq)]
struct Pin {
    digest: String,
    definition: Option<Tool>,
}

/// The approved definitions, per server, per tool (see the module docs).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Pins {
    path: Option<PathBuf>,
    servers: BTreeMap<String, BTreeMap<String, Pin>>,
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
        let text = match private_file::read(&path, MAX_PINS_FILE) {
            Ok(Some(text)) => text,
            Ok(None) => {
                return Ok(Pins {
                    path: Some(path),
                    servers: BTreeMap::new(),
                });
            }
            Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                return Err(PinsError::Invalid {
                    path,
                    reason: e.to_string(),
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
        self.servers
            .get(server)?
            .get(tool)
            .map(|pin| pin.digest.as_str())
    }

    /// The definition approved for `server`'s tool `tool`, when it is
    /// kept (see the module docs).
    pub fn definition(&self, server: &str, tool: &str) -> Option<&Tool> {
        self.servers.get(server)?.get(tool)?.definition.as_ref()
    }

    /// Whether any tool of `server` is pinned (its first use is over).
    pub fn knows_server(&self, server: &str) -> bool {
        self.servers.contains_key(server)
    }

    /// Approves `definition` for `server`'s tool of its name (not yet
    /// saved); its digest, [`digest`].
    pub fn pin(&mut self, server: &str, definition: &Tool) {
        let digest = digest(definition);
        let kept = canonical_len(definition) <= MAX_KEPT_DEFINITION;
        self.servers.entry(server.to_owned()).or_default().insert(
            definition.name.clone(),
            Pin {
                digest,
                definition: kept.then(|| definition.clone()),
            },
        );
    }

    /// The pins as the file holds them (always the current version).
    pub fn to_json(&self) -> String {
        let servers: serde_json::Map<String, Value> = self
            .servers
            .iter()
            .map(|(server, tools)| {
                let tools: serde_json::Map<String, Value> = tools
                    .iter()
                    .map(|(tool, pin)| {
                        let mut entry = serde_json::json!({"digest": pin.digest});
                        if let Some(definition) = &pin.definition {
                            entry["definition"] =
                                serde_json::to_value(definition).unwrap_or(Value::Null);
                        }
                        (tool.clone(), entry)
                    })
                    .collect();
                (server.clone(), Value::Object(tools))
            })
            .collect();
        let file = serde_json::json!({"version": VERSION, "servers": servers});
        // A `Value` always serializes.
        serde_json::to_string_pretty(&file).unwrap_or_default() + "\n"
    }

    /// Writes the file, if there is one: owner-only and atomically (a
    /// crash leaves the old pins or the new ones, never half of them).
    pub fn save(&self) -> Result<(), PinsError> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        private_file::write(path, &self.to_json()).map_err(|source| PinsError::Write {
            path: path.clone(),
            source,
        })
    }
}

/// The servers of a pins file's text, of either version.
fn parse(text: &str) -> Result<BTreeMap<String, BTreeMap<String, Pin>>, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let Value::Object(root) = value else {
        return Err("it is not a JSON object".into());
    };
    let version = match root.get("version") {
        Some(Value::Number(n)) if n.as_u64() == Some(VERSION) => VERSION,
        Some(Value::Number(n)) if n.as_u64() == Some(OLD_VERSION) => OLD_VERSION,
        Some(other) => {
            return Err(format!(
                "its version is {other}; this host reads {OLD_VERSION} and {VERSION}"
            ));
        }
        None => return Err("it has no `version`".into()),
    };
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
        for (tool, entry) in tools {
            let pin = if version == OLD_VERSION {
                parse_digest(entry).map(|digest| Pin {
                    digest,
                    definition: None,
                })
            } else {
                parse_pin(tool, entry)
            };
            let pin = pin.map_err(|reason| format!("`servers.{server}.{tool}` {reason}"))?;
            pinned.insert(tool.clone(), pin);
        }
        pins.insert(server.clone(), pinned);
    }
    Ok(pins)
}

/// A version 1 entry: the digest alone.
fn parse_digest(entry: &Value) -> Result<String, String> {
    match entry.as_str() {
        Some(digest) if is_digest(digest) => Ok(digest.to_owned()),
        _ => Err("is not a digest (`sha256:` and 64 hex digits)".into()),
    }
}

/// A version 2 entry: `{"digest", "definition"?}`, the definition (when
/// there) a tool of that name and that digest.
fn parse_pin(tool: &str, entry: &Value) -> Result<Pin, String> {
    let Value::Object(entry) = entry else {
        return Err("is not an object".into());
    };
    if let Some(key) = entry.keys().find(|k| *k != "digest" && *k != "definition") {
        return Err(format!("has an unknown key `{key}`"));
    }
    let digest = parse_digest(entry.get("digest").unwrap_or(&Value::Null))
        .map_err(|reason| format!("`digest` {reason}"))?;
    let definition = match entry.get("definition") {
        None => None,
        Some(value) => {
            let definition: Tool = serde_json::from_value(value.clone())
                .map_err(|e| format!("`definition` is not a tool definition: {e}"))?;
            if definition.name != tool || self::digest(&definition) != digest {
                return Err("`definition` is not the one its digest is of".into());
            }
            Some(definition)
        }
    };
    Ok(Pin { digest, definition })
}

fn is_digest(text: &str) -> bool {
    text.strip_prefix("sha256:").is_some_and(|hex| {
        hex.len() == 64
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// The bytes of `tool`'s canonical JSON.
pub(super) fn canonical_len(tool: &Tool) -> usize {
    let value = serde_json::to_value(tool).unwrap_or(Value::Null);
    mcpfn_protocol::canonical::canonical_json(&value).len()
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
        annotated.annotations = Some(mcpfn_protocol::model::ToolAnnotations {
            read_only_hint: Some(true),
            ..Default::default()
        });
        assert_ne!(digest(&a), digest(&annotated));
    }

    fn temp_file(name: &str) -> (PathBuf, PathBuf) {
        let dir = std::env::temp_dir().join(format!("mcp-host-pins-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("pins.json");
        let _ = std::fs::remove_file(&path);
        (dir, path)
    }

    #[test]
    fn a_pins_file_keeps_the_definitions_and_a_bad_one_is_named() {
        let (dir, path) = temp_file("round-trip");
        let mut pins = Pins::open(&path).unwrap();
        let t = tool(json!({"name": "t", "description": "Adds.", "inputSchema": {}}));
        pins.pin("s", &t);
        pins.save().unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let file: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(
            file,
            json!({"version": 2, "servers": {"s": {"t": {
                "digest": digest(&t),
                "definition": {"name": "t", "description": "Adds.", "inputSchema": {}}
            }}}})
        );
        let again = Pins::open(&path).unwrap();
        assert_eq!(again.get("s", "t"), Some(digest(&t).as_str()));
        assert_eq!(again.definition("s", "t"), Some(&t));
        // A definition that is not the one of its digest: edited by hand,
        // or another tool's.
        let mut edited = file.clone();
        edited["servers"]["s"]["t"]["definition"]["description"] = json!("Adds. And more.");
        std::fs::write(&path, edited.to_string()).unwrap();
        let error = Pins::open(&path).unwrap_err().to_string();
        assert!(
            error.contains("`servers.s.t` `definition` is not the one its digest is of"),
            "{error}"
        );
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
        std::fs::write(&path, "{\"version\": 3, \"servers\": {}}").unwrap();
        assert!(
            Pins::open(&path)
                .unwrap_err()
                .to_string()
                .contains("its version is 3; this host reads 1 and 2")
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_old_digest_only_file_is_read_and_written_as_the_new_version() {
        let (dir, path) = temp_file("upgrade");
        let t = tool(json!({"name": "t", "inputSchema": {}}));
        std::fs::write(
            &path,
            json!({"version": 1, "servers": {"s": {"t": digest(&t)}}}).to_string(),
        )
        .unwrap();
        let mut pins = Pins::open(&path).unwrap();
        assert_eq!(pins.get("s", "t"), Some(digest(&t).as_str()));
        assert_eq!(pins.definition("s", "t"), None);
        pins.save().unwrap();
        let file: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(
            file,
            json!({"version": 2, "servers": {"s": {"t": {"digest": digest(&t)}}}})
        );
        // A definition too large to keep is pinned by its digest alone.
        let big = tool(
            json!({"name": "big", "description": "x".repeat(MAX_KEPT_DEFINITION), "inputSchema": {}}),
        );
        pins.pin("s", &big);
        assert_eq!(pins.get("s", "big"), Some(digest(&big).as_str()));
        assert_eq!(pins.definition("s", "big"), None);
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
