//! The host's own search tool, offered when the API has none: its
//! definition, its answers, and how a query ranks the catalog's tools
//! ([`rank`]).

use super::{FoundTools, SEARCH_RESULTS};
use crate::agent::calls::Run;
use crate::agent::events::Event;
use crate::call_result::CallFailure;
use crate::provider::{Provider, ToolCall};
use crate::tool_offer::ToolOffer;
use mcpfn_protocol::model::CallToolResult;
use serde_json::{Value, json};

/// The characters of a query the host reads (the rest is ignored).
const MAX_QUERY_CHARS: usize = 200;
/// The words of a query the host ranks by.
const MAX_QUERY_TERMS: usize = 16;
/// The characters of a tool's description shown in a search result.
const MAX_DESCRIPTION_CHARS: usize = 200;

/// The host's search tool: its name, what it searches, how many tools it
/// may add to a conversation.
#[derive(Debug)]
pub(in crate::agent) struct LocalSearch {
    pub(super) name: String,
    pub(super) offers: Vec<ToolOffer>,
    pub(super) room: usize,
}

/// The local search tool as every API is offered it.
pub(super) fn search_offer(name: &str) -> ToolOffer {
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

impl LocalSearch {
    /// The host's answer to `call`, a call of the search tool (never
    /// approved: it reads the catalog and changes what the conversation is
    /// offered), its events emitted as any call's are: requested, then
    /// started and finished, or not run (its input unusable, its response
    /// cut off).
    pub(in crate::agent) fn answer_call(
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
    pub(in crate::agent) fn name(&self) -> &str {
        &self.name
    }

    /// Whether `call` is a call of the search tool.
    pub(in crate::agent) fn is_search(&self, call: &ToolCall) -> bool {
        call.name == self.name
    }

    /// Answers a search: the matches, each added to `found` while there is
    /// room.
    pub(in crate::agent) fn answer(
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
    use crate::agent::on_demand::{SEARCH_TOOL, request_tools};

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
            mcpfn_protocol::model::ContentBlock::Text(t) => t.text.clone(),
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
        assert_eq!(request_tools(&tools, &found, &|_| true).len(), 3);
        let kept = request_tools(&tools, &found, &|name| name != "get_weather");
        assert_eq!(kept.len(), 2);
        assert_eq!(kept[1]["function"]["name"], "weather_alerts");
        assert_eq!(
            request_tools(&tools, &FoundTools::default(), &|_| true).len(),
            1
        );
        let bad = search.answer(&provider, &mut found, &json!({"q": 1}));
        assert!(bad.is_error);
        let none = search.answer(&provider, &mut found, &json!({"query": "zzz"}));
        assert_eq!(
            text(&none),
            "No tool matches \"zzz\". Try other words: a tool's name, or what it does."
        );
    }
}
