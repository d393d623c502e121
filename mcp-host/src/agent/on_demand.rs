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
//! (`not_offered`).
//!
//! The tools kept loaded are the ones named with
//! [`AgentBuilder::always_loaded`](super::AgentBuilder::always_loaded), else
//! the first [`DEFAULT_ALWAYS_LOADED`] of the host's own in-process tools
//! ([`ToolSource::in_process`](crate::catalog::ToolSource::in_process)): code
//! the developer put there on purpose. A configured server's tools are all
//! on demand.

use super::calls::Run;
use super::events::Event;
use crate::call_result::CallFailure;
use crate::catalog::Catalog;
use crate::provider::{Provider, ToolCall};
use crate::tool_offer::ToolOffer;
use mcp_protocol::model::CallToolResult;
use serde_json::{Value, json};
use std::borrow::Cow;
use std::collections::BTreeSet;

/// The most tools one local search returns.
pub const SEARCH_RESULTS: usize = 5;
/// The local search tool's name, unless a catalog tool has it (then
/// `search_tools_2`, `_3`, …).
pub const SEARCH_TOOL: &str = "search_tools";
/// How many in-process tools stay loaded when tools are offered on demand
/// and [`AgentBuilder::always_loaded`](super::AgentBuilder::always_loaded)
/// names none.
pub const DEFAULT_ALWAYS_LOADED: usize = 5;
/// The characters of a query the host reads (the rest is ignored).
const MAX_QUERY_CHARS: usize = 200;
/// The words of a query the host ranks by.
const MAX_QUERY_TERMS: usize = 16;
/// The characters of a tool's description shown in a search result.
const MAX_DESCRIPTION_CHARS: usize = 200;

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

/// The host's search tool: its name, what it searches, how many tools it
/// may add to a conversation.
#[derive(Debug)]
pub(super) struct LocalSearch {
    name: String,
    offers: Vec<ToolOffer>,
    room: usize,
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

/// The local search tool as every API is offered it.
fn search_offer(name: &str) -> ToolOffer {
    ToolOffer {
        name: name.to_owned(),
        description: format!(
            "Finds tools by what they do. Only some tools are offered at first; call this with a few words \
             (a tool's name, or the task) and the best matches, at most {SEARCH_RESULTS}, are listed and \
             offered from the next step on. Then call them by name."
        ),
        input_schema: json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "Words describing the tool wanted, or its name."}
            },
            "required": ["query"]
        }),
    }
}

/// The tools one request of a conversation offers: the agent's, then what
/// the conversation's searches found.
pub(super) fn request_tools<'a>(tools: &'a [Value], found: &FoundTools) -> Cow<'a, [Value]> {
    if found.tools.is_empty() {
        Cow::Borrowed(tools)
    } else {
        Cow::Owned(tools.iter().chain(&found.tools).cloned().collect())
    }
}

impl LocalSearch {
    /// The host's answer to `call`, a call of the search tool (never
    /// approved: it reads the catalog and changes what the conversation is
    /// offered), its events emitted as any call's are: requested, then
    /// started and finished, or not run (its input unusable, its response
    /// cut off).
    pub(super) fn answer_call(
        &self,
        provider: &dyn Provider,
        found: &mut FoundTools,
        call: &ToolCall,
        run: &Run,
        emit: &dyn Fn(Event),
    ) -> CallToolResult {
        emit(Event::CallRequested {
            id: call.id.clone(),
            tool: call.name.clone(),
            server: String::new(),
            input: call.input.clone().unwrap_or(Value::Null),
        });
        let not_run = match (&call.input, run) {
            (Err(failure), _) => failure.clone(),
            (_, Run::No(reason)) => CallFailure::NotRun {
                reason: reason.clone(),
            },
            (Ok(input), Run::Yes) => {
                let started = std::time::Instant::now();
                emit(Event::CallStarted {
                    id: call.id.clone(),
                });
                let result = self.answer(provider, found, input);
                emit(Event::CallFinished {
                    id: call.id.clone(),
                    duration_ms: started.elapsed().as_millis() as u64,
                    is_error: result.is_error,
                });
                return result;
            }
        };
        emit(Event::CallNotRun {
            id: call.id.clone(),
            reason: not_run.to_string(),
        });
        not_run.to_result()
    }

    /// The search tool's name.
    pub(super) fn name(&self) -> &str {
        &self.name
    }

    /// Whether `call` is a call of the search tool.
    pub(super) fn is_search(&self, call: &ToolCall) -> bool {
        call.name == self.name
    }

    /// Answers a search: the matches, each added to `found` while there is
    /// room.
    pub(super) fn answer(
        &self,
        provider: &dyn Provider,
        found: &mut FoundTools,
        input: &Value,
    ) -> CallToolResult {
        let Some(query) = input.get("query").and_then(Value::as_str) else {
            return CallToolResult::error(format!(
                "The call was not made: `{}` needs `query`, a string.",
                self.name
            ));
        };
        let query: String = query.chars().take(MAX_QUERY_CHARS).collect();
        let matches = rank(&query, &self.offers, SEARCH_RESULTS);
        if matches.is_empty() {
            return CallToolResult::text(format!(
                "No tool matches \"{query}\". Try other words: a tool's name, or what it does."
            ));
        }
        let mut lines = vec![format!(
            "Tools matching \"{query}\" (offered from the next step on; call them by name):"
        )];
        for index in matches {
            let offer = &self.offers[index];
            let description: String = offer
                .description
                .chars()
                .take(MAX_DESCRIPTION_CHARS)
                .collect();
            let description = description.replace('\n', " ");
            let note = if found.names.contains(&offer.name) {
                ""
            } else if found.names.len() < self.room {
                found.names.push(offer.name.clone());
                found
                    .tools
                    .extend(provider.tools(std::slice::from_ref(offer)));
                ""
            } else {
                " (not offered: the requests already carry the most tools the API takes)"
            };
            lines.push(format!("- {}: {description}{note}", offer.name));
        }
        CallToolResult::text(lines.join("\n"))
    }
}

/// The indices of the `limit` offers that best match `query`, best first
/// (ties in the catalog's order); none when no word of the query matches.
///
/// The query and the tools are cut into lowercase words (letters and
/// digits). Each query word scores 3 for a word of a tool's name, 2 for a
/// part of its name, 1 for a word of its description; the whole query
/// being the name scores 10 more.
pub fn rank(query: &str, offers: &[ToolOffer], limit: usize) -> Vec<usize> {
    let terms: Vec<String> = words(query).take(MAX_QUERY_TERMS).collect();
    let whole = query.trim().to_lowercase();
    let mut scored: Vec<(usize, usize)> = offers
        .iter()
        .enumerate()
        .filter_map(|(index, offer)| {
            let name = offer.name.to_lowercase();
            let name_words: Vec<String> = words(&offer.name).collect();
            let description_words: Vec<String> = words(&offer.description).collect();
            let mut score = if name == whole { 10 } else { 0 };
            for term in &terms {
                if name_words.contains(term) {
                    score += 3;
                } else if name.contains(term.as_str()) {
                    score += 2;
                }
                if description_words.contains(term) {
                    score += 1;
                }
            }
            (score > 0).then_some((index, score))
        })
        .collect();
    // Stable: equal scores keep the catalog's order.
    scored.sort_by_key(|&(_, score)| std::cmp::Reverse(score));
    scored
        .into_iter()
        .take(limit)
        .map(|(index, _)| index)
        .collect()
}

/// The lowercase words (runs of letters and digits) of `text`.
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offer(name: &str, description: &str) -> ToolOffer {
        ToolOffer {
            name: name.into(),
            description: description.into(),
            input_schema: json!({"type": "object"}),
        }
    }

    #[test]
    fn names_outrank_descriptions_and_ties_keep_the_catalogs_order() {
        let offers = [
            offer("get_weather", "The weather in a city."),
            offer("forecast", "Tomorrow's weather."),
            offer("add", "Adds two numbers."),
            offer("add_150", "Adds two numbers."),
            offer("weather_alerts", "Storm warnings."),
        ];
        assert_eq!(rank("weather", &offers, 5), [0, 4, 1]);
        assert_eq!(rank("weather", &offers, 2), [0, 4]);
        assert_eq!(rank("add_150", &offers, 5), [3, 2]);
        assert_eq!(rank("numbers", &offers, 5), [2, 3]);
        assert!(rank("nothing like it", &offers, 5).is_empty());
        assert!(rank("", &offers, 5).is_empty());
    }

    #[cfg(feature = "http")]
    #[test]
    fn a_search_adds_what_it_finds_once_and_never_past_the_room() {
        let provider = crate::provider::OpenAi::new("http://127.0.0.1:9", None).unwrap();
        let search = LocalSearch {
            name: SEARCH_TOOL.into(),
            offers: vec![
                offer("get_weather", "The weather."),
                offer("weather_alerts", "Storms."),
                offer("weather_history", "Past records."),
            ],
            room: 2,
        };
        let mut found = FoundTools::default();
        let first = search.answer(&provider, &mut found, &json!({"query": "weather"}));
        assert_eq!(found.names(), ["get_weather", "weather_alerts"]);
        assert_eq!(found.tools.len(), 2);
        assert_eq!(found.tools[0]["function"]["name"], "get_weather");
        let text = |result: &CallToolResult| match &result.content[0] {
            mcp_protocol::model::ContentBlock::Text(t) => t.text.clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            text(&first),
            "Tools matching \"weather\" (offered from the next step on; call them by name):\n\
             - get_weather: The weather.\n\
             - weather_alerts: Storms.\n\
             - weather_history: Past records. (not offered: the requests already carry the most tools the API takes)"
        );
        // Found again: listed, not added twice.
        search.answer(&provider, &mut found, &json!({"query": "get_weather"}));
        assert_eq!(found.names(), ["get_weather", "weather_alerts"]);
        let tools = [json!({"name": "search"})];
        assert_eq!(request_tools(&tools, &found).len(), 3);
        assert_eq!(request_tools(&tools, &FoundTools::default()).len(), 1);
        let bad = search.answer(&provider, &mut found, &json!({"q": 1}));
        assert!(bad.is_error);
        let none = search.answer(&provider, &mut found, &json!({"query": "zzz"}));
        assert_eq!(
            text(&none),
            "No tool matches \"zzz\". Try other words: a tool's name, or what it does."
        );
    }

    #[test]
    fn the_token_estimate_is_json_bytes_over_four() {
        let tools = [json!({"name": "a"}), json!({"name": "bb"})];
        // `{"name":"a"}` is 12 bytes, `{"name":"bb"}` 13.
        assert_eq!(estimated_tokens(&tools), 7);
    }
}
