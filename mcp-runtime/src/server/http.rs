//! The HTTP half of the builder (feature `http`): the front door's
//! settings (hosts, origins, header timeout, replica tag, authorization) and
//! the entry points that serve Streamable HTTP.

use super::Server;
use crate::error::Error;
use crate::transport::signal::termination;
use std::io;
use std::sync::Arc;
use std::time::Duration;

/// What the HTTP front door allows, as set on the builder.
#[derive(Debug, Default)]
pub(super) struct HttpSettings {
    hosts: Option<Vec<String>>,
    origins: Vec<String>,
    header_timeout: Option<Duration>,
    replica_tag: Option<String>,
    auth: Option<crate::auth::Auth>,
    /// [`Server::max_sse_unwritten`]; `None` for the default.
    pub(super) sse_unwritten: Option<usize>,
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
    /// gets `403`, which stops DNS-rebinding attacks.
    pub fn allowed_hosts<S: Into<String>>(mut self, hosts: impl IntoIterator<Item = S>) -> Server {
        self.http.hosts = Some(hosts.into_iter().map(Into::into).collect());
        self
    }

    /// HTTP: origins (`https://app.example.com`, exact) allowed besides
    /// those on the allowed hosts. A request with another `Origin` gets
    /// `403`; one without `Origin` (a non-browser client) is fine.
    pub fn allowed_origins<S: Into<String>>(
        mut self,
        origins: impl IntoIterator<Item = S>,
    ) -> Server {
        self.http.origins = origins.into_iter().map(Into::into).collect();
        self
    }

    /// HTTP: how long a client may take to send a request's headers, which
    /// is also how long an idle keep-alive connection stays open (default
    /// 30 s).
    pub fn http_header_timeout(mut self, timeout: Duration) -> Server {
        self.http.header_timeout = Some(timeout);
        self
    }

    /// HTTP: how many bytes of messages each event stream (the SSE
    /// response to one request, or a legacy session's GET stream) may hold
    /// that the client has not read yet: 1 MiB by default. Past it, the
    /// notifications the stream's calls send (progress, log messages) are
    /// dropped and counted, with a warning in the log at most every ten
    /// seconds per stream; the response and requests to the client are
    /// never dropped. A client that stops reading thus costs the server at
    /// most this much per stream, plus hyper's and the kernel's socket
    /// buffers.
    pub fn max_sse_unwritten(mut self, bytes: usize) -> Server {
        self.http.sse_unwritten = Some(bytes);
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

    /// The MCP endpoint as a `tower::Service`, to mount next to other
    /// routes (e.g. axum's `Router::route_service("/mcp", service)`).
    /// `Host` is checked against [`Server::allowed_hosts`] (loopback names
    /// by default); the server's limits apply to all its requests together.
    ///
    /// A registration mistake is returned as for [`Server::serve_stdio`].
    pub fn http_service(self) -> Result<crate::HttpService, Error> {
        self.into_http(true, None).map(|(service, _)| service)
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
    /// ([`Server::max_message_size`]) get `413`.
    ///
    /// `GET /health` answers `200 ok` while the server accepts connections,
    /// for load balancers' and orchestrators' probes (before the `Host`
    /// check: probes name the replica by its address).
    pub async fn serve_http(self, addr: impl tokio::net::ToSocketAddrs) -> io::Result<()> {
        self.check_registration()?;
        crate::logging::init_stderr();
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let local = listener.local_addr()?;
        let check_host = crate::transport::http::is_loopback(&local) || self.http.hosts.is_some();
        let (name, version) = (self.name.clone(), self.version.clone());
        let key_given = self.request_state_key.is_some();
        let (service, drain) = self
            .into_http(check_host, Some("/mcp"))
            .map_err(|err| io::Error::new(io::ErrorKind::InvalidInput, err.to_string()))?;
        // The same target as the stdio startup line's.
        tracing::info!(
            target: "mcp_runtime::server",
            server = %name,
            version = %version,
            transport = "http",
            address = %local,
            pid = std::process::id(),
            "serving"
        );
        if !key_given {
            tracing::warn!(
                "no request-state key set (Server::request_state_key): a random per-process key \
                 seals 2026-07-28 requestState, so replicas will not accept each other's states"
            );
        }
        let result = crate::transport::http::serve(listener, service, drain, termination()).await;
        crate::logging::flush();
        result
    }

    /// The HTTP service of this server and its drain timeout.
    fn into_http(
        mut self,
        check_host: bool,
        path: Option<&'static str>,
    ) -> Result<(crate::HttpService, Duration), Error> {
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
        if let Some(tag) = settings.replica_tag {
            config.replica_tag = Some(crate::transport::http::checked_replica_tag(tag)?);
        }
        config.auth = gate.map(Arc::new);
        Ok((
            crate::transport::http::HttpService::new(shared, config),
            drain,
        ))
    }
}
