//! Helpers for users' tests.
//!
//! - [`Client`]: an in-process MCP client for unit tests of tools, in either
//!   era: list and call tools, answer elicitations, collect progress and logs.
//!   No process and no pipes: it talks to the server through an in-memory
//!   transport, through the same main loop as stdio.
//! - The golden gate: [`assert_tools_snapshot!`](crate::assert_tools_snapshot)
//!   fails with a readable diff when the advertised tool surface changes, and
//!   rewrites the snapshot when `MCP_UPDATE_SNAPSHOTS=1` is set.

use crate::dump::DumpFormat;
use crate::level::Level;
use crate::protocol::ProtocolVersion;
pub use crate::transport::{MemoryTransport, memory};
use crate::{Server, Tool};
use serde_json::{Map, Value, json};
use std::fmt;
use std::io;
use std::path::Path;
use tokio::task::JoinHandle;

/// Answers an `elicitation/create` request: gets its `params`, returns the
/// `ElicitResult` (e.g. `{"action":"accept","content":{…}}`).
pub type ElicitationHandler = Box<dyn FnMut(&Value) -> Value + Send>;

/// A JSON-RPC error the server answered with.
#[derive(Clone, Debug, PartialEq)]
pub struct RpcError {
    /// The error code.
    pub code: i64,
    /// The message.
    pub message: String,
    /// The `data`, if any.
    pub data: Option<Value>,
}

impl fmt::Display for RpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "JSON-RPC error {}: {}", self.code, self.message)
    }
}

impl std::error::Error for RpcError {}

/// A `tools/call` result.
#[derive(Clone, Debug, PartialEq)]
pub struct CallResult {
    /// The whole `result` object.
    pub result: Value,
    /// Notifications that arrived while the call ran (progress, logs, …).
    pub notifications: Vec<Value>,
}

impl CallResult {
    /// Whether the result has `isError: true`.
    pub fn is_error(&self) -> bool {
        self.result["isError"] == true
    }

    /// The text of the first text block.
    pub fn text(&self) -> Option<&str> {
        self.result["content"]
            .as_array()?
            .iter()
            .find(|b| b["type"] == "text")?["text"]
            .as_str()
    }

    /// The `type` of each content block, in order (`"text"`, `"image"`, …).
    pub fn content_types(&self) -> Vec<&str> {
        self.result["content"]
            .as_array()
            .map(|blocks| blocks.iter().filter_map(|b| b["type"].as_str()).collect())
            .unwrap_or_default()
    }

    /// `structuredContent`, if any.
    pub fn structured(&self) -> Option<&Value> {
        self.result.get("structuredContent")
    }

    /// The `params` of the `notifications/progress` received during the call.
    pub fn progress(&self) -> Vec<&Value> {
        self.with_method("notifications/progress")
    }

    /// The `params` of the `notifications/message` (logs) received during the call.
    pub fn logs(&self) -> Vec<&Value> {
        self.with_method("notifications/message")
    }

    fn with_method(&self, method: &str) -> Vec<&Value> {
        self.notifications
            .iter()
            .filter(|n| n["method"] == method)
            .map(|n| &n["params"])
            .collect()
    }
}

/// Configures a [`Client`] before it connects.
#[must_use]
pub struct ClientBuilder {
    server: Server,
    version: ProtocolVersion,
    elicitation: Option<ElicitationHandler>,
    log_level: Option<Level>,
}

impl fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("version", &self.version)
            .finish_non_exhaustive()
    }
}

impl ClientBuilder {
    /// Speak `version`: a legacy version does the `initialize` handshake; the
    /// default, 2026-07-28, sends the `_meta` envelope on every request.
    pub fn protocol_version(mut self, version: ProtocolVersion) -> Self {
        self.version = version;
        self
    }

    /// Declares the `elicitation` capability and answers elicitations with
    /// `handler` (legacy: `elicitation/create` requests; 2026-07-28:
    /// `input_required` results, retried with the answers).
    pub fn on_elicitation(mut self, handler: impl FnMut(&Value) -> Value + Send + 'static) -> Self {
        self.elicitation = Some(Box::new(handler));
        self
    }

    /// Receives log messages at `level` and above (legacy:
    /// `logging/setLevel`; 2026-07-28: the per-request `logLevel`).
    pub fn log_level(mut self, level: Level) -> Self {
        self.log_level = Some(level);
        self
    }

    /// Starts the server in-process and connects.
    pub async fn connect(self) -> Result<Client, RpcError> {
        let (transport, server_end) = memory();
        let (read, write) = tokio::io::split(server_end);
        let server = tokio::spawn(self.server.serve(read, write));
        let mut capabilities = json!({});
        if self.elicitation.is_some() {
            capabilities["elicitation"] = json!({});
        }
        let mut client = Client {
            transport,
            server,
            version: self.version,
            capabilities,
            elicitation: self.elicitation,
            log_level: self.log_level,
            next_id: 1,
            pending: Vec::new(),
        };
        if !self.version.is_modern() {
            let init = json!({
                "protocolVersion": self.version.as_str(),
                "capabilities": client.capabilities,
                "clientInfo": {"name": "mcp-runtime-testing", "version": env!("CARGO_PKG_VERSION")}
            });
            client.raw_request("initialize", init).await?;
            client.notify("notifications/initialized", json!({})).await;
            if let Some(level) = self.log_level {
                client
                    .raw_request("logging/setLevel", json!({"level": level.as_str()}))
                    .await?;
            }
        }
        Ok(client)
    }
}

/// An in-process MCP client for tests.
///
/// ```
/// use mcp_runtime::testing::Client;
/// use mcp_runtime::{Context, Server, tool, tools};
///
/// /// Count to n, reporting progress.
/// #[tool]
/// async fn count(ctx: Context, n: u32) -> Result<String, mcp_runtime::ToolError> {
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
    capabilities: Value,
    elicitation: Option<ElicitationHandler>,
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
        ClientBuilder {
            server,
            version: ProtocolVersion::LATEST,
            elicitation: None,
            log_level: None,
        }
    }

    /// The protocol revision this client speaks.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.version
    }

    fn envelope(&self, extra: Option<Value>) -> Value {
        let mut meta = json!({
            "io.modelcontextprotocol/protocolVersion": self.version.as_str(),
            "io.modelcontextprotocol/clientCapabilities": self.capabilities,
            "io.modelcontextprotocol/clientInfo": {"name": "mcp-runtime-testing", "version": env!("CARGO_PKG_VERSION")},
        });
        if let Some(level) = self.log_level {
            meta["io.modelcontextprotocol/logLevel"] = level.as_str().into();
        }
        if let (Some(Value::Object(extra)), Some(map)) = (extra, meta.as_object_mut()) {
            map.extend(extra);
        }
        meta
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

    async fn raw_request(&mut self, method: &str, params: Value) -> Result<Value, RpcError> {
        let id = self.next_id;
        self.next_id += 1;
        let line =
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string();
        self.transport.send(&line).await.map_err(transport_error)?;
        let mut notifications = Vec::new();
        let result = self.await_response(id, &mut notifications).await;
        self.pending.extend(notifications);
        result
    }

    async fn request_collecting(
        &mut self,
        method: &str,
        mut params: Value,
        meta: Option<Value>,
    ) -> Result<(Value, Vec<Value>), RpcError> {
        if self.version.is_modern() {
            params["_meta"] = self.envelope(meta);
        } else if let Some(meta) = meta {
            params["_meta"] = meta;
        }
        let id = self.next_id;
        self.next_id += 1;
        let line =
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string();
        self.transport.send(&line).await.map_err(transport_error)?;
        let mut notifications = Vec::new();
        let result = self.await_response(id, &mut notifications).await?;
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

    async fn answer_server_request(&mut self, request: &Value) -> Result<(), RpcError> {
        let reply = match (request["method"].as_str(), self.elicitation.as_mut()) {
            (Some("elicitation/create"), Some(handler)) => {
                json!({"jsonrpc": "2.0", "id": request["id"], "result": handler(&request["params"])})
            }
            (method, _) => json!({"jsonrpc": "2.0", "id": request["id"], "error": {
                "code": -32601, "message": format!("Method not found: {}", method.unwrap_or_default())}}),
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
            let page = self.request("tools/list", params).await?;
            tools.extend(page["tools"].as_array().cloned().unwrap_or_default());
            match page.get("nextCursor").and_then(Value::as_str) {
                Some(next) => cursor = Some(next.to_owned()),
                None => return Ok(tools),
            }
        }
    }

    /// Calls a tool; elicitations are answered by the handler (2026-07-28:
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
                .request_collecting("tools/call", params.clone(), meta.clone())
                .await?;
            notifications.append(&mut received);
            if result["resultType"] != "input_required" {
                return Ok(CallResult {
                    result,
                    notifications,
                });
            }
            let Some(handler) = self.elicitation.as_mut() else {
                return Err(RpcError {
                    code: 0,
                    message: "the tool asked for input and this client has no elicitation handler"
                        .into(),
                    data: Some(result),
                });
            };
            let mut responses = Map::new();
            for (key, request) in result["inputRequests"]
                .as_object()
                .cloned()
                .unwrap_or_default()
            {
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

/// Environment variable that makes snapshot assertions rewrite their files.
pub const UPDATE_SNAPSHOTS_ENV: &str = "MCP_UPDATE_SNAPSHOTS";

/// Something whose tool surface can be snapshotted.
pub trait ToolSurface {
    /// The surface as JSON: by default the 2026-07-28 `tools/list` result,
    /// the richest shape (every field of every tool).
    fn surface(&self) -> Value;
}

fn surface_of(server: &Server) -> Value {
    match server.dump(DumpFormat::Mcp(ProtocolVersion::LATEST)) {
        Ok(dump) => dump.to_json(),
        Err(err) => panic!("the tools cannot be registered: {err}"),
    }
}

impl ToolSurface for Server {
    fn surface(&self) -> Value {
        surface_of(self)
    }
}

impl ToolSurface for Vec<Tool> {
    fn surface(&self) -> Value {
        surface_of(&Server::new("snapshot", "0").tools(self.iter().cloned()))
    }
}

impl ToolSurface for crate::ToolDump {
    fn surface(&self) -> Value {
        self.to_json()
    }
}

/// An already-dumped surface, e.g. the output of a binary's `--dump-tools`.
impl ToolSurface for Value {
    fn surface(&self) -> Value {
        self.clone()
    }
}

/// Fails with a line diff when `surface` differs from the JSON at `path`;
/// writes the file instead when [`UPDATE_SNAPSHOTS_ENV`] is `1`. A missing file
/// is written and the assertion fails, so a new snapshot is always reviewed.
#[track_caller]
pub fn assert_snapshot(surface: &impl ToolSurface, path: &Path) {
    let mut actual = match serde_json::to_string_pretty(&surface.surface()) {
        Ok(text) => text,
        Err(err) => panic!("the tool surface does not serialize: {err}"),
    };
    actual.push('\n');
    let update = std::env::var(UPDATE_SNAPSHOTS_ENV).is_ok_and(|v| v == "1");
    let expected = std::fs::read_to_string(path).ok();
    if expected.as_deref() == Some(actual.as_str()) {
        return;
    }
    if update || expected.is_none() {
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        if let Err(err) = std::fs::write(path, &actual) {
            panic!("cannot write snapshot {}: {err}", path.display());
        }
        if update {
            return;
        }
        panic!(
            "created the tool snapshot {}; review it, commit it, and run the tests again",
            path.display()
        );
    }
    let expected = expected.unwrap_or_default();
    panic!(
        "the tool surface differs from {} (- snapshot, + now):\n{}\nIf the change is intended, rerun with {UPDATE_SNAPSHOTS_ENV}=1 to rewrite the snapshot.",
        path.display(),
        line_diff(&expected, &actual)
    );
}

/// Asserts that a tool surface (a `Server`, `tools![...]`, a `ToolDump` or a
/// dumped `serde_json::Value`) equals the snapshot at a path relative to the
/// calling crate's manifest directory.
///
/// ```no_run
/// use mcp_runtime::{assert_tools_snapshot, tool, tools};
///
/// /// Say hello.
/// #[tool]
/// async fn hello(name: String) -> String {
///     format!("Hello, {name}!")
/// }
///
/// assert_tools_snapshot!(tools![hello], "tests/tools.json");
/// ```
#[macro_export]
macro_rules! assert_tools_snapshot {
    ($surface:expr, $path:expr $(,)?) => {
        $crate::testing::assert_snapshot(
            &$surface,
            &::std::path::Path::new(::core::env!("CARGO_MANIFEST_DIR")).join($path),
        )
    };
}

/// A unified diff of two texts by lines, with three lines of context.
fn line_diff(old: &str, new: &str) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    // Longest common subsequence table; snapshots are small enough for O(n·m).
    let mut lcs = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut ops = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            ops.push((' ', a[i]));
            i += 1;
            j += 1;
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            ops.push(('-', a[i]));
            i += 1;
        } else {
            ops.push(('+', b[j]));
            j += 1;
        }
    }
    let changed: Vec<usize> = (0..ops.len()).filter(|&k| ops[k].0 != ' ').collect();
    let mut out = String::new();
    let mut last_printed: Option<usize> = None;
    for (k, (mark, line)) in ops.iter().enumerate() {
        let near = changed.iter().any(|&c| c.abs_diff(k) <= 3);
        if !near {
            continue;
        }
        if last_printed.is_some_and(|l| l + 1 != k) {
            out.push_str("  ...\n");
        }
        out.push(*mark);
        out.push(' ');
        out.push_str(line);
        out.push('\n');
        last_printed = Some(k);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_diff_shows_changes_with_context() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\ni\n";
        let new = "a\nb\nc\nd\nE\nf\ng\nh\ni\n";
        assert_eq!(
            line_diff(old, new),
            "  b\n  c\n  d\n- e\n+ E\n  f\n  g\n  h\n"
        );
    }

    #[test]
    fn a_changed_snapshot_fails_and_an_update_rewrites_it() {
        let dir = std::env::temp_dir().join(format!("mcp-snapshot-{}", std::process::id()));
        let path = dir.join("tools.json");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(&path, "{\n  \"tools\": []\n}\n").unwrap();
        let surface = serde_json::json!({"tools": [{"name": "new"}]});
        let failure = std::panic::catch_unwind(|| assert_snapshot(&surface, &path)).unwrap_err();
        let message = failure.downcast_ref::<String>().unwrap();
        assert!(message.contains("+       \"name\": \"new\""), "{message}");
        assert!(message.contains("MCP_UPDATE_SNAPSHOTS=1"), "{message}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
