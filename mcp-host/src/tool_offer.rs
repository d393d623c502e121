//! A tool as every model API is offered it: a model-safe name, a
//! description and an input schema both APIs accept ([`ToolOffer`]). The
//! catalog hands these to a provider ([`crate::provider::Provider::tools`]),
//! which writes them in its API's form.
//!
//! The schema is mcp-runtime's rewrite for model APIs (standard keywords
//! only, the one `--dump-tools anthropic|openai` uses), with an object root,
//! and without a root `oneOf`/`anyOf`/`allOf`/`not`/`enum`, which the
//! Anthropic and OpenAI APIs refuse (failing every request, not just this
//! tool): the branches' properties move to the root, and the choice they
//! expressed is said in a sentence added to the description.

use mcpfn_protocol::model::Tool;
use serde_json::{Map, Value};

/// The schema rewrites for model APIs, from where they live (one line to
/// change when they move).
pub(crate) use mcpfn_protocol::model_schema::{for_model_api, openai_strict};

/// One tool as a model is offered it, whatever the API.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolOffer {
    /// The name the model sees and calls it by
    /// ([`crate::names::NameMap`]).
    pub name: String,
    /// Its description, else its title, else empty (both APIs take an
    /// empty one; the model then has the name), with the sentence saying
    /// which argument sets a flattened root choice required.
    pub description: String,
    /// Its input schema as the model APIs take it: an object root with
    /// standard keywords only and no root choice.
    pub input_schema: Value,
}

impl ToolOffer {
    /// `tool`, offered to the model as `model_name`.
    pub fn new(model_name: &str, tool: &Tool) -> ToolOffer {
        let (input_schema, hint) = model_schema(tool);
        ToolOffer {
            name: model_name.to_owned(),
            description: described(tool, hint),
            input_schema,
        }
    }
}

/// The tool's description for the model: its description, else its title,
/// else empty.
fn description(tool: &Tool) -> &str {
    tool.description
        .as_deref()
        .or(tool.title.as_deref())
        .unwrap_or_default()
}

/// The input schema as the model APIs take it, and a sentence for the
/// description when flattening the root lost a choice between argument
/// sets: standard keywords only, an object root (MCP requires
/// `"type": "object"`; a server that leaves it out still gets a schema both
/// APIs accept), and no `oneOf`/`anyOf`/`allOf`/`not`/`enum` at the root.
///
/// The Anthropic API refuses the whole request ("input_schema does not
/// support oneOf, allOf, or anyOf at the top level") and OpenAI's refuses
/// those and `not`/`enum` at the root, so one such tool from one server
/// would break every request. The branches' properties move to the root
/// (`allOf`'s required ones stay required); the server still validates,
/// and a model that sends a wrong combination gets its error.
fn model_schema(tool: &Tool) -> (Value, Option<String>) {
    let mut schema = for_model_api(&Value::Object(tool.input_schema.clone()));
    let mut hint = None;
    if let Value::Object(map) = &mut schema {
        hint = flatten_root(map);
        map.insert("type".into(), "object".into());
    }
    (schema, hint)
}

/// Root keywords neither API takes.
const ROOT_REFUSED: [&str; 5] = ["oneOf", "anyOf", "allOf", "not", "enum"];

/// Moves the properties of a root `oneOf`/`anyOf`/`allOf` to the root and
/// drops the refused keywords; says which argument sets a `oneOf`/`anyOf`
/// required, when its branches required different ones.
fn flatten_root(root: &mut Map<String, Value>) -> Option<String> {
    let mut choices = Vec::new();
    for key in ["allOf", "oneOf", "anyOf"] {
        let Some(Value::Array(branches)) = root.remove(key) else {
            continue;
        };
        let mut sets = Vec::new();
        for branch in branches {
            let Value::Object(mut branch) = branch else {
                continue;
            };
            // A `$defs` of a branch is not reachable from the root's `$ref`s.
            branch.remove("$defs");
            let required = match branch.remove("required") {
                Some(Value::Array(required)) => required,
                _ => Vec::new(),
            };
            if let Some(Value::Object(properties)) = branch.remove("properties") {
                let root_properties = root
                    .entry("properties")
                    .or_insert_with(|| Value::Object(Map::new()));
                if let Value::Object(root_properties) = root_properties {
                    for (name, property) in properties {
                        root_properties.entry(name).or_insert(property);
                    }
                }
            }
            if key == "allOf" {
                let root_required = root
                    .entry("required")
                    .or_insert_with(|| Value::Array(Vec::new()));
                if let Value::Array(root_required) = root_required {
                    for name in required {
                        if !root_required.contains(&name) {
                            root_required.push(name);
                        }
                    }
                }
            } else {
                let names: Vec<String> = required
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|name| format!("`{name}`"))
                    .collect();
                sets.push(names.join(" and "));
            }
        }
        sets.dedup();
        if sets.len() > 1 && sets.iter().any(|set| !set.is_empty()) {
            let sets: Vec<String> = sets
                .into_iter()
                .map(|set| {
                    if set.is_empty() {
                        "none".to_owned()
                    } else {
                        set
                    }
                })
                .collect();
            let verb = if key == "oneOf" {
                "exactly one"
            } else {
                "at least one"
            };
            choices.push(format!(
                "The arguments must match {verb} of these sets of required arguments: {}.",
                sets.join("; ")
            ));
        }
    }
    for key in ROOT_REFUSED {
        root.remove(key);
    }
    (!choices.is_empty()).then(|| choices.join(" "))
}

/// The description with the flattening's sentence, if any.
fn described(tool: &Tool, hint: Option<String>) -> String {
    match hint {
        Some(hint) if description(tool).is_empty() => hint,
        Some(hint) => format!("{}\n\n{hint}", description(tool)),
        None => description(tool).to_owned(),
    }
}
