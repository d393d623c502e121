//! The tools of a request: `{name, description, input_schema}`.

use crate::offer::ToolOffer;
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
