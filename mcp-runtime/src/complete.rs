//! Completing a prompt's argument or a resource template's variable: what
//! a completer is given ([`CompletionContext`]), the completers a prompt or
//! a template holds ([`Completers`]), and how one runs ([`run`]). Prompts
//! and resources both hold completers of this one kind; `Shared::completer`
//! finds the one a `completion/complete` reference names.

use crate::protocol::RpcError;
use crate::protocol::model::Completion;
use crate::util::{BoxFuture, human_duration};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

/// How long a completer may take: completions are asked for as the user
/// types, so an answer later than this is of no use.
const COMPLETION_TIMEOUT: Duration = Duration::from_secs(10);

/// A completer: the candidates for what the user has typed, best first.
pub(crate) type Completer = Arc<dyn Fn(CompletionContext) -> BoxFuture<Vec<String>> + Send + Sync>;

/// What a completer is asked: the prompt argument or template variable,
/// what the user has typed of it, and the others already given (so a
/// `city` completer can read the `country` chosen before it).
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

    /// The name of the argument (or template variable) being completed.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What the user has typed of it so far.
    pub fn value(&self) -> &str {
        &self.value
    }

    /// The value of the argument (or variable) `name`, if the client gave
    /// it.
    pub fn argument(&self, name: &str) -> Option<&str> {
        self.arguments.get(name).map(String::as_str)
    }

    /// Every argument already given, by name.
    pub fn arguments(&self) -> &BTreeMap<String, String> {
        &self.arguments
    }
}

/// The completers of one prompt's arguments or one template's variables,
/// by name, at most one each.
#[derive(Clone, Default)]
pub(crate) struct Completers(Vec<(String, Completer)>);

impl Completers {
    /// Completes `name` with `completer`, in place of any earlier one.
    pub(crate) fn set(&mut self, name: String, completer: Completer) {
        self.0.retain(|(held, _)| *held != name);
        self.0.push((name, completer));
    }

    /// The completer of `name`, if it has one.
    pub(crate) fn get(&self, name: &str) -> Option<&Completer> {
        self.0
            .iter()
            .find(|(held, _)| held == name)
            .map(|(_, completer)| completer)
    }

    /// The names completed, in the order they were set.
    pub(crate) fn names(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(name, _)| name.as_str())
    }
}

impl std::fmt::Debug for Completers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.names()).finish()
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
