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
//!   call logged for audit (target `mcpfn_host::audit`: server, tool,
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

mod call;
mod completion;
mod connect;
mod handler;
mod handshake;
mod listen;
mod listing;
mod options;
mod pages;
mod prompts;
mod resources;
mod rounds;
mod skills;
mod tasks;

pub use completion::MAX_COMPLETION_VALUE_BYTES;
pub use handler::{
    CHANGES_CAPACITY, Change, ElicitFn, MAX_UPDATED_URI_BYTES, ProgressFn, SampleFn,
};
pub use options::{
    CallOptions, ClientOptions, DEFAULT_CALL_TIMEOUT, DEFAULT_MAX_INPUT_ROUNDS, HANDSHAKE_TIMEOUT,
    MAX_PAGES, Mode, PROBE_TIMEOUT,
};
pub use prompts::MAX_PROMPT_MESSAGES;
pub use skills::SkillFile;

use crate::config::ServerConfig;
use crate::{Dispatcher, McpError, Reconnector, RequestOptions};
use handler::HostHandler;
use listing::Cache;
use mcpfn_protocol::ProtocolVersion;
use mcpfn_protocol::http;
use mcpfn_protocol::meta::Envelope;
use mcpfn_protocol::model::method::Request;
use mcpfn_protocol::model::{ClientCapabilities, ServerCapabilities};
use serde::Serialize;
use serde_json::value::RawValue;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

/// The era a connection speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Era {
    Legacy(ProtocolVersion),
    Modern,
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
    /// The task-only tools last warned about ([`listing`]): a listing
    /// that leaves out the same ones again says nothing.
    task_only_warned: std::sync::Mutex<Vec<String>>,
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

/// Sends request `M` with `params` to `server` and reads its result: the
/// one way a typed request leaves the client, so its method name, params
/// and result types all come from the protocol's table
/// (`mcpfn_protocol::model::method`).
async fn request<M: Request>(
    dispatcher: &Dispatcher,
    server: &str,
    params: &M::Params,
    options: RequestOptions,
) -> Result<M::Result, McpError> {
    let result = dispatcher
        .request(M::METHOD, Some(&raw_params(params)), options)
        .await?;
    parse::<M>(server, &result)
}

/// The result of request `M` from its text.
fn parse<M: Request>(server: &str, result: &RawValue) -> Result<M::Result, McpError> {
    serde_json::from_str(result.get()).map_err(|e| McpError::Protocol {
        server: server.to_owned(),
        reason: format!("its {} result does not parse: {e}", M::METHOD),
    })
}

impl McpClient {
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

    /// What the server declared in its handshake (`initialize` or
    /// `server/discover`): whether it has prompts, resources (and
    /// subscriptions), completions, extensions such as Skills.
    pub fn server_capabilities(&self) -> ServerCapabilities {
        self.inner
            .handler
            .server_capabilities
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The server's list changes and resource updates, from now on (see
    /// [`Change`]). Each receiver gets every change told after it was made,
    /// up to [`CHANGES_CAPACITY`] waiting; a receiver that falls further
    /// behind gets `RecvError::Lagged` and should list everything again.
    /// On a 2026-07-28 connection the `subscriptions/listen` stream that
    /// carries them is opened by the first listing (or subscription).
    pub fn changes(&self) -> tokio::sync::broadcast::Receiver<Change> {
        self.inner.handler.changes.subscribe()
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

    /// The live connection, made again (as [`ClientOptions::restart`]
    /// allows) when the last one was lost.
    async fn session(&self) -> Result<(Arc<Dispatcher>, Era, u64), McpError> {
        let mut conn = self.inner.conn.lock().await;
        if conn.current.is_closed() {
            let fresh = conn.reconnector.restart(&conn.current).await?;
            let era = match conn.era {
                Era::Legacy(_) => {
                    let era = self.parts().initialize(&fresh).await?;
                    self.subscribe_again(&fresh, era).await;
                    era
                }
                Era::Modern => self
                    .parts()
                    .discover(&fresh, self.inner.options.handshake_timeout)
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
}
