//! Streamable HTTP: the same sessions behind one endpoint, as a
//! `tower::Service` ([`HttpService`]) and a hyper server loop
//! ([`listener`]).
//!
//! Each POST carries one message. Before the body is read, the front door
//! ([`front`]) takes every request through its ordered steps: one `Host`,
//! health, the metadata document, `Origin` and `Host` (DNS rebinding), the
//! path, the bearer token, the method, the media types, admission and the
//! body limit. Then [`modern`] runs the 2026-07-28 validation ladder and
//! gives the request a session of its own, whose frames are that POST's
//! response: JSON when the result comes first, SSE ([`sse`]) when
//! notifications precede it; [`legacy`] serves the `Mcp-Session-Id` eras.
//! On the built-in server, the user's tower layers (`Server::http_layer`,
//! [`layer`]) go between the listener and the front door.

mod body;
mod cancel;
mod checks;
pub(crate) mod client_key;
mod front;
mod headers;
mod layer;
mod legacy;
mod listener;
mod modern;
mod respond;
mod resume;
mod sessions;
mod sse;
mod status;

use checks::{WithHeader, json_response, refuse};
use client_key::ClientQuota;
pub(crate) use layer::Wrap;
pub(crate) use listener::{is_loopback, raise_open_file_limit, serve};
pub use sse::HttpBody;

use crate::auth::{Denial, Gate};
use crate::conn::connection::Connection;
use crate::principal::Principal;
use crate::shared::Shared;
use hyper::body::Body;
use hyper::header::{self, HeaderValue};
use hyper::{Request, Response, StatusCode};
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
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
        Box::pin(async move { Ok(front::answer(&inner, request, None).await) })
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
