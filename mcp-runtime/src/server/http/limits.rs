//! The HTTP front door's bounds on the builder: legacy sessions,
//! connections, header, body and write timeouts, event streams and their
//! unwritten bytes, per client and in all.

use crate::Server;
use std::time::Duration;

impl Server {
    /// HTTP: how many legacy (`initialize`) sessions the process keeps at
    /// once (1,024 by default). When the table is full, a new `initialize`
    /// ends the least recently used session that has no open GET stream
    /// (else the least recently used one of the client holding the most),
    /// so a new client always gets one; the ended session's id then gets
    /// `404`, which tells its client to initialize again.
    pub fn max_legacy_sessions(mut self, sessions: usize) -> Server {
        self.http.max_sessions = Some(sessions);
        self
    }

    /// HTTP: how many legacy sessions one client may hold (256 by default,
    /// a quarter of [`Server::max_legacy_sessions`]). A client is the
    /// token's issuer and subject with authorization, else the peer's IP
    /// address (behind a proxy without authorization, every client shares
    /// the proxy's). Past it, the client's own least recently used session
    /// without a GET stream is ended; when all have one, `initialize` gets
    /// `429` until the client ends one.
    pub fn max_legacy_sessions_per_client(mut self, sessions: usize) -> Server {
        self.http.sessions_per_client = Some(sessions);
        self
    }

    /// HTTP: how long a client may take to send a request's headers, which
    /// is also how long an idle keep-alive connection stays open (default
    /// 30 s).
    pub fn http_header_timeout(mut self, timeout: Duration) -> Server {
        self.http.header_timeout = Some(timeout);
        self
    }

    /// HTTP: how long a request body may take to arrive once its headers
    /// have (default 30 s, an 8 MiB body at 280 KB/s). A client slower
    /// than that, or one that stalls, gets `408` and its connection is
    /// closed, so it holds neither a connection nor memory for long.
    pub fn http_body_timeout(mut self, timeout: Duration) -> Server {
        self.http.body_timeout = Some(timeout);
        self
    }

    /// HTTP: the bytes of request bodies that all connections together may
    /// hold while their bodies arrive (default 64 MiB, eight bodies at the
    /// default [`Server::max_message_size`]; keep it at least that). A body
    /// that would go past it gets `503` with `Retry-After: 1` and its
    /// connection is closed: many clients stalling large bodies cannot
    /// exhaust memory. Counted with one atomic operation per chunk.
    pub fn http_body_budget(mut self, bytes: usize) -> Server {
        self.http.body_budget = Some(bytes);
        self
    }

    /// HTTP, built-in server ([`Server::serve_http`]): how long a response
    /// may make no write progress, its client reading nothing of it,
    /// before the connection is closed and the response dropped (default
    /// 30 s). An event stream with nothing to send is not affected: the
    /// clock runs only while a write waits.
    pub fn http_write_timeout(mut self, timeout: Duration) -> Server {
        self.http.write_timeout = Some(timeout);
        self
    }

    /// HTTP, built-in server: connections served at once. By default the
    /// soft open-file limit (which `serve_http` first raises to the hard
    /// limit) minus 64 descriptors kept for the process, at least 16. A
    /// connection beyond it is answered `503` with `Retry-After: 1` and
    /// closed at once, so the process never runs out of descriptors.
    pub fn max_http_connections(mut self, connections: usize) -> Server {
        self.http.max_connections = Some(connections);
        self
    }

    /// HTTP, built-in server: connections one peer address (an IPv6
    /// address by its /64) may hold at once; by default a quarter of
    /// [`Server::max_http_connections`]. Its connection beyond that is
    /// answered `503` with `Retry-After: 1` and closed, so one client
    /// holding idle connections cannot take every descriptor. Behind a
    /// proxy, every client shares the proxy's address: raise it there.
    pub fn max_http_connections_per_address(mut self, connections: usize) -> Server {
        self.http.max_connections_per_address = Some(connections);
        self
    }

    /// HTTP: long-lived event streams (2026-07-28 `subscriptions/listen`
    /// POSTs, legacy GET streams) one client may hold open at once
    /// (default 32). A client is the token's issuer and subject with
    /// [`Server::auth`], else the peer's IP address (an IPv6 address by
    /// its /64). [`Server::http_service`] knows the peer only if the
    /// router puts its [`SocketAddr`](std::net::SocketAddr) into the
    /// request's extensions (e.g. from axum's `ConnectInfo`); without it
    /// unauthenticated streams are not capped (one quota shared by all
    /// would let one client use up everyone's). Beyond it: `429` with
    /// `Retry-After: 5`.
    pub fn max_streams_per_client(mut self, streams: usize) -> Server {
        self.http.streams_per_client = Some(streams);
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
}
