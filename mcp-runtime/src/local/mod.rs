//! The in-process door: a cloneable handle on a [`Server`] that lists and
//! calls its tools (and lists and reads its resources, in `resources`) with the typed client-direction model
//! ([`mcpfn_protocol::model`]) and no JSON text on the way. Arguments reach
//! the tool as an object (decoded from the `Value` itself), its outcome
//! becomes a [`CallToolResult`] directly, and what the tool sends or asks
//! its client (progress, log messages, elicitation, sampling) reaches the
//! handle's callbacks as typed values through the context's
//! [`Peer`](crate::conn::peer::Peer) seam. The server's limits apply as on
//! a transport: run slots, the rate limit, the call timeout, panics caught
//! as error results, and the call's `tracing` span.

use crate::conn::client::ClientInfo;
use crate::conn::connection::{CancelSignal, Connection};
use crate::conn::peer::{Asked, LogMessage, Peer, Progress};
use crate::context::{Context, ContextParts};
use crate::error::Error;
use crate::level::Level;
use crate::outcome::ToolOutcome;
use crate::principal::Principal;
use crate::protocol::ProtocolVersion;
use crate::protocol::model::{
    self, CallToolResult, ClientCapabilities, CreateMessageParams, CreateMessageResult,
    ElicitParams, ElicitResult, Implementation, ListRootsResult, LoggingMessageParams,
    ProgressParams, RpcError,
};
use crate::server::Server;
use crate::session::call_span::Outcome;
use crate::session::run::{self, Admitted, Ending, Sink, run_tool};
use crate::session::{admit, finish};
use crate::shared::Shared;
use crate::tool::call::Arguments;
use crate::tool::{Tool, ToolCall};
use crate::util::BoxFuture;
use serde::Deserialize as _;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

type ElicitFn =
    Arc<dyn Fn(ElicitParams) -> BoxFuture<Result<ElicitResult, RpcError>> + Send + Sync>;
type SampleFn = Arc<
    dyn Fn(CreateMessageParams) -> BoxFuture<Result<CreateMessageResult, RpcError>> + Send + Sync,
>;
type ProgressFn = Arc<dyn Fn(ProgressParams) + Send + Sync>;
type LogFn = Arc<dyn Fn(LoggingMessageParams) + Send + Sync>;

impl Server {
    /// This server as an in-process client handle: its tools called with
    /// typed requests and results, no transport and no JSON text (see
    /// [`LocalClient`]). Fails like serving would on a bad registration.
    pub fn local(self) -> Result<LocalClient, Error> {
        let (shared, _, _) = self.into_shared(false)?;
        Ok(LocalClient::new(shared))
    }
}

/// A cloneable, in-process handle on a [`Server`]: lists its tools and calls
/// them with the typed model of [`mcpfn_protocol::model`], without a transport
/// and without JSON text. Calls take `&self`, so one handle (or its clones)
/// runs several at once; dropping a call's future cancels the call (the
/// tool's [`Context::cancelled`] fires).
///
/// The handle presents a client: by default the latest protocol revision,
/// no principal, and capabilities for what it has callbacks for
/// ([`LocalClient::on_elicitation`], [`LocalClient::on_sampling`]): a tool
/// asking a handle without the callback gets the error a client without
/// the capability gives.
///
/// ```
/// use mcpfn_runtime::{Server, tool, tools};
/// use serde_json::json;
///
/// /// Add two numbers.
/// #[tool]
/// async fn add(a: f64, b: f64) -> f64 {
///     a + b
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let client = Server::new("calc", "1.0.0").tools(tools![add]).local()?;
/// assert_eq!(client.tools()[0].name, "add");
/// let args = json!({"a": 1, "b": 2}).as_object().cloned().unwrap();
/// let result = client.call("add", args).await?;
/// assert_eq!(result.structured_content, Some(json!(3.0)));
/// assert!(!result.is_error);
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct LocalClient {
    door: Arc<Door>,
}

/// What every clone of one handle shares.
struct Door {
    shared: Arc<Shared>,
    /// Carries the principal and the client key the limits count against;
    /// nothing is ever written to its outbox (the peer gets it all).
    connection: Arc<Connection>,
    client: Arc<ClientInfo>,
    version: ProtocolVersion,
    principal: Option<Arc<Principal>>,
    client_info: Option<Implementation>,
    elicit: Option<ElicitFn>,
    sample: Option<SampleFn>,
    /// The peer of calls without per-call callbacks, shared by them.
    peer: Arc<LocalPeer>,
    next_id: Arc<AtomicU64>,
    in_flight: Arc<AtomicUsize>,
}

impl fmt::Debug for LocalClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LocalClient")
            .field("server", &self.door.shared.identity.name)
            .field("version", &self.door.version)
            .field("elicitation", &self.door.elicit.is_some())
            .field("sampling", &self.door.sample.is_some())
            .finish_non_exhaustive()
    }
}

/// How one call runs, besides its arguments ([`LocalClient::call_with`]).
#[derive(Clone, Default)]
#[must_use]
pub struct CallOptions {
    progress: Option<ProgressFn>,
    log: Option<LogFn>,
    log_level: Option<Level>,
    timeout: Option<Duration>,
}

impl fmt::Debug for CallOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallOptions")
            .field("progress", &self.progress.is_some())
            .field("log", &self.log.is_some())
            .field("log_level", &self.log_level)
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl CallOptions {
    /// Options that change nothing (what [`LocalClient::call`] uses).
    pub fn new() -> CallOptions {
        CallOptions::default()
    }

    /// Receives the call's progress reports (`notifications/progress`),
    /// as if the call carried a `progressToken` (its token is the call's
    /// id).
    pub fn on_progress(
        mut self,
        callback: impl Fn(ProgressParams) + Send + Sync + 'static,
    ) -> CallOptions {
        self.progress = Some(Arc::new(callback));
        self
    }

    /// Receives the log messages the tool sends (`notifications/message`)
    /// at [`CallOptions::log_level`] and above (`debug` unless set).
    pub fn on_log(
        mut self,
        callback: impl Fn(LoggingMessageParams) + Send + Sync + 'static,
    ) -> CallOptions {
        self.log = Some(Arc::new(callback));
        self
    }

    /// The level from which log messages reach [`CallOptions::on_log`].
    pub fn log_level(mut self, level: Level) -> CallOptions {
        self.log_level = Some(level);
        self
    }

    /// Ends the call after `timeout` with the `isError` result a server
    /// timeout gives (the shorter of this and the tool's or server's
    /// timeout applies).
    pub fn timeout(mut self, timeout: Duration) -> CallOptions {
        self.timeout = Some(timeout);
        self
    }
}

/// The door's side of the [`Peer`] seam: the handle's callbacks, and the
/// call's own when it has some.
struct LocalPeer {
    elicit: Option<ElicitFn>,
    sample: Option<SampleFn>,
    progress: Option<(ProgressFn, Value)>,
    log: Option<(LogFn, Level)>,
}

impl fmt::Debug for LocalPeer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LocalPeer").finish_non_exhaustive()
    }
}

/// The callbacks take the model's typed values; the call's progress
/// token and log level are the handle's, whatever the call presents.
impl Peer for LocalPeer {
    fn progress_token<'a>(&'a self, _: Option<&'a Value>) -> Option<&'a Value> {
        self.progress.as_ref().map(|(_, token)| token)
    }

    fn progress(&self, progress: Progress<'_>) {
        if let Some((callback, _)) = &self.progress {
            callback(progress.to_model());
        }
    }

    fn log_level(&self, _: ProtocolVersion, _: Option<Level>) -> Option<Level> {
        self.log.as_ref().map(|(_, level)| *level)
    }

    fn log(&self, message: LogMessage<'_>) {
        if let Some((callback, _)) = &self.log {
            callback(message.into_model());
        }
    }

    fn elicit(&self, params: ElicitParams) -> Asked<ElicitResult> {
        match &self.elicit {
            Some(callback) => Asked::Answer(callback(params)),
            None => Asked::Unable,
        }
    }

    fn sample(&self, params: CreateMessageParams) -> Asked<CreateMessageResult> {
        match &self.sample {
            Some(callback) => Asked::Answer(callback(params)),
            None => Asked::Unable,
        }
    }

    /// The door declares no roots: it stands for no client with a workspace.
    fn roots(&self) -> Asked<ListRootsResult> {
        Asked::Unable
    }
}

/// The door's [`Sink`]: the answer returned to the caller as the owned
/// model.
struct Returned {
    version: ProtocolVersion,
}

impl Sink for Returned {
    type Output = Result<CallToolResult, RpcError>;

    /// Dropping the call's future cancels it (see [`CancelOnDrop`]).
    fn cancelled_by_context(&self) -> bool {
        false
    }

    /// The door's peer answers every question (or is unable to) itself.
    fn interruptible(&self) -> bool {
        false
    }

    async fn begin(&self, _: &Tool, _: &Context) -> Result<(), ToolOutcome> {
        Ok(())
    }

    async fn deliver(self, tool: &Tool, _: &Context, ending: Ending) -> (Outcome, Self::Output) {
        let (outcome, answer) = finish::ended(tool, ending, self.version);
        // Only a context's cancellation ends a run as cancelled, and the
        // door's never does (see above).
        let answer =
            answer.unwrap_or_else(|| Err(RpcError::internal_error("the call was cancelled")));
        (outcome, answer)
    }
}

/// Cancels a call whose future is dropped before it finished, so clones of
/// its context (say, in a task the tool spawned) see the cancellation.
struct CancelOnDrop(Option<CancelSignal>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(cancel) = self.0.take() {
            cancel.cancel();
        }
    }
}

/// Counts a call in flight until it ends.
struct InFlight(Arc<AtomicUsize>);

impl InFlight {
    /// Counts a call in `count`; with how many were running before it.
    fn enter(count: &Arc<AtomicUsize>) -> (InFlight, usize) {
        let before = count.fetch_add(1, Ordering::Relaxed);
        (InFlight(Arc::clone(count)), before)
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

impl LocalClient {
    fn new(shared: Arc<Shared>) -> LocalClient {
        let door = Door {
            shared,
            connection: Arc::new(Connection::new(crate::conn::outbox::channel(0).0)),
            client: Arc::new(ClientInfo::default()),
            version: ProtocolVersion::LATEST,
            principal: None,
            client_info: None,
            elicit: None,
            sample: None,
            peer: Arc::new(LocalPeer {
                elicit: None,
                sample: None,
                progress: None,
                log: None,
            }),
            next_id: Arc::new(AtomicU64::new(1)),
            in_flight: Arc::new(AtomicUsize::new(0)),
        };
        LocalClient {
            door: Arc::new(door).rebuilt(|_| {}),
        }
    }

    /// Answers the elicitations tools ask for (`ctx.elicit`) with
    /// `callback`, and declares the `elicitation` capability.
    ///
    /// ```
    /// use mcpfn_protocol::model::{ElicitAction, ElicitParams, ElicitResult};
    /// use mcpfn_runtime::{Context, ElicitRequest, FormField, Server, ToolError, tool, tools};
    ///
    /// /// Greet the user by name.
    /// #[tool]
    /// async fn greet(ctx: Context) -> Result<String, ToolError> {
    ///     let form = ElicitRequest::new("Your name?").field("name", FormField::string().required());
    ///     let answer = ctx.elicit("name", form).await?;
    ///     let fields: serde_json::Map<String, serde_json::Value> = answer.content_as()?;
    ///     Ok(format!("Hello, {}!", fields["name"].as_str().unwrap_or("you")))
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let client = Server::new("hi", "1").tools(tools![greet]).local()?.on_elicitation(
    ///     |params: ElicitParams| async move {
    ///         assert_eq!(params.message, "Your name?");
    ///         let content = serde_json::json!({"name": "Ada"}).as_object().cloned();
    ///         Ok(ElicitResult { action: ElicitAction::Accept, content })
    ///     },
    /// );
    /// let result = client.call("greet", serde_json::Map::new()).await?;
    /// assert!(matches!(&result.content[0], mcpfn_protocol::model::ContentBlock::Text(t) if t.text == "Hello, Ada!"));
    /// # Ok(())
    /// # }
    /// ```
    pub fn on_elicitation<F, Fut>(self, callback: F) -> LocalClient
    where
        F: Fn(ElicitParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ElicitResult, RpcError>> + Send + 'static,
    {
        let callback: ElicitFn = Arc::new(move |params| Box::pin(callback(params)));
        self.with(|door| door.elicit = Some(callback))
    }

    /// Answers the sampling requests tools make (`ctx.sample`) with
    /// `callback`, and declares the `sampling` capability.
    pub fn on_sampling<F, Fut>(self, callback: F) -> LocalClient
    where
        F: Fn(CreateMessageParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CreateMessageResult, RpcError>> + Send + 'static,
    {
        let callback: SampleFn = Arc::new(move |params| Box::pin(callback(params)));
        self.with(|door| door.sample = Some(callback))
    }

    /// Presents `principal` as the caller ([`Context::principal`]); the
    /// tools' scopes are checked against it, and the per-client limits
    /// count its calls under its subject.
    pub fn principal(self, principal: Principal) -> LocalClient {
        self.with(|door| door.principal = Some(Arc::new(principal)))
    }

    /// Presents `info` as the client's `Implementation` ([`Context::client_info`]).
    pub fn client_info(self, info: Implementation) -> LocalClient {
        self.with(|door| door.client_info = Some(info))
    }

    /// Presents protocol revision `version` ([`Context::protocol_version`];
    /// the latest by default). Results are the tool's in every revision:
    /// the door's client reads the full model.
    pub fn protocol_version(self, version: ProtocolVersion) -> LocalClient {
        self.with(|door| door.version = version)
    }

    /// A handle changed by `change` (its clones keep the old settings).
    fn with(self, change: impl FnOnce(&mut Door)) -> LocalClient {
        LocalClient {
            door: self.door.rebuilt(change),
        }
    }

    /// The server's tools as `tools/list` lists them (the live set: tools
    /// added, removed, enabled or disabled through the `ToolSet` show).
    pub fn tools(&self) -> Vec<model::Tool> {
        let door = &*self.door;
        let registry = door.shared.tools.registry();
        registry
            .tools()
            .filter(|tool| {
                door.principal
                    .as_deref()
                    .is_none_or(|principal| crate::principal::grants(principal, tool.scopes()))
                    || !door.shared.hide_unauthorized_tools
            })
            .filter_map(|tool| model::Tool::deserialize(tool.definition(door.version)).ok())
            .collect()
    }

    /// Calls tool `name` with `arguments`. An unknown tool (or one the
    /// principal lacks scopes for) is the `Err` the wire answers with;
    /// everything the tool does, invalid arguments included, is a result
    /// (`is_error` for failures), as on the wire.
    pub async fn call(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<CallToolResult, RpcError> {
        self.call_with(name, arguments, CallOptions::default())
            .await
    }

    /// [`LocalClient::call`] with progress and log callbacks and a timeout.
    pub async fn call_with(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        options: CallOptions,
    ) -> Result<CallToolResult, RpcError> {
        let (name, tool) = admit::find_tool(&self.door.shared, &self.door.connection, name)?;
        let version = self.door.version;
        self.run(
            name,
            tool,
            Value::Object(arguments),
            options,
            Returned { version },
            |tool, refusal| finish::model(tool, refusal, version),
        )
        .await
    }

    /// Runs `tool` (found as `name`) with `arguments`: the same admission,
    /// run slot, timeout and answer as a call over the wire
    /// (`session::{admit, run, finish}`), for a tool or a prompt's body; the
    /// door supplies only how the call arrived (its id, client and peer),
    /// and `sink` takes the answer as the owned model (`refused` makes it of
    /// a refusal before the run).
    async fn run<S: Sink>(
        &self,
        name: Arc<str>,
        tool: Arc<Tool>,
        arguments: Value,
        options: CallOptions,
        sink: S,
        refused: impl FnOnce(&Tool, ToolOutcome) -> S::Output,
    ) -> S::Output {
        let door = &*self.door;
        let shared = &door.shared;
        let n = door.next_id.fetch_add(1, Ordering::Relaxed);
        // Written straight into the box, without the parse `from_string` does.
        let id: Box<RawValue> = serde_json::value::to_raw_value(&n)
            .unwrap_or_else(|_| unreachable!("an integer is JSON"));
        let version = door.version;
        let (_in_flight, running) = InFlight::enter(&door.in_flight);
        let admitted = admit::admit(
            shared,
            &door.connection,
            &name,
            &id,
            version,
            running,
            || None,
        );
        let span = match admitted {
            Ok(span) => span,
            Err(refusal) => return refused(&tool, refusal),
        };
        let peer = door.peer_for(&options, n);
        let cancel = CancelSignal::default();
        let context = Context::new(ContextParts {
            request_id: id,
            tool: Arc::clone(&name),
            version,
            client: Arc::clone(&door.client),
            meta: None,
            request_log_level: None,
            cancel: cancel.clone(),
            connection: Arc::clone(&door.connection),
            reach: Arc::clone(&shared.reach),
            answers: Map::new(),
            peer: Some(peer),
        });
        let mut cancel_on_drop = CancelOnDrop(Some(cancel));
        let call = ToolCall {
            name,
            arguments: Arguments::Local(arguments),
            version,
            context: context.clone(),
        };
        let admitted = Admitted {
            timeout: run::timeout(shared, &tool, false, options.timeout),
            future: run_tool(Arc::clone(&tool), call),
            tool,
            context,
            span,
        };
        let client = door.connection.client_key();
        let answer = run::execute(shared, client, admitted, sink).await;
        // Ended: nothing left to cancel.
        cancel_on_drop.0 = None;
        answer
    }
}

impl Door {
    /// A copy of this door changed by `change`, with the client it
    /// presents and its shared peer made anew.
    fn rebuilt(&self, change: impl FnOnce(&mut Door)) -> Arc<Door> {
        let mut door = Door {
            shared: Arc::clone(&self.shared),
            connection: Arc::clone(&self.connection),
            client: Arc::clone(&self.client),
            version: self.version,
            principal: self.principal.clone(),
            client_info: self.client_info.clone(),
            elicit: self.elicit.clone(),
            sample: self.sample.clone(),
            peer: Arc::clone(&self.peer),
            next_id: Arc::clone(&self.next_id),
            in_flight: Arc::clone(&self.in_flight),
        };
        change(&mut door);
        // The capabilities of the callbacks it has, as the model writes them.
        let capabilities = ClientCapabilities {
            elicitation: door.elicit.is_some().then(Map::new),
            sampling: door.sample.is_some().then(Map::new),
            ..ClientCapabilities::default()
        };
        door.client = Arc::new(ClientInfo {
            info: door
                .client_info
                .as_ref()
                .and_then(|info| serde_json::to_value(info).ok()),
            capabilities: serde_json::to_value(capabilities).unwrap_or_default(),
        });
        let client_key = door
            .principal
            .as_ref()
            .map(|principal| Arc::from(principal.subject()));
        door.connection = Arc::new(
            Connection::new(crate::conn::outbox::channel(0).0)
                .with_principal(door.principal.clone())
                .with_client_key(client_key),
        );
        door.peer = Arc::new(LocalPeer {
            elicit: door.elicit.clone(),
            sample: door.sample.clone(),
            progress: None,
            log: None,
        });
        Arc::new(door)
    }

    /// The peer of a call with `options`: the shared one, unless the call
    /// has callbacks of its own.
    fn peer_for(&self, options: &CallOptions, id: u64) -> Arc<dyn Peer> {
        if options.progress.is_none() && options.log.is_none() {
            return Arc::clone(&self.peer) as Arc<dyn Peer>;
        }
        Arc::new(LocalPeer {
            elicit: self.elicit.clone(),
            sample: self.sample.clone(),
            progress: options
                .progress
                .clone()
                .map(|callback| (callback, Value::from(id))),
            log: options
                .log
                .clone()
                .map(|callback| (callback, options.log_level.unwrap_or(Level::Debug))),
        })
    }
}

mod prompts;
mod resources;
#[cfg(test)]
mod tests;
