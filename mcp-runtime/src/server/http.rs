//! The HTTP half of the builder (feature `http`): the front door's
//! settings (hosts, origins, replica tag, authorization; its bounds in
//! `limits`) and the entry points that serve Streamable HTTP.

use super::Server;
use crate::error::Error;
use crate::transport::signal::termination;
use std::io;
use std::sync::Arc;
use std::time::Duration;

mod limits;

/// Logged by `serve_http` when no request-state key is set: at warn when a
/// replica tag says other replicas exist, else at info.
const NO_REQUEST_STATE_KEY: &str = "no request-state key set (Server::request_state_key): a \
    random per-process key seals 2026-07-28 requestState, so replicas will not accept each \
    other's states";

/// What the HTTP front door allows, as set on the builder.
#[derive(Debug, Default)]
pub(super) struct HttpSettings {
    hosts: Option<Vec<String>>,
    origins: Vec<String>,
    header_timeout: Option<Duration>,
    body_timeout: Option<Duration>,
    body_budget: Option<usize>,
    write_timeout: Option<Duration>,
    max_connections: Option<usize>,
    max_connections_per_address: Option<usize>,
    streams_per_client: Option<usize>,
    replica_tag: Option<String>,
    auth: Option<crate::auth::Auth>,
    max_sessions: Option<usize>,
    sessions_per_client: Option<usize>,
    /// [`Server::max_sse_unwritten`]; `None` for the default.
    pub(super) sse_unwritten: Option<usize>,
    /// [`Server::http_layer`].
    layer: Option<crate::transport::http::Wrap>,
}

impl HttpSettings {
    /// What can be checked before serving (the replica tag).
    pub(super) fn check(&self) -> Result<(), Error> {
        if let Some(tag) = &self.replica_tag {
            crate::transport::http::checked_replica_tag(tag.clone())?;
        }
        Ok(())
    }
}

impl Server {
    /// HTTP: the host names (no port) that the `Host` header may carry and
    /// that an `Origin` may have, replacing the default `localhost`,
    /// `127.0.0.1` and `[::1]`. Setting them turns the `Host` check on for
    /// every bind address (by default it is on only for a loopback bind
    /// and in [`Server::http_service`]); a request naming another host
    /// gets `403`, which stops DNS-rebinding attacks. `Host` must be a host
    /// and optional `:port` of digits, nothing else: `localhost:80@evil.com`
    /// or `[::1]evil` is `403`, two `Host` headers are `400`. Write IPv6
    /// addresses in brackets (`[::1]`), as `Host` carries them.
    pub fn allowed_hosts<S: Into<String>>(mut self, hosts: impl IntoIterator<Item = S>) -> Server {
        self.http.hosts = Some(hosts.into_iter().map(Into::into).collect());
        self
    }

    /// HTTP: origins (`https://app.example.com`, exact) allowed besides
    /// those on the allowed hosts. A request with another `Origin` gets
    /// `403`; one without `Origin` (a non-browser client) is fine. An origin
    /// on an allowed host must be exactly `http(s)://host[:port]` (no
    /// userinfo, path or trailing characters), and there must be one.
    pub fn allowed_origins<S: Into<String>>(
        mut self,
        origins: impl IntoIterator<Item = S>,
    ) -> Server {
        self.http.origins = origins.into_iter().map(Into::into).collect();
        self
    }

    /// HTTP: this replica's tag, put in front of each legacy
    /// `Mcp-Session-Id` it mints (`r2.` and then the usual 32 random hex
    /// digits), so a load balancer in front of several replicas can send a
    /// session's requests to the process that holds it (`deploy/nginx.conf`
    /// routes on it with a `map`). 1 to 63 ASCII letters, digits, `-` or
    /// `_` (a Kubernetes pod name fits); anything else is refused when
    /// serving starts ([`Error::InvalidReplicaTag`]). The 2026-07-28 era has
    /// no sessions and ignores it.
    pub fn replica_tag(mut self, tag: impl Into<String>) -> Server {
        self.http.replica_tag = Some(tag.into());
        self
    }

    /// HTTP: makes the server an OAuth 2.1 resource server (see
    /// [`auth`](crate::auth) for every status it answers). Each request
    /// to the MCP endpoint needs `Authorization: Bearer <token>`, which
    /// `auth`'s verifier turns into the [`Principal`](crate::Principal)
    /// tools read with [`Context::principal`](crate::Context::principal);
    /// `tools/call` of a tool with scopes ([`ToolBuilder::scopes`](crate::ToolBuilder::scopes))
    /// needs them all; a legacy session serves only the subject that
    /// opened it. The metadata document (RFC 9728) is served, open to all,
    /// at `/.well-known/oauth-protected-resource` and that path followed by
    /// the canonical URI's path. Stdio ignores this setting: there the
    /// user who started the server is the caller (MCP authorization says
    /// stdio servers take credentials from their environment).
    ///
    /// Serving fails with [`Error::InvalidAuth`] when the canonical URI is
    /// not absolute or no authorization server is given.
    pub fn auth(mut self, auth: crate::auth::Auth) -> Server {
        self.http.auth = Some(auth);
        self
    }

    /// HTTP, built-in server ([`Server::serve_http`]): wraps the endpoint
    /// in a [`tower_layer::Layer`] of your own: tracing, CORS, rate or
    /// concurrency limits, authentication of your own, metrics (tower-http's
    /// layers and tower's `ServiceBuilder` are layers). The layered service
    /// sees every request the listener accepts (`/health`, the metadata
    /// document and the MCP endpoint, before any of their checks), with the
    /// peer's [`SocketAddr`](std::net::SocketAddr) in its extensions, and
    /// may change the response (add a header) or answer itself (refuse).
    /// Requests that arrive during the drain are answered `503` before it.
    ///
    /// A second call replaces the first layer: combine several with
    /// `ServiceBuilder` or [`tower_layer::Stack`]. If the layered service
    /// fails (a `tower` timeout or load shedding: `Err` rather than a
    /// response), the client gets `500` and the error is logged; map such
    /// errors to responses inside the layer for another status. Without a
    /// layer nothing is added to a request's cost; with one, a clone of
    /// the layered service, a boxed future and a boxed body per request.
    ///
    /// Under a router ([`Server::http_service`]) the layer does not apply:
    /// layer the router, or the returned service, yourself.
    ///
    /// ```no_run
    /// use hyper::header::{HeaderName, HeaderValue};
    /// use hyper::{Request, Response, StatusCode};
    /// use mcpfn_runtime::{Server, tool, tools};
    /// use std::sync::Arc;
    /// use std::sync::atomic::{AtomicU64, Ordering};
    /// use std::task::{Context, Poll};
    ///
    /// /// Adds `Access-Control-Allow-Origin: *` and counts requests.
    /// #[derive(Clone)]
    /// struct Cors<S> {
    ///     inner: S,
    ///     seen: Arc<AtomicU64>,
    /// }
    ///
    /// impl<S, B, R> tower_service::Service<Request<B>> for Cors<S>
    /// where
    ///     S: tower_service::Service<Request<B>, Response = Response<R>>,
    ///     S::Future: Send + 'static,
    /// {
    ///     type Response = Response<R>;
    ///     type Error = S::Error;
    ///     type Future = std::pin::Pin<
    ///         Box<dyn Future<Output = Result<Response<R>, S::Error>> + Send>,
    ///     >;
    ///
    ///     fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
    ///         self.inner.poll_ready(cx)
    ///     }
    ///
    ///     fn call(&mut self, request: Request<B>) -> Self::Future {
    ///         self.seen.fetch_add(1, Ordering::Relaxed);
    ///         let answer = self.inner.call(request);
    ///         Box::pin(async move {
    ///             let mut response = answer.await?;
    ///             response.headers_mut().insert(
    ///                 HeaderName::from_static("access-control-allow-origin"),
    ///                 HeaderValue::from_static("*"),
    ///             );
    ///             Ok(response)
    ///         })
    ///     }
    /// }
    ///
    /// #[tool]
    /// /// Adds two numbers.
    /// fn add(a: i64, b: i64) -> i64 {
    ///     a + b
    /// }
    ///
    /// #[tokio::main(flavor = "current_thread")]
    /// async fn main() -> std::io::Result<()> {
    ///     let seen = Arc::new(AtomicU64::new(0));
    ///     let layer = tower_layer::layer_fn(move |inner| Cors {
    ///         inner,
    ///         seen: Arc::clone(&seen),
    ///     });
    ///     Server::new("calc", "1.0.0")
    ///         .tools(tools![add])
    ///         .allowed_origins(["https://app.example.com"])
    ///         .http_layer(layer)
    ///         .serve_http("127.0.0.1:8080")
    ///         .await
    /// }
    /// ```
    ///
    /// (`tower-layer`, `tower-service` and `hyper` are the crates that
    /// example names; tower-http's `CorsLayer` goes in the same place.)
    pub fn http_layer<L, S, B>(mut self, layer: L) -> Server
    where
        L: tower_layer::Layer<crate::HttpService, Service = S> + Send + Sync + 'static,
        S: tower_service::Service<
                hyper::Request<hyper::body::Incoming>,
                Response = hyper::Response<B>,
            > + Clone
            + Send
            + 'static,
        S::Future: Send + 'static,
        S::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
        B: hyper::body::Body<Data = bytes::Bytes> + Send + 'static,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        self.http.layer = Some(crate::transport::http::Wrap::new(layer));
        self
    }

    /// The MCP endpoint as a `tower::Service`, to mount next to other
    /// routes (e.g. axum's `Router::route_service("/mcp", service)`).
    /// `Host` is checked against [`Server::allowed_hosts`] (loopback names
    /// by default); the server's limits apply to all its requests together,
    /// as do the body timeout and budget and the per-client stream quota
    /// ([`Server::http_body_timeout`], [`Server::http_body_budget`],
    /// [`Server::max_streams_per_client`]). The write timeout, the
    /// connection limit and the drain's `503`s are the built-in server's:
    /// under a router, its own settings govern connections.
    ///
    /// A registration mistake is returned as for [`Server::serve_stdio`].
    pub fn http_service(self) -> Result<crate::HttpService, Error> {
        if self.http.layer.is_some() {
            tracing::warn!(
                "Server::http_layer applies to serve_http only; http_service ignores it (layer the router instead)"
            );
        }
        self.into_http(true, None).map(|(service, _, _)| service)
    }

    /// Serves Streamable HTTP on `addr`, path `/mcp`, until SIGTERM or
    /// SIGINT, then stops accepting, lets responses in flight finish within
    /// the drain timeout ([`Server::drain_timeout`]), and returns. Logs to
    /// stderr as [`Server::serve_stdio`] does.
    ///
    /// Safe by default: bind to `127.0.0.1` unless the server must be
    /// reachable from elsewhere; on a loopback address the `Host` header is
    /// checked (DNS rebinding), `Origin` always (see
    /// [`Server::allowed_origins`]). Bodies over the message limit
    /// ([`Server::max_message_size`]) get `413`, bodies slower than
    /// [`Server::http_body_timeout`] `408`, bodies past
    /// [`Server::http_body_budget`] `503`; a response its client does not
    /// read is dropped after [`Server::http_write_timeout`]. The soft
    /// open-file limit is raised to the hard one first, and connections are
    /// capped below it ([`Server::max_http_connections`]). During the drain,
    /// a request on an open keep-alive connection gets `503` with
    /// `Connection: close` and `Retry-After: 1`.
    ///
    /// `GET /health` answers `200 ok` while the server accepts connections,
    /// for load balancers' and orchestrators' probes (before the `Host`
    /// check: probes name the replica by its address). Tracing, CORS or
    /// limits of your own go in front with [`Server::http_layer`].
    pub async fn serve_http(self, addr: impl tokio::net::ToSocketAddrs) -> io::Result<()> {
        self.check_registration()?;
        crate::logging::init_stderr();
        // Before binding, and before the "serving" line: each connection is a
        // descriptor, and the limit the connection cap is derived from must
        // be the final one.
        let files = crate::transport::http::raise_open_file_limit();
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let result = self.serve_http_on(listener, files, termination()).await;
        crate::logging::flush();
        result
    }

    /// [`Server::serve_http`] on a bound `listener` until `shutdown`
    /// completes (`files`: the soft open-file limit).
    pub(crate) async fn serve_http_on(
        self,
        listener: tokio::net::TcpListener,
        files: Option<u64>,
        shutdown: impl std::future::Future<Output = ()>,
    ) -> io::Result<()> {
        let local = listener.local_addr()?;
        let check_host = crate::transport::http::is_loopback(&local) || self.http.hosts.is_some();
        let (name, version) = (self.name.clone(), self.version.clone());
        let key_given = self.request_state_key.is_some();
        let replicated = self.http.replica_tag.is_some();
        let (service, layer, drain) = self
            .into_http(check_host, Some("/mcp"))
            .map_err(|err| io::Error::new(io::ErrorKind::InvalidInput, err.to_string()))?;
        // The same target as the stdio startup line's.
        tracing::info!(
            target: "mcpfn_runtime::server",
            server = %name,
            version = %version,
            transport = "http",
            address = %local,
            pid = std::process::id(),
            "serving"
        );
        // Only a deployment with replicas (a replica tag set) needs a shared
        // key; a single process is fine with its own, so it hears at info.
        if !key_given {
            if replicated {
                tracing::warn!("{NO_REQUEST_STATE_KEY}");
            } else {
                tracing::info!("{NO_REQUEST_STATE_KEY}");
            }
        }
        crate::transport::http::serve(listener, service, layer, drain, files, shutdown).await
    }

    /// The HTTP service of this server, the user's layer and the drain
    /// timeout.
    fn into_http(
        mut self,
        check_host: bool,
        path: Option<&'static str>,
    ) -> Result<
        (
            crate::HttpService,
            Option<crate::transport::http::Wrap>,
            Duration,
        ),
        Error,
    > {
        let settings = std::mem::take(&mut self.http);
        let gate = settings.auth.map(crate::auth::Gate::new).transpose()?;
        let hide = gate.as_ref().is_some_and(|g| g.hide_unauthorized_tools);
        let (shared, max, drain) = self.into_shared(hide)?;
        let mut config = crate::transport::http::HttpConfig::new(max);
        if let Some(hosts) = settings.hosts {
            config.hosts = hosts;
        }
        config.check_host = check_host;
        config.path = path;
        config.origins = settings.origins;
        if let Some(timeout) = settings.header_timeout {
            config.header_timeout = timeout;
        }
        if let Some(timeout) = settings.body_timeout {
            config.body_timeout = timeout;
        }
        if let Some(bytes) = settings.body_budget {
            config.body_budget = bytes;
        }
        if let Some(timeout) = settings.write_timeout {
            config.write_timeout = timeout;
        }
        config.max_connections = settings.max_connections;
        config.max_connections_per_address = settings.max_connections_per_address;
        if let Some(streams) = settings.streams_per_client {
            config.streams_per_client = streams;
        }
        if let Some(tag) = settings.replica_tag {
            config.replica_tag = Some(crate::transport::http::checked_replica_tag(tag)?);
        }
        config.auth = gate.map(Arc::new);
        if let Some(max) = settings.max_sessions {
            config.max_sessions = max;
        }
        if let Some(per_client) = settings.sessions_per_client {
            config.sessions_per_client = per_client;
        }
        Ok((
            crate::transport::http::HttpService::new(shared, config),
            settings.layer,
            drain,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::HttpService;
    use hyper::body::Incoming;
    use hyper::header::{HeaderName, HeaderValue};
    use hyper::{Request, Response, StatusCode};
    use std::net::SocketAddr;
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::{Context, Poll};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    type BoxError = Box<dyn std::error::Error + Send + Sync>;

    /// What the test layer saw.
    #[derive(Default)]
    struct Seen {
        requests: AtomicUsize,
        peers: Mutex<Vec<SocketAddr>>,
    }

    /// Counts requests and notes their peers; refuses `x-refuse` itself
    /// (`403`), fails `x-fail` (an `Err`), adds
    /// `access-control-allow-origin: *` to every answer.
    #[derive(Clone)]
    struct Cors {
        inner: HttpService,
        seen: Arc<Seen>,
    }

    impl tower_service::Service<Request<Incoming>> for Cors {
        type Response = Response<crate::HttpBody>;
        type Error = BoxError;
        type Future = std::pin::Pin<
            Box<dyn Future<Output = Result<Response<crate::HttpBody>, BoxError>> + Send>,
        >;

        fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
            Poll::Ready(Ok(()))
        }

        fn call(&mut self, request: Request<Incoming>) -> Self::Future {
            self.seen.requests.fetch_add(1, Ordering::SeqCst);
            if let Some(peer) = request.extensions().get::<SocketAddr>() {
                self.seen.peers.lock().unwrap().push(*peer);
            }
            let refuse = request.headers().contains_key("x-refuse");
            let fail = request.headers().contains_key("x-fail");
            let mut inner = self.inner.clone();
            Box::pin(async move {
                let mut response = if refuse {
                    let mut response = Response::new(crate::HttpBody::default());
                    *response.status_mut() = StatusCode::FORBIDDEN;
                    response
                } else if fail {
                    return Err("this layer fails".into());
                } else {
                    let Ok(response) = tower_service::Service::call(&mut inner, request).await;
                    response
                };
                response.headers_mut().insert(
                    HeaderName::from_static("access-control-allow-origin"),
                    HeaderValue::from_static("*"),
                );
                Ok(response)
            })
        }
    }

    /// Sends `request` (a whole HTTP/1.1 request, `Connection: close`) to
    /// `addr`: the status and the head of the response.
    async fn send(addr: SocketAddr, request: &str) -> (u16, String) {
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).await.unwrap();
        let status = answer[9..12].parse().unwrap();
        let head = answer
            .split("\r\n\r\n")
            .next()
            .unwrap()
            .to_ascii_lowercase();
        (status, head)
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_layer_sees_every_request_and_may_add_headers_or_refuse() {
        let seen = Arc::new(Seen::default());
        let layer = {
            let seen = Arc::clone(&seen);
            tower_layer::layer_fn(move |inner| Cors {
                inner,
                seen: Arc::clone(&seen),
            })
        };
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = Server::new("layered", "1").http_layer(layer);
        let serving = tokio::spawn(server.serve_http_on(listener, None, async move {
            let _ = stopped.await;
        }));
        let cors = "access-control-allow-origin: *";

        let (status, head) = send(
            addr,
            "GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
        )
        .await;
        assert_eq!(status, 200, "{head}");
        assert!(head.contains(cors), "{head}");

        // The front door's own refusal goes out through the layer too.
        let (status, head) = send(
            addr,
            "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\nAccept: */*\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        )
        .await;
        assert_eq!(status, 415, "{head}");
        assert!(head.contains(cors), "{head}");

        // A legacy handshake, answered by the endpoint.
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
        let (status, head) = send(
            addr,
            &format!(
                "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            ),
        )
        .await;
        assert_eq!(status, 200, "{head}");
        assert!(head.contains(cors), "{head}");
        assert!(head.contains("mcp-session-id:"), "{head}");

        // Refused by the layer: the endpoint's checks never ran (no Host).
        let (status, head) = send(
            addr,
            "POST /mcp HTTP/1.1\r\nx-refuse: 1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        )
        .await;
        assert_eq!(status, 403, "{head}");
        assert!(head.contains(cors), "{head}");

        // A layer that fails: 500, and the connection closes.
        let (status, head) = send(
            addr,
            "GET /health HTTP/1.1\r\nHost: localhost\r\nx-fail: 1\r\nConnection: close\r\n\r\n",
        )
        .await;
        assert_eq!(status, 500, "{head}");
        assert!(head.contains("connection: close"), "{head}");

        assert_eq!(seen.requests.load(Ordering::SeqCst), 5);
        let peers = seen.peers.lock().unwrap().clone();
        assert_eq!(peers.len(), 5);
        assert!(peers.iter().all(|peer| peer.ip().is_loopback()));

        stop.send(()).unwrap();
        serving.await.unwrap().unwrap();
    }
}
