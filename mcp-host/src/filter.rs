//! Which of a server's tools the host offers: `mcp.json`'s per-server
//! `"tools": {"allow": [...], "deny": [...]}` ([`ToolFilter`]).
//!
//! **Matching.** An entry is an MCP tool name as the server lists it (not
//! the name the model sees), compared exactly and case-sensitively; `*`
//! in an entry stands for any run of characters, none included
//! (`"get_*"`, `"*_admin"`, `"*"`). `*` is unambiguous: MCP tool names
//! are made of `A-Z a-z 0-9 _ - . /`. Nothing else is special.
//!
//! **Rules.** Without `allow` every tool is allowed; with it, only the
//! tools one of its entries matches (`"allow": []` offers none). `deny`
//! wins over `allow`: a tool any `deny` entry matches is left out.
//!
//! [`ToolFilter::apply`] is a pure function of the filter and one listing,
//! run each time a source's tools are listed (at start and on every
//! re-listing), so a tool a server adds later obeys the same entries. An
//! entry that matches no listed tool (a typo, a tool renamed upstream) is
//! returned for the caller to warn about, naming the server and the entry.

use mcpfn_protocol::model::Tool;

/// A server's `tools` filter from `mcp.json`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToolFilter {
    /// `allow`'s entries; `None` when the config has no `allow`.
    allow: Option<Vec<String>>,
    /// `deny`'s entries.
    deny: Vec<String>,
}

/// A listing after a [`ToolFilter`].
#[derive(Clone, Debug, PartialEq)]
pub struct Filtered {
    /// The tools offered, in the server's order.
    pub kept: Vec<Tool>,
    /// The tools left out by the filter, their MCP names in the server's order.
    pub left_out: Vec<String>,
    /// Each entry that matched no listed tool, as `tools.allow` /
    /// `tools.deny` and the entry.
    pub unmatched: Vec<(&'static str, String)>,
}

impl ToolFilter {
    /// A filter of `allow` (`None`: every tool) and `deny`.
    pub fn new(allow: Option<Vec<String>>, deny: Vec<String>) -> ToolFilter {
        ToolFilter { allow, deny }
    }

    /// Whether the filter lets every tool through (no `allow`, no `deny`).
    pub fn is_open(&self) -> bool {
        self.allow.is_none() && self.deny.is_empty()
    }

    /// Whether the tool named `name` (its MCP name) is offered.
    pub fn allows(&self, name: &str) -> bool {
        let allowed = self
            .allow
            .as_ref()
            .is_none_or(|allow| allow.iter().any(|entry| matches(entry, name)));
        allowed && !self.deny.iter().any(|entry| matches(entry, name))
    }

    /// `tools` with the filter applied (see the module docs).
    pub fn apply(&self, tools: &[Tool]) -> Filtered {
        let (kept, left_out): (Vec<&Tool>, Vec<&Tool>) =
            tools.iter().partition(|tool| self.allows(&tool.name));
        let unmatched_in = |field: &'static str, entries: &[String]| {
            entries
                .iter()
                .filter(|entry| !tools.iter().any(|tool| matches(entry, &tool.name)))
                .map(move |entry| (field, entry.clone()))
                .collect::<Vec<_>>()
        };
        let mut unmatched = unmatched_in("tools.allow", self.allow.as_deref().unwrap_or_default());
        unmatched.extend(unmatched_in("tools.deny", &self.deny));
        Filtered {
            kept: kept.into_iter().cloned().collect(),
            left_out: left_out.into_iter().map(|tool| tool.name.clone()).collect(),
            unmatched,
        }
    }
}

/// Whether `name` matches `entry`, where `*` is any run of characters.
fn matches(entry: &str, name: &str) -> bool {
    let mut parts = entry.split('*');
    // `split` always yields a first part.
    let first = parts.next().unwrap_or_default();
    let Some(mut rest) = name.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        // No `*`: the whole name.
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tools(names: &[&str]) -> Vec<Tool> {
        names
            .iter()
            .map(|name| {
                serde_json::from_value(json!({"name": name, "inputSchema": {"type": "object"}}))
                    .unwrap()
            })
            .collect()
    }

    fn strings(entries: &[&str]) -> Vec<String> {
        entries.iter().map(|e| (*e).to_owned()).collect()
    }

    #[test]
    fn entries_match_exactly_or_with_stars() {
        for (entry, name, expected) in [
            ("echo", "echo", true),
            ("echo", "Echo", false),
            ("echo", "echo2", false),
            ("echo", "", false),
            ("get_*", "get_weather", true),
            ("get_*", "get_", true),
            ("get_*", "set_weather", false),
            ("*_admin", "drop_admin", true),
            ("*_admin", "admin", false),
            ("*", "anything", true),
            ("a*b*c", "abc", true),
            ("a*b*c", "a-b-b-c", true),
            ("a*b*c", "acb", false),
            ("ab*ba", "aba", false),
            ("**", "x", true),
        ] {
            assert_eq!(matches(entry, name), expected, "{entry} ~ {name}");
        }
    }

    #[test]
    fn deny_wins_over_allow_and_the_servers_order_is_kept() {
        let filter = ToolFilter::new(Some(strings(&["get_*", "echo"])), strings(&["get_secret"]));
        let listed = tools(&["echo", "get_secret", "add", "get_weather"]);
        let filtered = filter.apply(&listed);
        let kept: Vec<&str> = filtered.kept.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(kept, ["echo", "get_weather"]);
        assert_eq!(filtered.left_out, ["get_secret", "add"]);
        assert!(filtered.unmatched.is_empty());
    }

    #[test]
    fn no_allow_is_everything_and_an_empty_allow_is_nothing() {
        let listed = tools(&["a", "b"]);
        let open = ToolFilter::default();
        assert!(open.is_open());
        assert_eq!(open.apply(&listed).kept, listed);
        let deny_only = ToolFilter::new(None, strings(&["a"]));
        assert_eq!(deny_only.apply(&listed).kept, tools(&["b"]));
        let none = ToolFilter::new(Some(Vec::new()), Vec::new());
        assert!(none.apply(&listed).kept.is_empty());
    }

    #[test]
    fn entries_that_match_no_listed_tool_are_returned_once_each() {
        let filter = ToolFilter::new(Some(strings(&["a", "typo", "x*"])), strings(&["gone", "b"]));
        let filtered = filter.apply(&tools(&["a", "b"]));
        assert_eq!(
            filtered.unmatched,
            [
                ("tools.allow", "typo".to_owned()),
                ("tools.allow", "x*".to_owned()),
                ("tools.deny", "gone".to_owned()),
            ]
        );
    }
}
