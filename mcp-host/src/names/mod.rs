//! Tool names a model API accepts, for the tools of many servers.
//!
//! The Anthropic Messages API and OpenAI's function calling both require
//! `^[a-zA-Z0-9_-]{1,64}$`; MCP allows 128 characters including `.` and
//! `/`, and two servers may both have a `search`. [`NameMap::assign`]
//! gives every `(server, tool)` a model name, and never fails: one
//! server's names cannot stop the others. A tool's name is a fixed function
//! of its server's config name, its MCP name, the configured servers'
//! names and the few tools it would meet (steps 1 to 4); nothing else (no
//! listing order, no unrelated tool) changes it, so one config gives the
//! same names on every run and after every restart, and the model's prompt
//! cache stays valid:
//!
//! 1. **Preferred name.** A tool whose MCP name two or more servers expose,
//!    or whose name after the mapping below another server's tool would
//!    also get, is offered as `{server}__{tool}` (two underscores, then the
//!    mapping on the whole); any other tool under its own name, mapped:
//!    - `.`, `/`, `:` and space become `_` (`files.read` → `files_read`).
//!      Any other character the APIs refuse (non-ASCII, `@`, …) becomes
//!      `_` too, runs of them one `_`, and since that loses information the
//!      name gets a hash suffix (server `cn`: `查天气` → `tool_14fcceb5`,
//!      `get_天气` → `get_8463fa9c`).
//!    - A name longer than 64 characters keeps its first 55 and ends in
//!      `_` and 8 hex digits of a SHA-256 of the server's config name and
//!      the MCP name.
//! 2. **Other servers' prefixes are reserved.** An unprefixed name that
//!    starts with `{other}__` for another configured server `other` (a
//!    server `evil` listing `good__get_weather`) is offered with its own
//!    server's prefix instead (`evil__good__get_weather`): a server never
//!    takes a name of another server's prefixed form, whether or not that
//!    server started or needs the prefix today.
//! 3. **Meeting names.** When two or more tools still prefer one name
//!    (`admin.tools.list` beside `admin_tools_list` on one server), the one
//!    whose preferred name is its own name unchanged (`admin_tools_list`,
//!    or `{server}__{tool}` exactly) keeps it, and each other one is
//!    offered as its preferred name (cut to 55 characters) + `_` + 8 hex
//!    digits of a SHA-256 of its server and MCP name
//!    (`admin_tools_list_38f0faf7` on a server `admin`); if none or several
//!    keep it unchanged, all of them are hashed. A hashed name that would
//!    start with another server's prefix is made from the tool's prefixed
//!    name instead. A hashed name that meets any preferred name, a name an
//!    earlier round gave or another of its round is hashed again with the
//!    next round number, a few times.
//! 4. **Left out.** A tool a server lists twice cannot be told apart by
//!    `tools/call`: it is offered under no name ([`Naming::left_out`]);
//!    every other tool of that server stays.
//!
//! So a server can change only its own tools' names: listing a name
//! another server has makes both prefixed (as two honest servers sharing a
//! `search` do), but it never takes another server's name or prefixed
//! form, and never leaves another server's tool out.
//!
//! The mapping of step 1 is
//! [`model_name`](mcpfn_protocol::model_name::model_name), which lives in
//! [`mcpfn_protocol::model_name`] so that `mcp-runtime`'s
//! `--dump-tools anthropic|openai|openai-strict` maps a server's names the
//! same way (unprefixed, hashing with the server's own name): a host whose
//! config names the server the same, with no other server's tool meeting
//! its names, offers the same names as its dump.
//!
//! [`NameMap::build`] is the strict form, for tools that are the host's own
//! code (in-process `#[tool]` fns): any two tools meeting under one name,
//! or a tool listed twice, refuse the map ([`NameCollisions`] names both),
//! so the developer renames one; it never happens at call time.
//!
//! [`NameMap::resolve`] turns a model's name back into the server and MCP
//! name to call.

use std::collections::{BTreeMap, HashSet};
use std::fmt;

mod assign;
use assign::{HASH_ROUNDS, hashed};

/// A tool of one server: where a model name leads.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ToolRef {
    /// The server's config name.
    pub server: String,
    /// The tool's MCP name, as `tools/call` wants it.
    pub tool: String,
}

impl ToolRef {
    fn of((server, tool): (&str, &str)) -> ToolRef {
        ToolRef {
            server: server.to_owned(),
            tool: tool.to_owned(),
        }
    }
}

/// Two tools that preferred one model name (step 3 of the module docs), or
/// one tool its server lists twice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Collision {
    /// The name both preferred.
    pub model_name: String,
    /// The first of them in the order given to [`NameMap::assign`].
    pub first: ToolRef,
    /// The other one (the same as `first` when a server lists a tool twice).
    pub second: ToolRef,
}

/// Why [`NameMap::build`] refused a map: every collision found.
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
                    "tool `{}` of server `{}` and tool `{}` of server `{}` would both be offered to the model as `{}`; rename one of them",
                    c.first.tool, c.first.server, c.second.tool, c.second.server, c.model_name
                )?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for NameCollisions {}

/// The names [`NameMap::assign`] gave, and what it had to do to give them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Naming {
    /// Every offered tool and its name.
    pub map: NameMap,
    /// Every pair of tools that preferred one name (all but the one that
    /// keeps it are offered under a hashed name), and every tool listed
    /// twice (`first == second`), in the order given.
    pub collisions: Vec<Collision>,
    /// The tools offered under no name, once each: the tools a server
    /// lists twice (in the order given), then any tool whose hashed name
    /// still met another after every round (a SHA-256 collision, never
    /// seen).
    pub left_out: Vec<ToolRef>,
}

/// Model names and the tools they stand for, both ways.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NameMap {
    /// In the order given to [`NameMap::assign`].
    entries: Vec<(String, ToolRef)>,
    by_model: BTreeMap<String, usize>,
    by_tool: BTreeMap<ToolRef, usize>,
}

impl NameMap {
    /// The names of `tools`, each `(source name, MCP tool name)`, refused
    /// with every collision when two tools prefer one name or one is listed
    /// twice: the strict form, for tools that are the host's own code.
    ///
    /// ```
    /// use mcpfn_host::names::NameMap;
    ///
    /// let map = NameMap::build([("calc", "add"), ("calc", "files.read")]).unwrap();
    /// assert_eq!(map.model_name("calc", "files.read"), Some("files_read"));
    /// let refused = NameMap::build([("calc", "a.b"), ("calc", "a_b")]).unwrap_err();
    /// assert_eq!(refused.0[0].model_name, "a_b");
    /// ```
    pub fn build<'a>(
        tools: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<NameMap, NameCollisions> {
        let naming = NameMap::assign([], tools);
        // Every hashed or left-out tool comes from a collision.
        if naming.collisions.is_empty() {
            Ok(naming.map)
        } else {
            Err(NameCollisions(naming.collisions))
        }
    }

    /// Names for `tools` after a re-listing, where `self` holds every name
    /// given so far in this run: a tool named before keeps its name (and,
    /// through [`iter`](Self::iter), its place), even one that left and came
    /// back; a tool never named gets the name [`assign`](Self::assign)
    /// would give it among `tools`, unless a name given before holds it,
    /// then a hashed one. The returned map is `self` with the new names
    /// appended in the order of `tools`; its `collisions` and `left_out`
    /// are those of the new tools. So a tool list that changes while a
    /// conversation runs renames nothing the model has seen, and the
    /// tools before the first new one keep their bytes (prompt caches).
    ///
    /// ```
    /// use mcpfn_host::names::NameMap;
    ///
    /// let first = NameMap::assign(["a", "b"], [("a", "search")]).map;
    /// assert_eq!(first.model_name("a", "search"), Some("search"));
    /// // `b` now lists a `search` too: `a`'s keeps its name.
    /// let next = first.extend(["a", "b"], [("a", "search"), ("b", "search")]).map;
    /// assert_eq!(next.model_name("a", "search"), Some("search"));
    /// assert_eq!(next.model_name("b", "search"), Some("b__search"));
    /// ```
    pub fn extend<'a>(
        &self,
        servers: impl IntoIterator<Item = &'a str>,
        tools: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Naming {
        let tools: Vec<(&str, &str)> = tools.into_iter().collect();
        let fresh = NameMap::assign(servers, tools.iter().copied());
        let mut map = self.clone();
        let mut left_out = fresh.left_out;
        let twice: HashSet<&ToolRef> = fresh
            .collisions
            .iter()
            .filter(|c| c.first == c.second)
            .map(|c| &c.first)
            .collect();
        for (name, tool) in fresh.map.iter() {
            if map.by_tool.contains_key(tool) || twice.contains(tool) {
                continue;
            }
            let taken = |name: &str| map.by_model.contains_key(name);
            let name = if !taken(name) {
                Some(name.to_owned())
            } else {
                (0..HASH_ROUNDS)
                    .map(|round| hashed(name, &tool.server, &tool.tool, round))
                    .find(|candidate| !taken(candidate))
            };
            let Some(name) = name else {
                left_out.push(tool.clone());
                continue;
            };
            let index = map.entries.len();
            map.by_model.insert(name.clone(), index);
            map.by_tool.insert(tool.clone(), index);
            map.entries.push((name, tool.clone()));
        }
        Naming {
            map,
            collisions: fresh.collisions,
            left_out,
        }
    }

    /// The map of the entries `keep` accepts, in their order.
    pub(crate) fn retain(&self, mut keep: impl FnMut(&str, &ToolRef) -> bool) -> NameMap {
        let mut map = NameMap::default();
        for (name, tool) in &self.entries {
            if keep(name, tool) {
                let index = map.entries.len();
                map.by_model.insert(name.clone(), index);
                map.by_tool.insert(tool.clone(), index);
                map.entries.push((name.clone(), tool.clone()));
            }
        }
        map
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

    /// `(model name, tool)` pairs in the order given to [`NameMap::assign`].
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
    use mcpfn_protocol::model_name::{HASH_HEX, MAX_MODEL_NAME_LEN, is_model_safe, model_name};
    use std::collections::BTreeSet;

    fn build(tools: &[(&str, &str)]) -> Result<NameMap, NameCollisions> {
        NameMap::build(tools.iter().copied())
    }

    #[test]
    fn a_re_listing_keeps_every_name_given_and_appends_new_ones() {
        let first = NameMap::assign(["a", "b"], [("a", "search"), ("a", "files.read")]).map;
        // `b` lists `search` too, `a` drops `files.read`, then lists it again.
        let second = first.extend(["a", "b"], [("a", "search"), ("b", "search")]);
        assert_eq!(second.map.model_name("a", "search"), Some("search"));
        assert_eq!(second.map.model_name("b", "search"), Some("b__search"));
        let order: Vec<&str> = second.map.iter().map(|(name, _)| name).collect();
        assert_eq!(order, ["search", "files_read", "b__search"]);
        let third = second.map.extend(
            ["a", "b"],
            [("a", "search"), ("a", "files.read"), ("b", "search")],
        );
        assert_eq!(third.map, second.map);
        // A new tool whose name a tool of this run had is hashed instead.
        let fourth = third.map.extend(["a", "b", "c"], [("c", "files_read")]);
        let hashed = fourth.map.model_name("c", "files_read").unwrap();
        assert!(
            hashed.starts_with("files_read_") && hashed.len() == 19,
            "{hashed}"
        );
        assert_eq!(fourth.map.resolve("files_read").unwrap().server, "a");
        // A tool now listed twice is left out, not offered.
        let twice = first.extend(["a"], [("a", "new"), ("a", "new")]);
        assert_eq!(twice.left_out.len(), 1);
        assert_eq!(twice.map.model_name("a", "new"), None);
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
    fn a_crafted_name_matching_a_prefixed_one_gets_its_own_servers_prefix() {
        // A hostile server offers `github__search` so that github's own
        // `search`, prefixed because `evil` has one too, would route to it.
        let map = build(&[
            ("github", "search"),
            ("evil", "search"),
            ("evil", "github__search"),
        ])
        .unwrap();
        assert_eq!(map.resolve("github__search").unwrap().server, "github");
        assert_eq!(
            map.model_name("evil", "github__search"),
            Some("evil__github__search")
        );
        // Even when github has no `search` to prefix, and even when it did
        // not start (it is only configured): its space stays its own.
        let naming = NameMap::assign(["github", "evil"], [("evil", "github__search")]);
        assert_eq!(
            naming.map.model_name("evil", "github__search"),
            Some("evil__github__search")
        );
        assert!(naming.collisions.is_empty() && naming.left_out.is_empty());
        // A server's own prefix is not reserved against itself, so a server
        // alone keeps its `--dump-tools` names.
        let alone = build(&[("github", "github__search")]).unwrap();
        assert_eq!(
            alone.model_name("github", "github__search"),
            Some("github__search")
        );
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
        // From a server: neither keeps the name (both changed it), so both
        // are told apart by a second hash.
        let naming = NameMap::assign([], [("s", a.as_str()), ("s", b.as_str())]);
        let (name_a, name_b) = (
            naming.map.model_name("s", &a).unwrap(),
            naming.map.model_name("s", &b).unwrap(),
        );
        assert_ne!(name_a, name_b);
        assert!(is_model_safe(name_a) && is_model_safe(name_b));
        assert_eq!(naming.map.resolve(name_a).unwrap().tool, a);
        assert_eq!(naming.map.resolve(name_b).unwrap().tool, b);
    }

    #[test]
    fn names_of_two_servers_that_meet_after_mapping_are_prefixed() {
        let map = build(&[("a", "files.read"), ("b", "files_read"), ("b", "other")]).unwrap();
        assert_eq!(map.model_name("a", "files.read"), Some("a__files_read"));
        assert_eq!(map.model_name("b", "files_read"), Some("b__files_read"));
        assert_eq!(map.model_name("b", "other"), Some("other"));
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

    fn assign(servers: &[&str], tools: &[(&str, &str)]) -> Naming {
        NameMap::assign(servers.iter().copied(), tools.iter().copied())
    }

    /// Every name is model-safe, unique, and resolves to its tool.
    fn assert_sound(naming: &Naming, tools: &[(&str, &str)]) {
        let mut names = BTreeSet::new();
        for (name, tool) in naming.map.iter() {
            assert!(is_model_safe(name), "{name}");
            assert!(names.insert(name), "{name} given twice");
            assert_eq!(naming.map.resolve(name), Some(tool));
            assert!(tools.contains(&(tool.server.as_str(), tool.tool.as_str())));
        }
        for &(server, tool) in tools {
            let named = naming.map.model_name(server, tool).is_some();
            let out = naming.left_out.contains(&ToolRef::of((server, tool)));
            assert!(
                named != out,
                "{server}/{tool}: named {named}, left out {out}"
            );
        }
    }

    /// The three cases of issue 30: each server's other tools stay, and
    /// nothing is refused.
    #[test]
    fn the_attacks_of_issue_30_leave_out_only_the_tool_listed_twice() {
        let tools = [
            ("twice", "attack"),
            ("twice", "attack"),
            ("twice", "other"),
            ("good", "get_weather"),
            ("evil", "get_weather"),
            ("evil", "good__get_weather"),
            ("admin", "admin.tools.list"),
            ("admin", "admin_tools_list"),
        ];
        let naming = assign(&["twice", "good", "evil", "admin"], &tools);
        assert_sound(&naming, &tools);
        assert_eq!(naming.left_out, [ToolRef::of(("twice", "attack"))]);
        let map = &naming.map;
        let names: Vec<&str> = map.iter().map(|(name, _)| name).collect();
        assert_eq!(
            names,
            [
                "other",
                "good__get_weather",
                "evil__get_weather",
                "evil__good__get_weather",
                "admin_tools_list_38f0faf7",
                "admin_tools_list",
            ]
        );
        assert_eq!(map.resolve("good__get_weather").unwrap().server, "good");
        assert_eq!(
            map.resolve("admin_tools_list_38f0faf7").unwrap().tool,
            "admin.tools.list"
        );
        assert_eq!(
            map.resolve("admin_tools_list").unwrap().tool,
            "admin_tools_list"
        );
        // One collision per case a tool met another: `attack` with itself,
        // the two admin tools.
        assert_eq!(naming.collisions.len(), 2, "{:?}", naming.collisions);
        // The strict form refuses the same tools.
        let refused = NameMap::build(tools).unwrap_err().to_string();
        assert!(refused.contains("lists tool `attack` twice"), "{refused}");
        assert!(refused.contains("`admin.tools.list`"), "{refused}");
    }

    /// A tool listed three times is left out once; one listed twice takes
    /// no part in the rest (another server's `attack` stays unprefixed).
    #[test]
    fn a_tool_listed_many_times_is_left_out_once_and_frees_its_name() {
        let tools = [
            ("twice", "attack"),
            ("twice", "attack"),
            ("twice", "attack"),
            ("other", "attack"),
        ];
        let naming = assign(&[], &tools);
        assert_sound(&naming, &tools);
        assert_eq!(naming.left_out, [ToolRef::of(("twice", "attack"))]);
        assert_eq!(naming.collisions.len(), 1);
        assert_eq!(naming.map.model_name("other", "attack"), Some("attack"));
    }

    /// Same tools, any order of servers and tools, any run: same names.
    #[test]
    fn names_do_not_depend_on_the_order_of_servers_or_tools() {
        let tools = [
            ("a", "x.y"),
            ("a", "x_y"),
            ("b", "x.y"),
            ("b", "a__x_y"),
            ("c", "a__x_y"),
            ("c", "查天气"),
            ("c", "tool_X"),
            ("c", "dup"),
            ("c", "dup"),
        ];
        let servers = ["a", "b", "c", "d"];
        let reference = assign(&servers, &tools);
        assert_sound(&reference, &tools);
        let sorted = |naming: &Naming| -> BTreeMap<ToolRef, String> {
            naming
                .map
                .iter()
                .map(|(name, tool)| (tool.clone(), name.to_owned()))
                .collect()
        };
        let expected = sorted(&reference);
        // Every rotation and its reverse, of tools and servers.
        for shift in 0..tools.len() {
            let mut turned = tools.to_vec();
            turned.rotate_left(shift);
            let mut turned_servers = servers.to_vec();
            turned_servers.rotate_left(shift % servers.len());
            for reverse in [false, true] {
                if reverse {
                    turned.reverse();
                    turned_servers.reverse();
                }
                let naming = assign(&turned_servers, &turned);
                assert_eq!(sorted(&naming), expected, "{turned:?}");
                let mut out = naming.left_out.clone();
                out.sort();
                assert_eq!(out, [ToolRef::of(("c", "dup"))]);
            }
        }
        // A restart is a new build of the same listing: the same names.
        assert_eq!(assign(&servers, &tools), reference);
    }

    /// Fixed values, so a change to the rules is a visible change: a change
    /// here renames users' tools across a restart.
    #[test]
    fn the_hashed_names_are_fixed_values() {
        let naming = assign(&["s"], &[("s", "a.b"), ("s", "a_b"), ("s", "a/b")]);
        let map = &naming.map;
        assert_eq!(map.model_name("s", "a_b"), Some("a_b"));
        assert_eq!(map.model_name("s", "a.b"), Some("a_b_1eccd3bd"));
        assert_eq!(map.model_name("s", "a/b"), Some("a_b_2bc1c745"));
        // Another server's tool does not change them.
        let more = assign(
            &["s", "t"],
            &[("s", "a.b"), ("s", "a_b"), ("s", "a/b"), ("t", "c")],
        );
        for (name, tool) in map.iter() {
            assert_eq!(more.map.model_name(&tool.server, &tool.tool), Some(name));
        }
    }

    /// A server that lists the very name a hashed tool would get pushes the
    /// hashed one to the next round; neither takes the other's calls.
    #[test]
    fn a_name_crafted_to_meet_a_hashed_one_is_hashed_again() {
        let first = assign(&[], &[("s", "a.b"), ("s", "a_b")]);
        let hashed = first.map.model_name("s", "a.b").unwrap().to_owned();
        let tools = [("s", "a.b"), ("s", "a_b"), ("s", hashed.as_str())];
        let naming = assign(&[], &tools);
        assert_sound(&naming, &tools);
        assert_eq!(naming.map.resolve(&hashed).unwrap().tool, hashed);
        let again = naming.map.model_name("s", "a.b").unwrap();
        assert_ne!(again, hashed);
        assert!(again.starts_with("a_b_") && again.len() == 12, "{again}");
    }

    /// `good_` and `good.` of `evil` meet as `good_`; the hashed one would
    /// start with `good__`, so it is made from `evil__good_` instead.
    #[test]
    fn a_hashed_name_stays_out_of_another_servers_space() {
        let tools = [("evil", "good_"), ("evil", "good."), ("good", "t")];
        let naming = assign(&["good", "evil"], &tools);
        assert_sound(&naming, &tools);
        assert_eq!(naming.map.model_name("evil", "good_"), Some("good_"));
        let hashed = naming.map.model_name("evil", "good.").unwrap();
        assert!(hashed.starts_with("evil__good__"), "{hashed}");
        assert_eq!(hashed.len(), "evil__good__".len() + HASH_HEX);
    }

    /// Long names, separators and Unicode that all meet after mapping, on
    /// servers whose names are each other's prefixes: still one distinct,
    /// safe name each, the same whatever the order.
    #[test]
    fn names_that_meet_in_every_way_still_get_distinct_names() {
        let long = "n".repeat(120);
        let long_dot = format!("{}.{}", "n".repeat(60), "n".repeat(59));
        let servers = ["a", "a__b", "a b", "a_b", "é"];
        let mut tools: Vec<(&str, &str)> = Vec::new();
        for server in servers {
            for tool in [
                "t",
                "b__t",
                "a__b__t",
                "a_b__t",
                "t.x",
                "t_x",
                "t x",
                "查",
                "tool",
                long.as_str(),
                long_dot.as_str(),
                "",
            ] {
                tools.push((server, tool));
            }
        }
        let naming = assign(&servers, &tools);
        assert_sound(&naming, &tools);
        assert!(naming.left_out.is_empty(), "{:?}", naming.left_out);
        assert_eq!(naming.map.len(), tools.len());
        tools.reverse();
        let reversed = assign(&servers, &tools);
        for (name, tool) in naming.map.iter() {
            assert_eq!(
                reversed.map.model_name(&tool.server, &tool.tool),
                Some(name)
            );
        }
    }

    #[cfg(feature = "local")]
    mod dump_agreement {
        use crate::catalog::{Catalog, CatalogOptions, LocalSource, ToolSource};
        use mcpfn_runtime::{DumpFormat, Server, tool, tools};
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

        /// Read a file, the other way.
        #[tool(name = "files_read")]
        async fn read_too(
            /// The path
            path: String,
        ) -> String {
            path
        }

        /// The host's own tools meeting under one name refuse the catalog:
        /// the developer renames one (a server's would be hashed).
        #[tokio::test]
        async fn in_process_tools_that_meet_refuse_the_catalog() {
            let server = Server::new("mine", "1").tools(tools![read, read_too]);
            let source: Arc<dyn ToolSource> =
                Arc::new(LocalSource::new("mine", server.local().unwrap()));
            let error = Catalog::from_sources(vec![source], CatalogOptions::default())
                .await
                .unwrap_err();
            let crate::catalog::CatalogError::Collisions(collisions) = &error else {
                panic!("{error}");
            };
            assert_eq!(collisions.0[0].model_name, "files_read");
            assert!(error.to_string().contains("`files.read`"), "{error}");
            // The collisions are the cause, for a reader of the chain.
            let cause = std::error::Error::source(&error).unwrap();
            assert_eq!(cause.to_string(), collisions.to_string());
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
            let mut offered = names(
                &crate::provider::anthropic::tools(&catalog.offers()),
                "/name",
            );
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
