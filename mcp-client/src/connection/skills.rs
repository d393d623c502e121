//! The Skills extension (`io.modelcontextprotocol/skills`, SEP-2640) from
//! the host's side: the skills a server offers are listed (`skills/list`,
//! every page, within the [`ListLimits`](crate::ListLimits)), each with its
//! frontmatter and manifest; a file of one is read only when asked for
//! (never prefetched), with `resources/read`, and checked against the
//! manifest before it is handed on: under the skill's directory, listed,
//! the manifest within the extension's limits ([`MAX_SKILL_FILES`],
//! [`MAX_SKILL_BYTES`]), and its bytes of the listed size and SHA-256
//! digest. A skill whose files are `"dynamic"` has no digests to check; its
//! files are still held to [`MAX_SKILL_BYTES`]. Each failure is
//! [`McpError::Skill`], naming the server and the skill.

use super::McpClient;
use crate::McpError;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use mcpfn_protocol::model::method::ListSkills;
use mcpfn_protocol::model::{
    MAX_SKILL_BYTES, MAX_SKILL_FILES, ResourceContents, Skill, SkillFiles,
};
use sha2::{Digest, Sha256};

/// One file of a skill, read and checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkillFile {
    /// Its resource URI.
    pub uri: String,
    /// Its MIME type, as the server gave it.
    pub mime_type: Option<String>,
    /// Its bytes (a text file's UTF-8, a binary file's decoded base64).
    pub bytes: Vec<u8>,
}

impl SkillFile {
    /// Its bytes as text, when they are UTF-8.
    pub fn text(&self) -> Option<&str> {
        std::str::from_utf8(&self.bytes).ok()
    }
}

/// The name a skill goes by in an error: its frontmatter's `name`, else
/// the URI of its `SKILL.md`.
pub(crate) fn skill_name(skill: &Skill) -> &str {
    skill
        .frontmatter
        .get("name")
        .and_then(|n| n.as_str())
        .unwrap_or(&skill.uri)
}

impl McpClient {
    /// The skills the server offers, each with its frontmatter (`name`,
    /// `description`, …) and manifest; none when it does not declare the
    /// extension. No file is read.
    pub async fn list_skills(&self) -> Result<Vec<Skill>, McpError> {
        self.listed::<ListSkills>(|c| c.skills_extension().is_some())
            .await
    }

    /// File `uri` of `skill` (its `SKILL.md` is `skill.uri`), read now and
    /// checked against the skill's manifest.
    pub async fn read_skill_file(&self, skill: &Skill, uri: &str) -> Result<SkillFile, McpError> {
        let refused = |reason: String| McpError::Skill {
            server: self.inner.config.name.clone(),
            skill: skill_name(skill).to_owned(),
            reason,
        };
        let listed = expected(skill, uri).map_err(refused)?;
        let read = self.read_resource(uri).await?;
        let mut contents = read.contents.into_iter();
        let first = contents.next();
        let content = match first {
            Some(ResourceContents::Text { uri: ref got, .. })
            | Some(ResourceContents::Blob { uri: ref got, .. })
                if got == uri =>
            {
                first
            }
            other => other.into_iter().chain(contents).find(|c| match c {
                ResourceContents::Text { uri: got, .. }
                | ResourceContents::Blob { uri: got, .. } => got == uri,
            }),
        }
        .ok_or_else(|| refused(format!("reading `{uri}` gave no contents of that URI")))?;
        let (mime_type, bytes) = match content {
            ResourceContents::Text {
                mime_type, text, ..
            } => (mime_type, text.into_bytes()),
            ResourceContents::Blob {
                mime_type, blob, ..
            } => (
                mime_type,
                STANDARD
                    .decode(blob)
                    .map_err(|e| refused(format!("`{uri}` is not valid base64: {e}")))?,
            ),
        };
        check(uri, listed, &bytes).map_err(refused)?;
        Ok(SkillFile {
            uri: uri.to_owned(),
            mime_type,
            bytes,
        })
    }
}

/// What the manifest says of file `uri` of `skill`: its size and digest
/// (`None` for a `"dynamic"` skill), once the URI and the manifest are
/// acceptable.
fn expected<'a>(skill: &'a Skill, uri: &str) -> Result<Option<(u64, &'a str)>, String> {
    let root = skill.uri.rsplit_once('/').map_or("", |(root, _)| root);
    let inside = uri
        .strip_prefix(root)
        .and_then(|rest| rest.strip_prefix('/'))
        .is_some_and(|rest| !rest.is_empty() && !rest.split('/').any(|s| s == ".." || s == "."));
    if root.is_empty() || !inside {
        return Err(format!(
            "`{uri}` is not under the skill's directory `{root}`"
        ));
    }
    let files = match &skill.resources {
        SkillFiles::Dynamic => return Ok(None),
        SkillFiles::Listed(files) => files,
    };
    if files.len() > MAX_SKILL_FILES {
        return Err(format!(
            "its manifest lists {} files, more than the {MAX_SKILL_FILES} a skill may have",
            files.len()
        ));
    }
    let total = files.iter().fold(0u64, |sum, f| sum.saturating_add(f.size));
    if total > MAX_SKILL_BYTES {
        return Err(format!(
            "its manifest lists {total} bytes, more than the {MAX_SKILL_BYTES} a skill may have"
        ));
    }
    let file = files
        .iter()
        .find(|f| f.uri == uri)
        .ok_or_else(|| format!("`{uri}` is not one of the files its manifest lists"))?;
    Ok(Some((file.size, file.digest.as_str())))
}

/// Whether `bytes` are what the manifest lists (`None`: a dynamic skill's
/// file, held to the skill's size limit only).
fn check(uri: &str, listed: Option<(u64, &str)>, bytes: &[u8]) -> Result<(), String> {
    let size = bytes.len() as u64;
    let Some((listed_size, digest)) = listed else {
        return if size > MAX_SKILL_BYTES {
            Err(format!(
                "`{uri}` is {size} bytes, more than the {MAX_SKILL_BYTES} a skill may have"
            ))
        } else {
            Ok(())
        };
    };
    if size != listed_size {
        return Err(format!(
            "`{uri}` is {size} bytes, not the {listed_size} its manifest lists"
        ));
    }
    let actual = format!("sha256:{}", hex(&Sha256::digest(bytes)));
    if actual != digest {
        return Err(format!(
            "`{uri}` has digest {actual}, not the {digest} its manifest lists"
        ));
    }
    Ok(())
}

/// Lowercase hex digits of `bytes`.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpfn_protocol::model::SkillResource;
    use serde_json::json;

    fn skill(files: SkillFiles) -> Skill {
        Skill {
            uri: "skill://acme/refunds/SKILL.md".into(),
            frontmatter: json!({"name": "refunds"}).as_object().cloned().unwrap(),
            resources: files,
        }
    }

    fn listed(uri: &str, bytes: &[u8]) -> SkillResource {
        SkillResource {
            uri: uri.into(),
            digest: format!("sha256:{}", hex(&Sha256::digest(bytes))),
            size: bytes.len() as u64,
        }
    }

    #[test]
    fn a_file_is_checked_against_its_manifest() {
        let body = b"# Refunds\n";
        let s = skill(SkillFiles::Listed(vec![listed(
            "skill://acme/refunds/SKILL.md",
            body,
        )]));
        let want = expected(&s, "skill://acme/refunds/SKILL.md").unwrap();
        assert!(check("u", want, body).is_ok());
        assert!(
            check("u", want, b"# Refundz\n")
                .unwrap_err()
                .contains("has digest sha256:")
        );
        assert!(
            check("u", want, b"short")
                .unwrap_err()
                .contains("is 5 bytes, not the 10")
        );
        assert_eq!(skill_name(&s), "refunds");
    }

    #[test]
    fn only_listed_files_under_the_skill_are_read() {
        let s = skill(SkillFiles::Listed(vec![listed(
            "skill://acme/refunds/SKILL.md",
            b"x",
        )]));
        for (uri, why) in [
            ("skill://acme/other/SKILL.md", "not under"),
            ("skill://acme/refunds/../other/SKILL.md", "not under"),
            ("skill://acme/refunds", "not under"),
            ("skill://acme/refunds/notes.md", "not one of the files"),
        ] {
            assert!(expected(&s, uri).unwrap_err().contains(why), "{uri}");
        }
        let dynamic = skill(SkillFiles::Dynamic);
        assert_eq!(expected(&dynamic, "skill://acme/refunds/a.md"), Ok(None));
        let over = vec![0u8; MAX_SKILL_BYTES as usize + 1];
        assert!(check("u", None, &over).unwrap_err().contains("more than"));
        let too_many = skill(SkillFiles::Listed(
            (0..=MAX_SKILL_FILES)
                .map(|i| listed(&format!("skill://acme/refunds/{i}"), b""))
                .collect(),
        ));
        assert!(
            expected(&too_many, "skill://acme/refunds/1")
                .unwrap_err()
                .contains("513 files")
        );
    }
}
