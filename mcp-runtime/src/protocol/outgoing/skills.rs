//! The results of the Skills extension's methods: `skills/list` and
//! `skills/get` (cacheable from 2026-07-28: `ttlMs`, `cacheScope`) and
//! `resources/directory/read`. Skill entries are rendered once by the
//! server and spliced in as [`RawValue`]s.

use super::results::CacheHints;
use crate::protocol::frame::Frame;
use crate::protocol::model::DirectoryChild;
use crate::protocol::outgoing::Reply;
use serde::Serialize;
use serde_json::value::RawValue;

#[derive(Serialize)]
struct SkillsPage<'a> {
    skills: &'a [&'a RawValue],
    #[serde(rename = "nextCursor", skip_serializing_if = "Option::is_none")]
    next_cursor: Option<&'a str>,
    #[serde(flatten)]
    cache: Option<CacheHints>,
}

#[derive(Serialize)]
struct OneSkill<'a> {
    skill: &'a RawValue,
    #[serde(flatten)]
    cache: Option<CacheHints>,
}

#[derive(Serialize)]
struct Directory<'a> {
    resources: &'a [DirectoryChild],
    #[serde(rename = "nextCursor", skip_serializing_if = "Option::is_none")]
    next_cursor: Option<&'a str>,
}

impl Reply<'_> {
    /// A `skills/list` page: `skills` are the rendered entries.
    pub(crate) fn skills_page(
        &self,
        skills: &[&RawValue],
        next_cursor: Option<&str>,
        ttl_ms: u64,
    ) -> Frame {
        let capacity = skills.iter().map(|s| s.get().len() + 1).sum::<usize>() + 64;
        let body = SkillsPage {
            skills,
            next_cursor,
            cache: self.public_cache(ttl_ms),
        };
        self.send(body, "complete", capacity)
    }

    /// A `skills/get` result: `skill` is the rendered entry.
    pub(crate) fn skill(&self, skill: &RawValue, ttl_ms: u64) -> Frame {
        let body = OneSkill {
            skill,
            cache: self.public_cache(ttl_ms),
        };
        self.send(body, "complete", skill.get().len() + 64)
    }

    /// A `resources/directory/read` page.
    pub(crate) fn directory(
        &self,
        children: &[DirectoryChild],
        next_cursor: Option<&str>,
    ) -> Frame {
        let body = Directory {
            resources: children,
            next_cursor,
        };
        self.send(body, "complete", 128 * children.len() + 64)
    }
}

#[cfg(test)]
mod tests {
    use crate::protocol::ProtocolVersion;
    use crate::protocol::model::{
        DirectoryChild, GetSkillResult, ListSkillsResult, ReadDirectoryResult,
    };
    use crate::protocol::outgoing::Reply;
    use crate::protocol::outgoing::results::tests::meta;
    use crate::protocol::outgoing::tests::{raw, text};

    const ENTRY: &str = r#"{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"d"},"resources":"dynamic"}"#;

    #[test]
    fn skill_results_are_cacheable_from_2026_07_28() {
        let id = raw("3");
        let meta = meta();
        let entry = raw(ENTRY);
        let legacy = Reply::new(&id, ProtocolVersion::V2025_11_25, &meta);
        assert_eq!(
            text(legacy.skills_page(&[&entry, &entry], Some("1"), 9)),
            format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{{\"skills\":[{ENTRY},{ENTRY}],\"nextCursor\":\"1\"}}}}\n"
            )
        );
        assert_eq!(
            text(legacy.skill(&entry, 9)),
            format!("{{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{{\"skill\":{ENTRY}}}}}\n")
        );
        let modern = Reply::new(&id, ProtocolVersion::V2026_07_28, &meta);
        let page = text(modern.skills_page(&[&entry], None, 9));
        assert!(
            page.starts_with(&format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{{\"skills\":[{ENTRY}],\"ttlMs\":9,\"cacheScope\":\"public\",\"resultType\":\"complete\",\"_meta\":{{"
            )),
            "{page}"
        );
        // The client's model reads what the server writes.
        let read: ListSkillsResult = serde_json::from_str::<serde_json::Value>(&page)
            .map(|v| serde_json::from_value(v["result"].clone()).unwrap())
            .unwrap();
        assert_eq!((read.skills.len(), read.ttl_ms), (1, Some(9)));
        let one: serde_json::Value = serde_json::from_str(&text(modern.skill(&entry, 9))).unwrap();
        let one: GetSkillResult = serde_json::from_value(one["result"].clone()).unwrap();
        assert_eq!(one.skill.uri, "skill://a/SKILL.md");
        assert_eq!(
            one.cache_scope,
            Some(crate::protocol::model::CacheScope::Public)
        );
    }

    #[test]
    fn a_directory_page_lists_children_without_cache_hints() {
        let id = raw("4");
        let meta = meta();
        let children = [DirectoryChild {
            uri: "skill://a/t".into(),
            name: "t".into(),
            mime_type: Some("inode/directory".into()),
            size: None,
        }];
        let legacy = Reply::new(&id, ProtocolVersion::V2025_11_25, &meta);
        assert_eq!(
            text(legacy.directory(&children, None)),
            "{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"resources\":[{\"uri\":\"skill://a/t\",\"name\":\"t\",\"mimeType\":\"inode/directory\"}]}}\n"
        );
        let modern = Reply::new(&id, ProtocolVersion::V2026_07_28, &meta);
        let page: serde_json::Value =
            serde_json::from_str(&text(modern.directory(&children, Some("2")))).unwrap();
        assert_eq!(page["result"]["resultType"], "complete");
        assert!(page["result"].get("ttlMs").is_none());
        let read: ReadDirectoryResult = serde_json::from_value(page["result"].clone()).unwrap();
        assert_eq!(
            (read.resources, read.next_cursor.as_deref()),
            (children.to_vec(), Some("2"))
        );
    }
}
