//! The Skills extension (`io.modelcontextprotocol/skills`, SEP-2640): a
//! server publishes Agent Skills (a directory per skill, its `SKILL.md`
//! first) as resources, lists them with `skills/list`, describes one with
//! `skills/get`, and (with `directoryRead`) lists a directory's children
//! with `resources/directory/read`. A skill's files are read with the
//! base protocol's `resources/read`.
//!
//! One model both ways: the server writes these types, a client reads them.

use super::jsonrpc::JsonObject;
use super::lifecycle::{CacheScope, ServerCapabilities};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// The extension's identifier: the key under `capabilities.extensions`.
pub const SKILLS_EXTENSION: &str = "io.modelcontextprotocol/skills";

/// The `mimeType` of a directory resource (`resources/directory/read`).
pub const DIRECTORY_MIME_TYPE: &str = "inode/directory";

/// The most files one skill may have, `SKILL.md` included: what every
/// conforming host accepts.
pub const MAX_SKILL_FILES: usize = 512;

/// The most bytes one skill's files may add up to (16 MiB): what every
/// conforming host accepts.
pub const MAX_SKILL_BYTES: u64 = 16 * 1024 * 1024;

/// One file of a skill: its URI, and the SHA-256 digest and size of its
/// raw bytes, which a host checks what it reads against.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillResource {
    /// The file's resource URI.
    pub uri: String,
    /// `sha256:` and 64 lowercase hex digits.
    pub digest: String,
    /// Its length in bytes.
    pub size: u64,
}

/// A skill's files: every one of them, or `"dynamic"` when the server
/// generates them and cannot publish stable digests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SkillFiles {
    /// The complete list, `SKILL.md` included.
    Listed(Vec<SkillResource>),
    /// `"dynamic"`.
    Dynamic,
}

const DYNAMIC: &str = "dynamic";

impl Serialize for SkillFiles {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            SkillFiles::Listed(files) => files.serialize(serializer),
            SkillFiles::Dynamic => serializer.serialize_str(DYNAMIC),
        }
    }
}

impl<'de> Deserialize<'de> for SkillFiles {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Wire {
            Listed(Vec<SkillResource>),
            Word(String),
        }
        match Wire::deserialize(deserializer)? {
            Wire::Listed(files) => Ok(SkillFiles::Listed(files)),
            Wire::Word(word) if word == DYNAMIC => Ok(SkillFiles::Dynamic),
            Wire::Word(word) => Err(serde::de::Error::custom(format!(
                "skill resources are an array or \"dynamic\", not {word:?}"
            ))),
        }
    }
}

/// The entry of one skill, in `skills/list` and `skills/get` alike.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Skill {
    /// The URI of its `SKILL.md` (`skill://<skill-path>/SKILL.md`).
    pub uri: String,
    /// The YAML frontmatter of its `SKILL.md`, as a JSON object: `name`,
    /// `description` and whatever else the author wrote.
    pub frontmatter: JsonObject,
    /// Its files.
    pub resources: SkillFiles,
}

/// The params of `skills/list`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ListSkillsParams {
    /// The `nextCursor` of an earlier page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// `_meta` (the 2026-07-28 envelope).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
}

/// The result of `skills/list`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListSkillsResult {
    /// The skills of this page.
    pub skills: Vec<Skill>,
    /// Where the next page starts; absent on the last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// How long the list stays fresh, in ms (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Who may cache it (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
}

/// The params of `skills/get`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GetSkillParams {
    /// The URI of the skill's `SKILL.md`.
    pub uri: String,
    /// `_meta` (the 2026-07-28 envelope).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
}

/// The result of `skills/get`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetSkillResult {
    /// The skill's entry.
    pub skill: Skill,
    /// How long the entry stays fresh, in ms (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Who may cache it (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
}

/// The params of `resources/directory/read`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReadDirectoryParams {
    /// The directory's URI (no trailing slash).
    pub uri: String,
    /// The `nextCursor` of an earlier page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// `_meta` (the 2026-07-28 envelope).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
}

/// One child of a directory, as `resources/directory/read` lists it: a
/// file, or a directory ([`DIRECTORY_MIME_TYPE`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DirectoryChild {
    /// Its URI.
    pub uri: String,
    /// Its name: the last segment of the URI.
    pub name: String,
    /// Its MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// A file's length in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
}

/// The result of `resources/directory/read`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadDirectoryResult {
    /// The directory's direct children on this page.
    pub resources: Vec<DirectoryChild>,
    /// Where the next page starts; absent on the last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// The server's settings of the extension, under its identifier.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillsCapability {
    /// Whether it serves `resources/directory/read`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub directory_read: bool,
}

impl ServerCapabilities {
    /// With `extensions: {"io.modelcontextprotocol/skills": settings}`,
    /// beside the extensions already set.
    pub fn with_skills_extension(self, settings: SkillsCapability) -> ServerCapabilities {
        let mut extensions = self.extensions.unwrap_or_default();
        let settings =
            serde_json::to_value(settings).unwrap_or_else(|_| Value::Object(JsonObject::new()));
        extensions.insert(SKILLS_EXTENSION.to_owned(), settings);
        ServerCapabilities {
            extensions: Some(extensions),
            ..self
        }
    }

    /// The server's Skills extension settings, if it declares it.
    pub fn skills_extension(&self) -> Option<SkillsCapability> {
        let settings = self.extensions.as_ref()?.get(SKILLS_EXTENSION)?;
        SkillsCapability::deserialize(settings).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn entries_read_and_write_the_extensions_shapes() {
        let wire = json!({
            "uri": "skill://acme/refunds/SKILL.md",
            "frontmatter": {"name": "refunds", "description": "Refund requests", "license": "MIT"},
            "resources": [{"uri": "skill://acme/refunds/SKILL.md",
                "digest": format!("sha256:{}", "0".repeat(64)), "size": 12}],
        });
        let skill: Skill = serde_json::from_value(wire.clone()).unwrap();
        assert!(matches!(&skill.resources, SkillFiles::Listed(files) if files[0].size == 12));
        assert_eq!(serde_json::to_value(&skill).unwrap(), wire);
        let dynamic: SkillFiles = serde_json::from_value(json!("dynamic")).unwrap();
        assert_eq!(dynamic, SkillFiles::Dynamic);
        assert_eq!(serde_json::to_value(&dynamic).unwrap(), json!("dynamic"));
        let err = serde_json::from_value::<SkillFiles>(json!("static")).unwrap_err();
        assert!(err.to_string().contains("\"static\""), "{err}");
        assert!(serde_json::from_value::<SkillFiles>(json!(null)).is_err());
    }

    #[test]
    fn the_capability_sits_inline_under_the_identifier() {
        let plain =
            ServerCapabilities::default().with_skills_extension(SkillsCapability::default());
        assert_eq!(
            serde_json::to_value(&plain).unwrap(),
            json!({"extensions": {"io.modelcontextprotocol/skills": {}}})
        );
        let directories = plain.with_skills_extension(SkillsCapability {
            directory_read: true,
        });
        assert_eq!(
            serde_json::to_value(&directories).unwrap()["extensions"][SKILLS_EXTENSION],
            json!({"directoryRead": true})
        );
        assert_eq!(
            directories.skills_extension(),
            Some(SkillsCapability {
                directory_read: true
            })
        );
        assert_eq!(ServerCapabilities::default().skills_extension(), None);
    }
}
