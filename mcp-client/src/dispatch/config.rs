//! The dispatcher's limits and a request's options.

use mcpfn_protocol::json_budget::JsonBudget;
use std::time::Duration;

/// The default timeout of a request (60 s, as `mcp-host --tool-timeout`).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The default bound on the JSON tree one server message may build: 32 MiB
/// as [`JsonBudget`] estimates it, so that a few such messages in flight
/// stay far under a host's memory budget.
pub const DEFAULT_JSON_BUDGET: JsonBudget = JsonBudget::new(32 * 1024 * 1024);

/// Limits and defaults of a [`Dispatcher`](super::Dispatcher).
#[derive(Debug, Clone)]
pub struct DispatcherConfig {
    /// The server's name in the configuration (for the log and errors).
    pub name: String,
    /// The timeout of a request whose options name none. Default
    /// [`DEFAULT_TIMEOUT`].
    pub default_timeout: Duration,
    /// How many of our requests may wait for an answer at once; one more
    /// waits for a slot, within its own timeout, and fails with
    /// [`ClientError::TooManyPending`](crate::ClientError::TooManyPending) if none comes. Default 1024.
    pub max_pending: usize,
    /// How many server notifications may wait for the handler; past that
    /// they are dropped with a warning. Default 256.
    pub max_buffered_notifications: usize,
    /// How many bytes of notifications may wait for the handler, all told;
    /// past that they are dropped too. Default 16 MiB.
    pub max_buffered_notification_bytes: usize,
    /// How many server requests may run at once; one more is answered with
    /// an error at once. Default 16.
    pub max_server_requests: usize,
    /// The most one incoming message may build once parsed, checked on its
    /// text before anything is parsed: a message over it is dropped with a
    /// warning, and the request it answers fails with
    /// [`ClientError::AnswerTooLarge`](crate::ClientError::AnswerTooLarge). Default [`DEFAULT_JSON_BUDGET`].
    pub json_budget: JsonBudget,
    /// The longest id (as JSON text) a server request may have; a request
    /// with a longer one is dropped with a warning, unanswered, since its
    /// answer would have to echo it. Default 256 bytes.
    pub max_server_request_id_bytes: usize,
    /// How many messages owed to the server (answers to its requests and
    /// pings, cancellations of ours) may wait to be written. Default 256.
    pub max_queued_replies: usize,
    /// How many bytes of such replies may wait, all told. Default 4 MiB.
    pub max_queued_reply_bytes: usize,
    /// How long a reply waits for room in that queue before the server is
    /// taken to have stopped reading and the connection is ended with
    /// [`ClientError::Unresponsive`](crate::ClientError::Unresponsive). Meanwhile the server's own messages
    /// are not read. Default 10 s.
    pub unresponsive_after: Duration,
}

impl DispatcherConfig {
    /// The defaults, for the server called `name`.
    pub fn new(name: impl Into<String>) -> Self {
        DispatcherConfig {
            name: name.into(),
            default_timeout: DEFAULT_TIMEOUT,
            max_pending: 1024,
            max_buffered_notifications: 256,
            max_buffered_notification_bytes: 16 * 1024 * 1024,
            max_server_requests: 16,
            json_budget: DEFAULT_JSON_BUDGET,
            max_server_request_id_bytes: 256,
            max_queued_replies: 256,
            max_queued_reply_bytes: 4 * 1024 * 1024,
            unresponsive_after: Duration::from_secs(10),
        }
    }
}

/// How one request is sent.
#[derive(Debug, Clone)]
pub struct RequestOptions {
    /// How long to wait for the answer; the dispatcher's default when
    /// `None`. `Duration::MAX` waits as long as the connection lasts.
    pub timeout: Option<Duration>,
    /// HTTP headers for this request only, after the connection's own.
    pub headers: Vec<(String, String)>,
    /// Whether a timeout or a dropped caller sends `notifications/cancelled`
    /// (true by default). `initialize` is not cancellable, and on 2026-07-28
    /// HTTP dropping the response stream is the cancellation.
    pub cancel_notification: bool,
}

impl Default for RequestOptions {
    fn default() -> Self {
        RequestOptions {
            timeout: None,
            headers: Vec::new(),
            cancel_notification: true,
        }
    }
}

impl RequestOptions {
    /// The defaults with this timeout.
    pub fn timeout(timeout: Duration) -> Self {
        RequestOptions {
            timeout: Some(timeout),
            ..RequestOptions::default()
        }
    }

    /// Adds an HTTP header for this request.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }
}
