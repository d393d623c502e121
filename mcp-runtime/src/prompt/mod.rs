//! Prompts at run time: a prompt's definition (what `prompts/list` shows),
//! its body, and the completions of its arguments. `#[prompt]` makes them;
//! [`PromptBuilder`] makes them by hand. The server's prompt list is
//! [`registry`]; completers are [`crate::complete`]'s.
//!
//! A prompt's body runs as a call: `prompts/get` goes through the same
//! admission, run slot, timeout, panic catching and 2026-07-28
//! `input_required` rounds as `tools/call` (`session::calls`), because
//! the body is held as a [`Tool`] marked to answer as a prompt. Only its
//! answer differs: a `GetPromptResult` instead of a `CallToolResult`, and
//! failures as JSON-RPC errors (a prompt has no `isError`).

pub(crate) mod registry;

use crate::complete::{Completers, CompletionContext};
use crate::outcome::{ToolError, ToolOutcome};
use crate::protocol::model::{PromptArgument, PromptMessage};
use crate::protocol::tool_def::Icon;
use crate::protocol::{ErrorCode, RpcError};
use crate::tool::{Tool, ToolBuilder, ToolCall};
use crate::util::BoxFuture;
use serde::Serialize;
use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

/// What a prompt's body gives back: its messages, or why it has none (a
/// JSON-RPC error naming the prompt, `-32603`).
pub type PromptResult = Result<Vec<PromptMessage>, ToolError>;

/// A registered prompt: its definition, its body and the completions of
/// its arguments. Cloning is cheap.
///
/// `#[prompt]` makes these; `prompts![a, b]` collects them; [`PromptBuilder`]
/// makes them by hand.
#[derive(Clone)]
pub struct Prompt {
    pub(crate) def: Arc<Definition>,
    /// Its name, shared by every call's context (not copied per call).
    pub(crate) name: Arc<str>,
    /// The body, run as a call (see the module docs).
    pub(crate) runner: Arc<Tool>,
}

/// Everything `prompts/list` shows of a prompt, and its completers.
pub(crate) struct Definition {
    pub(crate) name: String,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) arguments: Vec<PromptArgument>,
    pub(crate) icons: Vec<Icon>,
    /// By argument name.
    pub(crate) completers: Completers,
}

impl fmt::Debug for Prompt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Prompt")
            .field("name", &self.def.name)
            .field("arguments", &self.def.arguments)
            .finish_non_exhaustive()
    }
}

/// A prompt as `prompts/list` writes it.
#[derive(Serialize)]
pub(crate) struct Listed<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    arguments: &'a [PromptArgument],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    icons: &'a [Icon],
}

impl Prompt {
    /// The prompt's name.
    pub fn name(&self) -> &str {
        &self.def.name
    }

    /// Its arguments, in order.
    pub fn arguments(&self) -> &[PromptArgument] {
        &self.def.arguments
    }

    /// What `prompts/list` shows of it (`title` and `icons` only to the
    /// revisions that have them: both from 2025-06-18 on, icons from
    /// 2025-11-25).
    pub(crate) fn listed(&self, version: crate::protocol::ProtocolVersion) -> Listed<'_> {
        let def = &self.def;
        let carries = version.carries();
        Listed {
            name: &def.name,
            title: def.title.as_deref().filter(|_| carries.structured_output),
            description: def.description.as_deref(),
            arguments: &def.arguments,
            icons: if carries.icons { &def.icons } else { &[] },
        }
    }

    /// Whether `given` (each argument's name and what its value is) has
    /// every required argument, and only strings: `-32602` naming the
    /// first that is missing or not a string.
    pub(crate) fn check_arguments(&self, given: &[(Cow<'_, str>, Given)]) -> Result<(), RpcError> {
        let name = &self.def.name;
        for argument in &self.def.arguments {
            let present = given
                .iter()
                .any(|(given, value)| *given == argument.name && *value != Given::Null);
            if argument.required && !present {
                return Err(RpcError::invalid_params(format!(
                    "Invalid params: the prompt '{name}' needs the argument '{}'",
                    argument.name
                ))
                .with_data(serde_json::json!({ "argument": argument.name })));
            }
        }
        if let Some((argument, _)) = given.iter().find(|(_, value)| *value == Given::Other) {
            return Err(RpcError::invalid_params(format!(
                "Invalid params: the argument '{argument}' of the prompt '{name}' is not a string (prompt arguments are strings)"
            ))
            .with_data(serde_json::json!({ "argument": argument })));
        }
        Ok(())
    }
}

/// What a prompt argument's value was given as: all its check reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Given {
    /// `null`, which counts as absent.
    Null,
    /// A string.
    Text,
    /// Anything else, which a prompt refuses.
    Other,
}

/// Builds a [`Prompt`]; what `#[prompt]` expands to, and the way to make
/// prompts whose shape is only known at run time.
///
/// ```
/// use mcpfn_runtime::{PromptBuilder, PromptMessage};
/// use std::collections::HashMap;
///
/// let prompt = PromptBuilder::new("review", |call| {
///     Box::pin(async move {
///         let args: HashMap<String, String> = call.arguments().unwrap_or_default();
///         Ok(vec![PromptMessage::user(format!("Review {}.", args["file"]))])
///     })
/// })
/// .description("Ask for a code review.")
/// .argument("file", "The file to review.", true)
/// .build();
/// assert_eq!(prompt.name(), "review");
/// ```
#[must_use]
pub struct PromptBuilder {
    def: Definition,
    handler: Arc<dyn Fn(ToolCall) -> BoxFuture<PromptResult> + Send + Sync>,
    inline: bool,
    states: Vec<fn(ToolBuilder) -> ToolBuilder>,
}

impl fmt::Debug for PromptBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PromptBuilder")
            .field("name", &self.def.name)
            .finish_non_exhaustive()
    }
}

impl PromptBuilder {
    /// A prompt named `name` whose messages `handler` makes; it takes no
    /// arguments until [`PromptBuilder::argument`] adds them. The handler
    /// reads them with [`ToolCall::arguments`] (a map of strings, or a
    /// struct of `String` and `Option<String>` fields) and reaches the
    /// request through [`ToolCall::context`] (`ctx.elicit` works as in a
    /// tool).
    pub fn new<F>(name: impl Into<String>, handler: F) -> PromptBuilder
    where
        F: Fn(ToolCall) -> BoxFuture<PromptResult> + Send + Sync + 'static,
    {
        PromptBuilder {
            def: Definition {
                name: name.into(),
                title: None,
                description: None,
                arguments: Vec::new(),
                icons: Vec::new(),
                completers: Completers::default(),
            },
            handler: Arc::new(handler),
            inline: false,
            states: Vec::new(),
        }
    }

    /// A title for display.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.def.title = Some(title.into());
        self
    }

    /// What the prompt gives, shown in `prompts/list` and in its results.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.def.description = Some(description.into());
        self
    }

    /// Adds the argument `name` (an empty `description` sends none);
    /// `prompts/get` without a `required` one is refused with `-32602`
    /// naming it.
    pub fn argument(mut self, name: impl Into<String>, description: &str, required: bool) -> Self {
        self.def.arguments.push(PromptArgument {
            name: name.into(),
            title: None,
            description: (!description.is_empty()).then(|| description.to_owned()),
            required,
        });
        self
    }

    /// Completes the argument `name` with `completer`, which gets what the
    /// user typed so far and the arguments already given, and returns the
    /// candidates, best first (the first 100 are sent).
    pub fn complete<F>(mut self, argument: impl Into<String>, completer: F) -> Self
    where
        F: Fn(CompletionContext) -> BoxFuture<Vec<String>> + Send + Sync + 'static,
    {
        self.def
            .completers
            .set(argument.into(), Arc::new(completer));
        self
    }

    /// Adds an icon for display.
    pub fn icon(mut self, icon: Icon) -> Self {
        self.def.icons.push(icon);
        self
    }

    /// Polls the body once on the connection's loop first (see
    /// [`ToolBuilder::runs_inline`]); `#[prompt]` sets it for fns that take
    /// no `Context`.
    pub fn runs_inline(mut self, inline: bool) -> Self {
        self.inline = inline;
        self
    }

    /// Declares that the body reads `State<T>`: serving fails at startup
    /// when no such state was registered.
    pub fn requires_state<T: Send + Sync + 'static>(mut self) -> Self {
        self.states.push(ToolBuilder::requires_state::<T>);
        self
    }

    /// The finished prompt.
    pub fn build(self) -> Prompt {
        let PromptBuilder {
            def,
            handler,
            inline,
            states,
        } = self;
        let name: Arc<str> = Arc::from(def.name.as_str());
        let shared_name = Arc::clone(&name);
        let mut runner = ToolBuilder::new(def.name.clone(), move |call| {
            let name = Arc::clone(&name);
            let max = call.context().max_message_size();
            let body = handler(call);
            Box::pin(async move { render(&name, body.await, max) })
        })
        .runs_inline(inline)
        .answers_as_prompt();
        // The answer's description: the runner is never listed as a tool,
        // so its own is free to hold it, and no call copies it.
        if let Some(description) = &def.description {
            runner = runner.description(description.clone());
        }
        for state in states {
            runner = state(runner);
        }
        Prompt {
            def: Arc::new(def),
            name: shared_name,
            runner: Arc::new(runner.build()),
        }
    }
}

/// The outcome a prompt's body ends as: its messages' JSON array,
/// serialized once (the frame copies it as it is, after the description
/// the runner holds), or the JSON-RPC error of a body that failed or whose
/// result could not be sent: one over `max` bytes, the server's message
/// limit, would be cut off by the client's.
fn render(name: &str, body: PromptResult, max: usize) -> ToolOutcome {
    let messages = match body {
        Ok(messages) => messages,
        Err(error) => {
            return ToolOutcome::Protocol(RpcError::internal_error(format!(
                "The prompt '{name}' failed: {}",
                error.message()
            )));
        }
    };
    let count = messages.len();
    // Room for a short prompt's messages at once, so that the buffer does
    // not grow (and copy itself) five times on the way.
    let mut json = Vec::with_capacity(512);
    let written = serde_json::to_writer(&mut json, &messages)
        .and_then(|()| String::from_utf8(json).map_err(serde::ser::Error::custom));
    match written {
        Ok(json) if json.len() <= max => ToolOutcome::Structured(json),
        Ok(json) => ToolOutcome::Protocol(RpcError::new(
            ErrorCode::INTERNAL_ERROR,
            format!(
                "The prompt '{name}' produced {} bytes ({count} messages), over this server's \
                 max message size of {max} bytes; it was not sent",
                json.len()
            ),
        )),
        Err(err) => ToolOutcome::Protocol(RpcError::internal_error(format!(
            "The prompt '{name}' produced messages that are not JSON: {err}"
        ))),
    }
}
