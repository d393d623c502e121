//! What a running tool can know and do besides its arguments.

use crate::ToolError;
use crate::call::human_duration;
use crate::connection::{CancelSignal, ClientSession, Connection, lock};
use crate::elicit::{ElicitRequest, Elicitation};
use crate::level::Level;
use crate::protocol::{ProtocolVersion, frame};
use crate::state::{State, StateMap};
use crate::toolset::ToolSet;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
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

/// Why a modern call stopped before its tool finished.
#[derive(Debug, Clone)]
pub(crate) enum Interrupt {
    /// The tool asked for input the request does not carry yet.
    InputRequired { key: String, request: ElicitRequest },
    /// The tool needs a capability the request did not declare.
    MissingCapability(Value),
}

struct Inner {
    request_id: String,
    tool: Arc<str>,
    version: ProtocolVersion,
    client: Arc<ClientSession>,
    /// The request's `params._meta`, parsed only when asked for.
    meta_raw: Option<Box<RawValue>>,
    meta: OnceLock<Option<Value>>,
    /// 2026-07-28: the request's `logLevel`; legacy: `None` (the session's applies).
    request_log_level: Option<Level>,
    cancel: CancelSignal,
    connection: Arc<Connection>,
    states: Arc<StateMap>,
    tools: ToolSet,
    last_progress: Mutex<Option<f64>>,
    /// Set once the response is decided: nothing more may be sent for the call.
    done: AtomicBool,
    /// 2026-07-28: answers gathered so far, by input request key.
    answers: Map<String, Value>,
    /// Legacy: how long `elicit` waits for the user.
    elicitation_timeout: Duration,
    interrupt: Mutex<Option<Interrupt>>,
    interrupted: Notify,
}

/// Everything a context is made from; built by the dispatcher.
pub(crate) struct ContextParts {
    pub(crate) request_id: String,
    pub(crate) tool: Arc<str>,
    pub(crate) version: ProtocolVersion,
    pub(crate) client: Arc<ClientSession>,
    pub(crate) meta: Option<Box<RawValue>>,
    pub(crate) request_log_level: Option<Level>,
    pub(crate) cancel: CancelSignal,
    pub(crate) connection: Arc<Connection>,
    pub(crate) states: Arc<StateMap>,
    pub(crate) tools: ToolSet,
    pub(crate) answers: Map<String, Value>,
    pub(crate) elicitation_timeout: Duration,
}

impl Context {
    pub(crate) fn new(parts: ContextParts) -> Context {
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
                states: parts.states,
                tools: parts.tools,
                last_progress: Mutex::new(None),
                done: AtomicBool::new(false),
                answers: parts.answers,
                elicitation_timeout: parts.elicitation_timeout,
                interrupt: Mutex::new(None),
                interrupted: Notify::new(),
            }),
        }
    }

    /// The JSON-RPC id of the call, as JSON text (`7`, `"abc"`).
    pub fn request_id(&self) -> &str {
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
            .get("progressToken")
            .filter(|t| t.is_string() || t.is_i64() || t.is_u64())
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
        self.inner.states.get::<T>()
    }

    /// The server's live tool set, to add, remove, enable or disable tools.
    pub fn tools(&self) -> &ToolSet {
        &self.inner.tools
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
    /// cancelled, so `?` stops the tool.
    pub fn progress(
        &self,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> Result<(), ToolError> {
        if self.is_cancelled() {
            return Err(ToolError::new("the call was cancelled"));
        }
        let Some(token) = self.progress_token() else {
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
        let mut params = json!({"progressToken": token, "progress": progress});
        if let Some(total) = total {
            params["total"] = total.into();
        }
        if let Some(message) = message {
            params["message"] = message.into();
        }
        if self.may_send() {
            self.inner
                .connection
                .send(frame::notification("notifications/progress", &params));
        }
        Ok(())
    }

    /// The level at and above which [`Context::log`] sends messages, if any:
    /// the request's `logLevel` (2026-07-28) or the session's
    /// `logging/setLevel` (legacy). Without either nothing is sent.
    pub fn log_level(&self) -> Option<Level> {
        if self.inner.version.is_modern() {
            self.inner.request_log_level
        } else {
            self.inner.connection.log_level()
        }
    }

    /// Sends a log message to the client (`notifications/message`) when
    /// `level` reaches the client's threshold. Never put secrets in it.
    pub fn log(&self, level: Level, data: impl Into<Value>) {
        let Some(threshold) = self.log_level() else {
            return;
        };
        if level < threshold || !self.may_send() {
            return;
        }
        let params =
            json!({"level": level.as_str(), "logger": &*self.inner.tool, "data": data.into()});
        self.inner
            .connection
            .send(frame::notification("notifications/message", &params));
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
        if self.inner.version.is_modern() {
            self.elicit_modern(key, request).await
        } else {
            self.elicit_legacy(request).await
        }
    }

    async fn elicit_legacy(&self, request: ElicitRequest) -> Result<Elicitation, ToolError> {
        if self.client_capabilities().get("elicitation").is_none() {
            return Err(ToolError::new(
                "this client cannot answer questions (it did not declare the elicitation capability)",
            ));
        }
        let mut request = self
            .inner
            .connection
            .request_client("elicitation/create", &request.params(self.inner.version));
        let limit = self.inner.elicitation_timeout;
        // On timeout `request` is dropped, which withdraws the question.
        match tokio::time::timeout(limit, request.reply()).await {
            Ok(Ok(Ok(result))) => Elicitation::from_result(&result),
            Ok(Ok(Err(error))) => Err(ToolError::new(format!(
                "the client failed the elicitation: {}",
                error
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("no message")
            ))),
            Ok(Err(_)) => Err(ToolError::new("the client went away before answering")),
            Err(_) => Err(ToolError::new(format!(
                "the user did not answer within {}; the question was withdrawn",
                human_duration(limit)
            ))),
        }
    }

    async fn elicit_modern(
        &self,
        key: &str,
        request: ElicitRequest,
    ) -> Result<Elicitation, ToolError> {
        if let Some(answer) = self.inner.answers.get(key) {
            return Elicitation::from_result(answer);
        }
        let interrupt = if self.client_capabilities().get("elicitation").is_none() {
            Interrupt::MissingCapability(json!({"elicitation": {}}))
        } else {
            Interrupt::InputRequired {
                key: key.to_owned(),
                request,
            }
        };
        lock(&self.inner.interrupt).get_or_insert(interrupt);
        self.inner.interrupted.notify_one();
        // The runtime answers for the call now and drops this future.
        std::future::pending().await
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

impl Context {
    /// A context for calling a tool fn directly in a unit test: protocol
    /// 2025-11-25, no client info or capabilities, no state. Progress and
    /// logs are accepted and dropped; use [`Context::test_builder`] to see
    /// them, to register state or to cancel the call.
    ///
    /// ```
    /// use mcp_runtime::{Context, ToolError, tool};
    ///
    /// /// Count to n, reporting progress.
    /// #[tool]
    /// async fn count(ctx: Context, n: u32) -> Result<u32, ToolError> {
    ///     for i in 1..=n {
    ///         ctx.progress(f64::from(i), Some(f64::from(n)), None)?;
    ///     }
    ///     Ok(n)
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// assert_eq!(count(Context::for_test(), 3).await, Ok(3));
    /// # }
    /// ```
    pub fn for_test() -> Context {
        Context::test_builder().build().0
    }

    /// A builder of test contexts that can carry state, client info and
    /// capabilities, and whose [`TestPeer`] records the progress and log
    /// notifications the tool sends and can cancel the call.
    ///
    /// ```
    /// use mcp_runtime::{Context, Level, ToolError, tool};
    ///
    /// struct Greeting {
    ///     word: &'static str,
    /// }
    ///
    /// /// Greet, logging who asked.
    /// #[tool]
    /// async fn greet(ctx: Context, name: String) -> Result<String, ToolError> {
    ///     let greeting = ctx.state::<Greeting>().ok_or("no greeting registered")?;
    ///     ctx.log(Level::Info, format!("greeting {name}"));
    ///     ctx.progress(1.0, Some(1.0), Some("done"))?;
    ///     Ok(format!("{}, {name}!", greeting.word))
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let (ctx, peer) = Context::test_builder()
    ///     .state(Greeting { word: "Hello" })
    ///     .client_info(serde_json::json!({"name": "unit-test", "version": "1"}))
    ///     .build();
    /// assert_eq!(greet(ctx, "Ada".into()).await.unwrap(), "Hello, Ada!");
    /// assert_eq!(peer.logs()[0]["data"], "greeting Ada");
    /// assert_eq!(peer.progress()[0]["message"], "done");
    /// # }
    /// ```
    pub fn test_builder() -> TestContext {
        TestContext {
            tool: "test".into(),
            version: ProtocolVersion::LATEST_LEGACY,
            client: ClientSession::default(),
            states: StateMap::default(),
        }
    }
}

/// Builds a [`Context`] for unit tests; see [`Context::test_builder`].
#[derive(Debug)]
#[must_use]
pub struct TestContext {
    tool: Arc<str>,
    version: ProtocolVersion,
    client: ClientSession,
    states: StateMap,
}

impl TestContext {
    /// Registers state, as [`Server::state`](crate::Server::state) does;
    /// tools read it with [`Context::state`].
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.states.insert(value);
        self
    }

    /// The client's `Implementation` (`name`, `version`, …).
    pub fn client_info(mut self, info: Value) -> Self {
        self.client.info = Some(info);
        self
    }

    /// The client's capabilities (`{}` by default).
    pub fn client_capabilities(mut self, capabilities: Value) -> Self {
        self.client.capabilities = capabilities;
        self
    }

    /// The protocol revision (2025-11-25 by default).
    pub fn protocol_version(mut self, version: ProtocolVersion) -> Self {
        self.version = version;
        self
    }

    /// The name the tool is called by (`test` by default).
    pub fn tool_name(mut self, name: &str) -> Self {
        self.tool = name.into();
        self
    }

    /// The context, and the peer that sees what the tool sends. The call
    /// carries a `progressToken` and every log level is on, so all progress
    /// and logs are recorded. Elicitation fails unless the capabilities say
    /// `elicitation`, and then waits forever: no one answers in a test.
    pub fn build(self) -> (Context, TestPeer) {
        let (out, frames) = tokio::sync::mpsc::unbounded_channel();
        let connection = Arc::new(Connection::new(out));
        connection.set_log_level(Level::Debug);
        let cancel = CancelSignal::default();
        let meta = RawValue::from_string(r#"{"progressToken":"test"}"#.to_owned()).ok();
        let tools = match ToolSet::new(Vec::new(), None) {
            Ok(tools) => tools,
            Err(err) => unreachable!("an empty tool set is valid: {err}"),
        };
        let context = Context::new(ContextParts {
            request_id: "1".to_owned(),
            tool: self.tool,
            version: self.version,
            client: Arc::new(self.client),
            meta,
            request_log_level: Some(Level::Debug),
            cancel: cancel.clone(),
            connection,
            states: Arc::new(self.states),
            tools,
            answers: Map::new(),
            elicitation_timeout: crate::elicit::DEFAULT_ELICITATION_TIMEOUT,
        });
        let peer = TestPeer {
            frames: Mutex::new(frames),
            received: Mutex::new(Vec::new()),
            cancel,
        };
        (context, peer)
    }
}

/// The client side of a test [`Context`]: the notifications the tool sent,
/// and cancellation.
#[derive(Debug)]
pub struct TestPeer {
    frames: Mutex<tokio::sync::mpsc::UnboundedReceiver<crate::protocol::frame::Frame>>,
    received: Mutex<Vec<Value>>,
    cancel: CancelSignal,
}

impl TestPeer {
    /// Every notification sent so far, in order (whole JSON-RPC messages).
    pub fn notifications(&self) -> Vec<Value> {
        let mut received = lock(&self.received);
        let mut frames = lock(&self.frames);
        while let Ok(frame) = frames.try_recv() {
            let bytes = match frame {
                crate::protocol::frame::Frame::Owned(bytes) => bytes,
                crate::protocol::frame::Frame::Shared { head, body, tail } => {
                    [head.as_slice(), body.as_bytes(), tail.as_slice()].concat()
                }
            };
            if let Ok(message) = serde_json::from_slice(&bytes) {
                received.push(message);
            }
        }
        received.clone()
    }

    /// The `params` of each `notifications/progress` sent so far.
    pub fn progress(&self) -> Vec<Value> {
        self.params_of("notifications/progress")
    }

    /// The `params` of each `notifications/message` (log) sent so far.
    pub fn logs(&self) -> Vec<Value> {
        self.params_of("notifications/message")
    }

    /// Cancels the call, as the client's `notifications/cancelled` does:
    /// [`Context::is_cancelled`] turns true and [`Context::progress`] fails.
    pub fn cancel(&self) {
        self.cancel.cancel();
    }

    fn params_of(&self, method: &str) -> Vec<Value> {
        self.notifications()
            .into_iter()
            .filter(|n| n["method"] == method)
            .map(|mut n| n["params"].take())
            .collect()
    }
}
