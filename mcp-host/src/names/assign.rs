//! The assignment of model names ([`NameMap::assign`]): steps 1 to 4 of
//! the [module docs](super), and the hash suffix that tells meeting names
//! apart.

use super::{Collision, NameMap, Naming, ToolRef};
use sha2::{Digest, Sha256};
use std::collections::{BTreeSet, HashMap, HashSet};

// The per-name function lives in mcp-protocol (its one public path) so
// that mcp-runtime's `--dump-tools` model formats map names exactly as
// this catalog does.
use mcpfn_protocol::model_name::{HASH_HEX, MAX_MODEL_NAME_LEN, PREFIX_SEPARATOR, model_name};

/// How many times a hashed name that meets a name already given is hashed
/// again before the tool is left out. Each round meets only by a SHA-256
/// collision on 32 bits against a name already taken (or one crafted for
/// it by a server knowing its config name), so a second round is already
/// rare; past these the tool is left out rather than looping.
pub(super) const HASH_ROUNDS: u32 = 8;

impl NameMap {
    /// A name for every tool of `tools` (each `(server config name, MCP
    /// tool name)`) but those a server lists twice, by the rules of the
    /// module docs; never fails. `servers` are the configured servers whose
    /// `{server}__` prefixes are reserved besides those of `tools` (list
    /// them all, started or not, so that a server that failed to start
    /// today does not change tomorrow's names).
    ///
    /// ```
    /// use mcpfn_host::names::NameMap;
    ///
    /// let naming = NameMap::assign(
    ///     ["good", "evil", "admin"],
    ///     [
    ///         ("good", "get_weather"),
    ///         ("evil", "get_weather"),
    ///         ("evil", "good__get_weather"),
    ///         ("admin", "admin.tools.list"),
    ///         ("admin", "admin_tools_list"),
    ///     ],
    /// );
    /// let map = &naming.map;
    /// assert_eq!(map.model_name("good", "get_weather"), Some("good__get_weather"));
    /// assert_eq!(map.model_name("evil", "get_weather"), Some("evil__get_weather"));
    /// assert_eq!(
    ///     map.model_name("evil", "good__get_weather"),
    ///     Some("evil__good__get_weather")
    /// );
    /// assert_eq!(map.model_name("admin", "admin_tools_list"), Some("admin_tools_list"));
    /// let hashed = map.model_name("admin", "admin.tools.list").unwrap();
    /// assert!(hashed.starts_with("admin_tools_list_") && hashed.len() == 25);
    /// assert_eq!(map.resolve(hashed).unwrap().tool, "admin.tools.list");
    /// ```
    pub fn assign<'a>(
        servers: impl IntoIterator<Item = &'a str>,
        tools: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Naming {
        let tools: Vec<(&str, &str)> = tools.into_iter().collect();
        // Step 4 first: a tool listed twice is out, and takes no part in the
        // rest (its name is free for the others).
        let mut seen = HashSet::with_capacity(tools.len());
        let mut twice = HashSet::new();
        let mut collisions = Vec::new();
        let mut left_out = Vec::new();
        for &tool in &tools {
            if !seen.insert(tool) && twice.insert(tool) {
                collisions.push(Collision {
                    model_name: model_name(tool.0, tool.1, false),
                    first: ToolRef::of(tool),
                    second: ToolRef::of(tool),
                });
                left_out.push(ToolRef::of(tool));
            }
        }
        drop(seen);
        let unique: Vec<(&str, &str)> = if twice.is_empty() {
            tools
        } else {
            tools
                .into_iter()
                .filter(|tool| !twice.contains(tool))
                .collect()
        };

        // Step 1: today's mapping, prefixed where servers share a name.
        let unprefixed: Vec<String> = unique
            .iter()
            .map(|&(server, tool)| model_name(server, tool, false))
            .collect();
        let mut servers_of: HashMap<&str, BTreeSet<&str>> = HashMap::new();
        let mut servers_under: HashMap<&str, BTreeSet<&str>> = HashMap::new();
        for (&(server, tool), name) in unique.iter().zip(&unprefixed) {
            servers_of.entry(tool).or_default().insert(server);
            servers_under.entry(name).or_default().insert(server);
        }
        // Step 2: the prefixes of every server, as the mapping writes them.
        let servers: BTreeSet<&str> = servers
            .into_iter()
            .chain(unique.iter().map(|t| t.0))
            .collect();
        let mut prefixes = Prefixes {
            owners: HashMap::new(),
            longest: 0,
        };
        for server in servers {
            let mapped = mapped_server(server);
            prefixes.longest = prefixes.longest.max(mapped.len());
            prefixes.owners.entry(mapped).or_default().insert(server);
        }
        let prefixed: Vec<bool> = unique
            .iter()
            .zip(&unprefixed)
            .map(|(&(server, tool), unprefixed)| {
                servers_of[tool].len() > 1
                    || servers_under[unprefixed.as_str()].len() > 1
                    || in_another_servers_space(unprefixed, server, &prefixes)
            })
            .collect();
        drop((servers_of, servers_under));
        let preferred: Vec<Preferred> = unique
            .iter()
            .zip(unprefixed)
            .zip(prefixed)
            .map(|((&(server, tool), unprefixed), prefixed)| {
                if prefixed {
                    let name = model_name(server, tool, true);
                    let unchanged = name.len()
                        == server.len() + PREFIX_SEPARATOR.len() + tool.len()
                        && name == format!("{server}{PREFIX_SEPARATOR}{tool}");
                    Preferred { name, unchanged }
                } else {
                    let unchanged = unprefixed == tool;
                    Preferred {
                        name: unprefixed,
                        unchanged,
                    }
                }
            })
            .collect();

        // Step 3: a name preferred once is given; one preferred by several
        // goes to the one tool it leaves unchanged, if exactly one. The
        // tools sorted by name, ties in the order given, make the groups.
        let mut by_name: Vec<usize> = (0..unique.len()).collect();
        by_name
            .sort_unstable_by(|&a, &b| preferred[a].name.cmp(&preferred[b].name).then(a.cmp(&b)));
        let mut given: Vec<Option<String>> = vec![None; unique.len()];
        let mut pending: Vec<usize> = Vec::new();
        let mut met: Vec<(usize, Collision)> = Vec::new();
        for group in by_name.chunk_by(|&a, &b| preferred[a].name == preferred[b].name) {
            let name = &preferred[group[0]].name;
            if let [index] = group[..] {
                given[index] = Some(name.clone());
                continue;
            }
            let first = group[0];
            for &other in &group[1..] {
                met.push((
                    other,
                    Collision {
                        model_name: name.clone(),
                        first: ToolRef::of(unique[first]),
                        second: ToolRef::of(unique[other]),
                    },
                ));
            }
            let mut unchanged = group.iter().copied().filter(|&i| preferred[i].unchanged);
            let keeper = match (unchanged.next(), unchanged.next()) {
                (Some(keeper), None) => Some(keeper),
                _ => None,
            };
            if let Some(keeper) = keeper {
                given[keeper] = Some(name.clone());
            }
            pending.extend(group.iter().copied().filter(|&i| Some(i) != keeper));
        }
        // In the order given, whatever the order of the names.
        met.sort_by_key(|(other, _)| *other);
        collisions.extend(met.into_iter().map(|(_, c)| c));
        pending.sort_unstable();
        // A round's names are given only where they meet no preferred name
        // (given or not: simpler, and as deterministic), no name an earlier
        // round gave and no other name of the round, so the outcome depends
        // on the set of tools, never on their order.
        let preferred_exists = |name: &str| {
            by_name
                .binary_search_by(|&i| preferred[i].name.as_str().cmp(name))
                .is_ok()
        };
        let mut hashed_given: HashSet<String> = HashSet::new();
        for round in 0..HASH_ROUNDS {
            if pending.is_empty() {
                break;
            }
            let candidates: Vec<(usize, String)> = pending
                .iter()
                .map(|&i| {
                    let (server, tool) = unique[i];
                    let mut name = hashed(&preferred[i].name, server, tool, round);
                    // `good_` hashed is `good__…`: in `good`'s space.
                    if in_another_servers_space(&name, server, &prefixes) {
                        let prefixed = model_name(server, tool, true);
                        name = hashed(&prefixed, server, tool, round);
                    }
                    (i, name)
                })
                .collect();
            let mut count: HashMap<&str, usize> = HashMap::with_capacity(candidates.len());
            for (_, name) in &candidates {
                *count.entry(name.as_str()).or_default() += 1;
            }
            let mut next = Vec::new();
            let mut fresh = Vec::new();
            for (i, name) in &candidates {
                if count[name.as_str()] > 1 || hashed_given.contains(name) || preferred_exists(name)
                {
                    next.push(*i);
                } else {
                    fresh.push((*i, name.clone()));
                }
            }
            for (i, name) in fresh {
                hashed_given.insert(name.clone());
                given[i] = Some(name);
            }
            pending = next;
        }
        left_out.extend(pending.iter().map(|&i| ToolRef::of(unique[i])));

        let mut map = NameMap {
            entries: Vec::with_capacity(unique.len()),
            ..NameMap::default()
        };
        for (&tool, name) in unique.iter().zip(given) {
            let Some(name) = name else { continue };
            let target = ToolRef::of(tool);
            let index = map.entries.len();
            map.by_model.insert(name.clone(), index);
            map.by_tool.insert(target.clone(), index);
            map.entries.push((name, target));
        }
        Naming {
            map,
            collisions,
            left_out,
        }
    }
}

/// A tool's name before step 3.
struct Preferred {
    name: String,
    /// Whether `name` is the tool's MCP name (or `{server}__{tool}`) as it
    /// is: the tool that keeps a name several prefer.
    unchanged: bool,
}

/// `server` as the mapping writes it in front of `__`: each character the
/// APIs refuse becomes `_`, runs of refused non-separators one `_`
/// ([`model_name`] maps the server part of `{server}__{tool}` so).
fn mapped_server(server: &str) -> String {
    let mut mapped = String::with_capacity(server.len());
    let mut in_run = false;
    for c in server.chars() {
        if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
            mapped.push(c);
            in_run = false;
        } else if matches!(c, '.' | '/' | ':' | ' ') {
            mapped.push('_');
            in_run = false;
        } else {
            if !in_run {
                mapped.push('_');
            }
            in_run = true;
        }
    }
    mapped
}

/// Whether `name` starts with `{other}__` for a server `other` than
/// `server`: a look-up per `__` in the name, not a scan of the servers.
fn in_another_servers_space(name: &str, server: &str, prefixes: &Prefixes<'_>) -> bool {
    name.as_bytes()
        .windows(2)
        .enumerate()
        // No server's prefix is longer: a name of 64 underscores costs a
        // few look-ups, not 63 of up to 63 bytes each.
        .take(prefixes.longest + 1)
        .filter(|&(i, pair)| i > 0 && pair == b"__")
        .any(|(i, _)| {
            prefixes
                .owners
                .get(&name[..i])
                .is_some_and(|owners| owners.iter().any(|owner| *owner != server))
        })
}

/// Every server's name as the mapping writes it before `__`, and the
/// servers it stands for (`my server` and `my_server` share one).
struct Prefixes<'a> {
    owners: HashMap<String, BTreeSet<&'a str>>,
    /// The longest of them.
    longest: usize,
}

/// Step 3's name: `preferred`, cut to leave room, `_`, and 8 hex digits of
/// a SHA-256 of the round, the server and the MCP name (length-prefixed, so
/// no two pairs hash one input; tagged, so it never repeats the mapping's
/// own suffix).
pub(super) fn hashed(preferred: &str, server: &str, tool: &str, round: u32) -> String {
    let mut hasher = Sha256::new();
    hasher.update(b"mcp-host tool name\0");
    hasher.update(round.to_be_bytes());
    hasher.update((server.len() as u64).to_be_bytes());
    hasher.update(server.as_bytes());
    hasher.update(tool.as_bytes());
    let digest = hasher.finalize();
    let keep = preferred.len().min(MAX_MODEL_NAME_LEN - 1 - HASH_HEX);
    // `preferred` is a mapped name, ASCII: any index is a char boundary.
    let mut name = String::with_capacity(keep + 1 + HASH_HEX);
    name.push_str(&preferred[..keep]);
    name.push('_');
    for byte in &digest[..HASH_HEX / 2] {
        name.push_str(&format!("{byte:02x}"));
    }
    name
}
