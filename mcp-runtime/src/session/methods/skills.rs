//! The Skills extension's methods (`skills/list`, `skills/get`,
//! `resources/directory/read`), answered from the skills the server read
//! at start-up ([`crate::skills::Skills`]). A server without skills
//! answers them `-32601`, as for any method it does not offer.

use crate::protocol::frame::Frame;
use crate::protocol::model::method::{GetSkill, ListSkills, ReadDirectory, Request};
use crate::protocol::model::{
    DirectoryChild, GetSkillParams, ListSkillsParams, ReadDirectoryParams,
};
use crate::protocol::outgoing::Reply;
use crate::protocol::{ProtocolVersion, RpcError};
use crate::session::Session;
use crate::session::method::{Method, Respond};
use crate::skills::{Entry, Skills};
use serde_json::value::RawValue;

/// Skills per `skills/list` page: an entry lists up to 512 files, so a
/// page stays well under a megabyte.
const SKILLS_PAGE: usize = 32;

/// Children per `resources/directory/read` page.
const DIRECTORY_PAGE: usize = 256;

/// The skills of a session's server; `-32601` for `method` when it has
/// none (it does not declare the extension).
fn skills<'s>(session: &'s Session, method: &str) -> Result<&'s Skills, RpcError> {
    session
        .shared
        .skills
        .as_deref()
        .ok_or_else(|| super::super::method_not_found(method))
}

/// The page a `cursor` names: our cursors are page numbers, a page that
/// exists, and no cursor is the first page.
fn page(
    cursor: Option<&str>,
    len: usize,
    per_page: usize,
    method: &str,
) -> Result<usize, RpcError> {
    let Some(cursor) = cursor else {
        return Ok(0);
    };
    match cursor.parse::<usize>() {
        Ok(page) if page > 0 && page.saturating_mul(per_page) < len => Ok(page),
        _ => Err(RpcError::invalid_params(format!(
            "Invalid cursor: use a nextCursor value from an earlier {method} result, or no cursor"
        ))),
    }
}

/// The items of page `at` and the cursor of the next.
fn slice<T>(items: &[T], at: usize, per_page: usize) -> (&[T], Option<String>) {
    let start = at * per_page;
    let end = (start + per_page).min(items.len());
    let next = (end < items.len()).then(|| (at + 1).to_string());
    (&items[start.min(end)..end], next)
}

/// A `skills/list` page.
pub(in crate::session) struct SkillsPage<'s> {
    entries: &'s [Entry],
    next_cursor: Option<String>,
    ttl_ms: u64,
}

impl Respond for SkillsPage<'_> {
    fn respond(self, reply: Reply<'_>) -> Frame {
        let rendered: Vec<&RawValue> = self.entries.iter().map(|e| &*e.rendered).collect();
        reply.skills_page(&rendered, self.next_cursor.as_deref(), self.ttl_ms)
    }
}

/// `skills/list`: every skill, in pages of [`SKILLS_PAGE`], by URI.
impl Method for ListSkills {
    type ParamsRef<'p> = ListSkillsParams;
    type Answer<'s> = SkillsPage<'s>;

    fn handle(
        session: &Session,
        _: ProtocolVersion,
        params: ListSkillsParams,
    ) -> Result<SkillsPage<'_>, RpcError> {
        let entries = skills(session, Self::METHOD)?.entries();
        let at = page(
            params.cursor.as_deref(),
            entries.len(),
            SKILLS_PAGE,
            ListSkills::METHOD,
        )?;
        let (entries, next_cursor) = slice(entries, at, SKILLS_PAGE);
        Ok(SkillsPage {
            entries,
            next_cursor,
            ttl_ms: session.shared.identity.list_ttl_ms,
        })
    }
}

/// A `skills/get` result.
pub(in crate::session) struct OneSkill<'s> {
    entry: &'s Entry,
    ttl_ms: u64,
}

impl Respond for OneSkill<'_> {
    fn respond(self, reply: Reply<'_>) -> Frame {
        reply.skill(&self.entry.rendered, self.ttl_ms)
    }
}

/// `skills/get`: the entry of the skill whose `SKILL.md` the URI names;
/// `-32602` for any other URI.
impl Method for GetSkill {
    type ParamsRef<'p> = GetSkillParams;
    type Answer<'s> = OneSkill<'s>;

    fn handle(
        session: &Session,
        _: ProtocolVersion,
        params: GetSkillParams,
    ) -> Result<OneSkill<'_>, RpcError> {
        let entry = skills(session, Self::METHOD)?
            .get(&params.uri)
            .ok_or_else(|| {
                RpcError::invalid_params(format!("No skill is served at {}", shown(&params.uri)))
                    .with_data(serde_json::json!({ "uri": params.uri }))
            })?;
        Ok(OneSkill {
            entry,
            ttl_ms: session.shared.identity.list_ttl_ms,
        })
    }
}

/// A `resources/directory/read` page.
pub(in crate::session) struct DirectoryPage<'s> {
    children: &'s [DirectoryChild],
    next_cursor: Option<String>,
}

impl Respond for DirectoryPage<'_> {
    fn respond(self, reply: Reply<'_>) -> Frame {
        reply.directory(self.children, self.next_cursor.as_deref())
    }
}

/// `resources/directory/read`: the direct children of a directory of the
/// skills (a skill's root, a directory inside it, or a prefix above it),
/// in pages of [`DIRECTORY_PAGE`]; `-32602` for any other URI.
impl Method for ReadDirectory {
    type ParamsRef<'p> = ReadDirectoryParams;
    type Answer<'s> = DirectoryPage<'s>;

    fn handle(
        session: &Session,
        _: ProtocolVersion,
        params: ReadDirectoryParams,
    ) -> Result<DirectoryPage<'_>, RpcError> {
        let children = skills(session, Self::METHOD)?
            .directory(&params.uri)
            .ok_or_else(|| {
                RpcError::invalid_params(format!(
                    "{} is not a directory resource of this server",
                    shown(&params.uri)
                ))
                .with_data(serde_json::json!({ "uri": params.uri }))
            })?;
        let at = page(
            params.cursor.as_deref(),
            children.len(),
            DIRECTORY_PAGE,
            Self::METHOD,
        )?;
        let (children, next_cursor) = slice(children, at, DIRECTORY_PAGE);
        Ok(DirectoryPage {
            children,
            next_cursor,
        })
    }
}

/// A URI as an error message quotes it: a client's URI may be of any
/// length, so only its start.
fn shown(uri: &str) -> String {
    const SHOWN: usize = 200;
    match uri.char_indices().nth(SHOWN) {
        None => uri.to_owned(),
        Some((at, _)) => format!("{}… ({} bytes)", &uri[..at], uri.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_are_pages_that_exist() {
        let items: Vec<u32> = (0..5).collect();
        assert_eq!(slice(&items, 0, 2), (&items[..2], Some("1".to_owned())));
        assert_eq!(slice(&items, 2, 2), (&items[4..], None));
        assert_eq!(page(None, 5, 2, "m").unwrap(), 0);
        assert_eq!(page(Some("2"), 5, 2, "m").unwrap(), 2);
        for bad in ["0", "3", "-1", "x", "", "99999999999999999999999"] {
            let err = page(Some(bad), 5, 2, "skills/list").unwrap_err();
            assert!(err.message.contains("earlier skills/list result"), "{bad}");
        }
        let empty: [u32; 0] = [];
        assert_eq!(slice(&empty, 0, 2), (&empty[..], None));
    }

    #[test]
    fn long_uris_are_cut_in_messages() {
        assert_eq!(shown("skill://a/SKILL.md"), "skill://a/SKILL.md");
        let long = "é".repeat(10_000);
        let cut = shown(&long);
        assert!(
            cut.ends_with("… (20000 bytes)") && cut.chars().count() < 220,
            "{cut}"
        );
    }
}
