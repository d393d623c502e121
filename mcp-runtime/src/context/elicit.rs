//! Elicitation and sampling: asking the user (or the client's model) for
//! input in the middle of a tool call, in both eras. Here: the request and
//! answer types (form fields in `context/form.rs`, sampling in
//! `context/sample.rs`), the [`Question`]s a tool asks and the interrupt a
//! 2026-07-28 call ends with. The one flow behind `ctx.elicit`,
//! `ctx.sample`, `ctx.roots` and `ctx.ask` is `context/ask.rs`; the
//! sealing of `requestState` is `context/seal.rs`.
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

use crate::outcome::ToolError;
use crate::protocol::ProtocolVersion;
use crate::protocol::form::{FieldSchema, form_schema};
use crate::protocol::model::ElicitParams;
use crate::protocol::outgoing::{ElicitForm, InputRequestRef, NoParams};
use serde::Deserialize as _;
use serde_json::Value;
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

/// What the user did with the form (the model's `ElicitAction`).
pub use crate::protocol::model::ElicitAction;

/// The user's answer to an [`ElicitRequest`]: the model's `ElicitResult`,
/// with [`is_accepted`](Elicitation::is_accepted) and
/// [`content_as`](Elicitation::content_as).
pub use crate::protocol::model::ElicitResult as Elicitation;

/// Reads a client's `ElicitResult`.
pub(crate) fn read_elicitation(value: &Value) -> Result<Elicitation, ToolError> {
    // serde names what is wrong: a missing `action`, or which actions exist.
    Elicitation::deserialize(value).map_err(|err| {
        ToolError::new(format!(
            "the client's elicitation answer is not valid: {err}"
        ))
    })
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

/// What a tool asks the client for: a form for the user, a message from
/// the client's model, or the client's roots.
#[derive(Debug, Clone)]
pub(crate) enum Question {
    /// `elicitation/create`.
    Elicit(ElicitRequest),
    /// `sampling/createMessage` (boxed: far larger than a form).
    Sample(Box<SampleRequest>),
    /// `roots/list`.
    Roots,
}

impl Question {
    /// The request as a session or request of `version` sends it.
    pub(crate) fn wire(&self, version: ProtocolVersion) -> InputRequestRef<'_> {
        match self {
            Question::Elicit(request) => InputRequestRef::Elicit(request.wire(version)),
            Question::Sample(request) => InputRequestRef::Sample(request.params()),
            Question::Roots => InputRequestRef::ListRoots(NoParams {}),
        }
    }

    /// The client capability answering it needs.
    pub(crate) fn capability(&self) -> &'static str {
        match self {
            Question::Elicit(_) => "elicitation",
            Question::Sample(_) => "sampling",
            Question::Roots => "roots",
        }
    }

    /// What the tool's errors call the request.
    pub(crate) fn noun(&self) -> &'static str {
        match self {
            Question::Elicit(_) => "elicitation",
            Question::Sample(_) => "sampling request",
            Question::Roots => "roots/list request",
        }
    }
}

/// Why a 2026-07-28 call stopped before its tool finished.
#[derive(Debug, Clone)]
pub(crate) enum Interrupt {
    /// The tool asked for input the request does not carry yet: the
    /// round's unanswered questions, by key, in the order asked.
    InputRequired(Vec<(String, Question)>),
    /// The tool needs client capabilities (by name) the request did not declare.
    MissingCapability(Vec<&'static str>),
}
