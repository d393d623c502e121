//! Tool names a model API accepts, for the tools of many servers.
//!
//! The Anthropic Messages API and OpenAI's function calling both require
//! `^[a-zA-Z0-9_-]{1,64}$`; MCP allows 128 characters including `.` and
//! `/`, and two servers may both have a `search`. [`NameMap::build`] gives
//! each `(server, tool)` one model name by a fixed function of the server's
//! config name, the tool's MCP name and whether the tool is in the
//! collision set (step 1); nothing else (no order, no unrelated tool)
//! changes it, so one config gives the same names on every run and
//! the model's prompt cache stays valid:
//!
//! 1. A tool whose MCP name two or more servers expose, or whose name after
//!    steps 2 and 3 another server's tool would also get, is offered as
//!    `{server}__{tool}` (two underscores, then steps 2 and 3 on the whole);
//!    any other tool under its own name.
//! 2. `.`, `/`, `:` and space become `_` (`files.read` → `files_read`).
//!    Any other character the APIs refuse (non-ASCII, `@`, …) becomes `_`
//!    too, runs of them one `_`, and since that loses information the name
//!    gets a hash suffix (server `cn`: `查天气` → `tool_14fcceb5`,
//!    `get_天气` → `get_8463fa9c`).
//! 3. A name longer than 64 characters keeps its first 55 and ends in `_`
//!    and 8 hex digits of a SHA-256 of the server's config name and the MCP
//!    name.
//!
//! Steps 2 and 3 are [`model_name`], which lives in
//! [`mcp_protocol::model_name`] so that `mcp-runtime`'s
//! `--dump-tools anthropic|openai|openai-strict` maps a server's names the
//! same way (unprefixed, hashing with the server's own name: a host whose
//! config names the server the same offers the same names as its dump).
//!
//! A map that would give two tools one name is refused when it is built
//! ([`NameMap::build`] fails with [`NameCollisions`] naming both), never at
//! call time. That can happen (`a.b` and `a_b` on one server; a crafted
//! name matching another server's prefixed form; two long names of one
//! server sharing 55 characters and a 32-bit suffix), and it is reported,
//! not resolved by a rule that would make one tool's name depend on
//! another's. [`NameMap::build_without_collisions`] is the forgiving form
//! for a host that would rather leave the colliding tools out (all of them:
//! none wins, so a hostile server cannot take over another's name) and
//! keep the rest.
//!
//! [`NameMap::resolve`] turns a model's name back into the server and MCP
//! name to call.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

// The per-name function lives in mcp-protocol so that mcp-runtime's
// `--dump-tools` model formats map names exactly as this catalog does.
pub use mcp_protocol::model_name::{
    MAX_MODEL_NAME_LEN, PREFIX_SEPARATOR, is_model_safe, model_name,
};

/// A tool of one server: where a model name leads.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ToolRef {
    /// The server's config name.
    pub server: String,
    /// The tool's MCP name, as `tools/call` wants it.
    pub tool: String,
}

/// Two tools that would get one model name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Collision {
    /// The name both would get.
    pub model_name: String,
    /// The tool that got it first, in the order given to [`NameMap::build`].
    pub first: ToolRef,
    /// The other one (the same as `first` when a server lists a tool twice).
    pub second: ToolRef,
}

/// Why a [`NameMap`] was refused: every collision found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameCollisions(pub Vec<Collision>);

impl fmt::Display for NameCollisions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, c) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            if c.first == c.second {
                write!(
                    f,
                    "server `{}` lists tool `{}` twice",
                    c.first.server, c.first.tool
                )?;
            } else {
                write!(
                    f,
                    "tool `{}` of server `{}` and tool `{}` of server `{}` would both be offered to the model as `{}`; rename one of the servers in the config, or leave one out",
                    c.first.tool, c.first.server, c.second.tool, c.second.server, c.model_name
                )?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for NameCollisions {}

/// Model names and the tools they stand for, both ways.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NameMap {
    /// In the order given to [`NameMap::build`].
    entries: Vec<(String, ToolRef)>,
    by_model: BTreeMap<String, usize>,
    by_tool: BTreeMap<ToolRef, usize>,
}

impl NameMap {
    /// The names of `tools`, each `(server config name, MCP tool name)`;
    /// refused with every collision when two would share a name.
    pub fn build<'a>(
        tools: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<NameMap, NameCollisions> {
        let (map, collisions) = NameMap::build_without_collisions(tools);
        if collisions.is_empty() {
            Ok(map)
        } else {
            Err(NameCollisions(collisions))
        }
    }

    /// Like [`NameMap::build`], but a name two tools would share is offered
    /// for **neither**, and the collisions are returned beside the map: a
    /// host can then leave those tools out with a warning and keep the
    /// rest. Neither wins, so a hostile server that names a tool after
    /// another server's prefixed name can make that tool unavailable but
    /// can never receive its calls, whatever the order of the servers.
    pub fn build_without_collisions<'a>(
        tools: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> (NameMap, Vec<Collision>) {
        let tools: Vec<(&str, &str)> = tools.into_iter().collect();
        // The collision set: MCP names that two or more servers expose, and
        // names two servers' tools would both be offered under unprefixed
        // (`files.read` on one, `files_read` on another).
        let unprefixed: Vec<String> = tools
            .iter()
            .map(|&(server, tool)| model_name(server, tool, false))
            .collect();
        let mut servers_of: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        let mut servers_under: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for (&(server, tool), name) in tools.iter().zip(&unprefixed) {
            servers_of.entry(tool).or_default().insert(server);
            servers_under.entry(name).or_default().insert(server);
        }
        let named: Vec<(String, ToolRef)> = tools
            .iter()
            .zip(&unprefixed)
            .map(|(&(server, tool), unprefixed)| {
                let prefixed =
                    servers_of[tool].len() > 1 || servers_under[unprefixed.as_str()].len() > 1;
                let name = if prefixed {
                    model_name(server, tool, true)
                } else {
                    unprefixed.clone()
                };
                let target = ToolRef {
                    server: server.to_owned(),
                    tool: tool.to_owned(),
                };
                (name, target)
            })
            .collect();
        // The first tool under each name; a tool listed twice meets itself.
        let mut first: BTreeMap<&str, &ToolRef> = BTreeMap::new();
        let mut collisions = Vec::new();
        for (name, target) in &named {
            match first.get(name.as_str()) {
                Some(earlier) => collisions.push(Collision {
                    model_name: name.clone(),
                    first: (*earlier).clone(),
                    second: target.clone(),
                }),
                None => {
                    first.insert(name, target);
                }
            }
        }
        let taken: BTreeSet<&str> = collisions.iter().map(|c| c.model_name.as_str()).collect();
        let mut map = NameMap::default();
        for (name, target) in named {
            if taken.contains(name.as_str()) {
                continue;
            }
            let index = map.entries.len();
            map.by_model.insert(name.clone(), index);
            map.by_tool.insert(target.clone(), index);
            map.entries.push((name, target));
        }
        (map, collisions)
    }

    /// The tool a model's name stands for, or `None` for a name never
    /// offered.
    pub fn resolve(&self, model_name: &str) -> Option<&ToolRef> {
        self.by_model.get(model_name).map(|&i| &self.entries[i].1)
    }

    /// The model name of `server`'s tool `tool`.
    pub fn model_name(&self, server: &str, tool: &str) -> Option<&str> {
        let key = ToolRef {
            server: server.to_owned(),
            tool: tool.to_owned(),
        };
        self.by_tool.get(&key).map(|&i| self.entries[i].0.as_str())
    }

    /// `(model name, tool)` pairs in the order given to [`NameMap::build`].
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &ToolRef)> {
        self.entries
            .iter()
            .map(|(name, tool)| (name.as_str(), tool))
    }

    /// How many tools.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no tools.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_protocol::model_name::HASH_HEX;

    fn build(tools: &[(&str, &str)]) -> Result<NameMap, NameCollisions> {
        NameMap::build(tools.iter().copied())
    }

    #[test]
    fn safe_names_are_kept() {
        let map = build(&[("weather", "get_weather"), ("files", "read-file")]).unwrap();
        assert_eq!(
            map.model_name("weather", "get_weather"),
            Some("get_weather")
        );
        assert_eq!(map.model_name("files", "read-file"), Some("read-file"));
    }

    #[test]
    fn a_name_two_servers_expose_is_prefixed_on_both() {
        let map = build(&[
            ("github", "search"),
            ("gitlab", "search"),
            ("github", "create_issue"),
        ])
        .unwrap();
        assert_eq!(map.model_name("github", "search"), Some("github__search"));
        assert_eq!(map.model_name("gitlab", "search"), Some("gitlab__search"));
        // Unshared names stay as they are.
        assert_eq!(
            map.model_name("github", "create_issue"),
            Some("create_issue")
        );
        assert_eq!(
            map.resolve("gitlab__search"),
            Some(&ToolRef {
                server: "gitlab".into(),
                tool: "search".into()
            })
        );
        assert_eq!(map.resolve("search"), None);
    }

    #[test]
    fn dots_slashes_and_spaces_become_underscores() {
        assert_eq!(model_name("s", "files.read", false), "files_read");
        assert_eq!(model_name("s", "repo/list items", false), "repo_list_items");
        assert_eq!(model_name("my server", "x", true), "my_server__x");
        assert_eq!(model_name("s", "ns:tool", false), "ns_tool");
    }

    #[test]
    fn unicode_is_replaced_and_hashed_so_names_stay_apart() {
        let weather = model_name("cn", "查天气", false);
        let calendar = model_name("cn", "查日历", false);
        assert_ne!(weather, calendar);
        assert!(weather.starts_with("tool_"), "{weather}");
        assert!(is_model_safe(&weather) && is_model_safe(&calendar));
        let mixed = model_name("cn", "get_天气", false);
        assert!(
            mixed.starts_with("get_") && mixed.len() == 4 + HASH_HEX,
            "{mixed}"
        );
        // Accents, emoji and control characters too.
        for tool in ["café", "🔍search", "a\u{0}b", "", "@@@"] {
            let name = model_name("s", tool, false);
            assert!(is_model_safe(&name), "{tool:?} -> {name}");
        }
    }

    #[test]
    fn names_of_128_characters_are_shortened_with_a_hash() {
        let long_a = format!("{}a", "x".repeat(127));
        let long_b = format!("{}b", "x".repeat(127));
        let map = build(&[("s", &long_a), ("s", &long_b)]).unwrap();
        let a = map.model_name("s", &long_a).unwrap();
        let b = map.model_name("s", &long_b).unwrap();
        assert_eq!(a.len(), MAX_MODEL_NAME_LEN);
        assert_eq!(b.len(), MAX_MODEL_NAME_LEN);
        assert_ne!(a, b);
        assert!(a.starts_with(&"x".repeat(55)) && a.as_bytes()[55] == b'_');
        assert_eq!(map.resolve(a).unwrap().tool, long_a);
        // Exactly 64 is fine as it is; 65 is not.
        let sixty_four = "y".repeat(64);
        assert_eq!(model_name("s", &sixty_four, false), sixty_four);
        assert_eq!(model_name("s", &"y".repeat(65), false).len(), 64);
        // A prefix can push a name over the limit too.
        let prefixed = model_name(&"p".repeat(40), &"t".repeat(40), true);
        assert_eq!(prefixed.len(), 64);
        assert!(is_model_safe(&prefixed));
    }

    #[test]
    fn names_depend_only_on_server_tool_and_collision_set() {
        let tools = [
            ("b", "search"),
            ("a", "search"),
            ("a", "files.read"),
            ("c", &*"z".repeat(100)),
            ("c", "查天气"),
        ];
        let first = build(&tools).unwrap();
        let mut reversed = tools;
        reversed.reverse();
        let second = build(&reversed).unwrap();
        for (name, tool) in first.iter() {
            assert_eq!(second.model_name(&tool.server, &tool.tool), Some(name));
        }
        // Adding an unrelated tool changes no existing name.
        let mut more = tools.to_vec();
        more.push(("d", "other"));
        let third = build(&more).unwrap();
        for (name, tool) in first.iter() {
            assert_eq!(third.model_name(&tool.server, &tool.tool), Some(name));
        }
        // Fixed values, so a change to the function is a visible change:
        // a change here renames users' tools.
        assert_eq!(first.model_name("a", "search"), Some("a__search"));
        assert_eq!(first.model_name("a", "files.read"), Some("files_read"));
        assert_eq!(model_name("cn", "查天气", false), "tool_14fcceb5");
        assert_eq!(model_name("cn", "get_天气", false), "get_8463fa9c");
        assert_eq!(
            model_name("s", &format!("{}a", "x".repeat(127)), false),
            format!("{}_23dc82d0", "x".repeat(55))
        );
    }

    #[test]
    fn every_name_resolves_back_to_its_tool() {
        let tools = [
            ("one", "search"),
            ("two", "search"),
            ("two", "a.b/c"),
            ("three", &*"q".repeat(128)),
            ("three", "naïve"),
        ];
        let map = build(&tools).unwrap();
        assert_eq!(map.len(), tools.len());
        for (server, tool) in tools {
            let name = map.model_name(server, tool).unwrap();
            assert!(is_model_safe(name), "{name}");
            let back = map.resolve(name).unwrap();
            assert_eq!((back.server.as_str(), back.tool.as_str()), (server, tool));
        }
        let names: BTreeSet<&str> = map.iter().map(|(name, _)| name).collect();
        assert_eq!(names.len(), tools.len());
    }

    #[test]
    fn a_collision_after_mapping_is_refused_naming_both_tools() {
        let error = build(&[("s", "a.b"), ("s", "a_b")]).unwrap_err();
        assert_eq!(error.0.len(), 1);
        assert_eq!(error.0[0].model_name, "a_b");
        assert_eq!(error.0[0].first.tool, "a.b");
        assert_eq!(error.0[0].second.tool, "a_b");
        let message = error.to_string();
        assert!(
            message.contains("`a.b`") && message.contains("`a_b`"),
            "{message}"
        );
    }

    #[test]
    fn a_crafted_name_matching_a_prefixed_one_is_refused() {
        // A hostile server offers `github__search` so that github's own
        // `search`, prefixed because `evil` has one too, would route to it.
        let error = build(&[
            ("github", "search"),
            ("evil", "search"),
            ("evil", "github__search"),
        ])
        .unwrap_err();
        assert_eq!(error.0[0].model_name, "github__search");
        assert_eq!(error.0[0].first.server, "github");
        assert_eq!(error.0[0].second.server, "evil");
    }

    #[test]
    fn a_hash_collision_between_long_names_is_refused_not_misrouted() {
        // Search for two 100-character names sharing their first 55
        // characters and the 32-bit suffix (a birthday search, ~2^16 tries).
        let stem = "k".repeat(90);
        let mut seen: BTreeMap<String, String> = BTreeMap::new();
        let (a, b) = (0u32..)
            .find_map(|i| {
                let tool = format!("{stem}{i:010}");
                let name = model_name("s", &tool, false);
                seen.insert(name, tool.clone()).map(|other| (other, tool))
            })
            .unwrap();
        let error = build(&[("s", &a), ("s", &b)]).unwrap_err();
        assert_eq!(error.0.len(), 1);
        assert_eq!(
            (
                error.0[0].first.tool.as_str(),
                error.0[0].second.tool.as_str()
            ),
            (a.as_str(), b.as_str())
        );
    }

    #[test]
    fn names_of_two_servers_that_meet_after_mapping_are_prefixed() {
        let map = build(&[("a", "files.read"), ("b", "files_read"), ("b", "other")]).unwrap();
        assert_eq!(map.model_name("a", "files.read"), Some("a__files_read"));
        assert_eq!(map.model_name("b", "files_read"), Some("b__files_read"));
        assert_eq!(map.model_name("b", "other"), Some("other"));
    }

    #[test]
    fn a_colliding_name_is_offered_for_neither_tool_whatever_the_order() {
        for tools in [
            [
                ("github", "search"),
                ("evil", "search"),
                ("evil", "github__search"),
            ],
            [
                ("evil", "github__search"),
                ("evil", "search"),
                ("github", "search"),
            ],
        ] {
            let (map, collisions) = NameMap::build_without_collisions(tools);
            assert_eq!(collisions.len(), 1);
            assert_eq!(map.resolve("github__search"), None);
            assert_eq!(map.model_name("evil", "search"), Some("evil__search"));
            assert_eq!(map.len(), 1);
        }
    }

    #[test]
    fn a_tool_listed_twice_is_refused() {
        let error = build(&[("s", "t"), ("s", "t")]).unwrap_err();
        assert!(
            error.to_string().contains("lists tool `t` twice"),
            "{error}"
        );
    }

    #[test]
    fn the_model_safe_check_matches_the_api_pattern() {
        assert!(is_model_safe("a"));
        assert!(is_model_safe("A-z_0"));
        assert!(!is_model_safe(""));
        assert!(!is_model_safe("a.b"));
        assert!(!is_model_safe(&"a".repeat(65)));
        assert!(!is_model_safe("é"));
    }

    mod dump_agreement {
        use crate::catalog::{Catalog, CatalogOptions, LocalSource, ToolSource};
        use mcp_runtime::{DumpFormat, Server, tool, tools};
        use serde_json::Value;
        use std::sync::Arc;

        /// Read a file.
        #[tool(name = "files.read")]
        async fn read(
            /// The path
            path: String,
        ) -> String {
            path
        }

        /// Forecast.
        #[tool(name = "get_the_current_weather_forecast_for_a_city_and_country_in_metric_units")]
        async fn forecast(
            /// The city
            city: String,
        ) -> String {
            city
        }

        fn names(tools: &[Value], pointer: &str) -> Vec<String> {
            tools
                .iter()
                .map(|t| t.pointer(pointer).unwrap().as_str().unwrap().to_owned())
                .collect()
        }

        /// A server's `--dump-tools` names are the names a catalog offers
        /// for it as the only source under the server's own name.
        #[tokio::test]
        async fn a_dump_and_a_catalog_of_the_same_server_offer_the_same_names() {
            let server = Server::new("weather", "1").tools(tools![read, forecast]);
            let dumped = names(
                &server
                    .dump(DumpFormat::Anthropic)
                    .unwrap()
                    .to_json()
                    .as_array()
                    .unwrap()
                    .clone(),
                "/name",
            );
            let openai = names(
                &server
                    .dump(DumpFormat::OpenAi)
                    .unwrap()
                    .to_json()
                    .as_array()
                    .unwrap()
                    .clone(),
                "/function/name",
            );
            assert_eq!(dumped, openai);
            let source: Arc<dyn ToolSource> =
                Arc::new(LocalSource::new("weather", server.local().unwrap()));
            let catalog = Catalog::from_sources(vec![source], CatalogOptions::default())
                .await
                .unwrap();
            let mut offered = names(&catalog.claude_tools(), "/name");
            offered.sort();
            assert_eq!(offered, dumped);
            assert_eq!(
                dumped,
                [
                    "files_read",
                    "get_the_current_weather_forecast_for_a_city_and_country_f57f0a21"
                ]
            );
            // The catalog routes the mapped name to the MCP name.
            let result = catalog
                .call("files_read", serde_json::json!({"path": "/x"}))
                .await;
            assert!(!result.is_error, "{result:?}");
        }
    }
}
