//! The hyper server loop: accepting connections (at most the connection
//! limit, with the open-file limit raised first), serving each with
//! [`HttpService`] under the header timeout and a write-idle timeout, and
//! draining at shutdown. The open-file and connection limits are in
//! `descriptors`, the write-idle timeout in `write_idle`.

use super::HttpService;
use super::checks::{WithHeader, refuse};
use super::layer::{Layered, ListenerBody, Wrap};
use super::sse::HttpBody;
use hyper::header;
use hyper::{Request, Response, StatusCode};
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use tokio::sync::{Notify, watch};

mod descriptors;
mod write_idle;
use descriptors::default_max_connections;
pub(crate) use descriptors::raise_open_file_limit;
use write_idle::WriteIdle;

/// Serves `service` on `listener` until `shutdown` completes; then stops
/// accepting, answers requests that arrive on open connections with `503`
/// (`Connection: close`, `Retry-After`) so clients retry elsewhere, lets
/// the responses in flight finish (streams end with their final results),
/// closes the idle connections and returns once all are done or `drain` has
/// passed (what is left is then cancelled as it is dropped). `files` is the
/// soft open-file limit ([`raise_open_file_limit`]), which the connection
/// limit is derived from unless set. `layer` (`Server::http_layer`), if
/// any, goes between the listener's own handling (peer address, drain,
/// the count of responses in flight) and the front door.
pub(crate) async fn serve(
    listener: tokio::net::TcpListener,
    service: HttpService,
    layer: Option<Wrap>,
    drain: Duration,
    files: Option<u64>,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let max_connections = service
        .inner
        .config
        .max_connections
        .unwrap_or_else(|| default_max_connections(files));
    let per_address = service
        .inner
        .config
        .max_connections_per_address
        .unwrap_or(max_connections / 4)
        .max(1);
    tracing::debug!(max_connections, per_address, open_files = ?files, "connection limit");
    let layered = layer.map(|layer| layer.over(service.clone()));
    let timeouts = Timeouts {
        header: service.inner.config.header_timeout,
        write: service.inner.config.write_timeout,
    };
    let (close_idle_tx, close_idle) = watch::channel(false);
    let state = Arc::new(ListenerState::default());
    let mut shutdown = std::pin::pin!(shutdown);
    let mut accept_failed = Throttled::default();
    let mut over_limit = Throttled::default();
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(err) => {
                    // Out of descriptors and the like: wait a little, keep
                    // serving; said once a second at most, or the log is
                    // what fills up.
                    if let Some(suppressed) = accept_failed.due() {
                        tracing::warn!(%err, suppressed, "accepting a connection failed");
                    }
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        // Refused where it costs least: one write into the socket's empty
        // buffer, then the descriptor is closed. One address (an IPv6 /64)
        // holds at most its share, so one client cannot take every
        // descriptor.
        let admitted = if state.connections.load(Ordering::SeqCst) >= max_connections {
            Err((OVER_CAPACITY, LIMIT_REACHED))
        } else {
            AddressCount::enter(&state, super::client_key::bucket(peer.ip()), per_address)
                .ok_or((OVER_CAPACITY_FOR_ADDRESS, ADDRESS_LIMIT_REACHED))
        };
        let held = match admitted {
            Ok(held) => held,
            Err((answer, why)) => {
                let _ = stream.try_write(answer);
                drop(stream);
                if let Some(suppressed) = over_limit.due() {
                    tracing::warn!(max_connections, per_address, suppressed, "{why}");
                }
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        state.connections.fetch_add(1, Ordering::SeqCst);
        let guard = (ConnectionCount(Arc::clone(&state)), held);
        let route = match &layered {
            None => Route::Door(service.clone()),
            Some(layered) => Route::Layered(layered.clone_box()),
        };
        let front = Front {
            route,
            peer,
            state: Arc::clone(&state),
        };
        tokio::spawn(serve_connection(
            stream,
            peer,
            front,
            timeouts,
            close_idle.clone(),
            guard,
        ));
    }
    tracing::info!("shutting down on a signal: no new connections; draining");
    drop(listener);
    // From here a new request on an open connection is answered 503.
    state.draining.store(true, Ordering::SeqCst);
    // Push and subscription streams never end by themselves: end them so
    // their responses finish.
    service.inner.sessions.close_streams();
    service.inner.stop.send_replace(true);
    let drained = tokio::time::timeout(drain, async {
        state
            .wait_for(|state| state.in_flight.load(Ordering::SeqCst) == 0)
            .await;
        // Idle keep-alive connections stayed open so that requests sent on
        // them got the 503 above rather than an EOF; now they close.
        let _ = close_idle_tx.send(true);
        state
            .wait_for(|state| state.connections.load(Ordering::SeqCst) == 0)
            .await;
    })
    .await;
    if drained.is_err() {
        tracing::warn!(
            connections = state.connections.load(Ordering::SeqCst),
            "the drain timeout ended the shutdown; cancelling what is left"
        );
    }
    Ok(())
}

/// The whole answer to a connection beyond the limit.
const OVER_CAPACITY: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: 58\r\n\r\nService Unavailable: too many connections; retry shortly\r\n";

/// Logged (at most once a second) when connections are refused.
const LIMIT_REACHED: &str =
    "the connection limit is reached; refusing connections with 503 (Server::max_http_connections)";
const ADDRESS_LIMIT_REACHED: &str = "an address holds its share of connections; refusing its new \
     ones with 503 (Server::max_http_connections_per_address)";

/// The answer to a connection beyond its address's share.
const OVER_CAPACITY_FOR_ADDRESS: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: 74\r\n\r\nService Unavailable: too many connections from this address; retry later\r\n";

/// What the accept loop and the connections share.
#[derive(Debug, Default)]
struct ListenerState {
    /// Connections open.
    connections: AtomicUsize,
    /// Connections open per address (IPv6 by its /64); an address with none
    /// has no entry.
    per_address: std::sync::Mutex<crate::util::FastMap<std::net::IpAddr, usize>>,
    /// Responses not yet fully written (streams included).
    in_flight: AtomicUsize,
    /// Set at shutdown: new requests get 503.
    draining: AtomicBool,
    /// Woken when either count falls to zero.
    changed: Notify,
}

impl ListenerState {
    /// Waits until `done` holds (checked again whenever a count reaches 0).
    async fn wait_for(&self, done: impl Fn(&ListenerState) -> bool) {
        loop {
            let notified = self.changed.notified();
            if done(self) {
                return;
            }
            notified.await;
        }
    }
}

/// Counts a connection until it ends.
struct ConnectionCount(Arc<ListenerState>);

impl Drop for ConnectionCount {
    fn drop(&mut self) {
        if self.0.connections.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.0.changed.notify_waiters();
        }
    }
}

/// Counts a connection of one address until it ends.
struct AddressCount(Arc<ListenerState>, std::net::IpAddr);

impl AddressCount {
    /// Counts one more connection of `address`, unless it holds `max`.
    fn enter(state: &Arc<ListenerState>, address: std::net::IpAddr, max: usize) -> Option<Self> {
        let mut counts = crate::util::lock(&state.per_address);
        let count = counts.entry(address).or_default();
        if *count >= max {
            return None;
        }
        *count += 1;
        Some(AddressCount(Arc::clone(state), address))
    }
}

impl Drop for AddressCount {
    fn drop(&mut self) {
        let mut counts = crate::util::lock(&self.0.per_address);
        if let Some(count) = counts.get_mut(&self.1) {
            *count -= 1;
            if *count == 0 {
                counts.remove(&self.1);
            }
        }
    }
}

/// Counts a response until hyper drops its body (written, or abandoned).
#[derive(Debug)]
struct InFlight(Arc<ListenerState>);

impl Drop for InFlight {
    fn drop(&mut self) {
        if self.0.in_flight.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.0.changed.notify_waiters();
        }
    }
}

/// A log line at most once a second, with how many were held back.
#[derive(Debug, Default)]
struct Throttled {
    last: Option<Instant>,
    suppressed: u64,
}

impl Throttled {
    /// `Some(suppressed since the last line)` when a line is due.
    fn due(&mut self) -> Option<u64> {
        let now = Instant::now();
        if self
            .last
            .is_some_and(|last| now.duration_since(last) < Duration::from_secs(1))
        {
            self.suppressed += 1;
            return None;
        }
        self.last = Some(now);
        Some(std::mem::take(&mut self.suppressed))
    }
}

/// The service hyper calls on one connection: the peer address goes to the
/// front door (for per-client quotas, `ClientKey`; through the request's
/// extensions when the user's layers come first), each
/// response is counted until written, and during the drain new requests
/// get 503.
#[derive(Debug)]
struct Front {
    route: Route,
    peer: SocketAddr,
    state: Arc<ListenerState>,
}

/// Where [`Front`] hands a request on.
enum Route {
    /// The front door.
    Door(HttpService),
    /// The user's layers (`Server::http_layer`), then the front door.
    Layered(Box<dyn Layered>),
}

impl std::fmt::Debug for Route {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Route::Door(_) => "Door",
            Route::Layered(_) => "Layered",
        })
    }
}

impl hyper::service::Service<Request<hyper::body::Incoming>> for Front {
    type Response = Response<ListenerBody>;
    type Error = std::convert::Infallible;
    type Future = Pin<
        Box<dyn Future<Output = Result<Response<ListenerBody>, std::convert::Infallible>> + Send>,
    >;

    fn call(&self, mut request: Request<hyper::body::Incoming>) -> Self::Future {
        if self.state.draining.load(Ordering::SeqCst) {
            let response = shutting_down().map(ListenerBody::Own);
            return Box::pin(std::future::ready(Ok(response)));
        }
        self.state.in_flight.fetch_add(1, Ordering::SeqCst);
        let counted = InFlight(Arc::clone(&self.state));
        match &self.route {
            Route::Door(service) => {
                let inner = Arc::clone(&service.inner);
                // Handed over, not put in the extensions: their map is
                // allocated on the first insert and freed with the request,
                // a measured cost per request (BENCHMARKS.md).
                let peer = self.peer;
                Box::pin(async move {
                    let response = super::front::answer(&inner, request, Some(peer)).await;
                    Ok(response.map(|body| ListenerBody::Own(body.holding(counted))))
                })
            }
            Route::Layered(layered) => {
                // The user's layers may read it too.
                request.extensions_mut().insert(self.peer);
                let answer = layered.call(request);
                Box::pin(async move {
                    let response = answer.await;
                    Ok(response.map(|body| body.holding(counted)))
                })
            }
        }
    }
}

/// The timeouts of one connection.
#[derive(Clone, Copy, Debug)]
struct Timeouts {
    /// Reading a request's headers, and idle keep-alive.
    header: Duration,
    /// A response's write making no progress.
    write: Duration,
}

/// `503` to a request that arrives while the server drains.
fn shutting_down() -> Response<HttpBody> {
    refuse(
        StatusCode::SERVICE_UNAVAILABLE,
        "Service Unavailable: this server is shutting down; retry on a new connection",
    )
    .with_header(header::RETRY_AFTER, "1")
    .with_header(header::CONNECTION, "close")
}

/// One HTTP/1.1 connection with keep-alive, a header-read (and idle)
/// timeout, a write-idle timeout, and a graceful end when the server
/// closes its idle connections.
async fn serve_connection<F, B>(
    stream: tokio::net::TcpStream,
    peer: SocketAddr,
    front: F,
    timeouts: Timeouts,
    mut close_idle: watch::Receiver<bool>,
    _count: (ConnectionCount, AddressCount),
) where
    F: hyper::service::Service<
            Request<hyper::body::Incoming>,
            Response = Response<B>,
            Error = std::convert::Infallible,
        >,
    B: hyper::body::Body + 'static,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let io = hyper_util::rt::TokioIo::new(WriteIdle::new(stream, timeouts.write));
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(timeouts.header)
        .keep_alive(true);
    let connection = builder.serve_connection(io, front);
    let mut connection = std::pin::pin!(connection);
    let closing = async move {
        // A dropped sender also means close.
        let _ = close_idle.wait_for(|close| *close).await;
    };
    let result = tokio::select! {
        result = connection.as_mut() => result,
        () = closing => {
            connection.as_mut().graceful_shutdown();
            connection.as_mut().await
        }
    };
    if let Err(err) = result {
        tracing::debug!(%peer, %err, "an HTTP connection ended with an error");
    }
}

/// Whether a bind address is loopback, so `Host` is checked by default.
pub(crate) fn is_loopback(addr: &SocketAddr) -> bool {
    addr.ip().is_loopback()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io;
    use tokio::io::AsyncWriteExt;

    #[test]
    fn the_connection_limit_leaves_descriptors_for_the_process() {
        assert_eq!(default_max_connections(Some(1024)), 960);
        assert_eq!(default_max_connections(Some(20)), 16);
        assert_eq!(default_max_connections(None), usize::MAX);
    }

    #[test]
    fn a_log_line_is_due_once_a_second_with_the_count_held_back() {
        let mut throttled = Throttled::default();
        assert_eq!(throttled.due(), Some(0));
        assert_eq!(throttled.due(), None);
        assert_eq!(throttled.due(), None);
        throttled.last = Some(Instant::now() - Duration::from_secs(2));
        assert_eq!(throttled.due(), Some(2));
    }

    #[tokio::test]
    async fn a_write_that_makes_no_progress_fails_after_the_idle_time() {
        // A peer that never reads: the pipe's buffer fills, then writes wait.
        let (near, _far) = tokio::io::duplex(64);
        let mut stream = WriteIdle::new(near, Duration::from_millis(100));
        stream.write_all(&[0; 64]).await.unwrap();
        let started = Instant::now();
        let err = stream.write_all(&[0; 64]).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        let took = started.elapsed();
        assert!(
            took >= Duration::from_millis(100) && took < Duration::from_secs(5),
            "{took:?}"
        );
    }
}
