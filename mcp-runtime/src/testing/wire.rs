//! The wire test client: a [`Client`] speaks either era, as JSON-RPC
//! lines, to a server served over an in-memory transport, through the same
//! main loop as stdio, answering elicitations and sampling requests and
//! collecting notifications. For tests of the protocol (each revision's
//! shapes, `resultType`, `_meta`, `input_required` rounds, notifications);
//! a test of what a tool does uses [`testing::Client`](super::Client), the
//! thin layer over the in-process door.

use crate::Server;
use crate::level::Level;
use crate::protocol::ProtocolVersion;
use crate::protocol::model::method;
use crate::protocol::model::{ClientCapabilities, Implementation, InitializeParams, JsonObject};
use crate::transport::{MemoryTransport, memory};
use serde_json::{Map, Value, json};
use std::fmt;
use std::io;
use tokio::task::JoinHandle;

use super::builder::Wire;
use super::{ElicitationHandler, RpcError, SamplingHandler};

mod call_result;
pub use call_result::CallResult;

/// Configures a [`Client`] before it connects: the testing module's one
/// builder, connecting over the wire.
pub type ClientBuilder = super::ClientBuilder<Wire>;

impl ClientBuilder {
    /// Starts the server in-process and connects.
    pub async fn connect(self) -> Result<Client, RpcError> {
        let (transport, server_end) = memory();
        let (read, write) = tokio::io::split(server_end);
        let server = tokio::spawn(self.server.serve(read, write));
        let capabilities = ClientCapabilities {
            elicitation: self.elicitation.is_some().then(JsonObject::new),
            sampling: self.sampling.is_some().then(JsonObject::new),
            ..ClientCapabilities::default()
        };
        let mut client = Client {
            transport,
            server,
            version: self.version,
            capabilities,
            elicitation: self.elicitation,
            sampling: self.sampling,
            log_level: self.log_level,
            next_id: 1,
            pending: Vec::new(),
        };
        if !self.version.is_modern() {
            let init = InitializeParams {
                protocol_version: self.version.as_str().to_owned(),
                capabilities: client.capabilities.clone(),
                client_info: client_info(),
            };
            let init = serde_json::to_value(init).map_err(transport_error)?;
            client.raw_request(method::INITIALIZE, init).await?;
            client.notify(method::INITIALIZED, json!({})).await;
            if let Some(level) = self.log_level {
                client
                    .raw_request(method::SET_LEVEL, json!({"level": level.as_str()}))
                    .await?;
            }
        }
        Ok(client)
    }
}

/// An in-process MCP client for tests of the protocol.
///
/// It speaks the wire on purpose: JSON-RPC lines over the memory
/// transport, through the same main loop as stdio, so that its results are
/// the wire's `result` objects (each revision's shapes, `resultType` and
/// `_meta` in the 2026-07-28 era) and its 2026-07-28 calls go through
/// `input_required` rounds and sealed `requestState`s, which tests of the
/// protocol check. A test of a tool uses [`testing::Client`](super::Client)
/// (typed, over the in-process door, no JSON text); an agent loop or a host
/// uses [`Server::local`] and its [`LocalClient`](crate::LocalClient).
///
/// ```
/// use mcpfn_runtime::testing::wire::Client;
/// use mcpfn_runtime::{Context, Server, tool, tools};
///
/// /// Count to n, reporting progress.
/// #[tool]
/// async fn count(ctx: Context, n: u32) -> Result<String, mcpfn_runtime::ToolError> {
///     for i in 1..=n {
///         ctx.progress(f64::from(i), Some(f64::from(n)), None)?;
///     }
///     Ok(format!("counted to {n}"))
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let mut client = Client::builder(Server::new("t", "1").tools(tools![count])).connect().await?;
/// let tools = client.list_tools().await?;
/// assert_eq!(tools[0]["name"], "count");
/// let result = client.call_with_progress("count", serde_json::json!({"n": 3})).await?;
/// assert_eq!(result.text(), Some("counted to 3"));
/// assert_eq!(result.progress().len(), 3);
/// # Ok(())
/// # }
/// ```
pub struct Client {
    transport: MemoryTransport,
    server: JoinHandle<io::Result<()>>,
    version: ProtocolVersion,
    capabilities: ClientCapabilities,
    elicitation: Option<ElicitationHandler>,
    sampling: Option<SamplingHandler>,
    log_level: Option<Level>,
    next_id: u64,
    /// Notifications received outside of any call.
    pending: Vec<Value>,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("version", &self.version)
            .finish_non_exhaustive()
    }
}

/// Who the test client says it is.
fn client_info() -> Implementation {
    Implementation::new("mcp-runtime-testing", env!("CARGO_PKG_VERSION"))
}

fn transport_error(err: impl fmt::Display) -> RpcError {
    RpcError {
        code: 0,
        message: format!("transport: {err}"),
        data: None,
    }
}

impl Client {
    /// A client of `server`, to configure and [`ClientBuilder::connect`].
    pub fn builder(server: Server) -> ClientBuilder {
        ClientBuilder::new(server)
    }

    /// The protocol revision this client speaks.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.version
    }

    /// The 2026-07-28 `_meta` of a request: the envelope (written from
    /// the one struct of its keys, the one the server reads), then `extra`.
    fn envelope(&self, extra: Option<Value>) -> Result<Value, RpcError> {
        let mut envelope = self
            .capabilities
            .envelope(self.version.as_str(), &client_info())
            .map_err(transport_error)?;
        envelope.log_level = self.log_level.map(|level| level.as_str().into());
        let mut meta = serde_json::to_value(&envelope).map_err(transport_error)?;
        if let (Some(Value::Object(extra)), Some(map)) = (extra, meta.as_object_mut()) {
            map.extend(extra);
        }
        Ok(meta)
    }

    async fn notify(&mut self, method: &str, params: Value) {
        let line = json!({"jsonrpc": "2.0", "method": method, "params": params}).to_string();
        // A closed server shows up on the next request.
        let _ = self.transport.send(&line).await;
    }

    /// Sends a request (adding the envelope in the 2026-07-28 era) and waits
    /// for its response, answering elicitations and collecting notifications
    /// meanwhile.
    pub async fn request(&mut self, method: &str, params: Value) -> Result<Value, RpcError> {
        Ok(self.request_collecting(method, params, None).await?.0)
    }

    /// A request sent with its params as they are (no envelope added); the
    /// notifications that arrive meanwhile are kept for `take_notifications`.
    async fn raw_request(&mut self, method: &str, params: Value) -> Result<Value, RpcError> {
        let mut notifications = Vec::new();
        let result = self.exchange(method, params, &mut notifications).await;
        self.pending.extend(notifications);
        result
    }

    /// Sends one request and waits for its response, collecting the
    /// notifications that arrive meanwhile.
    async fn exchange(
        &mut self,
        method: &str,
        params: Value,
        notifications: &mut Vec<Value>,
    ) -> Result<Value, RpcError> {
        let id = self.next_id;
        self.next_id += 1;
        let line =
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string();
        self.transport.send(&line).await.map_err(transport_error)?;
        self.await_response(id, notifications).await
    }

    async fn request_collecting(
        &mut self,
        method: &str,
        mut params: Value,
        meta: Option<Value>,
    ) -> Result<(Value, Vec<Value>), RpcError> {
        if self.version.is_modern() {
            params["_meta"] = self.envelope(meta)?;
        } else if let Some(meta) = meta {
            params["_meta"] = meta;
        }
        let mut notifications = Vec::new();
        let result = self.exchange(method, params, &mut notifications).await?;
        Ok((result, notifications))
    }

    async fn await_response(
        &mut self,
        id: u64,
        notifications: &mut Vec<Value>,
    ) -> Result<Value, RpcError> {
        loop {
            let line = self
                .transport
                .recv()
                .await
                .map_err(transport_error)?
                .ok_or_else(|| transport_error("the server closed the connection"))?;
            let message: Value = serde_json::from_str(&line).map_err(transport_error)?;
            let has_method = message.get("method").is_some();
            if !has_method && message["id"] == id {
                if let Some(error) = message.get("error") {
                    return Err(RpcError {
                        code: error["code"].as_i64().unwrap_or_default(),
                        message: error["message"].as_str().unwrap_or_default().to_owned(),
                        data: error.get("data").cloned(),
                    });
                }
                return Ok(message["result"].clone());
            }
            if has_method && message.get("id").is_some() {
                self.answer_server_request(&message).await?;
            } else {
                notifications.push(message);
            }
        }
    }

    /// The handler answering requests of `method`, if this client has one.
    fn handler(
        &mut self,
        method: &str,
    ) -> Option<&mut (dyn FnMut(&Value) -> Value + Send + 'static)> {
        match method {
            method::ELICIT => self.elicitation.as_deref_mut(),
            method::CREATE_MESSAGE => self.sampling.as_deref_mut(),
            _ => None,
        }
    }

    async fn answer_server_request(&mut self, request: &Value) -> Result<(), RpcError> {
        let method = request["method"].as_str().unwrap_or_default();
        let reply = match self.handler(method) {
            Some(handler) => {
                json!({"jsonrpc": "2.0", "id": request["id"], "result": handler(&request["params"])})
            }
            None => json!({"jsonrpc": "2.0", "id": request["id"], "error": {
                "code": -32601, "message": format!("Method not found: {method}")}}),
        };
        self.transport
            .send(&reply.to_string())
            .await
            .map_err(transport_error)
    }

    /// Every tool, following `nextCursor` through all pages.
    pub async fn list_tools(&mut self) -> Result<Vec<Value>, RpcError> {
        let mut tools = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let params = match &cursor {
                Some(cursor) => json!({"cursor": cursor}),
                None => json!({}),
            };
            let page = self.request(method::TOOLS_LIST, params).await?;
            tools.extend(page["tools"].as_array().cloned().unwrap_or_default());
            match page.get("nextCursor").and_then(Value::as_str) {
                Some(next) => cursor = Some(next.to_owned()),
                None => return Ok(tools),
            }
        }
    }

    /// Calls a tool; elicitations and sampling requests are answered by the
    /// handlers (2026-07-28:
    /// the call is retried with the answers until it completes).
    pub async fn call(&mut self, name: &str, arguments: Value) -> Result<CallResult, RpcError> {
        self.call_inner(name, arguments, None).await
    }

    /// [`Client::call`] with a `progressToken`, so the tool's progress is
    /// reported (see [`CallResult::progress`]).
    pub async fn call_with_progress(
        &mut self,
        name: &str,
        arguments: Value,
    ) -> Result<CallResult, RpcError> {
        let token = format!("progress-{}", self.next_id);
        self.call_inner(name, arguments, Some(json!({"progressToken": token})))
            .await
    }

    async fn call_inner(
        &mut self,
        name: &str,
        arguments: Value,
        meta: Option<Value>,
    ) -> Result<CallResult, RpcError> {
        let mut params = json!({"name": name, "arguments": arguments});
        let mut notifications = Vec::new();
        // Bounded, so a tool that never stops asking cannot hang a test.
        for _ in 0..32 {
            let (result, mut received) = self
                .request_collecting(method::TOOLS_CALL, params.clone(), meta.clone())
                .await?;
            notifications.append(&mut received);
            if result["resultType"] != "input_required" {
                return Ok(CallResult {
                    result,
                    notifications,
                });
            }
            let mut responses = Map::new();
            for (key, request) in result["inputRequests"]
                .as_object()
                .cloned()
                .unwrap_or_default()
            {
                let method = request["method"].as_str().unwrap_or_default();
                let Some(handler) = self.handler(method) else {
                    return Err(RpcError {
                        code: 0,
                        message: format!(
                            "the tool asked for input ({method}) and this client has no handler for it"
                        ),
                        data: Some(result),
                    });
                };
                responses.insert(key, handler(&request["params"]));
            }
            params["inputResponses"] = Value::Object(responses);
            match result.get("requestState") {
                Some(state) => params["requestState"] = state.clone(),
                None => {
                    if let Some(map) = params.as_object_mut() {
                        map.remove("requestState");
                    }
                }
            }
        }
        Err(RpcError {
            code: 0,
            message: "the tool asked for input 32 times in a row".into(),
            data: None,
        })
    }

    /// Notifications received outside of any call (e.g. `list_changed`),
    /// taken out of the client.
    pub fn take_notifications(&mut self) -> Vec<Value> {
        std::mem::take(&mut self.pending)
    }

    /// Waits for the next message the server sends on its own (a
    /// notification), for at most `timeout`.
    pub async fn next_notification(&mut self, timeout: std::time::Duration) -> Option<Value> {
        if !self.pending.is_empty() {
            return Some(self.pending.remove(0));
        }
        let line = tokio::time::timeout(timeout, self.transport.recv())
            .await
            .ok()?
            .ok()??;
        serde_json::from_str(&line).ok()
    }

    /// Sends a notification (e.g. `notifications/cancelled`).
    pub async fn send_notification(&mut self, method: &str, params: Value) {
        self.notify(method, params).await;
    }

    /// Closes the connection and waits for the server to finish.
    pub async fn close(mut self) -> io::Result<()> {
        self.transport.close().await?;
        while self.transport.recv().await?.is_some() {}
        self.server.await.map_err(io::Error::other)?
    }
}
