//! The one table behind both `tools/list` and `tools/call`: tools sorted by
//! name, each definition serialized once per protocol revision.

use crate::error::{Error, check_tool_name};
use crate::protocol::ProtocolVersion;
use crate::tool::Tool;
use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::{Arc, OnceLock};

/// Registered tools, immutable once serving starts.
#[derive(Debug)]
pub(crate) struct Registry {
    tools: Vec<Arc<Tool>>,
    by_name: HashMap<Arc<str>, usize>,
    /// Per revision: each tool's definition as JSON text, built on first use.
    definitions: [OnceLock<Vec<String>>; ProtocolVersion::ALL.len()],
    /// Per revision: each page's result object, open (no closing brace):
    /// `{"tools":[…],"nextCursor":…,"ttlMs":…,"cacheScope":…`. Built on first
    /// use and shared by every response.
    pages: [OnceLock<Vec<Arc<str>>>; ProtocolVersion::ALL.len()],
    page_size: Option<usize>,
    /// Binds cursors to this tool set, so a stale or foreign cursor is refused.
    fingerprint: u64,
}

impl Registry {
    /// Checks names, sorts by name, refuses duplicates.
    pub(crate) fn new(tools: Vec<Tool>, page_size: Option<usize>) -> Result<Registry, Error> {
        let mut tools: Vec<Arc<Tool>> = tools.into_iter().map(Arc::new).collect();
        tools.sort_by(|a, b| a.name.cmp(&b.name));
        let mut by_name = HashMap::with_capacity(tools.len());
        let mut hasher = DefaultHasher::new();
        for (index, tool) in tools.iter().enumerate() {
            check_tool_name(&tool.name)?;
            if tool
                .given_input_schema()
                .is_some_and(|s| s.get("type").and_then(|t| t.as_str()) != Some("object"))
            {
                return Err(Error::InvalidInputSchema(tool.name.clone()));
            }
            if by_name
                .insert(Arc::from(tool.name.as_str()), index)
                .is_some()
            {
                return Err(Error::DuplicateToolName(tool.name.clone()));
            }
            tool.name.hash(&mut hasher);
        }
        Ok(Registry {
            tools,
            by_name,
            definitions: Default::default(),
            pages: Default::default(),
            page_size: page_size.filter(|&n| n > 0),
            fingerprint: hasher.finish(),
        })
    }

    /// Every tool, sorted by name.
    pub(crate) fn tools(&self) -> impl Iterator<Item = &Tool> {
        self.tools.iter().map(|tool| &**tool)
    }

    /// The tool called `name`, with its name as a shared string.
    pub(crate) fn get(&self, name: &str) -> Option<(Arc<str>, &Arc<Tool>)> {
        let (key, &index) = self.by_name.get_key_value(name)?;
        Some((key.clone(), &self.tools[index]))
    }

    fn definitions(&self, version: ProtocolVersion) -> &[String] {
        self.definitions[version.index()].get_or_init(|| {
            self.tools
                .iter()
                .map(|tool| tool.definition_json(version))
                .collect()
        })
    }

    /// One page of `tools/list` as an open result object; `Err` when the
    /// cursor is not one of ours. `ttl_ms` is used the first time a page of
    /// a 2026-07-28 listing is built.
    pub(crate) fn page(
        &self,
        version: ProtocolVersion,
        cursor: Option<&str>,
        ttl_ms: u64,
    ) -> Result<Arc<str>, ()> {
        let index = match (cursor, self.page_size) {
            (None, _) => 0,
            (Some(_), None) => return Err(()),
            (Some(cursor), Some(_)) => self.decode_cursor(cursor).ok_or(())?,
        };
        let pages = self.pages[version.index()].get_or_init(|| {
            let defs = self.definitions(version);
            let size = self.page_size.unwrap_or(defs.len().max(1));
            let chunks: Vec<&[String]> = if defs.is_empty() {
                vec![&[]]
            } else {
                defs.chunks(size).collect()
            };
            let count = chunks.len();
            chunks
                .into_iter()
                .enumerate()
                .map(|(i, chunk)| {
                    let mut body = String::with_capacity(
                        chunk.iter().map(|d| d.len() + 1).sum::<usize>() + 96,
                    );
                    body.push_str("{\"tools\":");
                    body.push_str(&join_array(chunk));
                    if i + 1 < count {
                        body.push_str(",\"nextCursor\":\"");
                        body.push_str(&self.encode_cursor(i + 1));
                        body.push('"');
                    }
                    if version.is_modern() {
                        body.push_str(&format!(",\"ttlMs\":{ttl_ms},\"cacheScope\":\"public\""));
                    }
                    Arc::from(body)
                })
                .collect()
        });
        pages.get(index).cloned().ok_or(())
    }

    fn encode_cursor(&self, page: usize) -> String {
        format!("{:016x}{page:x}", self.fingerprint)
    }

    fn decode_cursor(&self, cursor: &str) -> Option<usize> {
        let (fingerprint, page) = cursor.split_at_checked(16)?;
        if u64::from_str_radix(fingerprint, 16).ok()? != self.fingerprint || page.is_empty() {
            return None;
        }
        usize::from_str_radix(page, 16).ok()
    }
}

fn join_array(items: &[String]) -> String {
    let len = items.iter().map(|s| s.len() + 1).sum::<usize>() + 2;
    let mut out = String::with_capacity(len);
    out.push('[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(item);
    }
    out.push(']');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ToolBuilder, ToolOutcome};

    fn tool(name: &str) -> Tool {
        ToolBuilder::new(name, |_| Box::pin(async { ToolOutcome::text("") })).build()
    }

    #[test]
    fn duplicates_and_bad_names_are_refused() {
        let err = Registry::new(vec![tool("a"), tool("a")], None).unwrap_err();
        assert!(matches!(err, Error::DuplicateToolName(name) if name == "a"));
        let err = Registry::new(vec![tool("has space")], None).unwrap_err();
        assert!(matches!(err, Error::InvalidToolName { .. }));
    }

    #[test]
    fn pages_walk_every_tool_in_name_order() {
        let names = ["e", "c", "a", "d", "b"];
        let registry = Registry::new(names.iter().map(|n| tool(n)).collect(), Some(2)).unwrap();
        let v = ProtocolVersion::LATEST;
        let mut cursor = None;
        let mut seen = Vec::new();
        let mut pages = 0;
        loop {
            let page = registry.page(v, cursor.as_deref(), 0).unwrap();
            let page: serde_json::Value = serde_json::from_str(&format!("{page}}}")).unwrap();
            let tools = page["tools"].as_array().unwrap();
            seen.extend(tools.iter().map(|t| t["name"].as_str().unwrap().to_owned()));
            pages += 1;
            match page.get("nextCursor") {
                Some(next) => cursor = Some(next.as_str().unwrap().to_owned()),
                None => break,
            }
        }
        assert_eq!(pages, 3);
        assert_eq!(seen, ["a", "b", "c", "d", "e"]);
        assert!(registry.page(v, Some("bogus"), 0).is_err());
        assert!(
            registry
                .page(v, Some(&format!("{:016x}ff", registry.fingerprint)), 0)
                .is_err()
        );
    }
}
