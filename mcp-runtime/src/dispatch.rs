//! Routing: one table from method name to handler, the era rules in front of
//! it, and the shaping of every result for the revision it goes to.

use crate::lifecycle::{Lifecycle, negotiate};
use crate::protocol::incoming::{Incoming, Rejection, without_position};
use crate::protocol::{ErrorCode, META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION, ProtocolVersion, frame};
use crate::registry::Registry;
use crate::tool::{Tool, ToolCall, ToolOutcome};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use std::borrow::Cow;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::sync::mpsc::UnboundedSender;

/// What every request handler can read: the tools and the server's identity.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) registry: Registry,
    pub(crate) identity: Identity,
}

/// The server's identity and advertised settings, with their JSON prepared.
#[derive(Debug)]
pub(crate) struct Identity {
    pub(crate) name: String,
    pub(crate) version: String,
    pub(crate) title: Option<String>,
    pub(crate) instructions: Option<String>,
    pub(crate) list_ttl_ms: u64,
    /// `"resultType":"complete","_meta":{…serverInfo…}`, appended to 2026-07-28 results.
    modern_fields: String,
}

impl Identity {
    pub(crate) fn new(
        name: String,
        version: String,
        title: Option<String>,
        instructions: Option<String>,
        list_ttl_ms: u64,
    ) -> Identity {
        let mut identity = Identity {
            name,
            version,
            title,
            instructions,
            list_ttl_ms,
            modern_fields: String::new(),
        };
        let info = identity.server_info(ProtocolVersion::LATEST);
        identity.modern_fields = format!(
            "\"resultType\":\"complete\",\"_meta\":{}",
            json!({ crate::protocol::META_SERVER_INFO: info })
        );
        identity
    }

    /// `Implementation` as `version` defines it (`title` from 2025-06-18).
    fn server_info(&self, version: ProtocolVersion) -> Value {
        let mut info = json!({"name": self.name, "version": self.version});
        if version.has_structured_output()
            && let Some(title) = &self.title
        {
            info["title"] = title.clone().into();
        }
        info
    }

    /// Closes a result object opened by the caller, adding what 2026-07-28
    /// requires on every result.
    fn close(&self, mut body: String, version: ProtocolVersion) -> String {
        if version.is_modern() {
            if !body.ends_with('{') {
                body.push(',');
            }
            body.push_str(&self.modern_fields);
        }
        body.push('}');
        body
    }
}

/// Where frames go: the writer task drains this in order.
pub(crate) type Outbox = UnboundedSender<Vec<u8>>;

/// A JSON-RPC error about to be sent.
struct Failure {
    code: ErrorCode,
    message: Cow<'static, str>,
    data: Option<Value>,
}

impl Failure {
    fn new(code: ErrorCode, message: impl Into<Cow<'static, str>>) -> Failure {
        Failure {
            code,
            message: message.into(),
            data: None,
        }
    }

    fn invalid_params(message: impl Into<Cow<'static, str>>) -> Failure {
        Failure::new(ErrorCode::INVALID_PARAMS, message)
    }

    fn with_data(mut self, data: Value) -> Failure {
        self.data = Some(data);
        self
    }
}

/// Per-connection routing state; lives in the reader loop, one line at a time.
#[derive(Debug)]
pub(crate) struct Dispatcher {
    shared: Arc<Shared>,
    lifecycle: Lifecycle,
    out: Outbox,
}

impl Dispatcher {
    pub(crate) fn new(shared: Arc<Shared>, out: Outbox) -> Dispatcher {
        Dispatcher {
            shared,
            lifecycle: Lifecycle::Fresh,
            out,
        }
    }

    fn send(&self, frame: Vec<u8>) {
        // The writer only goes away when the output is gone; nothing to tell then.
        let _ = self.out.send(frame);
    }

    fn send_failure(&self, id: Option<&str>, failure: &Failure) {
        self.send(frame::error(id, failure.code, &failure.message, failure.data.as_ref()));
    }

    /// Handles one line: answers it, starts a tool, or ignores a notification.
    pub(crate) fn handle_line(&mut self, line: &[u8]) {
        match crate::protocol::incoming::parse(line) {
            Err(Rejection { code, message, id }) => {
                tracing::debug!(code = code.code(), %message, "rejected a message");
                self.send(frame::error(id.map(RawValue::get), code, &message, None));
            }
            Ok(Incoming::Notification { method }) => self.on_notification(&method),
            Ok(Incoming::Response { id }) => {
                tracing::debug!(id = id.get(), "ignored a response to no request of ours");
            }
            Ok(Incoming::Request { id, method, params }) => {
                if let Err(failure) = self.on_request(id.get(), &method, params) {
                    self.send_failure(Some(id.get()), &failure);
                }
            }
        }
    }

    /// A line longer than the limit was skipped.
    pub(crate) fn handle_oversized(&mut self, len: usize, max: usize) {
        let message = format!(
            "Invalid Request: the message is {len} bytes, over this server's limit of {max} bytes; it was discarded"
        );
        self.send(frame::error(None, ErrorCode::INVALID_REQUEST, &message, None));
    }

    fn on_notification(&mut self, method: &str) {
        match method {
            "notifications/initialized" => {
                if let Lifecycle::Legacy { initialized, .. } = &mut self.lifecycle {
                    *initialized = true;
                }
            }
            other => tracing::debug!(method = other, "ignored a notification"),
        }
    }

    fn on_request(&mut self, id: &str, method: &str, params: Option<&RawValue>) -> Result<(), Failure> {
        if method == "initialize" {
            return self.initialize(id, params);
        }
        let version = self.request_version(method, params)?;
        match method {
            "ping" if !version.is_modern() => {
                self.send(frame::result(id, "{}"));
                Ok(())
            }
            "server/discover" if version.is_modern() => self.discover(id, version),
            "tools/list" => self.list_tools(id, version, params),
            "tools/call" => self.call_tool(id, version, params),
            _ => Err(Failure::new(ErrorCode::METHOD_NOT_FOUND, format!("Method not found: {method}"))
                .with_data(json!({"method": method}))),
        }
    }

    /// The revision a request is served under, enforcing the era rules
    /// (see [`crate::lifecycle`]).
    fn request_version(&mut self, method: &str, params: Option<&RawValue>) -> Result<ProtocolVersion, Failure> {
        match self.lifecycle {
            Lifecycle::Legacy { version, .. } => Ok(version),
            Lifecycle::Modern => modern_version(params, self.lifecycle),
            Lifecycle::Fresh => {
                if !has_envelope(params) {
                    if method == "ping" {
                        // Legacy clients may ping before `initialize`.
                        return Ok(ProtocolVersion::LATEST_LEGACY);
                    }
                    return Err(Failure::invalid_params(format!(
                        "'{method}' arrived before 'initialize' and without a 2026-07-28 _meta envelope: \
                         send 'initialize' first, or put \"{META_PROTOCOL_VERSION}\" and \
                         \"{META_CLIENT_CAPABILITIES}\" in params._meta"
                    )));
                }
                let version = modern_version(params, self.lifecycle)?;
                if method != "server/discover" {
                    self.lifecycle = Lifecycle::Modern;
                }
                Ok(version)
            }
        }
    }

    fn initialize(&mut self, id: &str, params: Option<&RawValue>) -> Result<(), Failure> {
        #[derive(Deserialize)]
        struct InitializeParams<'a> {
            #[serde(rename = "protocolVersion", borrow)]
            protocol_version: Cow<'a, str>,
        }
        let params: InitializeParams<'_> = parse_params(params, "initialize")?;
        let requested = params.protocol_version;
        let version = match self.lifecycle {
            Lifecycle::Fresh => negotiate(&requested),
            Lifecycle::Legacy { .. } => {
                return Err(Failure::new(
                    ErrorCode::INVALID_REQUEST,
                    "Invalid Request: 'initialize' was already received on this connection",
                ));
            }
            Lifecycle::Modern => {
                return Err(unsupported_version(&requested, self.lifecycle));
            }
        };
        self.lifecycle = Lifecycle::Legacy {
            version,
            initialized: false,
        };
        let identity = &self.shared.identity;
        let mut result = json!({
            "protocolVersion": version.as_str(),
            "capabilities": {"tools": {"listChanged": false}},
            "serverInfo": identity.server_info(version),
        });
        if let Some(instructions) = &identity.instructions {
            result["instructions"] = instructions.clone().into();
        }
        tracing::debug!(%version, %requested, "initialized a legacy session");
        self.send(frame::result(id, &result.to_string()));
        Ok(())
    }

    fn discover(&mut self, id: &str, version: ProtocolVersion) -> Result<(), Failure> {
        let identity = &self.shared.identity;
        let mut body = json!({
            "supportedVersions": [ProtocolVersion::LATEST.as_str()],
            "capabilities": {"tools": {"listChanged": false}},
            "ttlMs": identity.list_ttl_ms,
            "cacheScope": "public",
        });
        if let Some(instructions) = &identity.instructions {
            body["instructions"] = instructions.clone().into();
        }
        let mut open = body.to_string();
        open.pop();
        self.send(frame::result(id, &identity.close(open, version)));
        Ok(())
    }

    fn list_tools(&mut self, id: &str, version: ProtocolVersion, params: Option<&RawValue>) -> Result<(), Failure> {
        #[derive(Deserialize)]
        struct ListParams<'a> {
            #[serde(default, borrow)]
            cursor: Option<Cow<'a, str>>,
        }
        let params: ListParams<'_> = match params {
            None => ListParams { cursor: None },
            Some(_) => parse_params(params, "tools/list")?,
        };
        let page = self
            .shared
            .registry
            .page(version, params.cursor.as_deref())
            .map_err(|()| Failure::invalid_params("Invalid cursor: use a nextCursor value from an earlier tools/list result, or no cursor"))?;
        let mut body = String::with_capacity(page.tools_json.len() + 160);
        body.push_str("{\"tools\":");
        body.push_str(page.tools_json);
        if let Some(cursor) = &page.next_cursor {
            body.push_str(",\"nextCursor\":\"");
            body.push_str(cursor);
            body.push('"');
        }
        if version.is_modern() {
            body.push_str(",\"ttlMs\":");
            body.push_str(&self.shared.identity.list_ttl_ms.to_string());
            body.push_str(",\"cacheScope\":\"public\"");
        }
        self.send(frame::result(id, &self.shared.identity.close(body, version)));
        Ok(())
    }

    fn call_tool(&mut self, id: &str, version: ProtocolVersion, params: Option<&RawValue>) -> Result<(), Failure> {
        #[derive(Deserialize)]
        struct CallParams<'a> {
            #[serde(borrow)]
            name: Cow<'a, str>,
            #[serde(default, borrow)]
            arguments: Option<&'a RawValue>,
        }
        let params: CallParams<'_> = parse_params(params, "tools/call")?;
        let arguments = params.arguments.filter(|raw| raw.get() != "null");
        if let Some(raw) = arguments
            && !raw.get().starts_with('{')
        {
            return Err(Failure::invalid_params(
                "Invalid params: tools/call \"arguments\" must be an object",
            ));
        }
        let Some((name, tool)) = self.shared.registry.get(&params.name) else {
            return Err(Failure::invalid_params(format!("Unknown tool: {}", params.name))
                .with_data(json!({"name": params.name})));
        };
        let call = ToolCall {
            name,
            arguments: arguments.map(|raw| raw.to_owned()),
            version,
        };
        let tool = Arc::clone(tool);
        let shared = Arc::clone(&self.shared);
        let out = self.out.clone();
        let id = id.to_owned();
        // Each call is its own task: a slow tool never holds up the reader, and
        // responses go out in completion order.
        tokio::spawn(async move {
            let outcome = run_tool(&tool, call).await;
            let body = render_call_result(&tool, &outcome, version);
            let _ = out.send(frame::result(&id, &shared.identity.close(body, version)));
        });
        Ok(())
    }
}

/// Whether `params._meta` holds any key of the 2026-07-28 envelope.
fn has_envelope(params: Option<&RawValue>) -> bool {
    #[derive(Deserialize)]
    struct Probe<'a> {
        #[serde(rename = "_meta", default, borrow)]
        meta: Option<std::collections::HashMap<Cow<'a, str>, serde::de::IgnoredAny>>,
    }
    params
        .and_then(|raw| serde_json::from_str::<Probe<'_>>(raw.get()).ok())
        .and_then(|probe| probe.meta)
        .is_some_and(|meta| {
            meta.contains_key(META_PROTOCOL_VERSION) || meta.contains_key(META_CLIENT_CAPABILITIES)
        })
}

/// Validates the 2026-07-28 envelope of a request and returns its version.
fn modern_version(params: Option<&RawValue>, lifecycle: Lifecycle) -> Result<ProtocolVersion, Failure> {
    #[derive(Deserialize)]
    struct Envelope<'a> {
        #[serde(rename = "io.modelcontextprotocol/protocolVersion", default, borrow)]
        version: Option<Cow<'a, str>>,
        #[serde(rename = "io.modelcontextprotocol/clientCapabilities", default, borrow)]
        capabilities: Option<&'a RawValue>,
    }
    #[derive(Deserialize)]
    struct WithMeta<'a> {
        #[serde(rename = "_meta", default, borrow)]
        meta: Option<&'a RawValue>,
    }
    let missing = |key: &str| {
        Failure::invalid_params(format!(
            "Invalid params: params._meta must carry \"{key}\" (2026-07-28 requests carry their protocol version and client capabilities)"
        ))
    };
    let meta = params
        .and_then(|raw| serde_json::from_str::<WithMeta<'_>>(raw.get()).ok())
        .and_then(|w| w.meta)
        .ok_or_else(|| missing(META_PROTOCOL_VERSION))?;
    let envelope: Envelope<'_> = serde_json::from_str(meta.get()).map_err(|err| {
        Failure::invalid_params(format!("Invalid params: params._meta: {}", without_position(&err)))
    })?;
    let version = envelope.version.ok_or_else(|| missing(META_PROTOCOL_VERSION))?;
    let capabilities = envelope
        .capabilities
        .ok_or_else(|| missing(META_CLIENT_CAPABILITIES))?;
    if !capabilities.get().starts_with('{') {
        return Err(Failure::invalid_params(format!(
            "Invalid params: \"{META_CLIENT_CAPABILITIES}\" must be an object ({{}} declares none)"
        )));
    }
    match ProtocolVersion::parse(&version) {
        Some(v) if v.is_modern() => Ok(v),
        _ => Err(unsupported_version(&version, lifecycle)),
    }
}

fn unsupported_version(requested: &str, lifecycle: Lifecycle) -> Failure {
    Failure::new(ErrorCode::UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version").with_data(json!({
        "supported": lifecycle.supported_versions(),
        "requested": requested,
    }))
}

/// Deserializes a method's params, or says what is wrong with them.
fn parse_params<'a, T: Deserialize<'a>>(params: Option<&'a RawValue>, method: &str) -> Result<T, Failure> {
    let text = params.map_or("{}", RawValue::get);
    serde_json::from_str(text).map_err(|err| {
        Failure::invalid_params(format!(
            "Invalid params for {method}: {}",
            without_position(&err)
        ))
    })
}

/// Runs a tool, turning a panic into an error result: the server keeps serving.
async fn run_tool(tool: &Tool, call: ToolCall) -> ToolOutcome {
    let name = tool.name.clone();
    let started = std::panic::catch_unwind(AssertUnwindSafe(|| tool.call(call)));
    let result = match started {
        Ok(future) => CatchUnwind(future).await,
        Err(payload) => Err(payload),
    };
    result.unwrap_or_else(|payload| {
        let detail = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "non-string panic payload".to_owned());
        tracing::error!(tool = %name, panic = %detail, "a tool panicked");
        ToolOutcome::Error(format!(
            "The tool '{name}' failed with an internal error; the details are in the server's log. \
             Retrying the same call is unlikely to help."
        ))
    })
}

/// Polls a future, catching a panic as `Err` instead of unwinding the task.
struct CatchUnwind(crate::tool::BoxFuture<ToolOutcome>);

impl Future for CatchUnwind {
    type Output = Result<ToolOutcome, Box<dyn std::any::Any + Send>>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let future = &mut self.0;
        match std::panic::catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(outcome)) => Poll::Ready(Ok(outcome)),
            Err(payload) => Poll::Ready(Err(payload)),
        }
    }
}

/// The `CallToolResult` for `outcome`, as an open object (see [`Identity::close`]).
pub(crate) fn render_call_result(tool: &Tool, outcome: &ToolOutcome, version: ProtocolVersion) -> String {
    let mut body = Vec::with_capacity(128);
    match outcome {
        ToolOutcome::Structured(json) => {
            let wrapped;
            let value: &str = if tool.wraps_output(version) {
                wrapped = format!("{{\"result\":{json}}}");
                &wrapped
            } else {
                json
            };
            body.extend_from_slice(b"{\"content\":[{\"type\":\"text\",\"text\":");
            frame::push_json_string(&mut body, value);
            body.extend_from_slice(b"}]");
            if version.has_structured_output() {
                body.extend_from_slice(b",\"structuredContent\":");
                body.extend_from_slice(value.as_bytes());
            }
        }
        ToolOutcome::Content(blocks) => {
            body.extend_from_slice(b"{\"content\":");
            let blocks: Vec<Value> = blocks.iter().map(|b| b.to_json(version)).collect();
            frame::push_json(&mut body, &Value::Array(blocks));
        }
        ToolOutcome::Error(message) => {
            body.extend_from_slice(b"{\"content\":[{\"type\":\"text\",\"text\":");
            frame::push_json_string(&mut body, message);
            body.extend_from_slice(b"}],\"isError\":true");
        }
    }
    // Every piece above is valid UTF-8 JSON text.
    String::from_utf8(body).unwrap_or_default()
}
