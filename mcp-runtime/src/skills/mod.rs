//! A folder of [Agent Skills](https://agentskills.io) served as the Skills
//! extension (`io.modelcontextprotocol/skills`, SEP-2640) says: each
//! directory holding a `SKILL.md` is a skill, each of its files a
//! `skill://<skill-path>/<file-path>` resource.
//!
//! ```no_run
//! use mcpfn_runtime::Server;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> std::io::Result<()> {
//! let server = Server::new("docs", "1.0.0").skills_dir("skills");
//! mcpfn_runtime::cli::run(server).await
//! # }
//! ```
//!
//! The folder is read once, when [`Skills::from_dir`] (or
//! [`Server::skills_dir`](crate::Server::skills_dir)) runs: every file's
//! bytes, SHA-256 digest and size are held from then on, so what a client
//! reads is what the digests it was given describe. Anything the extension
//! or this server cannot serve faithfully stops the server at start-up
//! with the path and the reason ([`SkillsError`]), rather than serving a
//! skill a host would refuse: a symbolic link, a name that is not UTF-8 or
//! not a URI segment as it is, a `SKILL.md` without frontmatter, a name
//! that breaks the Agent Skills rules or differs from its directory's, a
//! skill over 512 files or 16 MiB, a folder over [`MAX_FOLDER_ENTRIES`]
//! entries, [`MAX_FOLDER_BYTES`] of skill files or [`MAX_DEPTH`] levels.
//! Names starting with `.` are skipped, and files outside every skill are
//! not served.

mod frontmatter;
mod scan;

pub use crate::error::SkillsError;
use crate::protocol::model::{
    DIRECTORY_MIME_TYPE, DirectoryChild, MAX_SKILL_BYTES, MAX_SKILL_FILES, Skill, SkillFiles,
    SkillResource,
};
use crate::resource::{Resource, ResourceBuilder};
use serde_json::value::RawValue;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;

/// The most files and directories a skills folder may hold (skipped ones
/// included).
pub const MAX_FOLDER_ENTRIES: usize = 10_000;

/// The most bytes the skills of one folder may hold together: they are
/// held in memory while serving.
pub const MAX_FOLDER_BYTES: u64 = 64 * 1024 * 1024;

/// The most directory levels below the folder.
pub const MAX_DEPTH: usize = 16;

/// The manifest every skill has at its root.
const MANIFEST: &str = "SKILL.md";

/// The URI scheme of skill resources.
const SCHEME: &str = "skill://";

/// One skill: its entry, rendered once, and what `resources/list` says of
/// its `SKILL.md`.
#[derive(Debug)]
pub(crate) struct Entry {
    pub(crate) skill: Skill,
    pub(crate) rendered: Box<RawValue>,
}

impl Entry {
    /// The frontmatter's `name`.
    pub(crate) fn name(&self) -> &str {
        self.skill.frontmatter["name"].as_str().unwrap_or_default()
    }

    /// The frontmatter's `description`.
    pub(crate) fn description(&self) -> &str {
        self.skill.frontmatter["description"]
            .as_str()
            .unwrap_or_default()
    }
}

/// One served file.
#[derive(Clone, Debug)]
struct File {
    bytes: Arc<[u8]>,
    mime_type: &'static str,
}

/// The skills of a folder, ready to serve: give them to
/// [`Server::skills`](crate::Server::skills), or let
/// [`Server::skills_dir`](crate::Server::skills_dir) read the folder.
#[derive(Debug)]
pub struct Skills {
    /// By URI.
    entries: Vec<Entry>,
    /// Every file of every skill, by URI.
    files: BTreeMap<String, File>,
    /// Every directory leading to or inside a skill, by URI (no trailing
    /// slash), with its children sorted by URI.
    directories: HashMap<String, Vec<DirectoryChild>>,
}

impl Skills {
    /// Reads the skills under `folder` (see the [module docs](self) for
    /// what is served and what is refused).
    pub fn from_dir(folder: impl AsRef<Path>) -> Result<Skills, SkillsError> {
        let root = folder.as_ref();
        let meta = std::fs::metadata(root).map_err(|err| SkillsError::io(root, &err))?;
        if !meta.is_dir() {
            return Err(SkillsError::new(root, "not a directory"));
        }
        let found = scan::walk(
            root,
            scan::Bounds {
                depth: MAX_DEPTH,
                entries: MAX_FOLDER_ENTRIES,
                file_bytes: MAX_SKILL_BYTES,
            },
        )?;
        let mut skill_paths = Vec::new();
        for file in &found {
            if file.path == MANIFEST {
                return Err(SkillsError::new(
                    &file.disk,
                    "a SKILL.md at the folder's root; put each skill in a directory named as the skill",
                ));
            }
            if let Some(dir) = file.path.strip_suffix("/SKILL.md") {
                skill_paths.push(dir.to_owned());
            }
        }
        let members = |dir: &str| {
            let prefix = format!("{dir}/");
            found.iter().filter(move |f| f.path.starts_with(&prefix))
        };
        // Each file read once, however many (nested) skills hold it.
        let mut total = 0u64;
        let mut bytes: BTreeMap<&str, Arc<[u8]>> = BTreeMap::new();
        for dir in &skill_paths {
            let (count, size) = members(dir).fold((0usize, 0u64), |(n, s), f| (n + 1, s + f.len));
            if count > MAX_SKILL_FILES || size > MAX_SKILL_BYTES {
                return Err(SkillsError::new(
                    &root.join(dir),
                    format!(
                        "the skill has {count} files of {size} bytes; the extension's limits are {MAX_SKILL_FILES} files and {MAX_SKILL_BYTES} bytes"
                    ),
                ));
            }
            for file in members(dir) {
                if bytes.contains_key(file.path.as_str()) {
                    continue;
                }
                total += file.len;
                if total > MAX_FOLDER_BYTES {
                    return Err(SkillsError::new(
                        root,
                        format!("the skills hold more than {MAX_FOLDER_BYTES} bytes together"),
                    ));
                }
                bytes.insert(&file.path, scan::read(file, MAX_SKILL_BYTES)?.into());
            }
        }
        let mut entries = Vec::with_capacity(skill_paths.len());
        for dir in &skill_paths {
            let mut paths: Vec<&str> = members(dir).map(|f| f.path.as_str()).collect();
            // SKILL.md first, then the rest by path.
            paths.sort_by_key(|path| (path.strip_prefix(dir.as_str()) != Some("/SKILL.md"), *path));
            entries.push(entry(root, dir, &paths, &bytes)?);
        }
        entries.sort_by(|a, b| a.skill.uri.cmp(&b.skill.uri));
        let files = bytes
            .iter()
            .map(|(path, bytes)| {
                let file = File {
                    bytes: Arc::clone(bytes),
                    mime_type: mime_type(path),
                };
                (uri(path), file)
            })
            .collect();
        Ok(Skills {
            entries,
            files,
            directories: directories(&bytes),
        })
    }

    /// How many skills there are.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries, by URI.
    pub(crate) fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The skill whose `SKILL.md` is at `uri`.
    pub(crate) fn get(&self, uri: &str) -> Option<&Entry> {
        self.entries
            .binary_search_by(|entry| entry.skill.uri.as_str().cmp(uri))
            .ok()
            .map(|at| &self.entries[at])
    }

    /// Every file of every skill as a resource at its URI, which
    /// `resources/list` lists and `resources/read` reads: a `SKILL.md`
    /// named and described by its frontmatter, the others by their file
    /// name; UTF-8 files as text, the rest as bytes.
    pub(crate) fn resources(&self) -> Result<Vec<Resource>, crate::Error> {
        self.files
            .iter()
            .map(|(uri, file)| {
                let manifest = self.get(uri);
                let name = match manifest {
                    Some(entry) => entry.name(),
                    None => uri.rsplit('/').next().unwrap_or(uri),
                };
                let bytes = Arc::clone(&file.bytes);
                let text: Option<Arc<str>> = std::str::from_utf8(&bytes).ok().map(Arc::from);
                let builder = ResourceBuilder::new(uri.as_str(), name, move |read| {
                    let contents = match &text {
                        Some(text) => read.text(&**text),
                        None => read.blob(&bytes),
                    };
                    Box::pin(async move { Ok(vec![contents]) })
                })
                .mime_type(file.mime_type)
                .size(file.bytes.len() as u64);
                match manifest {
                    Some(entry) => builder.description(entry.description()),
                    None => builder,
                }
                .build()
            })
            .collect()
    }

    /// The children of the directory at `uri`.
    pub(crate) fn directory(&self, uri: &str) -> Option<&[DirectoryChild]> {
        self.directories.get(uri).map(Vec::as_slice)
    }
}

fn uri(path: &str) -> String {
    format!("{SCHEME}{path}")
}

/// The entry of the skill in directory `dir`, whose files are `paths`.
fn entry(
    root: &Path,
    dir: &str,
    paths: &[&str],
    bytes: &BTreeMap<&str, Arc<[u8]>>,
) -> Result<Entry, SkillsError> {
    let manifest = format!("{dir}/{MANIFEST}");
    let at = |path: &str| root.join(path);
    let text = std::str::from_utf8(&bytes[manifest.as_str()])
        .map_err(|_| SkillsError::new(&at(&manifest), "not UTF-8 text"))?;
    let frontmatter =
        frontmatter::parse(text).map_err(|reason| SkillsError::new(&at(&manifest), reason))?;
    let directory = dir.rsplit('/').next().unwrap_or(dir);
    let name = frontmatter["name"].as_str().unwrap_or_default();
    if name != directory {
        return Err(SkillsError::new(
            &at(&manifest),
            format!(
                "the frontmatter's name {name:?} is not its directory's name {directory:?}; a skill's URI ends with its name"
            ),
        ));
    }
    let resources = paths
        .iter()
        .map(|path| {
            let content = &bytes[*path];
            SkillResource {
                uri: uri(path),
                digest: digest(content),
                size: content.len() as u64,
            }
        })
        .collect();
    let skill = Skill {
        uri: uri(&manifest),
        frontmatter,
        resources: SkillFiles::Listed(resources),
    };
    let rendered = serde_json::value::to_raw_value(&skill)
        .map_err(|err| SkillsError::new(&at(&manifest), format!("cannot be rendered: {err}")))?;
    Ok(Entry { skill, rendered })
}

/// `sha256:` and the lowercase hex SHA-256 of `bytes`.
fn digest(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let mut text = String::with_capacity(7 + 64);
    text.push_str("sha256:");
    for byte in hash.iter() {
        text.push_str(&format!("{byte:02x}"));
    }
    text
}

/// Every directory above a served file (from the first segment down), with
/// its direct children.
fn directories(files: &BTreeMap<&str, Arc<[u8]>>) -> HashMap<String, Vec<DirectoryChild>> {
    let mut children: BTreeMap<String, BTreeMap<String, DirectoryChild>> = BTreeMap::new();
    for (path, bytes) in files {
        let mut parent: Option<&str> = None;
        for (at, _) in path.match_indices('/').chain([(path.len(), "")]) {
            let here = &path[..at];
            let name = here.rsplit('/').next().unwrap_or(here).to_owned();
            let child = if at == path.len() {
                DirectoryChild {
                    uri: uri(here),
                    name,
                    mime_type: Some(mime_type(here).to_owned()),
                    size: Some(bytes.len() as u64),
                }
            } else {
                DirectoryChild {
                    uri: uri(here),
                    name,
                    mime_type: Some(DIRECTORY_MIME_TYPE.to_owned()),
                    size: None,
                }
            };
            if let Some(parent) = parent {
                children
                    .entry(uri(parent))
                    .or_default()
                    .insert(child.uri.clone(), child);
            }
            parent = Some(here);
        }
    }
    children
        .into_iter()
        .map(|(uri, kids)| (uri, kids.into_values().collect()))
        .collect()
}

/// The MIME type of a skill file, by its extension: Markdown is what
/// skills are written in; the rest are the scripts, data and images they
/// carry.
fn mime_type(path: &str) -> &'static str {
    let extension = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    match extension.as_deref() {
        Some("md" | "markdown") => "text/markdown",
        Some("txt") => "text/plain",
        Some("py") => "text/x-python",
        Some("sh") => "application/x-sh",
        Some("js" | "mjs") => "text/javascript",
        Some("ts") => "text/x-typescript",
        Some("json") => "application/json",
        Some("yaml" | "yml") => "application/yaml",
        Some("toml") => "application/toml",
        Some("csv") => "text/csv",
        Some("html" | "htm") => "text/html",
        Some("xml") => "application/xml",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("pdf") => "application/pdf",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests;
