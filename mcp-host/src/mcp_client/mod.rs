//! The era layer over the [`Dispatcher`]: an MCP
//! client of one configured server, speaking the legacy handshake
//! (2024-11-05 to 2025-11-25) or the stateless 2026-07-28 era.
//!
//! - **Connecting** ([`McpClient::connect`]): in [`Mode::Auto`] (the
//!   default) `server/discover` is probed first and the legacy `initialize`
//!   handshake follows on any JSON-RPC error, an HTTP 4xx, a timeout or a
//!   result that names no 2026-07-28 version, as the Python SDK's `Client`
//!   does (a denylist: only a `-32022` whose `supported` list holds no
//!   legacy version is an incompatibility). [`Mode::Legacy`] offers
//!   2025-11-25, accepts any legacy revision the server chooses that we
//!   speak, refuses another with [`McpError::UnsupportedVersion`], sends
//!   `notifications/initialized` and then sets `MCP-Protocol-Version` on
//!   HTTP. [`Mode::Modern`] sends the `_meta` envelope on every request and
//!   the `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*` headers on HTTP.
//! - **Tools** ([`McpClient::list_tools`]): every `nextCursor` followed,
//!   within [`ListLimits`] (tools, bytes, pages and parsed memory per
//!   listing, each checked on a page's text before its tools are parsed; a
//!   cursor handed out twice ends the listing): a server past one fails
//!   with [`McpError::Limit`] naming the cap; cached until `ttlMs` passes
//!   or the server says the list changed
//!   (`notifications/tools/list_changed`: legacy, or on a
//!   `subscriptions/listen` stream opened when a 2026-07-28 server declares
//!   `tools.listChanged`). On 2026-07-28 HTTP a tool whose `x-mcp-header`
//!   breaks the rules (or declares more than 64) is dropped with a warning
//!   naming it and the rule; elsewhere the keyword is not looked at.
//!   Annotations of an untrusted server keep only their `title`: its hints
//!   are not believed.
//! - **Calls** ([`McpClient::call_tool`]): a timeout (default
//!   [`DEFAULT_CALL_TIMEOUT`]) over the whole call that cancels it; a
//!   progress callback; elicitation and sampling answered by the handlers of
//!   [`ClientOptions`] (legacy server requests, or 2026-07-28
//!   `input_required` rounds, at most [`ClientOptions::max_input_rounds`]);
//!   `structuredContent` validated against the tool's `outputSchema`
//!   (feature `output-schema`, default), a violation returned as an
//!   `isError` result; the validator is compiled when a result of that
//!   tool first arrives, within the limits of [`output`], and a schema
//!   past them is skipped with a warning (results pass unvalidated); every
//!   call logged for audit (target `mcp_host::audit`: server, tool,
//!   duration, isError).
//! - **Tasks** (the `io.modelcontextprotocol/tasks` extension, declared in
//!   every 2026-07-28 request's envelope unless [`ClientOptions::tasks`] is
//!   off): a `tools/call` the server answers with a task is driven to its
//!   end inside [`McpClient::call_tool`] — `tasks/get` polled at the
//!   server's `pollIntervalMs`, its `statusMessage` reported as progress,
//!   its `inputRequests` answered once each through the same handlers
//!   (`tasks/update`), `tasks/cancel` on timeout or when the call is
//!   dropped — so the caller sees an ordinary result, or the task's
//!   JSON-RPC error, or [`McpError::TaskEnded`].
//! - **Restarts**: a connection found lost is made again once, on next use,
//!   with a new handshake.

mod handler;
mod limits;
#[cfg(feature = "output-schema")]
pub mod output;
mod task;

pub use handler::{ElicitFn, ProgressFn, SampleFn};
pub use limits::{
    DEFAULT_MAX_LISTING_BYTES, DEFAULT_MAX_LISTING_TREE_BYTES, DEFAULT_MAX_PAGES,
    DEFAULT_MAX_TOOLS, ListLimits,
};

use crate::client::log_limit::LogLimiter;
use crate::client::{
    ClientError, Dispatcher, DispatcherConfig, Reconnector, RequestOptions, StdioConfig,
    StdioFactory, TransportFactory,
};
use crate::config::{ServerConfig, Transport as ConfigTransport};
use crate::convert::CallFailure;
use crate::wire::{
    CallToolParams, CallToolResponse, CallToolResult, ClientCapabilities, DiscoverResult,
    Implementation, InitializeParams, InitializeResult, InputRequest, JsonObject, ListToolsParams,
    ListenParams, MetaParams, SubscriptionFilter, Tool, ToolAnnotations, method,
};
use handler::HostHandler;
use mcp_protocol::ProtocolVersion;
use mcp_protocol::http::{self, HeaderParam, HeaderParams};
use mcp_protocol::meta::Envelope;
use mcp_protocol::task::TASKS_EXTENSION;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_json::value::RawValue;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The default timeout of a call (60 s, as `mcp-host --tool-timeout`).
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(60);

/// The default bound on 2026-07-28 `input_required` rounds of one call.
pub const DEFAULT_MAX_INPUT_ROUNDS: usize = 8;

/// How long the handshake (`server/discover`, `initialize`) and each
/// `tools/list` page may take.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(30);

/// How long the `server/discover` probe of [`Mode::Auto`] waits before
/// deciding the server is legacy (some legacy servers ignore requests that
/// come before `initialize`).
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// The most `tools/list` pages followed by default (a server that never
/// stops handing out cursors is an error, not a hang): the default of
/// [`ListLimits::max_pages`].
pub const MAX_PAGES: usize = DEFAULT_MAX_PAGES;

/// Which era to speak.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// 2026-07-28 when the server speaks it, else the legacy handshake.
    #[default]
    Auto,
    /// The `initialize` handshake only.
    Legacy,
    /// 2026-07-28 only.
    Modern,
}

/// How a client connects and answers the server.
#[derive(Clone)]
pub struct ClientOptions {
    /// The era. Default [`Mode::Auto`].
    pub mode: Mode,
    /// Who we are (`clientInfo`). Default `mcp-host` at this crate's version.
    pub client_info: Implementation,
    /// Answers elicitation; without it the capability is not declared.
    pub elicitation: Option<ElicitFn>,
    /// Answers sampling; without it the capability is not declared.
    pub sampling: Option<SampleFn>,
    /// The bound on `input_required` rounds of one call. Default
    /// [`DEFAULT_MAX_INPUT_ROUNDS`].
    pub max_input_rounds: usize,
    /// The timeout of a call whose [`CallOptions`] names none. Default
    /// [`DEFAULT_CALL_TIMEOUT`].
    pub call_timeout: Duration,
    /// Whether 2026-07-28 requests declare the Tasks extension
    /// (`io.modelcontextprotocol/tasks`), so a server may answer
    /// `tools/call` with a task the client then drives to its result.
    /// Default `true`; never declared in a legacy session.
    pub tasks: bool,
    /// How long a stdio server gets to exit after its stdin is closed (and
    /// again after SIGTERM) when the client closes it. Default
    /// [`DEFAULT_CLOSE_GRACE`](crate::client::DEFAULT_CLOSE_GRACE).
    pub close_grace: Duration,
    /// The caps on what one `tools/list` may build (tools, bytes, pages,
    /// memory). Default [`ListLimits::default`].
    pub list_limits: ListLimits,
}

impl fmt::Debug for ClientOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientOptions")
            .field("mode", &self.mode)
            .field("client_info", &self.client_info)
            .field("elicitation", &self.elicitation.is_some())
            .field("sampling", &self.sampling.is_some())
            .field("max_input_rounds", &self.max_input_rounds)
            .field("call_timeout", &self.call_timeout)
            .field("tasks", &self.tasks)
            .field("close_grace", &self.close_grace)
            .field("list_limits", &self.list_limits)
            .finish()
    }
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            mode: Mode::Auto,
            client_info: Implementation::new("mcp-host", env!("CARGO_PKG_VERSION")),
            elicitation: None,
            sampling: None,
            max_input_rounds: DEFAULT_MAX_INPUT_ROUNDS,
            call_timeout: DEFAULT_CALL_TIMEOUT,
            tasks: true,
            close_grace: crate::client::DEFAULT_CLOSE_GRACE,
            list_limits: ListLimits::default(),
        }
    }
}

impl ClientOptions {
    /// The defaults in `mode`.
    pub fn mode(mode: Mode) -> Self {
        ClientOptions {
            mode,
            ..ClientOptions::default()
        }
    }
}

/// How one call is made.
#[derive(Clone, Default)]
pub struct CallOptions {
    /// The timeout of the whole call (all its rounds); the client's
    /// [`ClientOptions::call_timeout`] when `None`.
    pub timeout: Option<Duration>,
    /// Receives the call's `notifications/progress`.
    pub progress: Option<ProgressFn>,
}

impl fmt::Debug for CallOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallOptions")
            .field("timeout", &self.timeout)
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

impl CallOptions {
    /// The defaults with this timeout.
    pub fn timeout(timeout: Duration) -> Self {
        CallOptions {
            timeout: Some(timeout),
            progress: None,
        }
    }
}

/// Why the client could not do what was asked.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum McpError {
    /// The message level failed (transport, timeout, a JSON-RPC error).
    Client(ClientError),
    /// The server chose a revision we do not speak.
    UnsupportedVersion {
        /// The server's config name.
        server: String,
        /// The revision it chose.
        version: String,
    },
    /// [`Mode::Modern`] was asked for and the server does not speak 2026-07-28.
    NotModern {
        /// The server's config name.
        server: String,
        /// What it said.
        reason: String,
    },
    /// The server answered something the protocol does not allow.
    Protocol {
        /// The server's config name.
        server: String,
        /// What was wrong.
        reason: String,
    },
    /// The task the call became ended without a result: the server
    /// cancelled it, or no longer knows it (`tasks/get` answered `-32602`).
    /// A task that failed is the JSON-RPC error it carries
    /// ([`McpError::Client`] with [`ClientError::Rpc`]), as a direct answer
    /// would have been.
    TaskEnded {
        /// The server's config name.
        server: String,
        /// The task's id.
        task_id: String,
        /// What happened, as a clause ("was cancelled by the server").
        reason: String,
    },
    /// The server passed one of the client's caps ([`ListLimits`]): its
    /// tool list has more tools, bytes, pages or memory than allowed.
    Limit {
        /// The server's config name.
        server: String,
        /// Which cap it passed ("its tool list passed 1,000 tools (…)").
        reason: String,
    },
    /// The configuration cannot be used by this build (an `https://` URL
    /// without the `https` feature, a `"type": "sse"` server).
    Config {
        /// The server's config name.
        server: String,
        /// What is wrong.
        reason: String,
    },
}

impl fmt::Display for McpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            McpError::Client(e) => write!(f, "{e}"),
            McpError::UnsupportedVersion { server, version } => write!(
                f,
                "server `{server}` chose protocol revision {version:?}, which this client does not speak (it speaks 2024-11-05 to 2025-11-25 and 2026-07-28)"
            ),
            McpError::NotModern { server, reason } => {
                write!(f, "server `{server}` does not speak 2026-07-28: {reason}")
            }
            McpError::Protocol { server, reason } => {
                write!(f, "server `{server}` broke the protocol: {reason}")
            }
            McpError::Config { server, reason } | McpError::Limit { server, reason } => {
                write!(f, "server `{server}`: {reason}")
            }
            McpError::TaskEnded {
                server,
                task_id,
                reason,
            } => write!(f, "server `{server}`: task `{task_id}` {reason}"),
        }
    }
}

impl std::error::Error for McpError {}

impl From<ClientError> for McpError {
    fn from(e: ClientError) -> Self {
        McpError::Client(e)
    }
}

impl McpError {
    /// The failure a model sees for a call that failed this way.
    pub fn to_failure(&self, server: &str) -> CallFailure {
        match self {
            McpError::Client(ClientError::Rpc(e)) => CallFailure::Rpc(e.clone()),
            McpError::Client(ClientError::Timeout { after, .. }) => {
                CallFailure::Timeout { after: *after }
            }
            McpError::TaskEnded {
                task_id, reason, ..
            } => CallFailure::TaskEnded {
                reason: format!("task `{task_id}` {reason}"),
            },
            McpError::Client(error @ ClientError::TooManyPending { .. }) => CallFailure::NotRun {
                reason: error.to_string(),
            },
            McpError::Client(
                error @ (ClientError::AnswerTooLarge { .. }
                | ClientError::TooLarge { .. }
                | ClientError::Malformed { .. }),
            ) => CallFailure::Unusable {
                server: server.to_owned(),
                reason: error.to_string(),
            },
            other => CallFailure::ServerGone {
                server: server.to_owned(),
                reason: other.to_string(),
            },
        }
    }
}

/// The era a connection speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Era {
    Legacy(ProtocolVersion),
    Modern,
}

/// A tool as the client keeps it: what a call needs beside the definition.
struct Entry {
    params: Vec<HeaderParam>,
    /// The `outputSchema`, compiled when a result first arrives.
    #[cfg(feature = "output-schema")]
    output: Option<output::OutputCheck>,
}

struct Cache {
    tools: Arc<Vec<Tool>>,
    entries: Arc<HashMap<String, Arc<Entry>>>,
    fetched: Instant,
    ttl: Option<Duration>,
    generation: u64,
    connection: u64,
}

struct Conn {
    reconnector: Arc<Reconnector>,
    current: Arc<Dispatcher>,
    era: Era,
    /// Counts connections, so a cache knows it is of an earlier one.
    number: u64,
    listen: Option<tokio::task::AbortHandle>,
}

impl Drop for Conn {
    fn drop(&mut self) {
        if let Some(listen) = self.listen.take() {
            listen.abort();
        }
    }
}

struct Inner {
    config: ServerConfig,
    options: ClientOptions,
    handler: Arc<HostHandler>,
    http: bool,
    envelope: Envelope<'static>,
    capabilities: ClientCapabilities,
    conn: tokio::sync::Mutex<Conn>,
    cache: std::sync::Mutex<Option<Cache>>,
    next_token: AtomicU64,
}

/// An MCP client of one server. Cheap to clone; clones share the connection.
#[derive(Clone)]
pub struct McpClient {
    inner: Arc<Inner>,
}

impl fmt::Debug for McpClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpClient")
            .field("server", &self.inner.config.name)
            .field("options", &self.inner.options)
            .finish_non_exhaustive()
    }
}

fn raw_params<T: Serialize>(value: &T) -> Box<RawValue> {
    serde_json::value::to_raw_value(value)
        .unwrap_or_else(|_| unreachable!("the client's own params are plain JSON objects"))
}

fn factory(
    config: &ServerConfig,
    close_grace: Duration,
) -> Result<Arc<dyn TransportFactory>, McpError> {
    match &config.transport {
        ConfigTransport::Stdio {
            command,
            args,
            env,
            cwd,
            inherit_env,
        } => {
            let mut stdio = StdioConfig::new(config.name.clone(), command.clone())
                .args(args.clone())
                .inherit_env(*inherit_env)
                .close_grace(close_grace);
            for (key, value) in env {
                stdio = stdio.env(key.clone(), value.clone());
            }
            if let Some(cwd) = cwd {
                stdio.cwd = Some(cwd.into());
            }
            Ok(Arc::new(StdioFactory(stdio)))
        }
        ConfigTransport::Http {
            declared_sse: true, ..
        } => Err(McpError::Config {
            server: config.name.clone(),
            reason: "`\"type\": \"sse\"` (the 2024-11-05 HTTP+SSE transport) is not supported; use Streamable HTTP".into(),
        }),
        #[cfg(feature = "http")]
        ConfigTransport::Http { url, headers, .. } => {
            let mut http = crate::client::HttpConfig::new(config.name.clone(), url.clone());
            for (name, value) in headers {
                http = http.header(name.clone(), value.clone());
            }
            Ok(Arc::new(crate::client::HttpFactory(http)))
        }
        #[cfg(not(feature = "http"))]
        ConfigTransport::Http { .. } => Err(McpError::Config {
            server: config.name.clone(),
            reason: "HTTP servers need mcp-host's `http` feature".into(),
        }),
    }
}

/// Whether a failed `server/discover` probe means "legacy server": every
/// JSON-RPC error but a `-32022` naming only modern revisions, an HTTP 4xx,
/// a timeout, a malformed answer (the Python SDK's denylist).
fn falls_back(error: &ClientError) -> bool {
    match error {
        ClientError::Rpc(e) if e.code == -32022 => {
            let supported: Option<Vec<String>> = e
                .data
                .as_ref()
                .and_then(|d| d.get("supported"))
                .and_then(|s| serde_json::from_value(s.clone()).ok());
            match supported {
                Some(list) => list
                    .iter()
                    .any(|v| ProtocolVersion::parse(v).is_some_and(|v| !v.is_modern())),
                None => true,
            }
        }
        ClientError::Rpc(_) | ClientError::Timeout { .. } | ClientError::Malformed { .. } => true,
        ClientError::Http { status, .. } => (400..500).contains(status),
        _ => false,
    }
}

impl McpClient {
    /// Connects to `config`'s server with the default [`ClientOptions`].
    pub async fn connect(config: ServerConfig) -> Result<McpClient, McpError> {
        McpClient::connect_with(config, ClientOptions::default()).await
    }

    /// Connects to `config`'s server: starts it (stdio) or reaches it
    /// (HTTP) and makes the handshake of `options.mode`.
    pub async fn connect_with(
        config: ServerConfig,
        options: ClientOptions,
    ) -> Result<McpClient, McpError> {
        let factory = factory(&config, options.close_grace)?;
        let http = matches!(config.transport, ConfigTransport::Http { .. });
        let handler = Arc::new(HostHandler {
            server: config.name.clone(),
            elicit: options.elicitation.clone(),
            sample: options.sampling.clone(),
            progress: Default::default(),
            tools_generation: AtomicU64::new(0),
            lists_changes: AtomicBool::new(false),
            log: Mutex::new(LogLimiter::new(config.name.clone(), "log notification")),
        });
        let capabilities = ClientCapabilities {
            elicitation: options.elicitation.as_ref().map(|_| JsonObject::new()),
            sampling: options.sampling.as_ref().map(|_| JsonObject::new()),
            ..ClientCapabilities::default()
        };
        // The extension is a per-request capability of 2026-07-28, so it
        // goes in the envelope only, never in a legacy `initialize`.
        let mut modern_capabilities = capabilities.clone();
        if options.tasks {
            modern_capabilities.extensions = Some(JsonObject::from_iter([(
                TASKS_EXTENSION.to_owned(),
                Value::Object(JsonObject::new()),
            )]));
        }
        let envelope = modern_capabilities
            .envelope(ProtocolVersion::V2026_07_28.as_str(), &options.client_info)
            .map_err(|e| McpError::Protocol {
                server: config.name.clone(),
                reason: e.to_string(),
            })?;
        let mut dispatcher_config = DispatcherConfig::new(config.name.clone());
        dispatcher_config.default_timeout = options.call_timeout;
        let new_reconnector = || {
            Arc::new(Reconnector::new(
                Arc::clone(&factory),
                Arc::clone(&handler) as Arc<dyn crate::client::Handler>,
                dispatcher_config.clone(),
            ))
        };
        let mut reconnector = new_reconnector();
        let mut current = reconnector.connect().await?;
        let parts = Parts {
            server: &config.name,
            handler: &handler,
            http,
            envelope: &envelope,
            capabilities: &capabilities,
            client_info: &options.client_info,
        };
        let era = match options.mode {
            Mode::Legacy => parts.initialize(&current).await?,
            Mode::Modern => match parts.discover(&current, HANDSHAKE_TIMEOUT).await {
                Ok(Some(era)) => era,
                Ok(None) => {
                    return Err(McpError::NotModern {
                        server: config.name.clone(),
                        reason: "its server/discover names no 2026-07-28 revision".into(),
                    });
                }
                Err(McpError::Client(e)) if falls_back(&e) => {
                    return Err(McpError::NotModern {
                        server: config.name.clone(),
                        reason: e.to_string(),
                    });
                }
                Err(e) => return Err(e),
            },
            Mode::Auto => match parts.discover(&current, PROBE_TIMEOUT).await {
                Ok(Some(era)) => era,
                Ok(None) => parts.initialize(&current).await?,
                Err(McpError::Client(e)) if falls_back(&e) => {
                    tracing::debug!(server = %config.name, error = %e, "server/discover refused; the legacy handshake follows");
                    if current.is_closed() {
                        // The server gave up on the probe (some exit on a
                        // request before `initialize`): a fresh process,
                        // not counted as the one restart.
                        reconnector = new_reconnector();
                        current = reconnector.connect().await?;
                    }
                    parts.initialize(&current).await?
                }
                Err(e) => return Err(e),
            },
        };
        let client = McpClient {
            inner: Arc::new(Inner {
                conn: tokio::sync::Mutex::new(Conn {
                    reconnector,
                    current,
                    era,
                    number: 0,
                    listen: None,
                }),
                config,
                options,
                handler,
                http,
                envelope,
                capabilities,
                cache: std::sync::Mutex::new(None),
                next_token: AtomicU64::new(1),
            }),
        };
        Ok(client)
    }

    /// The server's config name.
    pub fn name(&self) -> &str {
        &self.inner.config.name
    }

    /// Whether the server's annotations are believed (config `trusted`).
    pub fn trusted(&self) -> bool {
        self.inner.config.trusted
    }

    /// The revision the connection speaks (`2026-07-28` or the legacy one
    /// the handshake chose).
    pub async fn protocol_version(&self) -> ProtocolVersion {
        match self.inner.conn.lock().await.era {
            Era::Legacy(v) => v,
            Era::Modern => ProtocolVersion::V2026_07_28,
        }
    }

    /// How many times the connection was made again.
    pub async fn restarts(&self) -> u32 {
        let reconnector = Arc::clone(&self.inner.conn.lock().await.reconnector);
        reconnector.restarts().await
    }

    /// Ends the connection.
    pub async fn close(&self) {
        let conn = self.inner.conn.lock().await;
        conn.current.close().await;
    }

    fn parts(&self) -> Parts<'_> {
        Parts {
            server: &self.inner.config.name,
            handler: &self.inner.handler,
            http: self.inner.http,
            envelope: &self.inner.envelope,
            capabilities: &self.inner.capabilities,
            client_info: &self.inner.options.client_info,
        }
    }

    /// The live connection, made again (once in the client's life) when
    /// the last one was lost.
    async fn session(&self) -> Result<(Arc<Dispatcher>, Era, u64), McpError> {
        let mut conn = self.inner.conn.lock().await;
        if conn.current.is_closed() {
            let fresh = conn.reconnector.restart(&conn.current).await?;
            let era = match conn.era {
                Era::Legacy(_) => self.parts().initialize(&fresh).await?,
                Era::Modern => self
                    .parts()
                    .discover(&fresh, HANDSHAKE_TIMEOUT)
                    .await?
                    .ok_or_else(|| McpError::NotModern {
                        server: self.inner.config.name.clone(),
                        reason: "after a restart its server/discover names no 2026-07-28 revision"
                            .into(),
                    })?,
            };
            if let Some(listen) = conn.listen.take() {
                listen.abort();
            }
            conn.current = fresh;
            conn.era = era;
            conn.number += 1;
        }
        Ok((Arc::clone(&conn.current), conn.era, conn.number))
    }

    /// The options of a request of `method` in `era` (`Mcp-Method`, and
    /// `Mcp-Name` when `name` is given, on 2026-07-28).
    fn request_options(
        &self,
        era: Era,
        method: &str,
        name: Option<&str>,
        timeout: Duration,
    ) -> RequestOptions {
        let mut options = RequestOptions::timeout(timeout);
        if era == Era::Modern {
            options = options.header(http::METHOD, method);
            if let Some(name) = name {
                options = options.header(http::NAME, http::encode_value(name));
            }
            // On 2026-07-28 HTTP, dropping the response stream is the
            // cancellation; stdio sends the notification.
            options.cancel_notification = !self.inner.http;
        }
        options
    }

    /// The server's tools, every page, from the cache while it is fresh.
    pub async fn list_tools(&self) -> Result<Arc<Vec<Tool>>, McpError> {
        Ok(self.cached_or_fetch().await?.0)
    }

    /// Forgets the cached tool list; the next [`list_tools`](Self::list_tools)
    /// asks the server.
    pub fn invalidate_tools(&self) {
        *self.inner.cache.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }

    async fn cached_or_fetch(
        &self,
    ) -> Result<(Arc<Vec<Tool>>, Arc<HashMap<String, Arc<Entry>>>), McpError> {
        let (dispatcher, era, number) = self.session().await?;
        {
            let cache = self.inner.cache.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(cache) = cache.as_ref()
                && cache.connection == number
                && cache.generation == self.inner.handler.generation()
                && cache.ttl.is_none_or(|ttl| cache.fetched.elapsed() < ttl)
            {
                return Ok((Arc::clone(&cache.tools), Arc::clone(&cache.entries)));
            }
        }
        if era == Era::Modern {
            self.ensure_listening(&dispatcher, number).await;
        }
        let generation = self.inner.handler.generation();
        let fetched = Instant::now();
        let (tools, ttl) = self.fetch_tools(&dispatcher, era).await?;
        let mut kept = Vec::with_capacity(tools.len());
        let mut entries = HashMap::new();
        for mut tool in tools {
            // The keyword is 2026-07-28 HTTP's, and so is the duty: stdio
            // and a legacy session mirror no arguments into headers, so
            // their schemas are not walked at all.
            let params = if self.inner.http && era == Era::Modern {
                match HeaderParams::read(&tool.input_schema).valid() {
                    Ok(params) => params,
                    Err(reason) => {
                        tracing::warn!(server = %self.inner.config.name, tool = %tool.name, %reason, "tool dropped: its x-mcp-header breaks the rules");
                        continue;
                    }
                }
            } else {
                Vec::new()
            };
            if !self.inner.config.trusted {
                tool.annotations = tool.annotations.take().map(|a| ToolAnnotations {
                    title: a.title,
                    ..ToolAnnotations::default()
                });
            }
            let entry = Entry {
                params,
                #[cfg(feature = "output-schema")]
                output: tool.output_schema.as_ref().map(output::OutputCheck::new),
            };
            entries.insert(tool.name.clone(), Arc::new(entry));
            kept.push(tool);
        }
        let tools = Arc::new(kept);
        let entries = Arc::new(entries);
        *self.inner.cache.lock().unwrap_or_else(|e| e.into_inner()) = Some(Cache {
            tools: Arc::clone(&tools),
            entries: Arc::clone(&entries),
            fetched,
            ttl,
            generation,
            connection: number,
        });
        Ok((tools, entries))
    }

    /// The cached entry of tool `name`, stale or not: a call needs only its
    /// header parameters and validator, and listing before every call of a
    /// server with `ttlMs: 0` would double its requests.
    fn known_entry(&self, name: &str) -> Option<Arc<Entry>> {
        let cache = self.inner.cache.lock().unwrap_or_else(|e| e.into_inner());
        cache.as_ref()?.entries.get(name).cloned()
    }

    async fn fetch_tools(
        &self,
        dispatcher: &Dispatcher,
        era: Era,
    ) -> Result<(Vec<Tool>, Option<Duration>), McpError> {
        let server = &self.inner.config.name;
        let refused = |why: limits::Refused| match why {
            limits::Refused::Cap(reason) => McpError::Limit {
                server: server.clone(),
                reason,
            },
            limits::Refused::Malformed(reason) => McpError::Protocol {
                server: server.clone(),
                reason,
            },
        };
        let mut listing = limits::Listing::new(self.inner.options.list_limits);
        let mut tools = Vec::new();
        let mut cursor: Option<String> = None;
        let mut ttl: Option<Duration> = None;
        loop {
            listing.next_page().map_err(refused)?;
            let params = ListToolsParams {
                cursor: cursor.take(),
                meta: (era == Era::Modern).then(|| self.inner.envelope.clone()),
            };
            // The page stays text until the caps let it through.
            let text = dispatcher
                .request(
                    method::TOOLS_LIST,
                    Some(&raw_params(&params)),
                    self.request_options(era, method::TOOLS_LIST, None, HANDSHAKE_TIMEOUT),
                )
                .await?;
            let page = listing.admit(text.get()).map_err(refused)?;
            if let Some(ms) = page.ttl_ms {
                let page_ttl = Duration::from_millis(ms);
                ttl = Some(ttl.map_or(page_ttl, |t| t.min(page_ttl)));
            }
            tools.reserve(page.tools.len());
            for tool in page.tools {
                let tool: Tool =
                    serde_json::from_str(tool.get()).map_err(|e| McpError::Protocol {
                        server: server.clone(),
                        reason: format!("its tools/list result does not parse: {e}"),
                    })?;
                tools.push(tool);
            }
            match page.next_cursor {
                Some(next) => cursor = Some(next),
                None => return Ok((tools, ttl)),
            }
        }
    }

    /// Opens a `subscriptions/listen` stream for `tools/list_changed` on a
    /// 2026-07-28 connection, once per connection, when the server says it
    /// sends them. The request stays open for the connection's life; its
    /// notifications reach the handler like any other.
    async fn ensure_listening(&self, dispatcher: &Arc<Dispatcher>, number: u64) {
        let mut conn = self.inner.conn.lock().await;
        if conn.listen.is_some()
            || conn.number != number
            || !self.inner.handler.lists_changes.load(Ordering::Acquire)
        {
            return;
        }
        let params = ListenParams {
            notifications: SubscriptionFilter {
                tools_list_changed: Some(true),
                ..SubscriptionFilter::default()
            },
            meta: self.inner.envelope.clone(),
        };
        let params = raw_params(&params);
        let mut options = self.request_options(
            Era::Modern,
            method::SUBSCRIPTIONS_LISTEN,
            None,
            Duration::MAX,
        );
        // Ending the stream is the cancellation on HTTP; stdio sends it.
        options.cancel_notification = !self.inner.http;
        let dispatcher = Arc::clone(dispatcher);
        let server = self.inner.config.name.clone();
        let task = tokio::spawn(async move {
            if let Err(e) = dispatcher
                .request(method::SUBSCRIPTIONS_LISTEN, Some(&params), options)
                .await
            {
                tracing::debug!(%server, error = %e, "subscriptions/listen ended");
            }
        });
        conn.listen = Some(task.abort_handle());
    }

    async fn typed<T: DeserializeOwned>(
        &self,
        dispatcher: &Dispatcher,
        method: &str,
        params: Option<&RawValue>,
        options: RequestOptions,
    ) -> Result<T, McpError> {
        let result = dispatcher.request(method, params, options).await?;
        serde_json::from_str(result.get()).map_err(|e| McpError::Protocol {
            server: self.inner.config.name.clone(),
            reason: format!("its {method} result does not parse: {e}"),
        })
    }

    /// Calls tool `name` with `arguments`. A tool's own failure is an
    /// `isError` result (`Ok`); a result whose `structuredContent` breaks
    /// the tool's `outputSchema` is replaced by an `isError` result saying
    /// so; `Err` is a call that produced no result.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Option<JsonObject>,
        options: CallOptions,
    ) -> Result<CallToolResult, McpError> {
        let started = Instant::now();
        let outcome = self.call_inner(name, arguments, options).await;
        let duration_ms = started.elapsed().as_secs_f64() * 1000.0;
        match &outcome {
            Ok(result) => {
                tracing::info!(target: "mcp_host::audit", server = %self.inner.config.name, tool = %name, duration_ms, is_error = result.is_error, "tools/call")
            }
            Err(error) => {
                tracing::info!(target: "mcp_host::audit", server = %self.inner.config.name, tool = %name, duration_ms, is_error = true, %error, "tools/call failed")
            }
        }
        outcome
    }

    async fn call_inner(
        &self,
        name: &str,
        arguments: Option<JsonObject>,
        options: CallOptions,
    ) -> Result<CallToolResult, McpError> {
        let timeout = options.timeout.unwrap_or(self.inner.options.call_timeout);
        let deadline = Instant::now() + timeout;
        // The tool's header parameters and output validator; a failed list
        // does not stop the call (the server judges it).
        let entry = match self.known_entry(name) {
            Some(entry) => Some(entry),
            None => match self.cached_or_fetch().await {
                Ok((_, entries)) => entries.get(name).cloned(),
                Err(e) => {
                    tracing::debug!(server = %self.inner.config.name, error = %e, "tools/list failed before a call");
                    None
                }
            },
        };
        let (dispatcher, era, _) = self.session().await?;
        let token = options.progress.as_ref().map(|callback| {
            let token = format!(
                "\"mcp-host-{}\"",
                self.inner.next_token.fetch_add(1, Ordering::Relaxed)
            );
            self.inner
                .handler
                .progress
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(token.clone(), Arc::clone(callback));
            token
        });
        let _unregister = token.clone().map(|token| Unregister {
            handler: Arc::clone(&self.inner.handler),
            token,
        });
        let mut meta = match era {
            Era::Modern => Some(self.inner.envelope.clone()),
            Era::Legacy(_) => None,
        };
        if let Some(token) = &token {
            let base = meta.take().unwrap_or_default();
            meta = Some(
                base.with_progress_token(token)
                    .map_err(|e| McpError::Protocol {
                        server: self.inner.config.name.clone(),
                        reason: e.to_string(),
                    })?,
            );
        }
        let header_values = match (&entry, era) {
            (Some(entry), Era::Modern) => match arguments.as_ref() {
                Some(arguments) => entry
                    .params
                    .iter()
                    .filter_map(|p| p.header(arguments))
                    .collect(),
                None => Vec::new(),
            },
            _ => Vec::new(),
        };
        let mut input_responses: Option<BTreeMap<String, Value>> = None;
        let mut request_state: Option<String> = None;
        for _round in 0..=self.inner.options.max_input_rounds {
            let params = CallToolParams {
                name: name.to_owned(),
                arguments: arguments.clone(),
                input_responses: input_responses.take(),
                request_state: request_state.take(),
                meta: meta.clone(),
            };
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(McpError::Client(ClientError::Timeout {
                    method: method::TOOLS_CALL.into(),
                    after: timeout,
                }));
            }
            let mut request = self.request_options(era, method::TOOLS_CALL, Some(name), left);
            request.headers.extend(header_values.iter().cloned());
            let response: CallToolResponse = self
                .typed(
                    &dispatcher,
                    method::TOOLS_CALL,
                    Some(&raw_params(&params)),
                    request,
                )
                .await
                .map_err(|e| match e {
                    // The timeout is the call's, not the round's.
                    McpError::Client(ClientError::Timeout { method, .. }) => {
                        McpError::Client(ClientError::Timeout {
                            method,
                            after: timeout,
                        })
                    }
                    other => other,
                })?;
            match response {
                CallToolResponse::Complete(result) => {
                    return Ok(self.checked(name, entry.as_deref(), result).await);
                }
                CallToolResponse::InputRequired(asked) => {
                    if era != Era::Modern {
                        return Err(McpError::Protocol {
                            server: self.inner.config.name.clone(),
                            reason: "an input_required result in a legacy session".into(),
                        });
                    }
                    let answers = self.answer_inputs(asked.input_requests).await?;
                    input_responses = (!answers.is_empty()).then_some(answers);
                    request_state = asked.request_state;
                }
                CallToolResponse::Task(created) => {
                    // A server may answer with a task only a client that
                    // declared the extension on this request.
                    if era != Era::Modern || !self.inner.options.tasks {
                        return Err(McpError::Protocol {
                            server: self.inner.config.name.clone(),
                            reason: format!(
                                "tool `{name}` answered with task `{}`, but this client did not declare the tasks extension",
                                created.task.task_id
                            ),
                        });
                    }
                    let progress =
                        options
                            .progress
                            .as_ref()
                            .zip(token.as_deref())
                            .map(|(callback, token)| {
                                (
                                    Arc::clone(callback),
                                    serde_json::from_str(token).unwrap_or(Value::Null),
                                )
                            });
                    let driven = task::Driven {
                        dispatcher: &dispatcher,
                        created: created.task,
                        deadline,
                        timeout,
                        progress,
                    };
                    let result = self.drive_task(driven).await?;
                    return Ok(self.checked(name, entry.as_deref(), result).await);
                }
            }
        }
        Err(McpError::Protocol {
            server: self.inner.config.name.clone(),
            reason: format!(
                "tool `{name}` still asked for input after {} rounds",
                self.inner.options.max_input_rounds
            ),
        })
    }

    /// The answers to 2026-07-28 input requests by their keys, from the
    /// client's handlers (the `input_required` rounds of a call and a
    /// task's `inputRequests` alike); one that cannot be answered fails
    /// the call.
    async fn answer_inputs(
        &self,
        requests: impl IntoIterator<Item = (String, InputRequest)>,
    ) -> Result<BTreeMap<String, Value>, McpError> {
        let mut answers = BTreeMap::new();
        for (key, request) in requests {
            match self.inner.handler.answer(request).await {
                Ok(answer) => {
                    answers.insert(key, answer);
                }
                Err(e) => {
                    return Err(McpError::Protocol {
                        server: self.inner.config.name.clone(),
                        reason: format!(
                            "input request `{key}` could not be answered: {}",
                            e.message
                        ),
                    });
                }
            }
        }
        Ok(answers)
    }

    /// The result, or an `isError` result in its place when its
    /// `structuredContent` breaks the tool's `outputSchema`.
    async fn checked(
        &self,
        name: &str,
        entry: Option<&Entry>,
        result: CallToolResult,
    ) -> CallToolResult {
        #[cfg(feature = "output-schema")]
        if !result.is_error
            && let Some(check) = entry.and_then(|e| e.output.as_ref())
            && let Some(validator) = check.validator(&self.inner.config.name, name).await
        {
            let reason = match &result.structured_content {
                None => Some(
                    "the tool has an outputSchema but the result has no structuredContent"
                        .to_owned(),
                ),
                Some(content) => validator.iter_errors(content).next().map(|e| {
                    format!(
                        "structuredContent does not match the tool's outputSchema at `{}`: {e}",
                        e.instance_path()
                    )
                }),
            };
            if let Some(reason) = reason {
                tracing::warn!(server = %self.inner.config.name, tool = %name, %reason, "result not passed on");
                return CallFailure::InvalidOutput { reason }.to_result();
            }
        }
        #[cfg(not(feature = "output-schema"))]
        let _ = (name, entry);
        result
    }
}

/// How long a call's progress callback outlives the call. The dispatcher
/// routes the result to the caller at once but hands notifications to the
/// handler through a queue, so progress the server sent just before its
/// result may be delivered just after it.
const PROGRESS_GRACE: Duration = Duration::from_millis(500);

/// Removes a call's progress callback once the call ends, however it ends
/// (after [`PROGRESS_GRACE`]).
struct Unregister {
    handler: Arc<HostHandler>,
    token: String,
}

impl Drop for Unregister {
    fn drop(&mut self) {
        let handler = Arc::clone(&self.handler);
        let token = std::mem::take(&mut self.token);
        let remove = move || {
            handler
                .progress
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&token);
        };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                runtime.spawn(async move {
                    tokio::time::sleep(PROGRESS_GRACE).await;
                    remove();
                });
            }
            Err(_) => remove(),
        }
    }
}

/// What a handshake needs, borrowed from the client (also before it exists).
struct Parts<'a> {
    server: &'a str,
    handler: &'a HostHandler,
    http: bool,
    envelope: &'a Envelope<'static>,
    capabilities: &'a ClientCapabilities,
    client_info: &'a Implementation,
}

impl Parts<'_> {
    fn handshake_options(&self, timeout: Duration) -> RequestOptions {
        let mut options = RequestOptions::timeout(timeout);
        // Neither `initialize` nor `server/discover` is cancellable.
        options.cancel_notification = false;
        options
    }

    /// `server/discover`: `Some(Modern)` when the server speaks 2026-07-28,
    /// `None` when its answer names only legacy revisions.
    async fn discover(
        &self,
        dispatcher: &Dispatcher,
        timeout: Duration,
    ) -> Result<Option<Era>, McpError> {
        let params = MetaParams {
            meta: self.envelope.clone(),
        };
        let version = ProtocolVersion::V2026_07_28.as_str();
        let options = self
            .handshake_options(timeout)
            .header(http::PROTOCOL_VERSION, version)
            .header(http::METHOD, method::DISCOVER);
        let result = dispatcher
            .request(method::DISCOVER, Some(&raw_params(&params)), options)
            .await?;
        let Ok(result) = serde_json::from_str::<DiscoverResult>(result.get()) else {
            return Ok(None);
        };
        if !result.supported_versions.iter().any(|v| v == version) {
            return Ok(None);
        }
        if self.http {
            dispatcher.set_headers(&[(http::PROTOCOL_VERSION.to_owned(), version.to_owned())])?;
        }
        let lists_changes = result
            .capabilities
            .tools
            .as_ref()
            .is_some_and(|t| t.list_changed);
        self.handler
            .lists_changes
            .store(lists_changes, Ordering::Release);
        tracing::debug!(server = %self.server, "speaking 2026-07-28");
        Ok(Some(Era::Modern))
    }

    /// The legacy handshake.
    async fn initialize(&self, dispatcher: &Dispatcher) -> Result<Era, McpError> {
        let params = InitializeParams {
            protocol_version: ProtocolVersion::LATEST_LEGACY.as_str().to_owned(),
            capabilities: self.capabilities.clone(),
            client_info: self.client_info.clone(),
        };
        let result = dispatcher
            .request(
                method::INITIALIZE,
                Some(&raw_params(&params)),
                self.handshake_options(HANDSHAKE_TIMEOUT),
            )
            .await?;
        let result: InitializeResult =
            serde_json::from_str(result.get()).map_err(|e| McpError::Protocol {
                server: self.server.to_owned(),
                reason: format!("its initialize result does not parse: {e}"),
            })?;
        let version = match ProtocolVersion::parse(&result.protocol_version) {
            Some(v) if !v.is_modern() => v,
            _ => {
                return Err(McpError::UnsupportedVersion {
                    server: self.server.to_owned(),
                    version: result.protocol_version,
                });
            }
        };
        dispatcher.notify(method::INITIALIZED, None, &[]).await?;
        if self.http {
            dispatcher.set_headers(&[(
                http::PROTOCOL_VERSION.to_owned(),
                version.as_str().to_owned(),
            )])?;
            // The GET stream carries `list_changed`; a server without one
            // (405) is fine.
            if let Err(e) = dispatcher.listen().await {
                tracing::debug!(server = %self.server, error = %e, "no GET stream");
            }
        }
        tracing::debug!(server = %self.server, version = %version, "speaking the legacy handshake");
        Ok(Era::Legacy(version))
    }
}
