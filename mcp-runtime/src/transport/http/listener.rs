//! The hyper server loop: accepting connections, serving each with
//! [`HttpService`] under the header timeout, and draining at shutdown.

use super::HttpService;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::sync::{Notify, watch};

/// Serves `service` on `listener` until `shutdown` completes; then stops
/// accepting, lets each connection finish the response it is writing
/// (streams end with their final results), and returns once all are done
/// or `drain` has passed (what is left is then cancelled as it is dropped).
pub(crate) async fn serve(
    listener: tokio::net::TcpListener,
    service: HttpService,
    drain: Duration,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let (stop_tx, stop) = watch::channel(false);
    let connections = Arc::new(AtomicUsize::new(0));
    let closed = Arc::new(Notify::new());
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(err) => {
                    // Out of descriptors and the like: wait a little, keep serving.
                    tracing::warn!(%err, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        connections.fetch_add(1, Ordering::SeqCst);
        let guard = ConnectionCount(Arc::clone(&connections), Arc::clone(&closed));
        tokio::spawn(serve_connection(
            stream,
            peer,
            service.clone(),
            stop.clone(),
            guard,
        ));
    }
    tracing::info!("shutting down on a signal: no new connections; draining");
    drop(listener);
    let _ = stop_tx.send(true);
    // Push and subscription streams never end by themselves: end them so
    // connections close.
    service.inner.sessions.close_streams();
    service.inner.stop.send_replace(true);
    let drained = tokio::time::timeout(drain, async {
        loop {
            let notified = closed.notified();
            if connections.load(Ordering::SeqCst) == 0 {
                return;
            }
            notified.await;
        }
    })
    .await;
    if drained.is_err() {
        tracing::warn!(
            connections = connections.load(Ordering::SeqCst),
            "the drain timeout ended the shutdown; cancelling what is left"
        );
    }
    Ok(())
}

/// Counts a connection until it ends.
struct ConnectionCount(Arc<AtomicUsize>, Arc<Notify>);

impl Drop for ConnectionCount {
    fn drop(&mut self) {
        if self.0.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.1.notify_waiters();
        }
    }
}

/// One HTTP/1.1 connection with keep-alive, a header-read (and idle)
/// timeout, and a graceful end when the server stops.
async fn serve_connection(
    stream: tokio::net::TcpStream,
    peer: SocketAddr,
    service: HttpService,
    mut stop: watch::Receiver<bool>,
    _count: ConnectionCount,
) {
    let header_timeout = service.inner.config.header_timeout;
    let io = hyper_util::rt::TokioIo::new(stream);
    let hyper_service = hyper_util::service::TowerToHyperService::new(service);
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(header_timeout)
        .keep_alive(true);
    let connection = builder.serve_connection(io, hyper_service);
    let mut connection = std::pin::pin!(connection);
    let stopping = async move {
        // A dropped sender also means stop.
        let _ = stop.wait_for(|stop| *stop).await;
    };
    let result = tokio::select! {
        result = connection.as_mut() => result,
        () = stopping => {
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
