//! The routing task: reads the inbox in order, hands answers to their
//! callers, and refuses what is too large or unreadable.

use super::handler::{Handler, ServerNotification};
use super::notifications::NotificationQueue;
use super::pending::{Answer, Settled};
use super::shared::Shared;
use crate::error::{ClientError, RpcError};
use crate::jsonrpc::{self, Message};
use crate::log_limit::LogLimiter;
use crate::text::excerpt;
use crate::transport::framing;
use crate::transport::{Inbox, Incoming};
use mcpfn_protocol::json_budget::OverBudget;
use mcpfn_protocol::model::method;
use serde_json::value::RawValue;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

pub(super) struct Router {
    pub(super) shared: Arc<Shared>,
    pub(super) handler: Arc<dyn Handler>,
    pub(super) notifications: NotificationQueue,
    /// Messages dropped for their size or their id's: a warning for the
    /// 1st, 2nd, 4th, 8th… so that a flood of them cannot flood the log.
    pub(super) refused_frames: AtomicU64,
    /// The warnings one unusable message earns (not JSON-RPC, an answer to
    /// nothing), rate-limited as a server's log lines are: a server can
    /// send such messages as fast as the host reads them.
    pub(super) warnings: Mutex<LogLimiter>,
}

/// At most this much of a bad message is quoted in the log.
const EXCERPT: usize = 200;

impl Router {
    pub(super) async fn run(mut self, mut inbox: Inbox) {
        let name = self.shared.config.name.clone();
        while let Some(incoming) = inbox.recv().await {
            match incoming {
                Incoming::Message(text) => {
                    match self.shared.config.json_budget.check(text.as_bytes()) {
                        Err(over) => self.over_budget(&text, over).await,
                        Ok(_) => match jsonrpc::parse(&text) {
                            Ok(message) => self.route(message).await,
                            Err(reason) => {
                                if self.warning_admitted() {
                                    tracing::warn!(
                                        server = %name,
                                        "skipped a message that is not JSON-RPC ({reason}): {}",
                                        excerpt(&text, EXCERPT)
                                    );
                                }
                            }
                        },
                    }
                }
                Incoming::Failed { id, error } => self.answer(id, Err(error)),
                Incoming::Closed(reason) => {
                    self.shared.shut(reason);
                    return;
                }
            }
        }
        self.shared.shut(ClientError::Disconnected {
            server: name,
            reason: "the transport stopped".into(),
            cause: None,
        });
    }

    pub(super) fn answer(&self, id: u64, answer: Answer) {
        let settled = self.shared.lock().settle(id);
        match settled {
            Settled::Waiting(waiter) => {
                let _ = waiter.send(answer);
            }
            Settled::Abandoned => {
                tracing::debug!(server = %self.shared.config.name, id, "dropped a late answer to a request given up on");
            }
            Settled::Unknown => {
                if self.warning_admitted() {
                    tracing::warn!(
                        server = %self.shared.config.name,
                        id,
                        "dropped an answer to a request that is not waiting (unknown, cancelled or timed out)"
                    );
                }
            }
        }
    }

    /// Whether one more warning about an unusable message may be written.
    pub(super) fn warning_admitted(&self) -> bool {
        self.warnings
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .admit()
    }

    /// A message whose tree would exceed the budget: dropped unparsed. Its
    /// envelope is still read (its payload kept as text, never as a tree) to
    /// fail the request it answers, or to refuse the request it makes.
    async fn over_budget(&self, text: &str, over: OverBudget) {
        let name = &self.shared.config.name;
        if let Some(refused) = self.count_refused() {
            tracing::warn!(
                server = %name,
                budget_mib = self.shared.config.json_budget.max_tree_bytes >> 20,
                bytes = text.len(),
                refused,
                "dropped a message from server `{name}` over the JSON budget of {} MiB a message: {over}",
                self.shared.config.json_budget.max_tree_bytes >> 20
            );
        }
        match jsonrpc::parse(text) {
            Ok(Message::Response { id: Some(id), .. }) => self.answer(
                id,
                Err(ClientError::AnswerTooLarge {
                    server: name.clone(),
                    reason: over.to_string(),
                }),
            ),
            Ok(Message::Request { id, method, .. }) => {
                if !self.acceptable_id(&id) {
                    return;
                }
                let error = if self.handler.handles(&method) {
                    RpcError::invalid_request(format!(
                        "Invalid request: too large for this client to hold ({over})"
                    ))
                } else {
                    method_not_found(&method)
                };
                self.shared.reply(&id, Err(&error)).await;
            }
            Ok(_) => {}
            // Too deep for the envelope parse: the id may still be read.
            Err(_) => {
                if let Some(id) = framing::scan_request_id(text.as_bytes()) {
                    self.answer(
                        id,
                        Err(ClientError::AnswerTooLarge {
                            server: name.clone(),
                            reason: over.to_string(),
                        }),
                    );
                }
            }
        }
    }

    /// Whether a server request's id is short enough to echo; a longer one
    /// is dropped with a warning.
    pub(super) fn acceptable_id(&self, id: &RawValue) -> bool {
        let limit = self.shared.config.max_server_request_id_bytes;
        if id.get().len() <= limit {
            return true;
        }
        if let Some(refused) = self.count_refused() {
            tracing::warn!(
                server = %self.shared.config.name,
                id_bytes = id.get().len(),
                limit,
                refused,
                "dropped a request from server `{}` whose id is longer than {limit} bytes",
                self.shared.config.name
            );
        }
        false
    }

    /// Counts one more refused message; `Some(count)` when it is worth a
    /// warning (the count is a power of two).
    pub(super) fn count_refused(&self) -> Option<u64> {
        let refused = self.refused_frames.fetch_add(1, Ordering::Relaxed) + 1;
        refused.is_power_of_two().then_some(refused)
    }

    async fn route(&mut self, message: Message) {
        match message {
            Message::Response {
                id: Some(id),
                outcome,
                ..
            } => self.answer(id, outcome.map_err(ClientError::Rpc)),
            Message::Response {
                raw_id, outcome, ..
            } => {
                if !self.warning_admitted() {
                    return;
                }
                match (raw_id, outcome) {
                    (None, Err(error)) => tracing::warn!(
                        server = %self.shared.config.name,
                        "the server answered an error without an id: {error}"
                    ),
                    (raw_id, _) => tracing::warn!(
                        server = %self.shared.config.name,
                        // An id may be as long as a message: a cut of it.
                        id = raw_id.as_deref().map_or("none".into(), |id| excerpt(id.get(), EXCERPT)),
                        "dropped an answer whose id this client never sent"
                    ),
                }
            }
            Message::Request { id, method, params } => {
                self.server_request(id, method, params).await;
            }
            Message::Notification { method, params } => {
                if method == method::CANCELLED {
                    self.server_cancelled(params.as_deref());
                }
                let notification = ServerNotification { method, params };
                self.handler.noticed(&notification);
                let name = &self.shared.config.name;
                self.notifications.push(name, notification);
            }
        }
    }
}

/// The refusal of a method behind a capability this client did not
/// declare (the spec's code for it).
pub(super) fn method_not_found(method: &str) -> RpcError {
    RpcError::method_not_found("Method not found").with_data(serde_json::json!({"method": method}))
}
