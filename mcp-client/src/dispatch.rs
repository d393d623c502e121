//! The dispatcher: requests and their answers over one transport.
//!
//! One routing task reads the inbox in order and never waits on a handler:
//! answers go to the caller waiting for them, server requests run as tasks
//! of their own (bounded), notifications go through a bounded queue to one
//! task that hands them to the handler in order (dropped, with a warning,
//! when the handler falls that far behind). So a slow handler cannot stop
//! the answers to our requests, and memory stays bounded whatever the
//! server sends.

use crate::error::{ClientError, RpcError};
use crate::jsonrpc::{self, Message, ServerRequestId};
use crate::log_limit::LogLimiter;
use crate::text::excerpt;
use crate::transport::framing;
use crate::transport::{BoxFuture, Inbox, Incoming, Outgoing, Transport};
use mcp_protocol::json_budget::{JsonBudget, OverBudget};
use mcp_protocol::model::{CancelledParams, RequestId, method};
use serde_json::value::RawValue;
use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc, oneshot};
use tokio::task::AbortHandle;

/// The default timeout of a request (60 s, as `mcp-host --tool-timeout`).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The default bound on the JSON tree one server message may build: 32 MiB
/// as [`JsonBudget`] estimates it, so that a few such messages in flight
/// stay far under a host's memory budget.
pub const DEFAULT_JSON_BUDGET: JsonBudget = JsonBudget::new(32 * 1024 * 1024);

/// Limits and defaults of a [`Dispatcher`].
#[derive(Debug, Clone)]
pub struct DispatcherConfig {
    /// The server's name in the configuration (for the log and errors).
    pub name: String,
    /// The timeout of a request whose options name none. Default
    /// [`DEFAULT_TIMEOUT`].
    pub default_timeout: Duration,
    /// How many of our requests may wait for an answer at once; one more
    /// waits for a slot, within its own timeout, and fails with
    /// [`ClientError::TooManyPending`] if none comes. Default 1024.
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
    /// [`ClientError::AnswerTooLarge`]. Default [`DEFAULT_JSON_BUDGET`].
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
    /// [`ClientError::Unresponsive`]. Meanwhile the server's own messages
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

/// A request the server makes of us.
#[derive(Debug)]
pub struct ServerRequest {
    /// Its method (`sampling/createMessage`, `elicitation/create`, `roots/list`).
    pub method: String,
    /// Its params, unparsed.
    pub params: Option<Box<RawValue>>,
}

/// A notification from the server.
#[derive(Debug)]
pub struct ServerNotification {
    /// Its method (`notifications/progress`, `notifications/message`, …).
    pub method: String,
    /// Its params, unparsed.
    pub params: Option<Box<RawValue>>,
}

/// What the layer above does with what the server sends unasked.
///
/// `ping` is answered by the dispatcher itself.
pub trait Handler: Send + Sync + 'static {
    /// Answers a server request; the default refuses every method with
    /// `-32601`.
    fn request(&self, request: ServerRequest) -> BoxFuture<'_, Result<Box<RawValue>, RpcError>> {
        Box::pin(async move {
            Err(RpcError::method_not_found("Method not found")
                .with_data(serde_json::json!({"method": request.method})))
        })
    }

    /// Whether this handler answers `method` at all (the client declared
    /// the capability behind it); the default says yes. A request for a
    /// method it does not handle is refused with `-32601` by the dispatcher
    /// without its params being read or a task started for it.
    fn handles(&self, method: &str) -> bool {
        let _ = method;
        true
    }

    /// Takes a notification; the default ignores it. Called in arrival
    /// order, one at a time.
    fn notification(&self, notification: ServerNotification) -> BoxFuture<'_, ()> {
        let _ = notification;
        Box::pin(async {})
    }
}

/// A [`Handler`] that refuses every request and ignores every notification.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoHandler;

impl Handler for NoHandler {
    fn handles(&self, _method: &str) -> bool {
        false
    }
}

type Answer = Result<Box<RawValue>, ClientError>;

#[derive(Default)]
struct State {
    pending: HashMap<u64, oneshot::Sender<Answer>>,
    /// The latest requests given up on (cancelled, timed out, dropped at
    /// close) whose answers have not come: a server may still answer one
    /// (the cancellation crossed its answer, or a server that stops answers
    /// its open `subscriptions/listen` as it ends). Such an answer is
    /// expected and dropped quietly; any other answer no one waits for
    /// still warns. At most [`MAX_ABANDONED`], the oldest forgotten first.
    abandoned: BTreeSet<u64>,
    /// Set once the connection is over; every later request fails with it.
    closed: Option<ClientError>,
}

/// The most ids [`State::abandoned`] remembers.
const MAX_ABANDONED: usize = 1024;

impl State {
    /// Remembers `id` as given up on.
    fn abandon(&mut self, id: u64) {
        self.abandoned.insert(id);
        if self.abandoned.len() > MAX_ABANDONED {
            self.abandoned.pop_first();
        }
    }
}

struct Shared {
    config: DispatcherConfig,
    transport: Box<dyn Transport>,
    state: Mutex<State>,
    next_id: AtomicU64,
    /// The server's requests being answered, by the JSON text of their id.
    server_requests: Mutex<HashMap<String, AbortHandle>>,
    /// One permit per request that may wait for its answer.
    slots: Arc<Semaphore>,
    /// Replies owed to the server, for the writer task.
    replies: mpsc::Sender<Owed>,
    /// One permit per byte of reply that may wait in `replies`.
    reply_bytes: Arc<Semaphore>,
}

/// A reply waiting to be written, holding its share of the byte bound.
struct Owed {
    body: String,
    _bytes: OwnedSemaphorePermit,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Marks the connection over and fails every waiting request with `reason`.
    fn shut(&self, reason: ClientError) {
        let pending = {
            let mut state = self.lock();
            if state.closed.is_none() {
                state.closed = Some(reason.clone());
            }
            let pending = std::mem::take(&mut state.pending);
            // A server closed on purpose may still answer them as it ends.
            for id in pending.keys() {
                state.abandon(*id);
            }
            pending
        };
        for (_, waiter) in pending {
            let _ = waiter.send(Err(reason.clone()));
        }
        for (_, task) in self
            .server_requests
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .drain()
        {
            task.abort();
        }
    }

    /// A send failed with `error`: if it means the connection is over (the
    /// process exited, the session expired), mark it so now, not only once
    /// the transport's own report comes through the inbox (the layer above
    /// would find it alive meanwhile). An HTTP `Disconnected` concerns that
    /// one request (a refused connect, a reset): the next may succeed.
    fn lost(&self, error: &ClientError) {
        if matches!(
            error,
            ClientError::Exited { .. } | ClientError::SessionExpired | ClientError::Closed
        ) {
            self.shut(error.clone());
        }
    }

    /// Queues a reply to the server's request `id`. When the queue stays
    /// full for [`DispatcherConfig::unresponsive_after`], the server has
    /// stopped reading: the connection is ended.
    async fn reply(&self, id: &RawValue, outcome: Result<&RawValue, &RpcError>) {
        self.owe(jsonrpc::response(id, outcome)).await;
    }

    /// Queues `body` (a reply, a cancellation) for the writer task, as
    /// [`reply`](Self::reply) does.
    async fn owe(&self, body: String) {
        if self.lock().closed.is_some() {
            return;
        }
        // A reply larger than the whole bound waits for the queue to empty.
        let max = self
            .config
            .max_queued_reply_bytes
            .clamp(1, Semaphore::MAX_PERMITS)
            .min(u32::MAX as usize);
        let bytes = u32::try_from(body.len().clamp(1, max)).unwrap_or(u32::MAX);
        let queued = tokio::time::timeout(self.config.unresponsive_after, async {
            let permit = Arc::clone(&self.reply_bytes)
                .acquire_many_owned(bytes)
                .await
                .ok()?;
            self.replies
                .send(Owed {
                    body,
                    _bytes: permit,
                })
                .await
                .ok()
        })
        .await;
        if queued.is_err() {
            self.unresponsive();
        }
    }

    /// The server stopped reading: end the connection without waiting on it.
    fn unresponsive(&self) {
        if self.lock().closed.is_some() {
            return;
        }
        let error = ClientError::Unresponsive {
            server: self.config.name.clone(),
            input: self.transport.input(),
            owed: self
                .config
                .max_queued_replies
                .saturating_sub(self.replies.capacity()),
        };
        tracing::warn!(server = %self.config.name, "{error}");
        self.shut(error);
        self.transport.terminate();
    }

    /// Sends `notifications/cancelled` for `id` in the background (a drop
    /// cannot wait).
    fn cancel(self: &Arc<Self>, id: u64, method: &str, reason: &'static str, notify: bool) {
        self.transport.abandon(id);
        tracing::debug!(server = %self.config.name, id, method, reason, "request cancelled");
        if !notify || self.lock().closed.is_some() {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let shared = Arc::clone(self);
        // Through the bounded queue of what the server is owed: a server
        // that stops reading cannot make cancellations pile up either.
        runtime.spawn(async move {
            shared.owe(jsonrpc::cancelled(id, reason)).await;
        });
    }
}

/// Requests and their answers over one connection, and the server's own
/// messages handed to a [`Handler`].
///
/// Ids are unique per connection (1, 2, 3, …). Dropping the dispatcher
/// stops its tasks and drops the transport (which kills a stdio child).
pub struct Dispatcher {
    shared: Arc<Shared>,
    tasks: Vec<AbortHandle>,
}

impl fmt::Debug for Dispatcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Dispatcher")
            .field("server", &self.shared.config.name)
            .field("transport", &self.shared.transport)
            .field("closed", &self.closed_reason())
            .finish_non_exhaustive()
    }
}

impl Drop for Dispatcher {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
        self.shared.shut(ClientError::Closed);
    }
}

/// Cancels a request that is dropped or times out before its answer.
struct PendingGuard<'a> {
    shared: &'a Arc<Shared>,
    id: u64,
    method: &'a str,
    notify: bool,
    armed: bool,
    reason: &'static str,
}

impl PendingGuard<'_> {
    /// The request is over without a cancellation (answered, or never sent).
    fn forget(&mut self) {
        self.armed = false;
        self.shared.lock().pending.remove(&self.id);
    }
}

impl Drop for PendingGuard<'_> {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        // Still pending means unanswered: cancel it. Gone means the answer
        // won the race and there is nothing to cancel.
        let unanswered = {
            let mut state = self.shared.lock();
            let unanswered = state.pending.remove(&self.id).is_some();
            if unanswered {
                state.abandon(self.id);
            }
            unanswered
        };
        if unanswered {
            self.shared
                .cancel(self.id, self.method, self.reason, self.notify);
        }
    }
}

impl Dispatcher {
    /// Starts routing the messages of `inbox`; `transport` sends. Must be
    /// called inside a tokio runtime.
    pub fn new(
        transport: Box<dyn Transport>,
        inbox: Inbox,
        handler: Arc<dyn Handler>,
        config: DispatcherConfig,
    ) -> Self {
        let (notify_tx, notify_rx) = mpsc::channel(config.max_buffered_notifications.max(1));
        let (replies_tx, replies_rx) = mpsc::channel(config.max_queued_replies.max(1));
        let shared = Arc::new(Shared {
            slots: Arc::new(Semaphore::new(
                config.max_pending.clamp(1, Semaphore::MAX_PERMITS),
            )),
            reply_bytes: Arc::new(Semaphore::new(
                config
                    .max_queued_reply_bytes
                    .clamp(1, Semaphore::MAX_PERMITS)
                    .min(u32::MAX as usize),
            )),
            replies: replies_tx,
            config,
            transport,
            state: Mutex::new(State::default()),
            next_id: AtomicU64::new(1),
            server_requests: Mutex::new(HashMap::new()),
        });
        let queued = Arc::new(AtomicUsize::new(0));
        let router = Router {
            shared: Arc::clone(&shared),
            handler: Arc::clone(&handler),
            notifications: notify_tx,
            queued: Arc::clone(&queued),
            dropped: 0,
            refused_frames: AtomicU64::new(0),
            warnings: Mutex::new(LogLimiter::new(shared.config.name.clone(), "warning")),
        };
        let router = tokio::spawn(router.run(inbox));
        let notifier = tokio::spawn(deliver_notifications(handler, notify_rx, queued));
        let writer = tokio::spawn(write_replies(Arc::clone(&shared), replies_rx));
        Dispatcher {
            shared,
            tasks: vec![
                router.abort_handle(),
                notifier.abort_handle(),
                writer.abort_handle(),
            ],
        }
    }

    /// The server's name.
    pub fn name(&self) -> &str {
        &self.shared.config.name
    }

    /// Sets the HTTP headers of every later request of this connection
    /// (requests, notifications, answers, cancellations, the GET stream,
    /// the DELETE), e.g. `MCP-Protocol-Version` once a legacy handshake
    /// chose it. See [`Transport::set_headers`].
    pub fn set_headers(&self, headers: &[(String, String)]) -> Result<(), ClientError> {
        self.shared.transport.set_headers(headers)
    }

    /// Why the connection is over, once it is.
    pub fn closed_reason(&self) -> Option<ClientError> {
        self.shared.lock().closed.clone()
    }

    /// Whether the connection is over (the server exited, the session
    /// expired, [`close`](Self::close) was called).
    pub fn is_closed(&self) -> bool {
        self.shared.lock().closed.is_some()
    }

    /// How many requests wait for their answer.
    pub fn pending(&self) -> usize {
        self.shared.lock().pending.len()
    }

    /// Sends a request and waits for its result. A timeout, or dropping the
    /// returned future, cancels the request: the server is told (see
    /// [`RequestOptions::cancel_notification`]) and a late answer is
    /// dropped.
    pub async fn request(
        &self,
        method: &str,
        params: Option<&RawValue>,
        options: RequestOptions,
    ) -> Result<Box<RawValue>, ClientError> {
        let shared = &self.shared;
        let timeout = options.timeout.unwrap_or(shared.config.default_timeout);
        let started = tokio::time::Instant::now();
        if let Some(reason) = self.closed_reason() {
            return Err(reason);
        }
        // Past the bound a request waits for a slot rather than failing: a
        // model that asks for many calls at once gets them all run, as fast
        // as the server takes them, each within its own timeout.
        let slot = Arc::clone(&shared.slots).acquire_owned();
        let _slot = match tokio::time::timeout(timeout, slot).await {
            Ok(Ok(slot)) => slot,
            // The semaphore is never closed.
            Ok(Err(_)) => return Err(ClientError::Closed),
            Err(_) => {
                return Err(ClientError::TooManyPending {
                    server: shared.config.name.clone(),
                    limit: shared.config.max_pending,
                });
            }
        };
        let total = timeout;
        let timeout = timeout.saturating_sub(started.elapsed());
        let id = shared.next_id.fetch_add(1, Ordering::Relaxed);
        let answer = {
            let mut state = shared.lock();
            if let Some(reason) = &state.closed {
                return Err(reason.clone());
            }
            let (tx, rx) = oneshot::channel();
            state.pending.insert(id, tx);
            rx
        };
        let mut guard = PendingGuard {
            shared,
            id,
            method,
            notify: options.cancel_notification,
            armed: true,
            reason: "the caller stopped waiting",
        };
        let message = Outgoing {
            body: jsonrpc::request(id, method, params),
            request_id: Some(id),
            headers: options.headers,
        };
        let exchange = async {
            shared
                .transport
                .send(message)
                .await
                .inspect_err(|e| shared.lost(e))?;
            // A dropped sender means the dispatcher was dropped.
            answer.await.unwrap_or(Err(ClientError::Closed))
        };
        match tokio::time::timeout(timeout, exchange).await {
            Ok(Ok(result)) => {
                guard.forget();
                Ok(result)
            }
            Ok(Err(error)) => {
                guard.forget();
                Err(error)
            }
            Err(_) => {
                guard.reason = "timeout";
                drop(guard);
                Err(ClientError::Timeout {
                    method: method.to_owned(),
                    after: total,
                })
            }
        }
    }

    /// Sends a notification.
    pub async fn notify(
        &self,
        method: &str,
        params: Option<&RawValue>,
        headers: &[(String, String)],
    ) -> Result<(), ClientError> {
        if let Some(reason) = self.closed_reason() {
            return Err(reason);
        }
        let message = Outgoing {
            body: jsonrpc::notification(method, params),
            request_id: None,
            headers: headers.to_vec(),
        };
        let sent = self.shared.transport.send(message).await;
        sent.inspect_err(|e| self.shared.lost(e))
    }

    /// Opens the transport's channel for unprompted server messages (the
    /// legacy HTTP GET stream); nothing on stdio.
    pub async fn listen(&self) -> Result<(), ClientError> {
        self.shared.transport.listen().await
    }

    /// Ends the connection (DELETE of an HTTP session; stdin closed, then
    /// the child killed if it lingers). Waiting requests fail with
    /// [`ClientError::Closed`].
    pub async fn close(&self) {
        self.shared.shut(ClientError::Closed);
        self.shared.transport.close().await;
    }
}

/// What a queued notification counts against the byte bound.
fn queued_size(notification: &ServerNotification) -> usize {
    notification.method.len() + notification.params.as_ref().map_or(0, |p| p.get().len())
}

async fn deliver_notifications(
    handler: Arc<dyn Handler>,
    mut queue: mpsc::Receiver<ServerNotification>,
    queued: Arc<AtomicUsize>,
) {
    while let Some(notification) = queue.recv().await {
        queued.fetch_sub(queued_size(&notification), Ordering::Relaxed);
        handler.notification(notification).await;
    }
}

struct Router {
    shared: Arc<Shared>,
    handler: Arc<dyn Handler>,
    notifications: mpsc::Sender<ServerNotification>,
    /// Bytes of notifications in the queue.
    queued: Arc<AtomicUsize>,
    /// Notifications dropped since the last warning.
    dropped: u64,
    /// Messages dropped for their size or their id's: a warning for the
    /// 1st, 2nd, 4th, 8th… so that a flood of them cannot flood the log.
    refused_frames: AtomicU64,
    /// The warnings one unusable message earns (not JSON-RPC, an answer to
    /// nothing), rate-limited as a server's log lines are: a server can
    /// send such messages as fast as the host reads them.
    warnings: Mutex<LogLimiter>,
}

/// The key a cancelled request is looked up under: its id written as JSON,
/// the text a server request's id is kept under (`server_requests`).
fn request_key(id: &RequestId) -> String {
    match id {
        RequestId::Number(number) => number.to_string(),
        RequestId::String(text) => serde_json::Value::String(text.clone()).to_string(),
    }
}

/// At most this much of a bad message is quoted in the log.
const EXCERPT: usize = 200;

impl Router {
    async fn run(mut self, mut inbox: Inbox) {
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
        });
    }

    fn answer(&self, id: u64, answer: Answer) {
        let (waiter, abandoned) = {
            let mut state = self.shared.lock();
            let waiter = state.pending.remove(&id);
            (waiter, state.abandoned.remove(&id))
        };
        match waiter {
            Some(waiter) => {
                let _ = waiter.send(answer);
            }
            None if abandoned => {
                tracing::debug!(server = %self.shared.config.name, id, "dropped a late answer to a request given up on");
            }
            None => {
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
    fn warning_admitted(&self) -> bool {
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
    fn acceptable_id(&self, id: &RawValue) -> bool {
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
    fn count_refused(&self) -> Option<u64> {
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
                let size = queued_size(&notification);
                let budget = self.shared.config.max_buffered_notification_bytes;
                let sent = if self.queued.load(Ordering::Relaxed) + size > budget {
                    Err(mpsc::error::TrySendError::Full(notification))
                } else {
                    self.queued.fetch_add(size, Ordering::Relaxed);
                    let sent = self.notifications.try_send(notification);
                    if sent.is_err() {
                        self.queued.fetch_sub(size, Ordering::Relaxed);
                    }
                    sent
                };
                match sent {
                    Ok(()) => {
                        if self.dropped > 0 {
                            tracing::warn!(
                                server = %self.shared.config.name,
                                dropped = self.dropped,
                                "the handler caught up; notifications were dropped meanwhile"
                            );
                            self.dropped = 0;
                        }
                    }
                    Err(mpsc::error::TrySendError::Full(_)) => {
                        if self.dropped == 0 {
                            tracing::warn!(
                                server = %self.shared.config.name,
                                limit = self.shared.config.max_buffered_notifications,
                                "dropping notifications: the handler fell behind"
                            );
                        }
                        self.dropped += 1;
                    }
                    Err(mpsc::error::TrySendError::Closed(_)) => {}
                }
            }
        }
    }

    /// The server gave up on one of its requests: stop answering it.
    fn server_cancelled(&self, params: Option<&RawValue>) {
        // A notification gets no answer: one that names no request is
        // logged and dropped, and no request is cancelled by it.
        let parsed = params.map(|p| serde_json::from_str::<CancelledParams>(p.get()));
        let params = match parsed {
            Some(Ok(params)) => params,
            Some(Err(err)) => {
                tracing::debug!(server = %self.shared.config.name, error = %err, "ignored a notifications/cancelled with unreadable params");
                return;
            }
            None => {
                tracing::debug!(server = %self.shared.config.name, "ignored a notifications/cancelled without params");
                return;
            }
        };
        let task = self
            .shared
            .server_requests
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&request_key(&params.request_id));
        if let Some(task) = task {
            task.abort();
        }
    }

    async fn server_request(
        &self,
        id: ServerRequestId,
        method: String,
        params: Option<Box<RawValue>>,
    ) {
        if !self.acceptable_id(&id) {
            return;
        }
        let shared = Arc::clone(&self.shared);
        if method == method::PING {
            shared.reply(&id, Ok(&empty_object())).await;
            return;
        }
        if !self.handler.handles(&method) {
            // Refused unread: a capability this client did not declare.
            drop(params);
            shared.reply(&id, Err(&method_not_found(&method))).await;
            return;
        }
        let refusal = {
            let running = self
                .shared
                .server_requests
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            let key = id.get();
            if running.contains_key(key) {
                Some(RpcError::invalid_request(
                    "Invalid request: this id is already in use by a request in progress",
                ))
            } else if running.len() >= self.shared.config.max_server_requests {
                Some(RpcError::internal_error(format!(
                    "Internal error: the client is already answering {} requests",
                    running.len()
                )))
            } else {
                None
            }
        };
        if let Some(error) = refusal {
            shared.reply(&id, Err(&error)).await;
            return;
        }
        let mut running = self
            .shared
            .server_requests
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let key = id.get().to_owned();
        let handler = Arc::clone(&self.handler);
        let task_key = key.clone();
        let task = tokio::spawn(async move {
            let outcome = handler.request(ServerRequest { method, params }).await;
            // Answer only if not cancelled meanwhile.
            let still = shared
                .server_requests
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&task_key)
                .is_some();
            if still {
                shared.reply(&id, outcome.as_deref()).await;
            }
        });
        running.insert(key, task.abort_handle());
    }
}

/// `{}`, the result of `ping`.
fn empty_object() -> Box<RawValue> {
    // Serializing an empty map cannot fail; `null` would do no harm anyway.
    serde_json::value::to_raw_value(&serde_json::Map::new()).unwrap_or_default()
}

/// The refusal of a method behind a capability this client did not
/// declare (the spec's code for it).
fn method_not_found(method: &str) -> RpcError {
    RpcError::method_not_found("Method not found").with_data(serde_json::json!({"method": method}))
}

/// Writes the messages owed to the server, in order, one at a time: a server
/// that stops reading holds this task up, and the bounded queue before it
/// fills instead of memory.
async fn write_replies(shared: Arc<Shared>, mut queue: mpsc::Receiver<Owed>) {
    while let Some(owed) = queue.recv().await {
        if shared.lock().closed.is_some() {
            // Ended (an unresponsive server among them): what is left is
            // dropped without a warning each.
            continue;
        }
        let message = Outgoing::new(owed.body, None);
        if let Err(error) = shared.transport.send(message).await {
            tracing::warn!(server = %shared.config.name, %error, "an answer to the server could not be sent");
        }
    }
}
