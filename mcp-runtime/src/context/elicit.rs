//! Elicitation and sampling: asking the user (or the client's model) for
//! input in the middle of a tool call, in both eras. Everything about it is
//! here, beside the [`Context`] whose methods they are: the request and answer
//! types (form fields in `context/form.rs`, sampling in `context/sample.rs`),
//! the two flows behind `ctx.elicit` ([`ask`]) and `ctx.sample`
//! ([`sample()`]), the interrupt a 2026-07-28 call ends with; the sealing of
//! `requestState` is `context/seal.rs`.
//!
//! The same `ctx.elicit(key, request)` works in both eras. In a legacy session
//! it sends a real `elicitation/create` request to the client and awaits the
//! reply. In the 2026-07-28 era servers may not send requests, so the call
//! ends with an `input_required` result carrying the request and a sealed
//! `requestState`; the client retries the call with the answer, the tool runs
//! again from the start, and this time `ctx.elicit` returns the answer.
//! Write tools so that the steps before an `elicit` can run twice.
//! `ctx.sample(key, request)` works the same way with
//! `sampling/createMessage`; the client must declare `sampling`.
//!
//! The client is not trusted with the answers: they are taken only with a
//! state this server sealed for the same tool and arguments, unexpired and
//! not used before (unless the tool opted into replays), and answers sealed
//! in it cannot be replaced. In a legacy session the question waits at most
//! the server's elicitation timeout.

pub use super::form::FormField;
pub use super::sample::{SampleRequest, SampleResult};

use crate::conn::peer::Asked;
use crate::context::Context;
use crate::outcome::ToolError;
use crate::protocol::ProtocolVersion;
use crate::protocol::form::{FieldSchema, form_schema};
use crate::protocol::model::{self, ElicitParams, RpcError};
use crate::protocol::outgoing::{ElicitForm, InputRequestRef};
use crate::util::BoxFuture;
use crate::util::{human_duration, lock};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use std::time::Duration;

/// A form the client shows the user (`elicitation/create`, form mode):
/// built field by field ([`ElicitRequest::new`] and [`FormField`]), from a
/// struct ([`ElicitRequest::for_type`]) or from a schema
/// ([`ElicitRequest::form`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ElicitRequest {
    message: String,
    requested_schema: Value,
    /// The typed fields of [`ElicitRequest::field`], in order.
    fields: Vec<(String, FieldSchema)>,
    required: Vec<String>,
}

impl ElicitRequest {
    /// A form with `message` and a flat object schema of primitive properties.
    pub fn form(message: impl Into<String>, requested_schema: Value) -> ElicitRequest {
        ElicitRequest {
            message: message.into(),
            requested_schema,
            fields: Vec::new(),
            required: Vec::new(),
        }
    }

    /// A form with `message` and no fields yet; add them with
    /// [`ElicitRequest::field`].
    pub fn new(message: impl Into<String>) -> ElicitRequest {
        ElicitRequest::form(message, form_schema(&[], &[]))
    }

    /// Adds (or replaces) the field `name`. The typed fields make the whole
    /// schema: they replace one given to [`ElicitRequest::form`].
    pub fn field(mut self, name: impl Into<String>, field: FormField) -> ElicitRequest {
        let name = name.into();
        self.fields.retain(|(n, _)| *n != name);
        self.required.retain(|n| *n != name);
        if field.required {
            self.required.push(name.clone());
        }
        self.fields.push((name, field.schema));
        self.requested_schema = form_schema(&self.fields, &self.required);
        self
    }

    /// A form whose fields are those of `T` (a struct of primitive fields).
    pub fn for_type<T: schemars::JsonSchema>(message: impl Into<String>) -> ElicitRequest {
        let mut schema = crate::schema::for_deserialize::<T>();
        if let Some(map) = schema.as_object_mut() {
            // Clients take a restricted schema: only type, properties, required.
            map.retain(|k, _| matches!(k.as_str(), "type" | "properties" | "required"));
        }
        ElicitRequest::form(message, schema)
    }

    /// The message shown to the user.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The `params` of `elicitation/create` as the typed model holds them,
    /// for the in-process door (`mode` as a session of `version` sends it).
    pub(crate) fn model(&self, version: ProtocolVersion) -> ElicitParams {
        ElicitParams {
            mode: version
                .carries()
                .elicitation_mode
                .then(|| "form".to_owned()),
            message: self.message.clone(),
            requested_schema: self.requested_schema.as_object().cloned(),
            url: None,
            elicitation_id: None,
            meta: None,
        }
    }

    /// The `params` of `elicitation/create` for a session of `version`.
    pub(crate) fn wire(&self, version: ProtocolVersion) -> ElicitForm<'_> {
        ElicitForm::new(&self.message, &self.requested_schema, version)
    }
}

/// What the user did with the form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElicitAction {
    /// The user submitted the form.
    Accept,
    /// The user explicitly declined.
    Decline,
    /// The user dismissed the form without choosing.
    Cancel,
}

/// The user's answer to an [`ElicitRequest`].
#[derive(Clone, Debug, PartialEq)]
pub struct Elicitation {
    /// What the user did.
    pub action: ElicitAction,
    /// The submitted fields (with [`ElicitAction::Accept`]).
    pub content: Option<Map<String, Value>>,
}

impl Elicitation {
    /// Reads an `ElicitResult` from the client.
    pub(crate) fn from_result(value: &Value) -> Result<Elicitation, ToolError> {
        let action = match value.get("action").and_then(Value::as_str) {
            Some("accept") => ElicitAction::Accept,
            Some("decline") => ElicitAction::Decline,
            Some("cancel") => ElicitAction::Cancel,
            _ => {
                return Err(ToolError::new(
                    "the client's elicitation answer has no valid \"action\" (accept, decline or cancel)",
                ));
            }
        };
        let content = value.get("content").and_then(Value::as_object).cloned();
        Ok(Elicitation { action, content })
    }

    /// Whether the user submitted the form.
    pub fn is_accepted(&self) -> bool {
        self.action == ElicitAction::Accept
    }

    /// The submitted fields as `T`; an error when the user did not accept or
    /// the fields do not fit.
    pub fn content_as<T: DeserializeOwned>(&self) -> Result<T, ToolError> {
        match (&self.action, &self.content) {
            (ElicitAction::Accept, Some(content)) => {
                serde_json::from_value(Value::Object(content.clone())).map_err(|err| {
                    ToolError::new(format!("the user's answer does not fit the form: {err}"))
                })
            }
            (ElicitAction::Accept, None) => {
                Err(ToolError::new("the user accepted but sent no fields"))
            }
            (action, _) => Err(ToolError::new(format!(
                "the user did not fill in the form ({})",
                match action {
                    ElicitAction::Decline => "declined",
                    _ => "cancelled",
                }
            ))),
        }
    }
}

/// Entries of the default in-memory store (answered `requestState`s and
/// `Handles` values; see
/// [`Server::max_spent_request_states`](crate::Server::max_spent_request_states)).
pub(crate) const DEFAULT_MAX_SPENT_REQUEST_STATES: usize = 10_000;

/// How long a legacy `elicitation/create` waits for the user by default: 10
/// minutes, as long as a 2026-07-28 `requestState` lives
/// (`DEFAULT_INPUT_REQUEST_TTL` in `server.rs`), so the
/// user has the same time in both eras.
pub(crate) const DEFAULT_ELICITATION_TIMEOUT: Duration = Duration::from_secs(600);

/// What a tool asks the client for: a form for the user or a message from
/// the client's model.
#[derive(Debug, Clone)]
pub(crate) enum Question {
    /// `elicitation/create`.
    Elicit(ElicitRequest),
    /// `sampling/createMessage` (boxed: far larger than a form).
    Sample(Box<SampleRequest>),
}

impl Question {
    /// The request as a session or request of `version` sends it.
    pub(crate) fn wire(&self, version: ProtocolVersion) -> InputRequestRef<'_> {
        match self {
            Question::Elicit(request) => InputRequestRef::Elicit(request.wire(version)),
            Question::Sample(request) => InputRequestRef::Sample(request.wire()),
        }
    }

    /// The client capability answering it needs, as a one-name set.
    fn capability(&self) -> &'static [&'static str] {
        match self {
            Question::Elicit(_) => &["elicitation"],
            Question::Sample(_) => &["sampling"],
        }
    }

    /// What the tool's errors call the request.
    fn noun(&self) -> &'static str {
        match self {
            Question::Elicit(_) => "elicitation",
            Question::Sample(_) => "sampling request",
        }
    }
}

/// Why a 2026-07-28 call stopped before its tool finished.
#[derive(Debug, Clone)]
pub(crate) enum Interrupt {
    /// The tool asked for input the request does not carry yet.
    InputRequired { key: String, request: Question },
    /// The tool needs a client capability (by name) the request did not declare.
    MissingCapability(&'static [&'static str]),
}

/// `ctx.elicit(key, request)`: a real request to the client in a legacy
/// session; in the 2026-07-28 era the answer from the retry, or an
/// interrupt that ends the call with `input_required`.
pub(crate) async fn ask(
    ctx: &Context,
    key: &str,
    request: ElicitRequest,
) -> Result<Elicitation, ToolError> {
    // A peer that answers does so in either era, with no `input_required`
    // round trip (the door's caller, a task's `tasks/update`, awaits it).
    let asked = ctx.peer().elicit(request.model(ctx.protocol_version()));
    let question = Question::Elicit(request);
    let asked = match asked {
        Asked::Answer(asked) => asked,
        Asked::Unable => return Err(undeclared(&question)),
        Asked::OnTheWire => {
            let answer = ask_client(ctx, key, question).await?;
            return Elicitation::from_result(&answer);
        }
    };
    let answer = ask_peer(ctx, &question, asked).await?;
    Ok(Elicitation {
        action: match answer.action {
            model::ElicitAction::Accept => ElicitAction::Accept,
            model::ElicitAction::Decline => ElicitAction::Decline,
            model::ElicitAction::Cancel => ElicitAction::Cancel,
        },
        content: answer.content,
    })
}

/// `ctx.sample(key, request)`: as [`ask`], with `sampling/createMessage`.
pub(crate) async fn sample(
    ctx: &Context,
    key: &str,
    request: SampleRequest,
) -> Result<SampleResult, ToolError> {
    let asked = ctx.peer().sample(request.model());
    let question = Question::Sample(Box::new(request));
    let asked = match asked {
        Asked::Answer(asked) => asked,
        Asked::Unable => return Err(undeclared(&question)),
        Asked::OnTheWire => {
            let answer = ask_client(ctx, key, question).await?;
            return SampleResult::from_result(&answer);
        }
    };
    let answer = ask_peer(ctx, &question, asked).await?;
    Ok(SampleResult {
        role: answer.role,
        content: vec![answer.content],
        model: answer.model,
        stop_reason: answer.stop_reason,
    })
}

/// The client's bare answer to `question`, in either era.
async fn ask_client(ctx: &Context, key: &str, question: Question) -> Result<Value, ToolError> {
    if ctx.protocol_version().is_modern() {
        ask_modern(ctx, key, question).await
    } else {
        ask_legacy(ctx, question).await
    }
}

fn declares(ctx: &Context, question: &Question) -> bool {
    question
        .capability()
        .iter()
        .all(|name| ctx.client_capabilities().get(name).is_some())
}

/// Why a client that did not declare `question`'s capability is not asked.
fn undeclared(question: &Question) -> ToolError {
    ToolError::new(match question {
        Question::Elicit(_) => {
            "this client cannot answer questions (it did not declare the elicitation capability)"
        }
        Question::Sample(_) => {
            "this client cannot sample its model (it did not declare the sampling capability)"
        }
    })
}

/// Waits for a peer's answer (the door's callbacks, a task's record): the
/// question went as the model's typed params, the answer is the model's
/// typed result, read into the tool's answer type directly (no JSON on the
/// way), under the same timeout as a legacy question.
async fn ask_peer<T>(
    ctx: &Context,
    question: &Question,
    asked: BoxFuture<Result<T, RpcError>>,
) -> Result<T, ToolError> {
    let limit = ctx.elicitation_timeout();
    match tokio::time::timeout(limit, asked).await {
        Ok(Ok(answer)) => Ok(answer),
        Ok(Err(error)) => Err(ToolError::new(format!(
            "the client failed the {}: {}",
            question.noun(),
            error.message
        ))),
        Err(_) => Err(timed_out(question, limit)),
    }
}

/// Why a question the client did not answer within `limit` was withdrawn.
fn timed_out(question: &Question, limit: Duration) -> ToolError {
    ToolError::new(match question {
        Question::Elicit(_) => format!(
            "the user did not answer within {}; the question was withdrawn",
            human_duration(limit)
        ),
        Question::Sample(_) => format!(
            "the client did not answer the sampling request within {}; it was withdrawn",
            human_duration(limit)
        ),
    })
}

async fn ask_legacy(ctx: &Context, question: Question) -> Result<Value, ToolError> {
    if !declares(ctx, &question) {
        return Err(undeclared(&question));
    }
    let noun = question.noun();
    let wire = question.wire(ctx.protocol_version());
    let mut request = ctx.connection().request_client(&wire);
    let limit = ctx.elicitation_timeout();
    // On timeout `request` is dropped, which withdraws the question.
    match tokio::time::timeout(limit, request.reply()).await {
        Ok(Ok(Ok(result))) => Ok(result),
        Ok(Ok(Err(error))) => Err(ToolError::new(format!(
            "the client failed the {noun}: {}",
            error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("no message")
        ))),
        Ok(Err(_)) => Err(ToolError::new("the client went away before answering")),
        Err(_) => Err(timed_out(&question, limit)),
    }
}

async fn ask_modern(ctx: &Context, key: &str, question: Question) -> Result<Value, ToolError> {
    if let Some(answer) = ctx.answers().get(key) {
        return Ok(answer.clone());
    }
    let interrupt = if declares(ctx, &question) {
        Interrupt::InputRequired {
            key: key.to_owned(),
            request: question,
        }
    } else {
        Interrupt::MissingCapability(question.capability())
    };
    lock(ctx.interrupt_slot()).get_or_insert(interrupt);
    ctx.notify_interrupted();
    // The runtime answers for the call now and drops this future.
    std::future::pending().await
}
