//! What a running tool can know and do besides its arguments: the call's
//! identity and revision, progress, logging, cancellation, state, the live
//! tool set, and (through [`elicit`], beside it) asking the user or the
//! client's model. The test builder is `test_context.rs`, above this
//! module and `tool/`.

pub(crate) mod ask;
pub(crate) mod elicit;
mod form;
mod sample;
pub(crate) mod seal;

use crate::changes::Notifier;
use crate::conn::client::ClientInfo;
use crate::conn::connection::{CancelSignal, Connection};
use crate::conn::peer::{LogMessage, Peer, Progress};
use crate::context::ask::{Ask, Asks};
use crate::context::elicit::{ElicitRequest, Elicitation, Interrupt, SampleRequest, SampleResult};
use crate::level::Level;
use crate::outcome::ToolError;
use crate::principal::Principal;
use crate::protocol::ProtocolVersion;
use crate::quota::WindowQuota;
use crate::state::{State, StateMap};
use crate::store::Store;
use crate::util::lock;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::any::Any;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;
use tokio::sync::Notify;

/// The context of one tool call: who is calling, under which protocol
/// revision, and the channels back to the client (progress, logging,
/// elicitation, cancellation). As a `#[tool]` parameter of type `Context` it
/// is injected and never appears in the inputSchema.
///
/// Cancellation: when the client sends `notifications/cancelled` for the
/// call, the tool's future is dropped at its next `.await` and no response is
/// sent. Code that runs long without awaiting can check
/// [`Context::is_cancelled`]; [`Context::progress`] returns an error once the
/// call is cancelled, so `?` ends the tool there.
#[derive(Clone)]
pub struct Context {
    inner: Arc<Inner>,
}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context")
            .field("request_id", &self.inner.request_id)
            .field("tool", &self.inner.tool)
            .field("version", &self.inner.version)
            .finish_non_exhaustive()
    }
}

/// What every call of one server reaches through its `Context`: built once,
/// and shared by one reference per call rather than one per part.
#[derive(Debug)]
pub(crate) struct Reach {
    pub(crate) states: StateMap,
    pub(crate) store: Arc<dyn Store>,
    /// The server's live tool set (a `ToolSet`), held without naming its
    /// type: a tool receives a `Context` and the tool set holds tools, so
    /// `context/` sits below `tool/` and carries the set as a handle passed
    /// down. `Context::tools`, in `tool/toolset.rs` where the type is known,
    /// reads it.
    pub(crate) tools: Box<dyn Any + Send + Sync>,
    /// Tells the clients what changed (`Context::notifier`).
    pub(crate) notifier: Notifier,
    /// Legacy: how long `elicit` waits for the user.
    pub(crate) elicitation_timeout: Duration,
    /// The largest message the server sends or takes
    /// (`Server::max_message_size`): a prompt's result must fit in it.
    pub(crate) max_message_size: usize,
    /// How many [`Handles`](crate::Handles) each client may create within
    /// their lifetime (`Server::max_handles_per_client`).
    pub(crate) handle_quota: Arc<WindowQuota>,
}

struct Inner {
    request_id: Box<RawValue>,
    tool: Arc<str>,
    version: ProtocolVersion,
    client: Arc<ClientInfo>,
    /// The request's `params._meta`, parsed only when asked for.
    meta_raw: Option<Box<RawValue>>,
    meta: OnceLock<Option<Value>>,
    /// 2026-07-28: the request's `logLevel`; legacy: `None` (the session's applies).
    request_log_level: Option<Level>,
    cancel: CancelSignal,
    connection: Arc<Connection>,
    reach: Arc<Reach>,
    last_progress: Mutex<Option<f64>>,
    /// Set once the response is decided: nothing more may be sent for the call.
    done: AtomicBool,
    /// 2026-07-28: answers gathered so far, by input request key.
    answers: Map<String, Value>,
    interrupt: Mutex<Option<Interrupt>>,
    interrupted: Notify,
    /// The call's client: the connection it came on (the wire), or the
    /// in-process door's callbacks.
    peer: Arc<dyn Peer>,
    /// How the call becomes a task (Tasks extension), when it may.
    task_start: OnceLock<Arc<dyn TaskStart>>,
    /// The task's side of the seam once the call became one: progress and
    /// questions go to the task's record from then on.
    task: tokio::sync::OnceCell<Arc<dyn Peer>>,
}

/// What [`TaskStart::begin`] returns: the peer of the task, once stored.
pub(crate) type TaskBegun<'a> = std::pin::Pin<
    Box<dyn std::future::Future<Output = Result<Arc<dyn Peer>, ToolError>> + Send + 'a>,
>;

/// How a call becomes a task: implemented by the session, which stores
/// the task, answers the request with it, and gives back the peer the rest
/// of the call talks to.
pub(crate) trait TaskStart: Send + Sync {
    /// Makes the call of `ctx` a task.
    fn begin<'a>(&'a self, ctx: &'a Context) -> TaskBegun<'a>;
}

/// Everything a context is made from; built by the dispatcher.
pub(crate) struct ContextParts {
    pub(crate) request_id: Box<RawValue>,
    pub(crate) tool: Arc<str>,
    pub(crate) version: ProtocolVersion,
    pub(crate) client: Arc<ClientInfo>,
    pub(crate) meta: Option<Box<RawValue>>,
    pub(crate) request_log_level: Option<Level>,
    pub(crate) cancel: CancelSignal,
    pub(crate) connection: Arc<Connection>,
    pub(crate) reach: Arc<Reach>,
    pub(crate) answers: Map<String, Value>,
    /// The call's client when it is not `connection` (the in-process
    /// door's callbacks); `None`: the wire, the connection itself.
    pub(crate) peer: Option<Arc<dyn Peer>>,
}

impl Context {
    pub(crate) fn new(parts: ContextParts) -> Context {
        let peer = match parts.peer {
            Some(peer) => peer,
            None => Arc::clone(&parts.connection) as Arc<dyn Peer>,
        };
        Context {
            inner: Arc::new(Inner {
                request_id: parts.request_id,
                tool: parts.tool,
                version: parts.version,
                client: parts.client,
                meta_raw: parts.meta,
                meta: OnceLock::new(),
                request_log_level: parts.request_log_level,
                cancel: parts.cancel,
                connection: parts.connection,
                reach: parts.reach,
                last_progress: Mutex::new(None),
                done: AtomicBool::new(false),
                answers: parts.answers,
                interrupt: Mutex::new(None),
                interrupted: Notify::new(),
                peer,
                task_start: OnceLock::new(),
                task: tokio::sync::OnceCell::new(),
            }),
        }
    }

    /// The JSON-RPC id of the call, as JSON text (`7`, `"abc"`).
    pub fn request_id(&self) -> &str {
        self.inner.request_id.get()
    }

    /// The JSON-RPC id of the call, as the response echoes it.
    pub(crate) fn raw_request_id(&self) -> &RawValue {
        &self.inner.request_id
    }

    /// The name the tool was called by.
    pub fn tool_name(&self) -> &str {
        &self.inner.tool
    }

    /// The protocol revision of the session (legacy) or the request (2026-07-28).
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.inner.version
    }

    /// The client's self-reported `Implementation` (`name`, `version`, …), if sent.
    pub fn client_info(&self) -> Option<&Value> {
        self.inner.client.info.as_ref()
    }

    /// The client's declared capabilities (`{}` when none).
    pub fn client_capabilities(&self) -> &Value {
        &self.inner.client.capabilities
    }

    /// Whether the client renders MCP Apps: its capabilities declare the
    /// extension `io.modelcontextprotocol/ui` with the MIME type
    /// `text/html;profile=mcp-app`. A tool with an app still answers with
    /// content a text-only client can show; this lets it say less there.
    pub fn client_renders_apps(&self) -> bool {
        crate::protocol::model::client_renders_apps(self.client_capabilities())
    }

    /// The request's `params._meta`, if any.
    pub fn meta(&self) -> Option<&Value> {
        self.inner
            .meta
            .get_or_init(|| {
                let raw = self.inner.meta_raw.as_ref()?;
                serde_json::from_str::<Value>(raw.get())
                    .ok()
                    .filter(Value::is_object)
            })
            .as_ref()
    }

    /// The request's `progressToken`, if it carried one.
    fn progress_token(&self) -> Option<&Value> {
        self.meta()?
            .get(crate::protocol::meta::PROGRESS_TOKEN)
            .filter(|t| t.is_string() || t.is_i64() || t.is_u64())
    }

    /// The verified caller (Streamable HTTP with authorization): subject,
    /// scopes and token claims. `None` on stdio and on HTTP without
    /// authorization.
    pub fn principal(&self) -> Option<&Principal> {
        self.inner
            .connection
            .principal()
            .map(|principal| &**principal)
    }

    /// Whether the client cancelled the call.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancel.is_cancelled()
    }

    /// Completes when the client cancels the call.
    pub async fn cancelled(&self) {
        self.inner.cancel.cancelled().await;
    }

    /// A value registered with [`Server::state`](crate::Server::state).
    pub fn state<T: Send + Sync + 'static>(&self) -> Option<State<T>> {
        self.inner.reach.states.get::<T>()
    }

    /// [`Context::state`] without its bound, for `__private::state` (see
    /// `StateMap::get`).
    pub(crate) fn state_unbounded<T: 'static>(&self) -> Option<State<T>> {
        self.inner.reach.states.get::<T>()
    }

    /// The server's state store ([`Server::store`](crate::Server::store)),
    /// where [`Handles`](crate::Handles) keep their values; shared by
    /// replicas when the store is.
    pub fn store(&self) -> &dyn Store {
        &*self.inner.reach.store
    }

    /// Tells the server's clients that a resource or a list changed (the
    /// server's [`Notifier`], as [`Server::notifier`](crate::Server::notifier)
    /// gives it): e.g. a tool that writes a file tells the subscribers of
    /// its resource.
    pub fn notifier(&self) -> &Notifier {
        &self.inner.reach.notifier
    }

    /// The quota of handles each client may create, and this call's client
    /// (`None` on stdio, which serves one).
    pub(crate) fn handle_quota(&self) -> (&Arc<WindowQuota>, Option<&str>) {
        (
            &self.inner.reach.handle_quota,
            self.inner.connection.client_key(),
        )
    }

    /// The tool set this call's server serves, untyped (see [`Reach::tools`]).
    pub(crate) fn tool_set(&self) -> &(dyn Any + Send + Sync) {
        &*self.inner.reach.tools
    }

    fn may_send(&self) -> bool {
        !self.inner.done.load(Ordering::SeqCst) && !self.is_cancelled()
    }

    /// Marks the call answered: later progress and log calls send nothing.
    pub(crate) fn finish(&self) {
        self.inner.done.store(true, Ordering::SeqCst);
    }

    /// Reports progress (`notifications/progress`). Sent only when the request
    /// carried a `progressToken`; values that do not increase are skipped, as
    /// the protocol requires progress to grow. Fails once the call is
    /// cancelled, so `?` stops the tool. While the client leaves too much
    /// output unread ([`Server::max_unwritten_output`](crate::Server::max_unwritten_output))
    /// the notification is dropped, not queued.
    pub fn progress(
        &self,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> Result<(), ToolError> {
        if self.is_cancelled() {
            return Err(ToolError::new("the call was cancelled"));
        }
        let peer = self.peer();
        let Some(token) = peer.progress_token(self.progress_token()) else {
            return Ok(());
        };
        {
            let mut last = lock(&self.inner.last_progress);
            if last.is_some_and(|l| progress <= l) || !progress.is_finite() {
                tracing::debug!(progress, "skipped progress that does not increase");
                return Ok(());
            }
            *last = Some(progress);
        }
        if !self.may_send() {
            return Ok(());
        }
        peer.progress(Progress {
            token,
            progress,
            total,
            message,
        });
        Ok(())
    }

    /// The level at and above which [`Context::log`] sends messages, if any:
    /// the request's `logLevel` (2026-07-28) or the session's
    /// `logging/setLevel` (legacy). Without either nothing is sent.
    pub fn log_level(&self) -> Option<Level> {
        self.peer()
            .log_level(self.inner.version, self.inner.request_log_level)
    }

    /// Sends a log message to the client (`notifications/message`) when
    /// `level` reaches the client's threshold. Never put secrets in it.
    /// Dropped, like [`Context::progress`], while the client leaves too much
    /// output unread.
    pub fn log(&self, level: Level, data: impl Into<Value>) {
        let Some(threshold) = self.log_level() else {
            return;
        };
        if level < threshold || !self.may_send() {
            return;
        }
        self.peer().log(LogMessage {
            level,
            logger: &self.inner.tool,
            data: data.into(),
        });
    }

    /// Asks the user for input through the client (`elicitation/create`).
    ///
    /// `key` names this question within the tool (it must be stable across
    /// runs: in the 2026-07-28 era the tool runs again once the answer is in).
    /// Declining or cancelling reaches the tool as an [`Elicitation`] value;
    /// an `Err` means the client cannot be asked (no `elicitation`
    /// capability in a legacy session, or the client failed the request), or,
    /// in a legacy session, that the user did not answer within
    /// [`Server::elicitation_timeout`](crate::Server::elicitation_timeout)
    /// (the question is then withdrawn with `notifications/cancelled`).
    /// Returning the `Err` with `?` ends the call with an `isError` result
    /// that says so.
    pub async fn elicit(
        &self,
        key: &str,
        request: ElicitRequest,
    ) -> Result<Elicitation, ToolError> {
        self.ask(Ask::elicit(key, request)).await
    }

    /// Asks the client's model for a message (`sampling/createMessage`).
    ///
    /// Works like [`Context::elicit`]: `key` names this request within the
    /// tool and must be stable across runs (in the 2026-07-28 era the call
    /// ends with an `input_required` result carrying the request, and the
    /// tool runs again once the client sends the model's answer). An `Err`
    /// means the client cannot be asked (no `sampling` capability: in the
    /// 2026-07-28 era the call then fails with `-32021`), failed the
    /// request, sent an answer that is not a `CreateMessageResult`, or, in a
    /// legacy session, did not answer within
    /// [`Server::elicitation_timeout`](crate::Server::elicitation_timeout)
    /// (the request is then withdrawn with `notifications/cancelled`).
    ///
    /// ```no_run
    /// use mcpfn_runtime::{Context, SampleRequest, ToolError, tool};
    ///
    /// /// Summarize a text with the client's model.
    /// #[tool]
    /// async fn summarize(ctx: Context, text: String) -> Result<String, ToolError> {
    ///     let request = SampleRequest::prompt(format!("Summarize in one line:\n{text}"))
    ///         .max_tokens(100);
    ///     let answer = ctx.sample("summary", request).await?;
    ///     answer.text().ok_or_else(|| ToolError::new("the model sent no text"))
    /// }
    /// ```
    pub async fn sample(
        &self,
        key: &str,
        request: SampleRequest,
    ) -> Result<SampleResult, ToolError> {
        self.ask(Ask::sample(key, request)).await
    }

    /// Asks the client for its roots (`roots/list`): the directories and
    /// files it lets the server work in.
    ///
    /// Works like [`Context::elicit`]: `key` names this request within the
    /// tool and must be stable across runs. An `Err` means the client cannot
    /// be asked (it did not declare the `roots` capability: in the
    /// 2026-07-28 era the call then fails with `-32021`), failed the
    /// request, sent an answer that is not a `ListRootsResult` (or one of
    /// more than [`MAX_ROOTS`](crate::MAX_ROOTS) roots), or, in a legacy
    /// session, did not answer within
    /// [`Server::elicitation_timeout`](crate::Server::elicitation_timeout).
    ///
    /// ```no_run
    /// use mcpfn_runtime::{Context, ToolError, tool};
    ///
    /// /// The client's roots, one URI a line.
    /// #[tool]
    /// async fn workspace(ctx: Context) -> Result<String, ToolError> {
    ///     let roots = ctx.roots("roots").await?;
    ///     Ok(roots.iter().map(|root| root.uri.as_str()).collect::<Vec<_>>().join("\n"))
    /// }
    /// ```
    pub async fn roots(&self, key: &str) -> Result<Vec<crate::Root>, ToolError> {
        self.ask(Ask::roots(key)).await
    }

    /// Asks several things at once ([`Ask`]s, as a tuple) and returns the
    /// answers in the same shape: in a legacy session every request is sent
    /// to the client at once and awaited together; in the 2026-07-28 era
    /// the call ends with one `input_required` result carrying every
    /// question not answered yet, and the tool runs again once the client
    /// sends them all. Each key must be stable across runs and distinct in
    /// the round. The first failure (as [`Context::elicit`] lists them)
    /// ends the round: the questions still open are withdrawn.
    ///
    /// ```no_run
    /// use mcpfn_runtime::{Ask, Context, ElicitRequest, FormField, SampleRequest, ToolError, tool};
    ///
    /// #[derive(serde::Deserialize)]
    /// struct Name {
    ///     name: String,
    /// }
    ///
    /// /// Greets the user, naming the client's first root.
    /// #[tool]
    /// async fn welcome(ctx: Context) -> Result<String, ToolError> {
    ///     let form = ElicitRequest::new("Your name?").field("name", FormField::string().required());
    ///     let (name, greeting, roots) = ctx
    ///         .ask((
    ///             Ask::elicit("name", form),
    ///             Ask::sample("greeting", SampleRequest::prompt("Say hello").max_tokens(20)),
    ///             Ask::roots("roots"),
    ///         ))
    ///         .await?;
    ///     let name: Name = name.content_as()?;
    ///     let greeting = greeting.text().unwrap_or_default();
    ///     let root = roots.first().map_or("nowhere", |root| root.uri.as_str());
    ///     Ok(format!("{greeting}, {}, in {root}", name.name))
    /// }
    /// ```
    pub async fn ask<A: Asks>(&self, asks: A) -> Result<A::Output, ToolError> {
        crate::context::ask::ask(self, asks).await
    }

    /// Closes the event stream this call's response goes on, before the
    /// response, so a client that polls comes back for the rest (SSE
    /// polling, SEP-1699): for a long call over legacy Streamable HTTP, to
    /// free a connection a proxy would time out. The stream ends after the
    /// events sent so far with an event carrying `retry`; the call runs on,
    /// and what it sends next (progress, the response) waits for the
    /// client's `GET` with `Last-Event-ID`, which resumes the stream.
    /// Returns whether there was such a stream: `false` on stdio, over
    /// 2026-07-28 HTTP, and in the in-process door, where nothing happens.
    ///
    /// ```no_run
    /// use mcpfn_runtime::{Context, tool};
    /// use std::time::Duration;
    ///
    /// /// Waits a while, letting the client poll.
    /// #[tool]
    /// async fn long_wait(ctx: Context) -> String {
    ///     ctx.close_sse_stream();
    ///     tokio::time::sleep(Duration::from_secs(60)).await;
    ///     "done".to_owned()
    /// }
    /// ```
    pub fn close_sse_stream(&self) -> bool {
        match self.inner.connection.stream_close() {
            Some(close) if self.inner.task.get().is_none() && self.may_send() => {
                close.request();
                true
            }
            _ => false,
        }
    }

    /// The call's client: the task's record once the call became a task,
    /// else the in-process door's callbacks or the connection the call came
    /// on.
    pub(crate) fn peer(&self) -> &dyn Peer {
        match self.inner.task.get() {
            Some(task) => &**task,
            None => &*self.inner.peer,
        }
    }

    /// Lets the call become a task (the session decided it may).
    pub(crate) fn allow_task(&self, start: Arc<dyn TaskStart>) {
        let _ = self.inner.task_start.set(start);
    }

    /// Makes a run that is a task from its start (a resumed one) talk to
    /// the task's `peer`.
    pub(crate) fn resume_task(&self, peer: Arc<dyn Peer>) {
        let _ = self.inner.task.set(peer);
    }

    /// Whether the call runs as a task (Tasks extension): the request was
    /// answered with the task, and the client polls it for the result.
    pub fn is_task(&self) -> bool {
        self.inner.task.get().is_some()
    }

    /// Makes the call a task from here on, when it may be one (a tool with
    /// `task = "optional" | "required"`, a client that declares the
    /// extension): the request is answered with the task, and the rest of
    /// the tool runs after it, its progress becoming the task's
    /// `statusMessage` and its questions the task's `input_required`
    /// rounds. What the tool asked before (`ctx.elicit`, `ctx.sample`) was
    /// asked on the request itself, in 2026-07-28 rounds, before any task
    /// existed. Without a call here a task tool becomes a task before its
    /// first line. Does nothing when the call cannot be a task, or already
    /// is one; fails when the task cannot be stored.
    pub async fn begin_task(&self) -> Result<(), ToolError> {
        let Some(start) = self.inner.task_start.get() else {
            return Ok(());
        };
        self.inner
            .task
            .get_or_try_init(|| start.begin(self))
            .await
            .map(|_| ())
    }

    /// The connection the call came on.
    pub(crate) fn connection(&self) -> &Connection {
        &self.inner.connection
    }

    /// Legacy: how long `elicit` waits for the user.
    pub(crate) fn max_message_size(&self) -> usize {
        self.inner.reach.max_message_size
    }

    pub(crate) fn elicitation_timeout(&self) -> Duration {
        self.inner.reach.elicitation_timeout
    }

    /// Where an elicitation records why the call stopped (2026-07-28).
    pub(crate) fn interrupt_slot(&self) -> &Mutex<Option<Interrupt>> {
        &self.inner.interrupt
    }

    /// Wakes [`Context::interrupted`].
    pub(crate) fn notify_interrupted(&self) {
        self.inner.interrupted.notify_one();
    }

    /// Completes when the tool stopped to wait for input (2026-07-28).
    pub(crate) async fn interrupted(&self) -> Interrupt {
        loop {
            let notified = self.inner.interrupted.notified();
            if let Some(interrupt) = lock(&self.inner.interrupt).clone() {
                return interrupt;
            }
            notified.await;
        }
    }

    /// The answers gathered so far (2026-07-28).
    pub(crate) fn answers(&self) -> &Map<String, Value> {
        &self.inner.answers
    }
}
