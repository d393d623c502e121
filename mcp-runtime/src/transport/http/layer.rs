//! The user's tower layers over the endpoint on the built-in server
//! (`Server::http_layer`): the layered service, erased so the builder
//! stays one type, and cloned per request as tower services expect
//! (`poll_ready`, then `call`, on a copy of one's own).
//!
//! Without a layer the listener calls the front door directly, so this
//! costs nothing then; with one, a request pays a clone of the layered
//! service, one boxed future and one boxed response body.

use super::HttpService;
use super::checks::{WithHeader, refuse};
use bytes::Bytes;
use http_body_util::BodyExt;
use http_body_util::combinators::UnsyncBoxBody;
use hyper::body::{Body, Frame, Incoming, SizeHint};
use hyper::header;
use hyper::{Request, Response, StatusCode};
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// The error type layered services may fail with.
pub(crate) type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// A response of the layered service.
pub(crate) type Answer = Pin<Box<dyn Future<Output = Response<LayeredBody>> + Send>>;

/// `Server::http_layer`'s layer, applied when serving starts.
pub(crate) struct Wrap(Box<dyn FnOnce(HttpService) -> Box<dyn Layered> + Send + Sync>);

impl fmt::Debug for Wrap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Wrap(..)")
    }
}

impl Wrap {
    /// Wraps with `layer`.
    pub(crate) fn new<L, S, B>(layer: L) -> Wrap
    where
        L: tower_layer::Layer<HttpService, Service = S> + Send + Sync + 'static,
        S: tower_service::Service<Request<Incoming>, Response = Response<B>>
            + Clone
            + Send
            + 'static,
        S::Future: Send + 'static,
        S::Error: Into<BoxError>,
        B: Body<Data = Bytes> + Send + 'static,
        B::Error: Into<BoxError>,
    {
        Wrap(Box::new(move |service| {
            Box::new(Erased(layer.layer(service))) as Box<dyn Layered>
        }))
    }

    /// The layered service over `service`.
    pub(crate) fn over(self, service: HttpService) -> Box<dyn Layered> {
        (self.0)(service)
    }
}

/// A layered service, whatever its type.
pub(crate) trait Layered: Send {
    /// A copy, for another connection.
    fn clone_box(&self) -> Box<dyn Layered>;
    /// Answers `request` on a copy of the service.
    fn call(&self, request: Request<Incoming>) -> Answer;
}

/// A layered service of type `S`.
struct Erased<S>(S);

impl<S, B> Layered for Erased<S>
where
    S: tower_service::Service<Request<Incoming>, Response = Response<B>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Into<BoxError>,
    B: Body<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    fn clone_box(&self) -> Box<dyn Layered> {
        Box::new(Erased(self.0.clone()))
    }

    fn call(&self, request: Request<Incoming>) -> Answer {
        let mut service = self.0.clone();
        Box::pin(async move {
            // The error is not held across an await: it need not be `Send`.
            if let Err(err) = std::future::poll_fn(|cx| service.poll_ready(cx)).await {
                return failed(&err.into());
            }
            match service.call(request).await {
                Ok(response) => response.map(|body| LayeredBody::new(body.map_err(Into::into))),
                Err(err) => failed(&err.into()),
            }
        })
    }
}

/// `500` for a layer whose service failed (hyper would only close the
/// connection): the client learns that it was the server.
fn failed(err: &BoxError) -> Response<LayeredBody> {
    tracing::warn!(%err, "a layer of Server::http_layer failed a request");
    refuse(
        StatusCode::INTERNAL_SERVER_ERROR,
        "Internal Server Error: a layer of this server failed the request",
    )
    .with_header(header::CONNECTION, "close")
    .map(LayeredBody::own)
}

/// The body of a layered service's response, and what must live as long.
pub(crate) struct LayeredBody {
    body: UnsyncBoxBody<Bytes, BoxError>,
    guard: Option<Box<dyn std::any::Any + Send>>,
}

impl fmt::Debug for LayeredBody {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LayeredBody").finish_non_exhaustive()
    }
}

impl LayeredBody {
    fn new<B>(body: B) -> LayeredBody
    where
        B: Body<Data = Bytes, Error = BoxError> + Send + 'static,
    {
        LayeredBody {
            body: body.boxed_unsync(),
            guard: None,
        }
    }

    /// One of this crate's bodies.
    pub(crate) fn own(body: super::HttpBody) -> LayeredBody {
        LayeredBody::new(body.map_err(|never| match never {}))
    }

    /// This body, keeping `guard` until it is dropped.
    pub(crate) fn holding(mut self, guard: impl std::any::Any + Send) -> LayeredBody {
        self.guard = Some(Box::new(guard));
        self
    }
}

impl Body for LayeredBody {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}
