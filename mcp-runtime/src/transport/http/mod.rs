//! Streamable HTTP: the same sessions behind one endpoint, as a
//! `tower::Service` ([`HttpService`]) and a hyper server loop
//! ([`listener`]).
//!
//! Each POST carries one message. Before the body is read: `Origin` and
//! `Host` (DNS rebinding), the method, `Content-Type`, `Accept` and the
//! body limit. Then [`modern`] runs the 2026-07-28 validation ladder and
//! gives the request a session of its own, whose frames are that POST's
//! response: JSON when the result comes first, SSE ([`sse`]) when
//! notifications precede it. With [`crate::auth`], the metadata document
//! is served at its well-known paths and every request to the endpoint is
//! authenticated first; its principal goes on the request's connection.

mod body;
mod checks;
pub(crate) mod client_key;
mod headers;
mod legacy;
mod listener;
mod modern;
mod respond;
mod sessions;
mod sse;

use checks::{
    WithHeader, accepts, check_origin_and_host, check_single_host, json_response, refuse,
};
use client_key::{ClientKey, ClientQuota};
pub(crate) use listener::{is_loopback, raise_open_file_limit, serve};
pub use sse::HttpBody;

use crate::auth::{Denial, Gate};
use crate::conn::connection::Connection;
use crate::principal::Principal;
use crate::protocol::incoming::{self, Incoming};
use crate::shared::Shared;
use bytes::Bytes;
use hyper::body::Body;
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::sync::watch;

/// How long a client may take to send a request's headers, and how long an
/// idle keep-alive connection stays open (hyper starts the same timer when
/// the connection waits for its next request): 30 s.
pub(crate) const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a request body may take to arrive once its headers have: 30 s
/// (an 8 MiB body at 280 KB/s).
pub(crate) const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(30);

/// The bytes of request bodies all connections together may hold while
/// they arrive: 64 MiB (eight bodies at the default message limit).
pub(crate) const DEFAULT_BODY_BUDGET: usize = 64 * 1024 * 1024;

/// How long a response may make no write progress (a client that does not
/// read) before its connection is closed: 30 s.
pub(crate) const DEFAULT_WRITE_TIMEOUT: Duration = Duration::from_secs(30);

/// Long-lived event streams (2026-07-28 `subscriptions/listen`, legacy GET)
/// one client may hold open at once: 32.
pub(crate) const DEFAULT_STREAMS_PER_CLIENT: usize = 32;

/// What the HTTP front door allows.
#[derive(Clone, Debug)]
pub(crate) struct HttpConfig {
    /// The body limit (the stdio message limit).
    pub(crate) max_body: usize,
    /// Hosts that `Host` may name (when checked) and that origins may have.
    pub(crate) hosts: Vec<String>,
    /// Whether `Host` is checked (a loopback bind, or hosts were given).
    pub(crate) check_host: bool,
    /// Origins allowed besides those on `hosts`, exactly.
    pub(crate) origins: Vec<String>,
    pub(crate) header_timeout: Duration,
    /// How long a body may take to arrive after its headers.
    pub(crate) body_timeout: Duration,
    /// The bytes of bodies held across connections while they arrive.
    pub(crate) body_budget: usize,
    /// How long a response may make no write progress (built-in server).
    pub(crate) write_timeout: Duration,
    /// Connections served at once by the built-in server; `None`: derived
    /// from the descriptor limit when it starts.
    pub(crate) max_connections: Option<usize>,
    /// Connections one address may hold (built-in server); `None`: a
    /// quarter of `max_connections`.
    pub(crate) max_connections_per_address: Option<usize>,
    /// Event streams one client may hold open.
    pub(crate) streams_per_client: usize,
    /// The one path served (`serve_http`); `None` when mounted by a router.
    pub(crate) path: Option<&'static str>,
    /// The tag in front of minted legacy session ids (`Server::replica_tag`).
    pub(crate) replica_tag: Option<String>,
    /// Authorization (`Server::auth`), if on.
    pub(crate) auth: Option<Arc<Gate>>,
    /// Legacy sessions kept at most, and per client.
    pub(crate) max_sessions: usize,
    pub(crate) sessions_per_client: usize,
}

impl HttpConfig {
    /// The defaults: loopback hosts and origins, `Host` checked.
    pub(crate) fn new(max_body: usize) -> HttpConfig {
        HttpConfig {
            max_body,
            hosts: headers::LOOPBACK_HOSTS
                .iter()
                .map(|h| (*h).to_owned())
                .collect(),
            check_host: true,
            origins: Vec::new(),
            header_timeout: DEFAULT_HEADER_TIMEOUT,
            body_timeout: DEFAULT_BODY_TIMEOUT,
            body_budget: DEFAULT_BODY_BUDGET,
            write_timeout: DEFAULT_WRITE_TIMEOUT,
            max_connections: None,
            max_connections_per_address: None,
            streams_per_client: DEFAULT_STREAMS_PER_CLIENT,
            path: None,
            replica_tag: None,
            auth: None,
            max_sessions: sessions::MAX_SESSIONS,
            sessions_per_client: sessions::SESSIONS_PER_CLIENT,
        }
    }
}

/// The MCP endpoint as a `tower::Service` (made by
/// [`Server::http_service`](crate::Server::http_service)): mount it on one
/// path of any hyper- or tower-based server, e.g. with axum:
/// `Router::new().route_service("/mcp", service)`.
///
/// It answers POST (and, for legacy sessions, GET and DELETE) on whatever
/// path it is mounted; it never fails (`Error = Infallible`): problems are
/// HTTP statuses with JSON-RPC error bodies.
#[derive(Clone, Debug)]
pub struct HttpService {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    shared: Arc<Shared>,
    config: HttpConfig,
    sessions: Arc<sessions::Sessions>,
    /// POSTs being answered (streams included), bounded by the server's
    /// pending-call limit.
    requests: Arc<AtomicUsize>,
    /// The bytes of request bodies being received.
    budget: Arc<body::BodyBudget>,
    /// The event streams each client holds open.
    streams: Arc<ClientQuota>,
    /// Set when the server stops: subscriptions send their final responses.
    stop: watch::Sender<bool>,
}

impl HttpService {
    pub(crate) fn new(shared: Arc<Shared>, config: HttpConfig) -> HttpService {
        HttpService {
            inner: Arc::new(Inner {
                shared,
                sessions: Arc::new(sessions::Sessions::new(
                    config.replica_tag.clone(),
                    config.max_sessions,
                    config.sessions_per_client,
                )),
                budget: body::BodyBudget::new(config.body_budget),
                streams: ClientQuota::new(config.streams_per_client),
                config,
                requests: Arc::default(),
                stop: watch::channel(false).0,
            }),
        }
    }
}

impl<B> tower_service::Service<Request<B>> for HttpService
where
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Response = Response<HttpBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response<HttpBody>, Infallible>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let inner = Arc::clone(&self.inner);
        Box::pin(async move { Ok(answer(&inner, request).await) })
    }
}

/// The health route of the built-in server ([`serve`]): `GET /health`
/// answers `200 ok` while the process accepts connections, for load
/// balancers' and orchestrators' probes.
pub(crate) const HEALTH_PATH: &str = "/health";

/// A replica tag as given, if it can go into a session id and an nginx
/// `map` regex unescaped: 1 to 63 ASCII letters, digits, `-` or `_` (no
/// `.`, which ends the tag in the id).
pub(crate) fn checked_replica_tag(tag: String) -> Result<String, crate::Error> {
    let fits = (1..=63).contains(&tag.len())
        && tag
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if fits {
        Ok(tag)
    } else {
        Err(crate::Error::InvalidReplicaTag(tag))
    }
}

/// The checks every request passes, then the method's handler.
async fn answer<B>(inner: &Arc<Inner>, request: Request<B>) -> Response<HttpBody>
where
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let config = &inner.config;
    let (parts, body) = request.into_parts();
    if let Some(refusal) = check_single_host(&parts.headers) {
        return refusal;
    }
    // Before the Host check: probes name the replica by its address, not
    // by an allowed host, and the answer reveals nothing.
    if config.path.is_some()
        && parts.uri.path() == HEALTH_PATH
        && matches!(parts.method, Method::GET | Method::HEAD)
    {
        let mut response = Response::new(HttpBody::full(Bytes::from_static(b"ok\n")));
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; charset=utf-8"),
        );
        return response;
    }
    // The metadata document is public: clients read it before they have a
    // token, from any origin.
    if let Some(gate) = &config.auth
        && gate.is_metadata_path(parts.uri.path())
    {
        return metadata(gate, &inner.shared, &parts.method);
    }
    if let Some(refusal) = check_origin_and_host(config, &parts.headers) {
        return refusal;
    }
    if config.path.is_some_and(|path| parts.uri.path() != path) {
        return refuse(StatusCode::NOT_FOUND, "Not Found: the MCP endpoint is /mcp");
    }
    // Every method on the endpoint is authenticated, before the body is
    // read: an unauthenticated client costs no more than its headers.
    let principal = match &config.auth {
        None => None,
        Some(gate) => {
            let needed = named_tool_scopes(&inner.shared, &parts.headers);
            match gate
                .authenticate(&parts.headers, parts.uri.query(), &needed)
                .await
            {
                Ok(principal) => Some(principal),
                Err(denial) => return denied(denial),
            }
        }
    };
    // Whom the per-client limits count this request against.
    let client = ClientKey::of(principal.as_deref(), &parts.extensions);
    let caller = Caller {
        client: client.label(),
        principal,
    };
    let legacy_session = parts.headers.contains_key(headers::SESSION_ID);
    match parts.method {
        Method::POST => {}
        Method::GET if legacy_session => {
            if !accepts(&parts.headers).1 {
                return refuse(
                    StatusCode::NOT_ACCEPTABLE,
                    "Not Acceptable: Accept must list text/event-stream",
                );
            }
            let Some(slot) = inner.streams.enter(client) else {
                return too_many_streams(inner.streams.max());
            };
            return legacy::get(&inner.shared, &inner.sessions, &parts.headers, caller)
                .map(|body| body.holding(slot));
        }
        Method::DELETE if legacy_session => {
            return legacy::delete(&inner.sessions, &parts.headers, caller.principal.as_ref());
        }
        Method::GET | Method::DELETE => {
            return refuse(
                StatusCode::METHOD_NOT_ALLOWED,
                "Method Not Allowed: without Mcp-Session-Id this endpoint takes POST only (the 2026-07-28 era has no GET stream or session to delete)",
            )
            .with_header(header::ALLOW, "POST");
        }
        _ => {
            return refuse(
                StatusCode::METHOD_NOT_ALLOWED,
                "Method Not Allowed: use POST",
            )
            .with_header(header::ALLOW, "POST");
        }
    }
    let json = |v: &HeaderValue| {
        v.to_str()
            .ok()
            .and_then(|t| t.split(';').next())
            .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"))
    };
    if !parts.headers.get(header::CONTENT_TYPE).is_some_and(json) {
        return refuse(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Unsupported Media Type: the body must be application/json",
        );
    }
    if accepts(&parts.headers) != (true, true) {
        return refuse(
            StatusCode::NOT_ACCEPTABLE,
            "Not Acceptable: Accept must list application/json and text/event-stream",
        );
    }
    let Some(counted) = Counted::enter(&inner.requests, inner.shared.limits.max_pending) else {
        return refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            "Service Unavailable: too many requests in flight; retry shortly",
        )
        .with_header(header::RETRY_AFTER, "1");
    };
    let declared = parts
        .headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    // `_held` keeps the body's bytes counted until this request is handed
    // on (the message borrows them until then).
    let (body, _held) = match body::read(config, &inner.budget, declared, body).await {
        Ok(read) => read,
        Err(refusal) => return refusal,
    };
    // The body is parsed once, its params included: the era choice, the
    // header ladder, the scope check and the call all read that one parse.
    let message = incoming::parse(&body);
    // A listen stream lives until the server stops: counted per client.
    let slot = match &message {
        Ok(Incoming::Request { method, .. }) if *method == "subscriptions/listen" => {
            match inner.streams.enter(client) {
                Some(slot) => Some(slot),
                None => return too_many_streams(inner.streams.max()),
            }
        }
        _ => None,
    };
    let stop = inner.stop.subscribe();
    let gate = config.auth.as_deref();
    let response = if legacy::claims(&parts.headers, &message) {
        legacy::post(
            &inner.shared,
            &stop,
            &inner.sessions,
            &parts.headers,
            message,
            caller,
            gate,
        )
        .await
    } else {
        modern::post(&inner.shared, &stop, &parts.headers, message, caller, gate).await
    };
    response.map(|body| body.holding((counted, slot)))
}

/// `429`: the client holds its quota of event streams.
fn too_many_streams(max: usize) -> Response<HttpBody> {
    refuse(
        StatusCode::TOO_MANY_REQUESTS,
        &format!(
            "Too Many Requests: this client already holds {max} open event streams (subscriptions/listen or GET; Server::max_streams_per_client); close one or retry later"
        ),
    )
    .with_header(header::RETRY_AFTER, "5")
    // Refused clients do not keep a connection (a descriptor) for it.
    .with_header(header::CONNECTION, "close")
}

/// The scopes of the tool a 2026-07-28 `tools/call` names in its headers
/// (for the `scope` of a `401`, before the body is read); none otherwise.
fn named_tool_scopes(shared: &Shared, headers: &hyper::HeaderMap) -> Vec<String> {
    let method = headers::single(headers, &headers::METHOD).ok().flatten();
    if method.as_deref() != Some("tools/call") {
        return Vec::new();
    }
    let Some(name) = headers::single(headers, &headers::NAME).ok().flatten() else {
        return Vec::new();
    };
    shared
        .tools
        .registry()
        .get(&name)
        .map(|(_, tool)| tool.scopes().to_vec())
        .unwrap_or_default()
}

/// The protected resource metadata document (GET or HEAD).
fn metadata(gate: &Gate, shared: &Shared, method: &Method) -> Response<HttpBody> {
    if *method != Method::GET && *method != Method::HEAD {
        return refuse(
            StatusCode::METHOD_NOT_ALLOWED,
            "Method Not Allowed: the metadata document takes GET",
        )
        .with_header(header::ALLOW, "GET, HEAD");
    }
    let registry = shared.tools.registry();
    let document = gate.metadata(registry.tools().flat_map(|tool| tool.scopes()));
    json_response(StatusCode::OK, document)
}

/// A refusal of the authorization gate, with its `WWW-Authenticate`.
fn denied(denial: Denial) -> Response<HttpBody> {
    let response = refuse(denial.status, &denial.message);
    with_challenge(response, denial)
}

/// `denial`'s status and headers on `response`.
pub(super) fn with_challenge(
    mut response: Response<HttpBody>,
    denial: Denial,
) -> Response<HttpBody> {
    *response.status_mut() = denial.status;
    if let Some(challenge) = denial.challenge
        && let Ok(value) = HeaderValue::from_str(&challenge)
    {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, value);
    }
    if denial.status == StatusCode::SERVICE_UNAVAILABLE {
        response = response.with_header(header::RETRY_AFTER, "5");
    }
    response
}

/// Who sent a request: its verified principal (with authorization) and
/// the client it counts against for the per-client limits.
#[derive(Clone, Debug, Default)]
pub(crate) struct Caller {
    pub(crate) principal: Option<Arc<Principal>>,
    /// [`ClientKey::label`]: `None` when the client cannot be told apart.
    pub(crate) client: Option<Arc<str>>,
}

impl Caller {
    /// `connection`, serving this caller.
    pub(super) fn on(&self, connection: Connection) -> Connection {
        connection
            .with_client_key(self.client.clone())
            .with_principal(self.principal.clone())
    }
}

/// A POST being answered, counted until its response body is dropped.
struct Counted(Arc<AtomicUsize>);

impl Counted {
    /// Counts one more, unless `max` are being answered already.
    fn enter(count: &Arc<AtomicUsize>, max: usize) -> Option<Counted> {
        count
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < max).then_some(n + 1)
            })
            .ok()
            .map(|_| Counted(Arc::clone(count)))
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}
