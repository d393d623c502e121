//! The loopback HTTP/1.1 server of the host benchmarks' scripted model
//! APIs: every connection served on a runtime of its own thread (so the
//! fake's work is not charged to the subject's CPU), each request answered
//! by the benchmark's own `answer` with its fake's state.

use hyper::body::{Body, Incoming};
use hyper::{Request, Response};
use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;

/// Serves `answer` (each request with `fake`) on `127.0.0.1:0` from a
/// thread of its own; its URL.
pub(crate) fn serve<T, A, F, B>(fake: Arc<T>, answer: A) -> std::io::Result<String>
where
    T: Send + Sync + 'static,
    A: Fn(Request<Incoming>, Arc<T>) -> F + Copy + Send + 'static,
    F: Future<Output = Response<B>> + Send + 'static,
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    listener.set_nonblocking(true)?;
    let addr = listener.local_addr()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    std::thread::spawn(move || {
        runtime.block_on(async move {
            let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
                return;
            };
            while let Ok((stream, _)) = listener.accept().await {
                let _ = stream.set_nodelay(true);
                let fake = Arc::clone(&fake);
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |request| {
                        let answered = answer(request, Arc::clone(&fake));
                        async move { Ok::<_, Infallible>(answered.await) }
                    });
                    // A subject closing its connection is not an error here.
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                        .await;
                });
            }
        });
    });
    Ok(format!("http://{addr}"))
}
