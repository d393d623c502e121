//! The tools of a request: `{name, description, input_schema}`, and past
//! the host's limits the API's own tool search ([`deferred_tools`]).

use crate::tool_offer::ToolOffer;
use serde_json::{Value, json};

/// The Messages API entry of `offer`: `{"name", "description",
/// "input_schema"}`.
pub fn tool(offer: &ToolOffer) -> Value {
    json!({
        "name": offer.name,
        "description": offer.description,
        "input_schema": offer.input_schema,
    })
}

/// The request's `tools`, one entry per offer, in order.
pub fn tools(offers: &[ToolOffer]) -> Vec<Value> {
    offers.iter().map(tool).collect()
}

/// The `type` of the API's tool search tool this host offers: the BM25
/// variant, which takes the model's query in natural language (the regex
/// variant, `tool_search_tool_regex_20251119`, wants a Python regex).
pub const TOOL_SEARCH_TYPE: &str = "tool_search_tool_bm25_20251119";
/// The name the API gives that tool.
pub const TOOL_SEARCH_NAME: &str = "tool_search_tool_bm25";

/// The request's `tools` when tools are offered on demand: the API's tool
/// search tool, the `loaded` offers as usual, then the `deferred` ones with
/// `"defer_loading": true` (the API keeps them out of the model's context
/// until a search returns a `tool_reference` to one, then expands it).
/// An offer that would take the search tool's name is left out (with a
/// warning): the API would refuse the whole request.
pub fn deferred_tools(loaded: &[ToolOffer], deferred: &[ToolOffer]) -> Vec<Value> {
    let mut tools = Vec::with_capacity(1 + loaded.len() + deferred.len());
    tools.push(json!({"type": TOOL_SEARCH_TYPE, "name": TOOL_SEARCH_NAME}));
    let usable = |offer: &&ToolOffer| {
        let clash = offer.name == TOOL_SEARCH_NAME;
        if clash {
            tracing::warn!(
                tool = %offer.name,
                "tool left out: its name is the API's tool search tool's"
            );
        }
        !clash
    };
    tools.extend(loaded.iter().filter(usable).map(tool));
    tools.extend(deferred.iter().filter(usable).map(|offer| {
        let mut entry = tool(offer);
        entry["defer_loading"] = Value::Bool(true);
        entry
    }));
    tools
}

/// The tools the API's tool search found in an assistant `message`: the
/// `tool_name` of each `tool_reference` of its `tool_search_tool_result`
/// blocks, in order.
pub fn searched_tools(message: &Value) -> Vec<String> {
    let Some(blocks) = message["content"].as_array() else {
        return Vec::new();
    };
    blocks
        .iter()
        .filter(|block| block["type"] == "tool_search_tool_result")
        .filter_map(|block| block["content"]["tool_references"].as_array())
        .flatten()
        .filter(|reference| reference["type"] == "tool_reference")
        .filter_map(|reference| reference["tool_name"].as_str())
        .map(str::to_owned)
        .collect()
}
