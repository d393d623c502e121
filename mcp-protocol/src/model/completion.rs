//! `completion/complete`: what a client asks completions for (an argument
//! of a prompt, or a variable of a resource template) and the values a
//! server suggests.

use super::jsonrpc::JsonObject;
use crate::meta::Envelope;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The most values one `completion/complete` result carries (the spec's
/// `maxItems`).
pub const MAX_COMPLETION_VALUES: usize = 100;

/// What is being completed: a prompt's argument or a resource template's
/// variable.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum CompletionRef {
    /// `ref/prompt`: an argument of the prompt `name`.
    #[serde(rename = "ref/prompt")]
    Prompt {
        /// The prompt's name.
        name: String,
        /// Its title, if the client sends one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
    },
    /// `ref/resource`: a variable of the resource template `uri`.
    #[serde(rename = "ref/resource")]
    Resource {
        /// The URI template (or URI).
        uri: String,
    },
}

/// The argument being completed and what the user has typed of it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompletionArgument {
    /// The argument's (or template variable's) name.
    pub name: String,
    /// Its value so far.
    pub value: String,
}

/// The arguments already given, for completions that depend on them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompletionContextParams {
    /// The other arguments, by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub arguments: BTreeMap<String, String>,
}

/// The params of `completion/complete`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CompleteParams<'a> {
    /// What is being completed.
    #[serde(rename = "ref")]
    pub reference: CompletionRef,
    /// The argument and its value so far.
    pub argument: CompletionArgument,
    /// The arguments already given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<CompletionContextParams>,
    /// `_meta` (2026-07-28: the envelope).
    #[serde(
        rename = "_meta",
        default,
        borrow,
        skip_serializing_if = "Option::is_none"
    )]
    pub meta: Option<Envelope<'a>>,
}

/// The suggestions of a `completion/complete` result.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    /// At most [`MAX_COMPLETION_VALUES`] values, best first.
    pub values: Vec<String>,
    /// How many values there are in all, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// Whether there are more than `values`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
}

impl Completion {
    /// The first [`MAX_COMPLETION_VALUES`] of `values`, with `total` and
    /// `hasMore` saying how many there were when some were cut.
    pub fn capped(mut values: Vec<String>) -> Completion {
        let total = values.len();
        let cut = total > MAX_COMPLETION_VALUES;
        values.truncate(MAX_COMPLETION_VALUES);
        Completion {
            values,
            total: Some(total as u64),
            has_more: Some(cut),
        }
    }
}

/// The result of `completion/complete`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompleteResult {
    /// The suggestions.
    pub completion: Completion,
    /// Its `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}
