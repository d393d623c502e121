//! The Streamable HTTP transport: each message is a POST to the server's
//! one endpoint; an answer comes back as a JSON body or as an event stream
//! (notifications first, the answer last). A legacy session's
//! `Mcp-Session-Id` is kept and sent, its GET stream opened on
//! [`listen`](Transport::listen), and the session ended with DELETE on
//! close. A request's event stream that ends before its answer, after an
//! event with an id, is resumed with a GET naming that id
//! (`Last-Event-ID`) once the server's `retry` wait has passed (2025-11-25
//! servers may close a stream at any time and expect the client to poll).
//!
//! Connections are pooled and kept alive (hyper-util's client), so calls at
//! a high rate do not pay a TCP (and TLS) handshake each.

use super::sse::{Event, SseParser};
use super::stdio::DEFAULT_MAX_MESSAGE_BYTES;
use super::{BoxFuture, Inbox, InboxSender, Incoming, Outgoing, Transport};
use crate::error::{Cause, ClientError};
use crate::jsonrpc::{self, Message};
use crate::text::excerpt;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::header::{ACCEPT, CONTENT_LENGTH, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use hyper::{Method, Request, StatusCode, Uri};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::task::AbortHandle;

/// The connector of [`connector`]: TCP, and rustls over it with `https`.
#[cfg(feature = "https")]
pub type Connector = hyper_rustls::HttpsConnector<HttpConnector>;
/// The connector of [`connector`]: TCP, and rustls over it with `https`.
#[cfg(not(feature = "https"))]
pub type Connector = HttpConnector;

type HttpClient = Client<Connector, Full<Bytes>>;

const SESSION_ID: HeaderName = HeaderName::from_static(mcpfn_protocol::http::SESSION_ID);
/// The header of a resuming GET: the id of the last event received.
const LAST_EVENT_ID: &str = "last-event-id";
/// The most times the stream of one request is resumed.
const MAX_RESUMPTIONS: u32 = 5;
/// How long [`listen`](Transport::listen) waits for the GET stream's answer.
const LISTEN_OPEN_TIMEOUT: Duration = Duration::from_secs(5);
/// The wait before resuming when the server gave no `retry`.
const DEFAULT_RETRY: Duration = Duration::from_secs(1);
/// The longest `retry` wait heeded (the call's timeout bounds it anyway).
const MAX_RETRY: Duration = Duration::from_secs(30);
/// How much of an error body is read and quoted.
const ERROR_BODY_BYTES: usize = 64 * 1024;
const ERROR_EXCERPT: usize = 300;

/// How to reach a Streamable HTTP server.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    /// The server's name in the configuration (for the log and errors).
    pub name: String,
    /// Its MCP endpoint (`http://…` or, with the `https` feature, `https://…`).
    pub url: String,
    /// Headers sent on every request to it (e.g. `Authorization: Bearer …`).
    pub headers: Vec<(String, String)>,
    /// The largest message read (a JSON body, or one event's data); a
    /// larger one is discarded. Default 16 MiB.
    pub max_message_bytes: usize,
    /// How many incoming messages may wait for the dispatcher before the
    /// streams are no longer read (back-pressure). Default 64.
    pub inbox_capacity: usize,
    /// How long a TCP connect may take. Default 10 s.
    pub connect_timeout: Duration,
    /// Authorization (OAuth) for a server that asks for it: its token on
    /// every request, and a 401 or 403 `insufficient_scope` handed to it
    /// before the request is sent again. The resource must be on the
    /// endpoint's origin.
    #[cfg(feature = "oauth")]
    pub authorizer: Option<Arc<dyn crate::bearer::Authorizer>>,
}

impl HttpConfig {
    /// The server called `name` at `url`, with the defaults.
    pub fn new(name: impl Into<String>, url: impl Into<String>) -> Self {
        HttpConfig {
            name: name.into(),
            url: url.into(),
            headers: Vec::new(),
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            inbox_capacity: 64,
            connect_timeout: Duration::from_secs(10),
            #[cfg(feature = "oauth")]
            authorizer: None,
        }
    }

    /// Adds a header sent on every request.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }
}

/// What the transport and its reading tasks share.
#[derive(Debug)]
struct Shared {
    name: String,
    uri: Uri,
    client: HttpClient,
    headers: HeaderMap,
    /// The legacy session's id, once the server minted one.
    session: Mutex<Option<HeaderValue>>,
    /// Headers the layer above set for the rest of the connection
    /// (`MCP-Protocol-Version` after a legacy handshake): on every POST,
    /// the GET stream and the DELETE.
    connection_headers: Mutex<HeaderMap>,
    inbox: InboxSender,
    /// The event streams being read, by the id of the request they answer.
    streams: Mutex<HashMap<u64, AbortHandle>>,
    listener: Mutex<Option<AbortHandle>>,
    limit: usize,
    #[cfg(feature = "oauth")]
    authorizer: Option<Arc<dyn crate::bearer::Authorizer>>,
}

/// A Streamable HTTP server. Dropping it stops its streams and ends its
/// session (DELETE, in the background).
#[derive(Debug)]
pub struct HttpTransport {
    shared: Arc<Shared>,
}

/// `name: value` as HTTP takes them; an error naming the header when the
/// name or the value is not valid in HTTP.
pub(crate) fn header_pair(
    name: &str,
    value: &str,
) -> Result<(HeaderName, HeaderValue), ClientError> {
    let header = HeaderName::from_bytes(name.as_bytes()).map_err(|_| ClientError::Config {
        reason: format!("`{name}` is not a valid HTTP header name"),
    })?;
    let value = HeaderValue::from_str(value).map_err(|_| ClientError::Config {
        reason: format!("the value of header `{name}` is not valid in HTTP"),
    })?;
    Ok((header, value))
}

/// An error with its causes, which hyper keeps apart (`client error
/// (Connect)` alone says little).
pub fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// A pooled HTTP(S) connector: TCP_NODELAY, `connect_timeout`, and (with
/// `https`) rustls over the compiled-in Mozilla roots. The model APIs'
/// client (mcp-host's provider) uses the same one.
pub fn connector(connect_timeout: Duration) -> Connector {
    let mut http = HttpConnector::new();
    http.set_connect_timeout(Some(connect_timeout));
    http.set_nodelay(true);
    #[cfg(feature = "https")]
    {
        http.enforce_http(false);
        hyper_rustls::HttpsConnectorBuilder::new()
            .with_webpki_roots()
            .https_or_http()
            .enable_http1()
            .wrap_connector(http)
    }
    #[cfg(not(feature = "https"))]
    http
}

impl HttpTransport {
    /// A transport to `config.url`. Nothing is sent yet. Must be called
    /// inside a tokio runtime.
    pub fn connect(config: HttpConfig) -> Result<(HttpTransport, Inbox), ClientError> {
        let uri: Uri = config.url.parse().map_err(|e| ClientError::Config {
            reason: format!("`{}` is not a URL: {e}", config.url),
        })?;
        match uri.scheme_str() {
            Some("http") => {}
            Some("https") if cfg!(feature = "https") => {}
            Some("https") => {
                return Err(ClientError::Config {
                    reason: format!(
                        "`{}` needs HTTPS, which this build leaves out (feature `https`)",
                        config.url
                    ),
                });
            }
            _ => {
                return Err(ClientError::Config {
                    reason: format!("`{}` is not an http:// or https:// URL", config.url),
                });
            }
        }
        #[cfg(feature = "oauth")]
        if let Some(authorizer) = &config.authorizer {
            let origin = crate::bearer::same_origin(authorizer.resource_url(), &config.url);
            if !origin {
                return Err(ClientError::Config {
                    reason: format!(
                        "the authorization is for `{}`, not on the origin of `{}`",
                        authorizer.resource_url(),
                        config.url
                    ),
                });
            }
        }
        let mut headers = HeaderMap::new();
        for (name, value) in &config.headers {
            let (name, value) = header_pair(name, value)?;
            headers.append(name, value);
        }
        let client = Client::builder(TokioExecutor::new())
            .pool_idle_timeout(Duration::from_secs(60))
            .build(connector(config.connect_timeout));
        let (inbox_tx, inbox) = Inbox::channel(config.inbox_capacity);
        let shared = Arc::new(Shared {
            name: config.name,
            uri,
            client,
            headers,
            session: Mutex::new(None),
            connection_headers: Mutex::new(HeaderMap::new()),
            inbox: inbox_tx,
            streams: Mutex::new(HashMap::new()),
            listener: Mutex::new(None),
            limit: config.max_message_bytes,
            #[cfg(feature = "oauth")]
            authorizer: config.authorizer,
        });
        Ok((HttpTransport { shared }, inbox))
    }

    /// The legacy session's id, once the server minted one.
    pub fn session_id(&self) -> Option<String> {
        lock(&self.shared.session)
            .as_ref()
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    }
}

impl Shared {
    fn disconnected(&self, reason: String) -> ClientError {
        ClientError::Disconnected {
            server: self.name.clone(),
            reason,
            cause: None,
        }
    }

    /// [`disconnected`](Self::disconnected), `error` kept as the cause.
    fn disconnected_by(
        &self,
        reason: String,
        error: impl std::error::Error + Send + Sync + 'static,
    ) -> ClientError {
        ClientError::Disconnected {
            server: self.name.clone(),
            reason,
            cause: Some(Cause::new(error)),
        }
    }

    /// A request to the endpoint with the configured headers, the session
    /// and `extra`.
    fn request(
        &self,
        method: Method,
        extra: &[(String, String)],
        body: Bytes,
    ) -> Result<Request<Full<Bytes>>, ClientError> {
        let mut request = Request::builder()
            .method(method)
            .uri(self.uri.clone())
            .body(Full::new(body))
            .map_err(|e| ClientError::Config {
                reason: e.to_string(),
            })?;
        let headers = request.headers_mut();
        headers.extend(self.headers.clone());
        headers.extend(lock(&self.connection_headers).clone());
        if let Some(session) = lock(&self.session).clone() {
            headers.insert(SESSION_ID, session);
        }
        for (name, value) in extra {
            let (name, value) = header_pair(name, value)?;
            headers.insert(name, value);
        }
        Ok(request)
    }

    // Without `oauth` the retry count and the sent token are `()`: one
    // body serves both builds.
    #[cfg_attr(not(feature = "oauth"), allow(clippy::let_unit_value))]
    async fn post(self: &Arc<Self>, message: Outgoing) -> Result<(), ClientError> {
        let body = Bytes::from(message.body);
        let mut retries = AuthRetries::default();
        let (response, had_session) = loop {
            let mut request = self.request(Method::POST, &message.headers, body.clone())?;
            let headers = request.headers_mut();
            headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
            headers.insert(
                ACCEPT,
                HeaderValue::from_static("application/json, text/event-stream"),
            );
            let sent = self.authorize(&mut request).await?;
            let had_session = lock(&self.session).is_some();
            let response = self
                .client
                .request(request)
                .await
                .map_err(|e| self.disconnected_by(chain(&e), e))?;
            if !self.reauthorize(&response, sent, &mut retries).await? {
                break (response, had_session);
            }
        };
        let status = response.status();
        if let Some(session) = response.headers().get(&SESSION_ID)
            && status.is_success()
        {
            *lock(&self.session) = Some(session.clone());
        }
        if status == StatusCode::NOT_FOUND && had_session {
            *lock(&self.session) = None;
            let _ = self
                .inbox
                .send(Incoming::Closed(ClientError::SessionExpired))
                .await;
            return Err(ClientError::SessionExpired);
        }
        if !status.is_success() {
            return Err(self.error_response(response).await);
        }
        let Some(id) = message.request_id else {
            // A notification or an answer: 202 and no body.
            return Ok(());
        };
        if status == StatusCode::ACCEPTED || status == StatusCode::NO_CONTENT {
            return Err(ClientError::Malformed {
                reason: format!("HTTP {status} with no body in answer to a request"),
            });
        }
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        if content_type.starts_with("text/event-stream") {
            self.read_stream_in_background(id, response.into_body());
            return Ok(());
        }
        if !content_type.starts_with("application/json") {
            return Err(ClientError::Malformed {
                reason: format!("an answer of content type `{content_type}`"),
            });
        }
        if let Some(length) = content_length(response.headers())
            && length > self.limit
        {
            return Err(ClientError::TooLarge {
                server: self.name.clone(),
                limit: self.limit,
                size: Some(length),
            });
        }
        let body = read_body(response.into_body(), self.limit)
            .await
            .map_err(|e| {
                e.unwrap_or(ClientError::TooLarge {
                    server: self.name.clone(),
                    limit: self.limit,
                    size: None,
                })
            })
            .map_err(|e| match e {
                ClientError::Disconnected { reason, cause, .. } => ClientError::Disconnected {
                    server: self.name.clone(),
                    reason,
                    cause,
                },
                other => other,
            })?;
        let text = String::from_utf8(body).map_err(|_| ClientError::Malformed {
            reason: "a JSON body that is not UTF-8".into(),
        })?;
        // A body that is not a JSON-RPC message would leave the request
        // waiting for its timeout: fail it now.
        if let Err(reason) = jsonrpc::parse(&text) {
            return Err(ClientError::Malformed {
                reason: format!("{reason}: {}", excerpt(&text, ERROR_EXCERPT)),
            });
        }
        self.inbox.send(Incoming::Message(text)).await;
        Ok(())
    }

    /// The error an unsuccessful status stands for: the JSON-RPC error in
    /// its body if there is one (`-32022` unsupported version, …), else
    /// the status and the start of the body.
    async fn error_response(
        &self,
        response: hyper::Response<hyper::body::Incoming>,
    ) -> ClientError {
        let status = response.status().as_u16();
        let body = read_body(response.into_body(), ERROR_BODY_BYTES)
            .await
            .unwrap_or_default();
        let text = String::from_utf8_lossy(&body);
        if let Ok(Message::Response {
            outcome: Err(error),
            ..
        }) = jsonrpc::parse(&text)
        {
            return ClientError::Rpc(error);
        }
        ClientError::Http {
            status,
            body: excerpt(&text, ERROR_EXCERPT),
        }
    }

    fn read_stream_in_background(self: &Arc<Self>, id: u64, body: hyper::body::Incoming) {
        let shared = Arc::clone(self);
        let mut streams = lock(&self.streams);
        let task = tokio::spawn(async move {
            let mut parser = SseParser::new(shared.limit);
            let mut outcome = shared.read_events(body, Some(id), &mut parser).await;
            let mut resumptions = 0;
            // A stream that ended or broke before its answer, after an
            // event with an id, is resumed (2025-11-25: the server may
            // close it at any time and the client polls): a GET naming
            // the last event, after the server's `retry` wait.
            while let Err(ClientError::Disconnected { .. }) = &outcome
                && resumptions < MAX_RESUMPTIONS
                && let Some(last) = parser.last_event_id().map(str::to_owned)
            {
                resumptions += 1;
                let wait = parser.retry().unwrap_or(DEFAULT_RETRY).min(MAX_RETRY);
                tokio::time::sleep(wait).await;
                parser = parser.resumed();
                outcome = shared.resume(id, &last, &mut parser).await;
            }
            lock(&shared.streams).remove(&id);
            if let Err(error) = outcome {
                shared.inbox.send(Incoming::Failed { id, error }).await;
            }
        });
        streams.insert(id, task.abort_handle());
    }

    /// The GET that resumes the stream of request `id` after event `last`
    /// (`Last-Event-ID`), read like the stream it continues.
    async fn resume(&self, id: u64, last: &str, parser: &mut SseParser) -> Result<(), ClientError> {
        let last_event_id = [(LAST_EVENT_ID.to_owned(), last.to_owned())];
        let mut request = self.request(Method::GET, &last_event_id, Bytes::new())?;
        request
            .headers_mut()
            .insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
        let response = self
            .client
            .request(request)
            .await
            .map_err(|e| self.disconnected_by(chain(&e), e))?;
        if !response.status().is_success() {
            return Err(self.error_response(response).await);
        }
        tracing::debug!(server = %self.name, request = id, last_event_id = %excerpt(last, 64), "event stream resumed");
        self.read_events(response.into_body(), Some(id), parser)
            .await
    }

    /// Reads an event stream into the inbox. For the stream of request
    /// `id`: `Ok` once its answer came, else why it cannot come.
    async fn read_events(
        &self,
        mut body: hyper::body::Incoming,
        id: Option<u64>,
        parser: &mut SseParser,
    ) -> Result<(), ClientError> {
        let mut events = Vec::new();
        let mut answered = false;
        let mut dropped = false;
        loop {
            let frame = match body.frame().await {
                None => break,
                Some(Ok(frame)) => frame,
                Some(Err(e)) => {
                    if answered {
                        break;
                    }
                    return Err(
                        self.disconnected_by(format!("the event stream broke: {}", chain(&e)), e)
                    );
                }
            };
            let Ok(data) = frame.into_data() else {
                continue;
            };
            parser.feed(&data, &mut events);
            for event in events.drain(..) {
                match event {
                    // The priming event of a resumable stream (an id and
                    // no data): no message.
                    Event::Data(text) if text.is_empty() => {}
                    Event::Data(text) => {
                        if let (Some(id), Ok(Message::Response { id: Some(got), .. })) =
                            (id, jsonrpc::parse(&text))
                            && got == id
                        {
                            answered = true;
                        }
                        if !self.inbox.send(Incoming::Message(text)).await {
                            return Ok(());
                        }
                    }
                    Event::TooLarge => {
                        tracing::warn!(server = %self.name, limit = self.limit, "discarded an event over the size limit");
                        dropped = true;
                    }
                }
            }
            if answered {
                // The server should end the stream now: read its end
                // briefly, so that the connection can be reused, but never
                // wait on a server that keeps it open.
                let rest = async { while let Some(Ok(_)) = body.frame().await {} };
                let _ = tokio::time::timeout(Duration::from_millis(100), rest).await;
                break;
            }
        }
        match id {
            Some(_) if !answered && dropped => Err(ClientError::TooLarge {
                server: self.name.clone(),
                limit: self.limit,
                size: None,
            }),
            Some(_) if !answered => {
                Err(self.disconnected("the event stream ended before the answer".into()))
            }
            _ => Ok(()),
        }
    }

    /// The legacy session's GET stream, reopened when it ends (three
    /// failures in a row end it for good). `opened` is dropped once the
    /// first GET is answered (or fails).
    async fn listen_loop(self: Arc<Self>, opened: tokio::sync::oneshot::Sender<()>) {
        let mut opened = Some(opened);
        let mut failures = 0;
        while failures < 3 {
            if lock(&self.session).is_none() {
                return;
            }
            let mut request = match self.request(Method::GET, &[], Bytes::new()) {
                Ok(mut request) => {
                    request
                        .headers_mut()
                        .insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
                    request
                }
                Err(_) => return,
            };
            if self.authorize(&mut request).await.is_err() {
                return;
            }
            let response = self.client.request(request).await;
            drop(opened.take());
            match response {
                Ok(response) if response.status().is_success() => {
                    failures = 0;
                    let mut parser = SseParser::new(self.limit);
                    let _ = self
                        .read_events(response.into_body(), None, &mut parser)
                        .await;
                }
                Ok(response) if response.status() == StatusCode::METHOD_NOT_ALLOWED => {
                    tracing::debug!(server = %self.name, "the server offers no GET stream");
                    return;
                }
                Ok(response) => {
                    failures += 1;
                    tracing::warn!(server = %self.name, status = %response.status(), "the GET stream was refused");
                }
                Err(error) => {
                    failures += 1;
                    tracing::warn!(server = %self.name, error = %chain(&error), "the GET stream could not be opened");
                }
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    }

    fn stop_streams(&self) {
        for (_, task) in lock(&self.streams).drain() {
            task.abort();
        }
        if let Some(task) = lock(&self.listener).take() {
            task.abort();
        }
    }

    /// DELETE of the session, if there is one.
    async fn end_session(&self) {
        if lock(&self.session).is_none() {
            return;
        }
        let Ok(mut request) = self.request(Method::DELETE, &[], Bytes::new()) else {
            return;
        };
        if self.authorize(&mut request).await.is_err() {
            return;
        }
        *lock(&self.session) = None;
        match tokio::time::timeout(Duration::from_secs(5), self.client.request(request)).await {
            Ok(Ok(response)) => {
                tracing::debug!(server = %self.name, status = %response.status(), "session ended");
            }
            Ok(Err(error)) => {
                tracing::debug!(server = %self.name, error = %chain(&error), "the session could not be ended");
            }
            Err(_) => tracing::debug!(server = %self.name, "no answer to the session's DELETE"),
        }
    }
}

/// How many times one request is sent again after the authorizer was
/// asked for a better token: on 401 (a stored token, a refreshed one, a
/// new login), and on 403 `insufficient_scope` (step-up).
#[cfg(feature = "oauth")]
#[derive(Debug, Default)]
struct AuthRetries {
    unauthorized: u8,
    step_ups: u8,
}

#[cfg(not(feature = "oauth"))]
type AuthRetries = ();

/// The most 401s one request goes through before it fails.
#[cfg(feature = "oauth")]
const MAX_UNAUTHORIZED: u8 = 3;
/// The most step-ups one request asks for before it fails.
#[cfg(feature = "oauth")]
const MAX_STEP_UPS: u8 = 2;

/// The token a request carried.
#[cfg(feature = "oauth")]
type SentToken = Option<crate::bearer::Secret>;
#[cfg(not(feature = "oauth"))]
type SentToken = ();

impl Shared {
    /// Puts the authorizer's token on `request` (which always goes to the
    /// endpoint, on the resource's origin: checked at connect).
    #[cfg(feature = "oauth")]
    async fn authorize(
        &self,
        request: &mut Request<Full<Bytes>>,
    ) -> Result<SentToken, ClientError> {
        let Some(authorizer) = &self.authorizer else {
            return Ok(None);
        };
        let token = authorizer.bearer().await?;
        if let Some(token) = &token {
            let mut value =
                HeaderValue::from_str(&format!("Bearer {}", token.expose())).map_err(|_| {
                    ClientError::Unauthorized {
                        server: self.name.clone(),
                        reason: "the access token is not valid in an HTTP header".into(),
                    }
                })?;
            value.set_sensitive(true);
            request
                .headers_mut()
                .insert(hyper::header::AUTHORIZATION, value);
        }
        Ok(token)
    }

    #[cfg(not(feature = "oauth"))]
    async fn authorize(
        &self,
        _request: &mut Request<Full<Bytes>>,
    ) -> Result<SentToken, ClientError> {
        Ok(())
    }

    /// Whether `response` asks for authorization the authorizer can still
    /// give: it is then asked (a login may happen here) and the request
    /// is sent again.
    #[cfg(feature = "oauth")]
    async fn reauthorize(
        &self,
        response: &hyper::Response<hyper::body::Incoming>,
        sent: SentToken,
        retries: &mut AuthRetries,
    ) -> Result<bool, ClientError> {
        let Some(authorizer) = &self.authorizer else {
            return Ok(false);
        };
        let status = response.status();
        if status != StatusCode::UNAUTHORIZED && status != StatusCode::FORBIDDEN {
            return Ok(false);
        }
        let challenge = crate::bearer::Challenge::from_headers(
            response
                .headers()
                .get_all(hyper::header::WWW_AUTHENTICATE)
                .iter()
                .filter_map(|v| v.to_str().ok()),
        );
        let refused = |reason: &str| ClientError::Unauthorized {
            server: self.name.clone(),
            reason: reason.to_owned(),
        };
        if status == StatusCode::UNAUTHORIZED {
            if retries.unauthorized >= MAX_UNAUTHORIZED {
                return Err(refused("it refused the token it was just given"));
            }
            retries.unauthorized += 1;
        } else if challenge.is_insufficient_scope() {
            if retries.step_ups >= MAX_STEP_UPS {
                return Err(refused(&format!(
                    "it still asks for more scope ({}) after {MAX_STEP_UPS} step-ups",
                    challenge.scope.as_deref().unwrap_or("unnamed")
                )));
            }
            retries.step_ups += 1;
        } else {
            return Ok(false);
        }
        authorizer.challenged(&challenge, sent.as_ref()).await?;
        Ok(true)
    }

    #[cfg(not(feature = "oauth"))]
    async fn reauthorize(
        &self,
        _response: &hyper::Response<hyper::body::Incoming>,
        _sent: SentToken,
        _retries: &mut AuthRetries,
    ) -> Result<bool, ClientError> {
        Ok(false)
    }
}

fn content_length(headers: &HeaderMap) -> Option<usize> {
    headers.get(CONTENT_LENGTH)?.to_str().ok()?.parse().ok()
}

/// The whole body, up to `limit` bytes: `Err(None)` past it.
async fn read_body(
    mut body: hyper::body::Incoming,
    limit: usize,
) -> Result<Vec<u8>, Option<ClientError>> {
    let mut bytes = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| {
            Some(ClientError::Disconnected {
                server: String::new(),
                reason: format!("reading the body failed: {}", chain(&e)),
                cause: Some(Cause::new(e)),
            })
        })?;
        if let Ok(data) = frame.into_data() {
            if bytes.len() + data.len() > limit {
                return Err(None);
            }
            bytes.extend_from_slice(&data);
        }
    }
    Ok(bytes)
}

impl Transport for HttpTransport {
    fn send(&self, message: Outgoing) -> BoxFuture<'_, Result<(), ClientError>> {
        Box::pin(async move { self.shared.post(message).await })
    }

    fn abandon(&self, id: u64) {
        // Dropping the stream closes its connection: the 2026-07-28 era's
        // cancellation, and no more events for a call nobody waits for.
        if let Some(task) = lock(&self.shared.streams).remove(&id) {
            task.abort();
        }
    }

    fn set_headers(&self, headers: &[(String, String)]) -> Result<(), ClientError> {
        let mut map = HeaderMap::new();
        for (name, value) in headers {
            let (name, value) = header_pair(name, value)?;
            map.insert(name, value);
        }
        *lock(&self.shared.connection_headers) = map;
        Ok(())
    }

    fn listen(&self) -> BoxFuture<'_, Result<(), ClientError>> {
        Box::pin(async move {
            if lock(&self.shared.session).is_none() {
                // No session (the 2026-07-28 era, or a stateless legacy
                // server): there is no GET stream to open.
                return Ok(());
            }
            let opened = {
                let mut listener = lock(&self.shared.listener);
                if listener.is_some() {
                    return Ok(());
                }
                let (opened, answered) = tokio::sync::oneshot::channel();
                let task = tokio::spawn(Arc::clone(&self.shared).listen_loop(opened));
                *listener = Some(task.abort_handle());
                answered
            };
            // The stream is open before the caller goes on: a server sends
            // requests that belong to no POST (an elicitation during a
            // call) only on an open GET stream, and drops them otherwise.
            let _ = tokio::time::timeout(LISTEN_OPEN_TIMEOUT, opened).await;
            Ok(())
        })
    }

    fn close(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            self.shared.stop_streams();
            self.shared.end_session().await;
        })
    }
}

impl Drop for HttpTransport {
    fn drop(&mut self) {
        self.shared.stop_streams();
        if lock(&self.shared.session).is_some()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            let shared = Arc::clone(&self.shared);
            runtime.spawn(async move { shared.end_session().await });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpListener;

    #[tokio::test]
    async fn a_refused_connect_keeps_the_os_error_as_its_source() {
        // A port just freed: nothing listens on it.
        let port = TcpListener::bind("127.0.0.1:0")
            .await
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let config = HttpConfig::new("nobody", format!("http://127.0.0.1:{port}/mcp"));
        let (transport, _inbox) = HttpTransport::connect(config).unwrap();
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.to_owned();
        let err = transport
            .send(Outgoing::new(body, Some(1)))
            .await
            .unwrap_err();
        let ClientError::Disconnected {
            cause: Some(cause), ..
        } = &err
        else {
            panic!("{err:?}");
        };
        // The text is what it was: the whole chain, flattened.
        assert_eq!(
            err.to_string(),
            format!("connection to server `nobody` lost: {}", chain(cause.get()))
        );
        let top = std::error::Error::source(&err).expect("a source");
        assert!(top.downcast_ref::<Cause>().is_some(), "{top:?}");
        assert!(
            cause
                .get()
                .downcast_ref::<hyper_util::client::legacy::Error>()
                .is_some_and(|e| e.is_connect())
        );
        let mut link = Some(top);
        let mut io = None;
        while let Some(error) = link {
            io = io.or(error.downcast_ref::<std::io::Error>());
            link = error.source();
        }
        assert_eq!(
            io.map(std::io::Error::kind),
            Some(std::io::ErrorKind::ConnectionRefused)
        );
    }

    /// Reads one request's head (the test's requests have no body but the
    /// POST's, read by its length).
    async fn read_request(stream: &mut tokio::net::TcpStream) -> String {
        let mut bytes = Vec::new();
        let mut buffer = [0u8; 4096];
        loop {
            let n = stream.read(&mut buffer).await.expect("read");
            assert!(n > 0, "the client closed the connection");
            bytes.extend_from_slice(&buffer[..n]);
            let text = String::from_utf8_lossy(&bytes).into_owned();
            if let Some(end) = text.find("\r\n\r\n") {
                let length = text[..end]
                    .lines()
                    .find_map(|l| {
                        l.to_ascii_lowercase()
                            .strip_prefix("content-length:")
                            .map(|v| v.trim().parse::<usize>().unwrap())
                    })
                    .unwrap_or(0);
                if bytes.len() >= end + 4 + length {
                    return text;
                }
            }
        }
    }

    const STREAM_HEAD: &str =
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";

    #[tokio::test]
    async fn a_stream_closed_before_its_answer_is_resumed_after_the_retry_wait() {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let url = format!("http://{}/mcp", listener.local_addr().expect("address"));
        let server = tokio::spawn(async move {
            // The POST: a priming event (an id, a 300 ms retry), then the
            // stream ends without the answer.
            let (mut post, _) = listener.accept().await.expect("the POST");
            let request = read_request(&mut post).await;
            assert!(request.starts_with("POST "), "{request}");
            post.write_all(format!("{STREAM_HEAD}id: e-1\nretry: 300\ndata: \n\n").as_bytes())
                .await
                .expect("write");
            drop(post);
            let closed = Instant::now();
            // The GET that resumes it names the last event; the answer
            // comes on it.
            let (mut get, _) = listener.accept().await.expect("the GET");
            let waited = closed.elapsed();
            let request = read_request(&mut get).await;
            get.write_all(
                format!("{STREAM_HEAD}id: e-2\ndata: {{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{{}}}}\n\n")
                    .as_bytes(),
            )
            .await
            .expect("write");
            (request, waited)
        });
        let (transport, mut inbox) =
            HttpTransport::connect(HttpConfig::new("s", url)).expect("transport");
        let body = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t"}}"#;
        transport
            .send(Outgoing::new(body.into(), Some(7)))
            .await
            .expect("sent");
        let answer = tokio::time::timeout(Duration::from_secs(10), inbox.recv())
            .await
            .expect("an answer in time");
        match answer {
            Some(Incoming::Message(text)) => {
                assert_eq!(text, r#"{"jsonrpc":"2.0","id":7,"result":{}}"#);
            }
            other => panic!("not the answer: {other:?}"),
        }
        let (request, waited) = server.await.expect("the server");
        let head = request.to_ascii_lowercase();
        assert!(head.starts_with("get "), "{request}");
        assert!(head.contains("last-event-id: e-1\r\n"), "{request}");
        assert!(head.contains("accept: text/event-stream\r\n"), "{request}");
        assert!(
            waited >= Duration::from_millis(280),
            "resumed after {waited:?}"
        );
    }
}
