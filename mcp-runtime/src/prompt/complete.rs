//! Completing an argument: what a completer is given
//! ([`CompletionContext`]) and how `completion/complete` finds the
//! completer for a reference ([`find`]): a prompt's argument now, a
//! resource template's variable through the same lookup once templates
//! exist (until then their completion is empty).

use super::registry::Prompts;
use crate::protocol::RpcError;
use crate::protocol::model::{Completion, CompletionRef};
use crate::util::{BoxFuture, human_duration};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

/// How long a completer may take: completions are asked for as the user
/// types, so an answer later than this is of no use.
const COMPLETION_TIMEOUT: Duration = Duration::from_secs(10);

/// A completer: the candidates for what the user has typed, best first.
pub(crate) type Completer = Arc<dyn Fn(CompletionContext) -> BoxFuture<Vec<String>> + Send + Sync>;

/// What a completer is asked: the argument, what the user has typed of
/// it, and the other arguments already given (so a `city` completer can
/// read the `country` chosen before it).
///
/// ```
/// use mcpfn_runtime::CompletionContext;
///
/// async fn cities(prefix: &str, context: &CompletionContext) -> Vec<String> {
///     let all: &[&str] = match context.argument("country") {
///         Some("fr") => &["Paris", "Lyon"],
///         _ => &["London", "Leeds"],
///     };
///     all.iter().filter(|c| c.starts_with(prefix)).map(|c| c.to_string()).collect()
/// }
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CompletionContext {
    name: String,
    value: String,
    arguments: BTreeMap<String, String>,
}

impl CompletionContext {
    /// The context of completing `name`, typed so far as `value`, with
    /// `arguments` already given.
    pub fn new(
        name: impl Into<String>,
        value: impl Into<String>,
        arguments: BTreeMap<String, String>,
    ) -> CompletionContext {
        CompletionContext {
            name: name.into(),
            value: value.into(),
            arguments,
        }
    }

    /// The name of the argument being completed.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What the user has typed of it so far.
    pub fn value(&self) -> &str {
        &self.value
    }

    /// The value of the argument `name`, if the client gave it.
    pub fn argument(&self, name: &str) -> Option<&str> {
        self.arguments.get(name).map(String::as_str)
    }

    /// Every argument already given, by name.
    pub fn arguments(&self) -> &BTreeMap<String, String> {
        &self.arguments
    }
}

/// The completer of `argument` of `reference`: `None` when it has none
/// (an empty completion), `-32602` naming a prompt that does not exist.
pub(crate) fn find(
    prompts: &Prompts,
    reference: &CompletionRef,
    argument: &str,
) -> Result<Option<Completer>, RpcError> {
    match reference {
        CompletionRef::Prompt { name, .. } => {
            let Some(prompt) = prompts.get(name) else {
                return Err(RpcError::invalid_params(format!(
                    "Invalid params: no prompt is named '{name}' (see prompts/list)"
                )));
            };
            Ok(prompt.completer(argument).cloned())
        }
        // Resource templates complete their variables here once they
        // exist; until then every template's completion is empty.
        CompletionRef::Resource { .. } => Ok(None),
    }
}

/// Runs `completer` (none: an empty completion) on `context`, on a task of
/// its own so that a panic in the author's fn is an error answer, not a
/// lost request; under [`COMPLETION_TIMEOUT`]; its values capped at 100
/// with `total` and `hasMore`. The wire and the in-process door both
/// complete through here.
pub(crate) async fn run(
    completer: Option<Completer>,
    context: CompletionContext,
) -> Result<Completion, RpcError> {
    let Some(completer) = completer else {
        return Ok(Completion::capped(Vec::new()));
    };
    let argument = context.name.clone();
    let task = tokio::spawn(completer(context));
    match tokio::time::timeout(COMPLETION_TIMEOUT, task).await {
        Ok(Ok(values)) => Ok(Completion::capped(values)),
        Ok(Err(_)) => Err(RpcError::internal_error(format!(
            "The completer of '{argument}' failed with an internal error; the details are in the server's log"
        ))),
        Err(_) => Err(RpcError::internal_error(format!(
            "The completer of '{argument}' did not answer within {}",
            human_duration(COMPLETION_TIMEOUT)
        ))),
    }
}
