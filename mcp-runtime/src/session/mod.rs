//! One client's conversation, independent of the transport: a [`Session`]
//! takes each decoded incoming message and puts what it answers into the
//! connection's outbox (the sink the transport writes from).
//!
//! Routing is one table ([`table::METHODS`]: each method's marker, revisions,
//! capability and handler), read by [`Session::on_request`]; the era rules
//! run in front of it ([`era`]); what a method declares and implements is
//! [`method`], and each method family has its file under [`methods`]; a call,
//! however it arrives (the wire, the in-process door, a task run again), is
//! admitted by [`admit`], run by [`run`] and answered by [`finish`], and the
//! wire's calls are driven by [`calls`]; what the session's requests,
//! calls and tasks share (outbox, calls in flight, requests to the client,
//! subscriptions) is the [`Connection`], in `conn/` below this module.

pub(crate) mod admit;
pub(crate) mod call_span;
pub(crate) mod calls;
pub(crate) mod era;
pub(crate) mod finish;
pub(crate) mod forks;
#[cfg(feature = "http")]
pub(crate) mod http_routing;
mod method;
mod methods;
pub(crate) mod run;
mod table;
pub(crate) mod tasks;

#[cfg(feature = "http")]
pub(crate) use methods::listen::close_subscriptions;
pub(crate) use methods::listen::watch_changes;

use crate::conn::connection::{ClientReply, Connection, canonical_id};
use crate::protocol::incoming::requests::CancelledParamsRef;
use crate::protocol::incoming::{Incoming, Rejection};
use crate::protocol::model::{ServerCapabilities, SkillsCapability};
use crate::protocol::outgoing::{self, ErrorData, Reply};
use crate::protocol::params::Params;
use crate::protocol::read::without_position;
use crate::protocol::{ErrorCode, ProtocolVersion, RpcError};
use crate::shared::Shared;
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use std::sync::Arc;

/// One connection's session: routing, era rules and the calls it starts.
#[derive(Debug)]
pub(crate) struct Session {
    shared: Arc<Shared>,
    connection: Arc<Connection>,
    /// The connections the client's answers and cancellations reach, when
    /// the conversation spans several ([`Session::across`]); else
    /// `connection` alone.
    forks: Option<Arc<forks::Forks>>,
}

impl Session {
    /// A session serving `shared` whose messages go out through `connection`.
    pub(crate) fn new(shared: Arc<Shared>, connection: Arc<Connection>) -> Session {
        Session {
            shared,
            connection,
            forks: None,
        }
    }

    /// This session, taking the client's answers to requests of ours and its
    /// cancellations for the calls of every connection in `forks` instead of
    /// its own connection's (a legacy HTTP session's POSTs in flight).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn across(self, forks: Arc<forks::Forks>) -> Session {
        Session {
            forks: Some(forks),
            ..self
        }
    }

    /// Hands the client's `reply` to the request of ours it answers, on
    /// whichever connection of the conversation made it; `false` if none
    /// waits for it.
    fn deliver_reply(&self, id: &str, reply: ClientReply) -> bool {
        match &self.forks {
            None => self.connection.deliver_reply(id, reply),
            Some(forks) => forks
                .live()
                .iter()
                .any(|connection| connection.deliver_reply(id, reply.clone())),
        }
    }

    /// Cancels call `id`, or ends subscription `id`, on every connection of
    /// the conversation.
    fn cancel(&self, id: &str) {
        let one = |connection: &Connection| {
            if connection.cancel_call(id) {
                tracing::debug!(id = %id, "cancelled a call");
            } else if connection.unsubscribe(id) {
                tracing::debug!(id = %id, "ended a subscription");
            }
        };
        match &self.forks {
            None => one(&self.connection),
            Some(forks) => forks.live().iter().for_each(|connection| one(connection)),
        }
    }

    /// A reply to request `id` under `version`.
    fn reply<'a>(&'a self, id: &'a RawValue, version: ProtocolVersion) -> Reply<'a> {
        Reply::new(id, version, self.shared.identity.server_meta())
    }

    /// The capabilities this session announces to a request of `version`
    /// (see [`table::capabilities`]): the handshake methods describe the
    /// table they are listed in, so they ask the session, which routes by
    /// it, rather than import the table that imports them.
    fn capabilities(&self, version: ProtocolVersion, has_task_tools: bool) -> ServerCapabilities {
        let holds = table::Holdings {
            task_tools: has_task_tools,
            resources: !self.shared.resources.is_empty(),
            prompts: !self.shared.prompts.is_empty(),
            completions: self.shared.completes(),
            skills: self.skills_capability(),
            apps: self.shared.tools.registry().has_app_tools(),
        };
        table::capabilities(version, holds)
    }

    /// The Skills extension's settings, when this server has skills: they
    /// are served with `resources/directory/read`.
    fn skills_capability(&self) -> Option<SkillsCapability> {
        #[cfg(feature = "skills")]
        if self.shared.skills.is_some() {
            return Some(SkillsCapability {
                directory_read: true,
            });
        }
        None
    }

    fn send_failure(&self, id: Option<&RawValue>, failure: &RpcError) {
        self.connection.send(outgoing::rpc_error(id, failure));
    }

    /// Handles one decoded message (or the reason it could not be decoded):
    /// answers it, starts a call, or takes a notification.
    pub(crate) fn handle(&mut self, message: Result<Incoming<'_>, Rejection<'_>>) {
        match message {
            Err(Rejection { error, id }) => {
                tracing::debug!(code = error.code, message = %error.message, "rejected a message");
                self.connection.send(outgoing::rpc_error(id, &error));
            }
            Ok(Incoming::Notification { method, params })
                if params.is_some_and(|raw| raw.get().starts_with('[')) =>
            {
                // MCP params are objects; a notification is never answered,
                // so one with positional params is dropped.
                tracing::debug!(%method, "ignored a notification with array params");
            }
            Ok(Incoming::Notification { method, params }) => self.on_notification(&method, params),
            Ok(Incoming::Response { id, result, error }) => {
                let reply = match (result, error) {
                    (Some(result), _) => {
                        Ok(serde_json::from_str(result.get()).unwrap_or(Value::Null))
                    }
                    (None, error) => Err(error
                        .and_then(|e| serde_json::from_str(e.get()).ok())
                        .unwrap_or(Value::Null)),
                };
                if !self.deliver_reply(&canonical_id(id.get()), reply) {
                    tracing::debug!(id = id.get(), "ignored a response to no request of ours");
                }
            }
            Ok(Incoming::Request { id, method, params }) => {
                if let Err(failure) = self.on_request(id, &method, params) {
                    self.send_failure(Some(id), &failure);
                }
            }
        }
    }

    /// A message longer than the limit was skipped; `id` is the request's
    /// id when the transport's scan of it found one.
    pub(crate) fn handle_oversized(&mut self, len: usize, max: usize, id: Option<&RawValue>) {
        let message = format!(
            "Invalid Request: the message is {len} bytes, over this server's limit of {max} bytes; it was discarded"
        );
        self.connection
            .send(outgoing::rpc_error(id, &RpcError::invalid_request(message)));
    }

    fn on_notification(&mut self, method: &str, params: Option<&RawValue>) {
        match method {
            crate::protocol::model::method::CANCELLED => {
                let Some(cancelled) = params
                    .and_then(|p| serde_json::from_str::<CancelledParamsRef<'_>>(p.get()).ok())
                else {
                    return;
                };
                self.cancel(&canonical_id(cancelled.request_id.get()));
            }
            other => tracing::debug!(method = other, "ignored a notification"),
        }
    }

    /// The router: the method table (`table::METHODS`) behind the era rules.
    fn on_request(
        &mut self,
        id: &RawValue,
        method: &str,
        params: Params<'_>,
    ) -> Result<(), RpcError> {
        let entry = table::find(method);
        // The handshake decides the era, so it runs ahead of the era rules,
        // as the bare request it is (`Method::HANDSHAKE`). An enveloped one
        // is a 2026-07-28 request, and that era has no such method: it goes
        // through the era rules to `-32601` (on HTTP `404`).
        if let Some(table::Entry {
            handshake: true,
            route: table::Route::Typed(run),
            ..
        }) = entry
            && !params.enveloped()
        {
            return run(self, id, ProtocolVersion::LATEST_LEGACY, params.raw);
        }
        let info = era::request_info(
            &self.shared.recent_client,
            &self.connection,
            method,
            &params,
        )?;
        let version = info.version;
        let has_prompts = !self.shared.prompts.is_empty();
        let completes = self.shared.completes();
        let Some(entry) = entry
            .filter(|entry| entry.serves(version) && table::offered(entry, has_prompts, completes))
        else {
            return Err(method_not_found(method));
        };
        match entry.route {
            table::Route::Call => self.call_tool(id, info, params),
            table::Route::Typed(run) | table::Route::Spawned(run) => {
                run(self, id, version, params.raw)
            }
            table::Route::GetPrompt => self.get_prompt(id, info, params),
            table::Route::Stream(open) => open(self, id, info, params.raw),
            // `find` has no task entries without the feature; the guard
            // also lets the optimiser drop the task methods.
            table::Route::Task(method) if crate::task::ENABLED => {
                self.task_request(id, method, info, &params)
            }
            table::Route::Task(_) => unreachable!("no task entries without the tasks feature"),
            table::Route::Read => self.read_resource(id, info, &params),
        }
    }

    /// Ends the session: calls in flight may finish until `deadline`
    /// (later ones are cancelled with an error response), requests of ours
    /// to the client fail, and open subscriptions get their final response.
    pub(crate) async fn shutdown(self, deadline: tokio::time::Instant) {
        let connection = &self.connection;
        connection.fail_server_requests();
        if tokio::time::timeout_at(deadline, connection.wait_idle())
            .await
            .is_err()
        {
            for id in connection.cancel_all() {
                tracing::warn!(%id, "cancelled a call still running after the drain timeout");
                let id = RawValue::from_string(id).ok();
                connection.send(outgoing::rpc_error(
                    id.as_deref(),
                    &RpcError::internal_error("The server shut down before the call finished"),
                ));
            }
        }
        methods::listen::close_subscriptions(connection);
    }
}

/// `-32601` naming `method`: no such method, or one behind a capability
/// this server does not offer.
fn method_not_found(method: &str) -> RpcError {
    RpcError::new(
        ErrorCode::METHOD_NOT_FOUND,
        format!("Method not found: {method}"),
    )
    .with_data(
        ErrorData::Method {
            method: method.to_owned(),
        }
        .into(),
    )
}

/// Deserializes a method's params, or says what is wrong with them.
fn parse_params<'a, T: Deserialize<'a>>(
    params: Option<&'a RawValue>,
    method: &str,
) -> Result<T, RpcError> {
    let text = params.map_or("{}", RawValue::get);
    serde_json::from_str(text).map_err(|err| {
        RpcError::invalid_params(format!(
            "Invalid params for {method}: {}",
            without_position(&err)
        ))
    })
}

/// A session of a server built from `server`, on a connection of its own,
/// and the connection's outbox (where a handler called directly must write
/// nothing: the router writes the reply).
/// The capabilities a server with resources and prompts announces to a
/// request of `version` (see [`table::capabilities`]), for what needs them
/// without a session: the delivery of changes decides by them which list
/// changes a legacy session was promised (a change is only ever told of
/// what the server has). Asked here, as [`Session::capabilities`] is,
/// rather than from the table that imports the methods.
pub(crate) fn announced(version: ProtocolVersion) -> ServerCapabilities {
    let holds = table::Holdings {
        resources: true,
        prompts: true,
        completions: true,
        ..table::Holdings::default()
    };
    table::capabilities(version, holds)
}

#[cfg(test)]
fn test_session(server: crate::server::Server) -> (Session, crate::conn::outbox::Frames) {
    let (shared, _, _) = server
        .into_shared(false)
        .unwrap_or_else(|err| panic!("a valid test server: {err}"));
    let (out, frames) = crate::conn::outbox::channel(usize::MAX);
    (Session::new(shared, Arc::new(Connection::new(out))), frames)
}
