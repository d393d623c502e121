//! Which tools each request offers ([`Offering`]).
//!
//! While the catalog fits both the API's tool-count limit
//! ([`Provider::max_tools`]: 128 functions for OpenAI's Chat Completions,
//! 10,000 tools for Anthropic's Messages) and the budget for tool
//! definitions ([`AgentBuilder::max_tool_tokens`](super::AgentBuilder::max_tool_tokens),
//! estimated as the definitions' JSON bytes / 4; no budget by default),
//! every request offers every tool. Past either, tools are offered **on
//! demand**, with a warning saying why:
//!
//! - where the API has a tool search of its own
//!   ([`Provider::deferred_tools`]: Anthropic's tool search tool), every
//!   tool is sent with `defer_loading: true` except the ones kept loaded,
//!   plus the API's search tool. The API searches, loads what it finds and
//!   the model calls it in the same response; the `server_tool_use` and
//!   `tool_search_tool_result` blocks stay in the history as returned. The
//!   tools' bytes are the same on every request.
//! - otherwise (OpenAI's Chat Completions) the host offers a search tool of
//!   its own, `search_tools` (`{"query": string}`; another name if a catalog
//!   tool has that one), and the tools kept loaded. The host answers a
//!   search from the same catalog ([`rank`]: words of the query against the
//!   tools' names and descriptions), at most [`SEARCH_RESULTS`] tools, and
//!   the tools found are offered from the next request of that conversation
//!   on ([`FoundTools`]), appended in the order found so each request's
//!   tools are a prefix of the next one's (prompt caches hold), never past
//!   the API's limit. A search is not put to the approver (it reads the
//!   catalog, nothing else); it appears in an answer's `tool_calls` under
//!   the search tool's name with server `""`.
//!
//! Only what a conversation was offered runs: with tools on demand, a call
//! of a tool neither kept loaded nor found by a search of that
//! conversation (the host's, or the API's: its `tool_reference`s,
//! [`Provider::searched_tools`]) is not run and never reaches its server;
//! the model gets an `isError` result saying how to find it
//! (`not_offered`). A found tool whose server was switched off
//! ([`Agent::set_offered`](super::Agent::set_offered)) leaves the requests
//! with the rest of its server's tools.
//!
//! The tools kept loaded are the ones named with
//! [`AgentBuilder::always_loaded`](super::AgentBuilder::always_loaded), else
//! the first [`DEFAULT_ALWAYS_LOADED`] of the host's own in-process tools
//! ([`ToolSource::in_process`](crate::catalog::ToolSource::in_process)): code
//! the developer put there on purpose. A configured server's tools are all
//! on demand.

use crate::catalog::Catalog;
use crate::provider::Provider;
use crate::tool_offer::ToolOffer;
use serde_json::Value;
use std::borrow::Cow;
use std::collections::BTreeSet;

mod search;
pub(super) use search::LocalSearch;
pub use search::rank;
use search::search_offer;

/// The most tools one local search returns.
pub const SEARCH_RESULTS: usize = 5;
/// The local search tool's name, unless a catalog tool has it (then
/// `search_tools_2`, `_3`, …).
pub const SEARCH_TOOL: &str = "search_tools";
/// How many in-process tools stay loaded when tools are offered on demand
/// and [`AgentBuilder::always_loaded`](super::AgentBuilder::always_loaded)
/// names none.
pub const DEFAULT_ALWAYS_LOADED: usize = 5;

/// How an agent offers its tools.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Offering {
    /// Every tool of the catalog, on every request.
    All,
    /// The API's own tool search: `loaded` tools as usual, `deferred` ones
    /// with deferred loading, and the API's search tool.
    ApiSearch {
        /// Tools sent as usual.
        loaded: usize,
        /// Tools sent with `defer_loading: true`.
        deferred: usize,
    },
    /// The host's search tool, `tool`, and `loaded` tools; up to `room`
    /// tools found by searching are added per conversation.
    LocalSearch {
        /// The search tool's name.
        tool: String,
        /// Tools always offered besides the search tool.
        loaded: usize,
        /// How many found tools a conversation's requests can carry.
        room: usize,
    },
}

/// The tools one conversation's searches found, offered after the agent's
/// own on each of its later requests (local search only).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FoundTools {
    names: Vec<String>,
    tools: Vec<Value>,
    /// The deferred tools the API's own search found (API search only).
    by_api: BTreeSet<String>,
}

impl FoundTools {
    /// The model names of the tools found, in the order found.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Whether a search of the conversation found `name` (the host's or
    /// the API's).
    pub fn contains(&self, name: &str) -> bool {
        self.by_api.contains(name) || self.names.iter().any(|n| n == name)
    }

    /// Records what the API's search found in a response's `message`; only
    /// names of `deferred` tools are kept (so at most the catalog's).
    pub(super) fn add_searched(
        &mut self,
        provider: &dyn Provider,
        message: &Value,
        deferred: &dyn Fn(&str) -> bool,
    ) {
        for name in provider.searched_tools(message) {
            if deferred(&name) {
                self.by_api.insert(name);
            }
        }
    }
}

/// Why a call of `name` is not run: tools are on demand (`loaded`, the
/// names every request offers, is `Some`) and the conversation was neither
/// offered `name` outright nor found it; `None` when it may run. The
/// reason tells the model how to find it: with `search`, the host's search
/// tool's name, else the API's tool search.
pub(super) fn not_offered(
    loaded: Option<&BTreeSet<String>>,
    found: &FoundTools,
    search: Option<&str>,
    name: &str,
) -> Option<String> {
    let loaded = loaded?;
    if loaded.contains(name) || found.contains(name) {
        return None;
    }
    let how = match search {
        Some(search) => format!("call `{search}` to find it first"),
        None => "search for it with the tool search first".to_owned(),
    };
    Some(format!(
        "`{name}` was not offered in this conversation; {how}, then call it"
    ))
}

/// What decides the offering besides the provider's limit: a budget for
/// the definitions' tokens, and the tools kept loaded when on demand.
#[derive(Clone, Debug, Default)]
pub(super) struct Settings {
    pub(super) max_tool_tokens: Option<usize>,
    pub(super) always_loaded: Option<Vec<String>>,
}

/// What [`plan`] decided: the offering, the tools every request carries,
/// and the local search when there is one.
#[derive(Debug)]
pub(super) struct Plan {
    pub(super) offering: Offering,
    pub(super) tools: Vec<Value>,
    pub(super) search: Option<LocalSearch>,
    /// On demand: the model names every request offers (the rest must be
    /// found first); `None`: every tool is offered.
    pub(super) loaded: Option<BTreeSet<String>>,
}

/// The definitions' estimated tokens: their JSON bytes / 4, rounded up.
pub fn estimated_tokens(tools: &[Value]) -> usize {
    tools
        .iter()
        .map(|tool| serde_json::to_vec(tool).map_or(0, |bytes| bytes.len()))
        .sum::<usize>()
        .div_ceil(4)
}

/// Decides how `catalog`'s tools are offered through `provider` (see the
/// module docs).
pub(super) fn plan(
    provider: &dyn Provider,
    catalog: &Catalog,
    max_tool_tokens: Option<usize>,
    always_loaded: Option<&[String]>,
) -> Plan {
    let offers = catalog.offers();
    let all = provider.tools(&offers);
    let limit = provider.max_tools().max(1);
    let tokens = estimated_tokens(&all);
    let over_count = all.len() > limit;
    let over_budget = max_tool_tokens.is_some_and(|budget| tokens > budget);
    if !over_count && !over_budget {
        return Plan {
            offering: Offering::All,
            tools: all,
            search: None,
            loaded: None,
        };
    }
    let why = if over_count {
        format!("more than the API takes in one request ({limit})")
    } else {
        format!(
            "about {tokens} tokens of definitions, over the budget of {}",
            max_tool_tokens.unwrap_or_default()
        )
    };
    // The search tool takes one place.
    let keep = |index: usize, offer: &ToolOffer| match always_loaded {
        Some(names) => names.contains(&offer.name),
        None => {
            let tool = &catalog.tools()[index];
            catalog.in_process(&tool.server)
        }
    };
    let most_loaded = match always_loaded {
        Some(_) => limit - 1,
        None => DEFAULT_ALWAYS_LOADED.min(limit - 1),
    };
    let (mut loaded, mut rest) = (Vec::new(), Vec::new());
    for (index, offer) in offers.iter().enumerate() {
        if loaded.len() < most_loaded && keep(index, offer) {
            loaded.push(offer.clone());
        } else {
            rest.push(offer.clone());
        }
    }
    let room = limit - 1 - loaded.len();
    let loaded_names = Some(loaded.iter().map(|offer| offer.name.clone()).collect());
    if let Some(tools) = provider.deferred_tools(&loaded, &rest[..rest.len().min(room)]) {
        if rest.len() > room {
            tracing::warn!(
                "{} tools left out: the API takes at most {limit} tools in one request, deferred ones included",
                rest.len() - room
            );
        }
        tracing::warn!(
            "{} tools are {why}: offering them through the API's tool search, {} kept loaded",
            offers.len(),
            loaded.len()
        );
        return Plan {
            offering: Offering::ApiSearch {
                loaded: loaded.len(),
                deferred: rest.len().min(room),
            },
            tools,
            search: None,
            loaded: loaded_names,
        };
    }
    let name = free_name(catalog);
    let mut tools = provider.tools(&[search_offer(&name)]);
    tools.extend(provider.tools(&loaded));
    tracing::warn!(
        "{} tools are {why}: offering a search tool (`{name}`) and {} tools kept loaded; each conversation adds what it finds, up to {room}",
        offers.len(),
        loaded.len()
    );
    Plan {
        offering: Offering::LocalSearch {
            tool: name.clone(),
            loaded: loaded.len(),
            room,
        },
        tools,
        search: Some(LocalSearch { name, offers, room }),
        loaded: loaded_names,
    }
}

/// `search_tools`, or the first of `search_tools_2`, `_3`, … no catalog
/// tool has.
fn free_name(catalog: &Catalog) -> String {
    let mut name = SEARCH_TOOL.to_owned();
    let mut n = 1;
    while catalog.tool(&name).is_some() {
        n += 1;
        name = format!("{SEARCH_TOOL}_{n}");
    }
    name
}
/// The tools one request of a conversation offers: the agent's, then what
/// the conversation's searches found and the catalog still `offers` (a
/// server switched off takes its found tools out too).
pub(super) fn request_tools<'a>(
    tools: &'a [Value],
    found: &FoundTools,
    offers: &dyn Fn(&str) -> bool,
) -> Cow<'a, [Value]> {
    if found.tools.is_empty() {
        Cow::Borrowed(tools)
    } else {
        // `names` and `tools` are pushed together, one tool per name.
        let found = found
            .names
            .iter()
            .zip(&found.tools)
            .filter(|(name, _)| offers(name))
            .map(|(_, tool)| tool);
        Cow::Owned(tools.iter().chain(found).cloned().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_token_estimate_is_json_bytes_over_four() {
        let tools = [json!({"name": "a"}), json!({"name": "bb"})];
        // `{"name":"a"}` is 12 bytes, `{"name":"bb"}` 13.
        assert_eq!(estimated_tokens(&tools), 7);
    }
}
