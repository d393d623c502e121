//! The loopback HTTP/1.1 server of the host benchmarks' scripted model
//! APIs: every connection served on a runtime of its own thread (so the
//! fake's work is not charged to the subject's CPU), each request answered
//! by the benchmark's own `answer`.

use hyper::body::{Body, Incoming};
use hyper::{Request, Response};
use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;

/// Serves `answer` on `127.0.0.1:0` from a thread of its own; its address.
pub(crate) fn serve<A, F, B>(answer: A) -> std::io::Result<SocketAddr>
where
    A: Fn(Request<Incoming>) -> F + Clone + Send + 'static,
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
                let answer = answer.clone();
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |request| {
                        let answered = answer(request);
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
    Ok(addr)
}
