//! Routing: one table from method name to handler, with the era rules in
//! front of it (see [`crate::lifecycle`]).

use crate::call::PreparedCall;
use crate::connection::{ClientSession, Connection, Subscription, canonical_id};
use crate::context::{Context, ContextParts};
use crate::elicit::{Resumed, arguments_digest};
use crate::level::Level;
use crate::lifecycle::{Lifecycle, negotiate};
use crate::protocol::frame::{self, Frame};
use crate::protocol::incoming::{Incoming, Rejection, without_position};
use crate::protocol::{
    ErrorCode, META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION, ProtocolVersion,
};
use crate::shared::Shared;
use crate::tool::{ToolCall, ToolOutcome};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use std::borrow::Cow;
use std::sync::Arc;

/// `_meta` key of the per-request log level (2026-07-28).
const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// `_meta` key tagging notifications of a subscription (2026-07-28).
const META_SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// A JSON-RPC error about to be sent.
pub(crate) struct Failure {
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

/// Who is asking and under which revision, for one request.
struct RequestInfo {
    version: ProtocolVersion,
    client: Arc<ClientSession>,
    log_level: Option<Level>,
}

/// The 2026-07-28 envelope keys of `params._meta`, borrowed.
#[derive(Deserialize, Default)]
struct Envelope<'a> {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", default, borrow)]
    version: Option<&'a RawValue>,
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities", default, borrow)]
    capabilities: Option<&'a RawValue>,
    #[serde(rename = "io.modelcontextprotocol/clientInfo", default, borrow)]
    client_info: Option<&'a RawValue>,
    #[serde(rename = "io.modelcontextprotocol/logLevel", default, borrow)]
    log_level: Option<&'a RawValue>,
}

impl<'a> Envelope<'a> {
    fn of(meta: Option<&'a RawValue>) -> Envelope<'a> {
        meta.and_then(|raw| serde_json::from_str(raw.get()).ok())
            .unwrap_or_default()
    }

    fn present(&self) -> bool {
        self.version.is_some() || self.capabilities.is_some()
    }
}

/// The params of `tools/call`.
#[derive(Deserialize)]
struct CallParams<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(default, borrow)]
    arguments: Option<&'a RawValue>,
    #[serde(rename = "_meta", default, borrow)]
    meta: Option<&'a RawValue>,
    #[serde(rename = "inputResponses", default)]
    input_responses: Option<Map<String, Value>>,
    #[serde(rename = "requestState", default, borrow)]
    request_state: Option<Cow<'a, str>>,
}

/// `params._meta` of any method's params, borrowed.
fn meta_of(params: Option<&RawValue>) -> Option<&RawValue> {
    #[derive(Deserialize)]
    struct WithMeta<'a> {
        #[serde(rename = "_meta", default, borrow)]
        meta: Option<&'a RawValue>,
    }
    params
        .and_then(|raw| serde_json::from_str::<WithMeta<'_>>(raw.get()).ok())
        .and_then(|w| w.meta)
}

/// Per-connection routing; lives in the reader loop, one line at a time.
#[derive(Debug)]
pub(crate) struct Dispatcher {
    shared: Arc<Shared>,
    connection: Arc<Connection>,
}

impl Dispatcher {
    pub(crate) fn new(shared: Arc<Shared>, connection: Arc<Connection>) -> Dispatcher {
        Dispatcher { shared, connection }
    }

    fn send_failure(&self, id: Option<&str>, failure: &Failure) {
        self.connection.send(frame::error(
            id,
            failure.code,
            &failure.message,
            failure.data.as_ref(),
        ));
    }

    /// Handles one line: answers it, starts a call, or takes a notification.
    pub(crate) fn handle_line(&mut self, line: &[u8]) {
        match crate::protocol::incoming::parse(line) {
            Err(Rejection { code, message, id }) => {
                tracing::debug!(code = code.code(), %message, "rejected a message");
                self.connection
                    .send(frame::error(id.map(RawValue::get), code, &message, None));
            }
            Ok(Incoming::Notification { method, params })
                if params.is_some_and(|raw| raw.get().starts_with('[')) =>
            {
                // MCP params are objects; a notification is never answered,
                // so one with positional params is dropped.
                tracing::debug!(%method, "ignored a notification with array params");
            }
            Ok(Incoming::Notification { method, params }) => self.on_notification(&method, params),
            Ok(Incoming::Response { id, result, error }) => {
                let reply = match (result, error) {
                    (Some(result), _) => {
                        Ok(serde_json::from_str(result.get()).unwrap_or(Value::Null))
                    }
                    (None, error) => Err(error
                        .and_then(|e| serde_json::from_str(e.get()).ok())
                        .unwrap_or(Value::Null)),
                };
                if !self
                    .connection
                    .deliver_reply(&canonical_id(id.get()), reply)
                {
                    tracing::debug!(id = id.get(), "ignored a response to no request of ours");
                }
            }
            Ok(Incoming::Request { id, method, params }) => {
                if let Err(failure) = self.on_request(id.get(), &method, params) {
                    self.send_failure(Some(id.get()), &failure);
                }
            }
        }
    }

    /// A line longer than the limit was skipped; `id` is the request's id
    /// (JSON text) when the scan of the line found one.
    pub(crate) fn handle_oversized(&mut self, len: usize, max: usize, id: Option<&str>) {
        let message = format!(
            "Invalid Request: the message is {len} bytes, over this server's limit of {max} bytes; it was discarded"
        );
        self.connection
            .send(frame::error(id, ErrorCode::INVALID_REQUEST, &message, None));
    }

    fn on_notification(&mut self, method: &str, params: Option<&RawValue>) {
        match method {
            "notifications/cancelled" => {
                #[derive(Deserialize)]
                struct Cancelled<'a> {
                    #[serde(rename = "requestId", borrow)]
                    request_id: &'a RawValue,
                }
                let Some(cancelled) =
                    params.and_then(|p| serde_json::from_str::<Cancelled<'_>>(p.get()).ok())
                else {
                    return;
                };
                let key = canonical_id(cancelled.request_id.get());
                if self.connection.cancel_call(&key) {
                    tracing::debug!(id = %key, "cancelled a call");
                } else if self.connection.unsubscribe(&key) {
                    tracing::debug!(id = %key, "ended a subscription");
                }
            }
            other => tracing::debug!(method = other, "ignored a notification"),
        }
    }

    fn on_request(
        &mut self,
        id: &str,
        method: &str,
        params: Option<&RawValue>,
    ) -> Result<(), Failure> {
        if method == "initialize" {
            return self.initialize(id, params);
        }
        if method == "tools/call" {
            // The hot path: its params are parsed once, `_meta` included.
            let call: CallParams<'_> = parse_params(params, "tools/call")?;
            let info = self.request_info(method, call.meta)?;
            return self.call_tool(id, info, call);
        }
        let info = self.request_info(method, meta_of(params))?;
        let version = info.version;
        match method {
            "ping" if !version.is_modern() => {
                self.connection.send(frame::result(id, "{}"));
                Ok(())
            }
            "logging/setLevel" if !version.is_modern() => self.set_level(id, params),
            "server/discover" if version.is_modern() => self.discover(id, version),
            "subscriptions/listen" if version.is_modern() => self.listen(id, params),
            "tools/list" => self.list_tools(id, version, params),
            _ => Err(Failure::new(
                ErrorCode::METHOD_NOT_FOUND,
                format!("Method not found: {method}"),
            )
            .with_data(json!({"method": method}))),
        }
    }

    /// The revision and caller a request is served for, enforcing the era rules.
    fn request_info(
        &mut self,
        method: &str,
        meta: Option<&RawValue>,
    ) -> Result<RequestInfo, Failure> {
        let lifecycle = self.connection.lifecycle();
        match lifecycle {
            Lifecycle::Legacy { version, .. } => Ok(RequestInfo {
                version,
                client: self.connection.session(),
                log_level: None,
            }),
            Lifecycle::Modern => modern_request(&Envelope::of(meta), lifecycle),
            Lifecycle::Fresh => {
                let envelope = Envelope::of(meta);
                if !envelope.present() {
                    if method == "ping" {
                        // Legacy clients may ping before `initialize`.
                        return Ok(RequestInfo {
                            version: ProtocolVersion::LATEST_LEGACY,
                            client: self.connection.session(),
                            log_level: None,
                        });
                    }
                    return Err(Failure::invalid_params(format!(
                        "'{method}' arrived before 'initialize' and without a 2026-07-28 _meta envelope: \
                         send 'initialize' first, or put \"{META_PROTOCOL_VERSION}\" and \
                         \"{META_CLIENT_CAPABILITIES}\" in params._meta"
                    )));
                }
                let info = modern_request(&envelope, lifecycle)?;
                if method != "server/discover" {
                    self.connection.set_lifecycle(Lifecycle::Modern);
                }
                Ok(info)
            }
        }
    }

    fn initialize(&mut self, id: &str, params: Option<&RawValue>) -> Result<(), Failure> {
        #[derive(Deserialize)]
        struct InitializeParams<'a> {
            #[serde(rename = "protocolVersion", borrow)]
            protocol_version: Cow<'a, str>,
            #[serde(default)]
            capabilities: Option<Value>,
            #[serde(rename = "clientInfo", default)]
            client_info: Option<Value>,
        }
        let params: InitializeParams<'_> = parse_params(params, "initialize")?;
        let requested = params.protocol_version;
        let lifecycle = self.connection.lifecycle();
        let version = match lifecycle {
            Lifecycle::Fresh => negotiate(&requested),
            Lifecycle::Legacy { .. } => {
                return Err(Failure::new(
                    ErrorCode::INVALID_REQUEST,
                    "Invalid Request: 'initialize' was already received on this connection",
                ));
            }
            Lifecycle::Modern => return Err(unsupported_version(&requested, lifecycle)),
        };
        self.connection.set_lifecycle(Lifecycle::Legacy { version });
        self.connection.set_session(ClientSession {
            info: params.client_info,
            capabilities: params
                .capabilities
                .filter(Value::is_object)
                .unwrap_or_else(|| json!({})),
        });
        let identity = &self.shared.identity;
        let mut result = json!({
            "protocolVersion": version.as_str(),
            "capabilities": {"tools": {"listChanged": true}, "logging": {}},
            "serverInfo": identity.server_info(version),
        });
        if let Some(instructions) = &identity.instructions {
            result["instructions"] = instructions.clone().into();
        }
        tracing::debug!(%version, %requested, "initialized a legacy session");
        self.connection.send(frame::result(id, &result.to_string()));
        Ok(())
    }

    fn set_level(&mut self, id: &str, params: Option<&RawValue>) -> Result<(), Failure> {
        #[derive(Deserialize)]
        struct SetLevel<'a> {
            #[serde(borrow)]
            level: Cow<'a, str>,
        }
        let params: SetLevel<'_> = parse_params(params, "logging/setLevel")?;
        let level: Level = params.level.parse().map_err(|message: String| {
            Failure::invalid_params(format!("Invalid params: {message}"))
        })?;
        self.connection.set_log_level(level);
        self.connection.send(frame::result(id, "{}"));
        Ok(())
    }

    fn discover(&mut self, id: &str, version: ProtocolVersion) -> Result<(), Failure> {
        let identity = &self.shared.identity;
        let mut body = json!({
            "supportedVersions": [ProtocolVersion::LATEST.as_str()],
            "capabilities": {"tools": {"listChanged": true}},
            "ttlMs": identity.list_ttl_ms,
            "cacheScope": "public",
        });
        if let Some(instructions) = &identity.instructions {
            body["instructions"] = instructions.clone().into();
        }
        let mut open = body.to_string();
        open.pop();
        let mut out = frame::start_result(id, open.len() + 160);
        out.extend_from_slice(open.as_bytes());
        identity.close_into(&mut out, version, "complete");
        frame::end_result(&mut out);
        self.connection.send(out);
        Ok(())
    }

    fn listen(&mut self, id: &str, params: Option<&RawValue>) -> Result<(), Failure> {
        #[derive(Deserialize)]
        struct Listen {
            notifications: Filter,
        }
        #[derive(Deserialize)]
        struct Filter {
            #[serde(rename = "toolsListChanged", default)]
            tools_list_changed: bool,
        }
        let params: Listen = parse_params(params, "subscriptions/listen")?;
        let subscription_id: Value = serde_json::from_str(id).unwrap_or(Value::Null);
        let mut honoured = Map::new();
        if params.notifications.tools_list_changed {
            honoured.insert("toolsListChanged".into(), true.into());
        }
        // The acknowledgement is the first message tagged with this subscription.
        self.connection.send(frame::notification(
            "notifications/subscriptions/acknowledged",
            &json!({"_meta": {META_SUBSCRIPTION_ID: subscription_id}, "notifications": honoured}),
        ));
        self.connection.subscribe(Subscription {
            id: canonical_id(id),
            tools_list_changed: params.notifications.tools_list_changed,
        });
        Ok(())
    }

    fn list_tools(
        &mut self,
        id: &str,
        version: ProtocolVersion,
        params: Option<&RawValue>,
    ) -> Result<(), Failure> {
        #[derive(Deserialize)]
        struct ListParams<'a> {
            #[serde(default, borrow)]
            cursor: Option<Cow<'a, str>>,
        }
        let params: ListParams<'_> = match params {
            None => ListParams { cursor: None },
            Some(_) => parse_params(params, "tools/list")?,
        };
        let registry = self.shared.tools.registry();
        let page = registry
            .page(version, params.cursor.as_deref(), self.shared.identity.list_ttl_ms)
            .map_err(|()| {
                Failure::invalid_params(
                    "Invalid cursor: use a nextCursor value from an earlier tools/list result, or no cursor",
                )
            })?;
        // The page body is cached and shared: per request only the id and
        // the closing fields are written.
        let head = frame::start_result(id, 0);
        let mut tail = Vec::with_capacity(160);
        self.shared
            .identity
            .close_into(&mut tail, version, "complete");
        frame::end_result(&mut tail);
        self.connection.send(Frame::Shared {
            head,
            body: page,
            tail,
        });
        Ok(())
    }

    fn call_tool(
        &mut self,
        id: &str,
        info: RequestInfo,
        params: CallParams<'_>,
    ) -> Result<(), Failure> {
        let arguments = params.arguments.filter(|raw| raw.get() != "null");
        if let Some(raw) = arguments
            && !raw.get().starts_with('{')
        {
            return Err(Failure::invalid_params(
                "Invalid params: tools/call \"arguments\" must be an object",
            ));
        }
        let registry = self.shared.tools.registry();
        let Some((name, tool)) = registry.get(&params.name) else {
            return Err(
                Failure::invalid_params(format!("Unknown tool: {}", params.name))
                    .with_data(json!({"name": params.name})),
            );
        };
        let version = info.version;
        let (digest, resumed) = if version.is_modern() {
            let digest = arguments_digest(arguments.map(RawValue::get));
            let resumed = self
                .shared
                .sealer
                .resume(
                    &name,
                    &digest,
                    params.request_state.as_deref(),
                    params.input_responses,
                    tool.def.replayable_input,
                )
                .map_err(|reason| Failure::invalid_params(format!("Invalid params: {reason}")))?;
            (digest, resumed)
        } else {
            (String::new(), Resumed::default())
        };
        let key = canonical_id(id);
        let duplicate = || {
            Failure::new(
                ErrorCode::INVALID_REQUEST,
                format!(
                    "Invalid Request: id {id} is already used by a call in flight; use a new id"
                ),
            )
        };
        if self.connection.is_in_flight(&key) {
            return Err(duplicate());
        }
        if let Some(refusal) = self.admission(&name) {
            let mut out = frame::start_result(id, 128);
            crate::call::render_result(&mut out, tool, &refusal, version);
            self.shared
                .identity
                .close_into(&mut out, version, "complete");
            frame::end_result(&mut out);
            self.connection.send(out);
            return Ok(());
        }
        let Some(cancel) = self.connection.begin_call(&key) else {
            return Err(duplicate());
        };
        let context = Context::new(ContextParts {
            request_id: id.to_owned(),
            tool: Arc::clone(&name),
            version,
            client: info.client,
            meta: params.meta.map(|raw| raw.to_owned()),
            request_log_level: info.log_level,
            cancel,
            connection: Arc::clone(&self.connection),
            states: Arc::clone(&self.shared.states),
            tools: self.shared.tools.clone(),
            answers: resumed.answers,
            elicitation_timeout: self.shared.elicitation_timeout,
        });
        let call = ToolCall {
            name,
            arguments: arguments.map(|raw| raw.to_owned()),
            version,
            context,
        };
        crate::call::start(
            &self.shared,
            &self.connection,
            PreparedCall {
                id: id.to_owned(),
                key,
                tool: Arc::clone(tool),
                call,
                arguments_digest: digest,
                ticket: resumed.ticket,
            },
        );
        Ok(())
    }

    /// Refuses a call over the rate or pending limit, with a result the model
    /// can act on.
    fn admission(&self, tool: &str) -> Option<ToolOutcome> {
        let limits = &self.shared.limits;
        if self.connection.calls_in_flight() >= limits.max_pending {
            return Some(ToolOutcome::Error(format!(
                "The server is busy ({} calls in flight); '{tool}' was not run. Retry when earlier calls have finished.",
                limits.max_pending
            )));
        }
        limits.admit().err().map(|wait| {
            ToolOutcome::Error(format!(
                "Rate limit exceeded: '{tool}' was not run. Retry in {} ms.",
                wait.as_millis().max(1)
            ))
        })
    }

    /// Ends the connection: calls in flight may finish until `deadline`
    /// (later ones are cancelled with an error response), requests of ours
    /// to the client fail, and open subscriptions get their final response.
    pub(crate) async fn shutdown(self, deadline: tokio::time::Instant) {
        let connection = &self.connection;
        connection.fail_server_requests();
        if tokio::time::timeout_at(deadline, connection.wait_idle())
            .await
            .is_err()
        {
            for id in connection.cancel_all() {
                tracing::warn!(%id, "cancelled a call still running after the drain timeout");
                connection.send(frame::error(
                    Some(&id),
                    ErrorCode::INTERNAL_ERROR,
                    "The server shut down before the call finished",
                    None,
                ));
            }
        }
        for subscription in connection.take_subscriptions() {
            let id_value: Value = serde_json::from_str(&subscription.id).unwrap_or(Value::Null);
            let body = json!({"resultType": "complete", "_meta": {META_SUBSCRIPTION_ID: id_value}});
            connection.send(frame::result(&subscription.id, &body.to_string()));
        }
    }
}

/// Tells the connection's client that the tool list changed: a legacy session
/// gets `notifications/tools/list_changed`; in the 2026-07-28 era only
/// subscriptions that asked for it do, tagged with their id.
pub(crate) fn notify_tools_changed(connection: &Connection) {
    match connection.lifecycle() {
        Lifecycle::Legacy { .. } => connection.send(frame::notification(
            "notifications/tools/list_changed",
            &json!({}),
        )),
        Lifecycle::Modern | Lifecycle::Fresh => {
            for subscription in connection.subscriptions() {
                if subscription.tools_list_changed {
                    let id: Value = serde_json::from_str(&subscription.id).unwrap_or(Value::Null);
                    connection.send(frame::notification(
                        "notifications/tools/list_changed",
                        &json!({"_meta": {META_SUBSCRIPTION_ID: id}}),
                    ));
                }
            }
        }
    }
}

/// Validates the 2026-07-28 envelope of a request.
fn modern_request(envelope: &Envelope<'_>, lifecycle: Lifecycle) -> Result<RequestInfo, Failure> {
    let missing = |key: &str| {
        Failure::invalid_params(format!(
            "Invalid params: params._meta must carry \"{key}\" (2026-07-28 requests carry their protocol version and client capabilities)"
        ))
    };
    let version: Cow<'_, str> = envelope
        .version
        .and_then(|raw| serde_json::from_str(raw.get()).ok())
        .ok_or_else(|| missing(META_PROTOCOL_VERSION))?;
    let capabilities = envelope
        .capabilities
        .ok_or_else(|| missing(META_CLIENT_CAPABILITIES))?;
    if !capabilities.get().starts_with('{') {
        return Err(Failure::invalid_params(format!(
            "Invalid params: \"{META_CLIENT_CAPABILITIES}\" must be an object ({{}} declares none)"
        )));
    }
    let log_level = match envelope.log_level {
        None => None,
        Some(raw) => Some(
            serde_json::from_str::<Cow<'_, str>>(raw.get())
                .unwrap_or_default()
                .parse::<Level>()
                .map_err(|message| {
                    Failure::invalid_params(format!("Invalid params: {META_LOG_LEVEL}: {message}"))
                })?,
        ),
    };
    match ProtocolVersion::parse(&version) {
        Some(v) if v.is_modern() => Ok(RequestInfo {
            version: v,
            client: Arc::new(ClientSession {
                info: envelope
                    .client_info
                    .and_then(|raw| serde_json::from_str(raw.get()).ok()),
                capabilities: serde_json::from_str(capabilities.get())
                    .unwrap_or_else(|_| json!({})),
            }),
            log_level,
        }),
        _ => Err(unsupported_version(&version, lifecycle)),
    }
}

fn unsupported_version(requested: &str, lifecycle: Lifecycle) -> Failure {
    Failure::new(
        ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
        "Unsupported protocol version",
    )
    .with_data(json!({
        "supported": lifecycle.supported_versions(),
        "requested": requested,
    }))
}

/// Deserializes a method's params, or says what is wrong with them.
fn parse_params<'a, T: Deserialize<'a>>(
    params: Option<&'a RawValue>,
    method: &str,
) -> Result<T, Failure> {
    let text = params.map_or("{}", RawValue::get);
    serde_json::from_str(text).map_err(|err| {
        Failure::invalid_params(format!(
            "Invalid params for {method}: {}",
            without_position(&err)
        ))
    })
}
