//! The user's tower layers over the endpoint on the built-in server
//! (`Server::http_layer`): the layered service, erased so the builder
//! stays one type, and cloned per request as tower services expect
//! (`poll_ready`, then `call`, on a copy of one's own).
//!
//! Without a layer the listener calls the front door directly, so this
//! costs nothing then but a match; with one, a request pays a clone of the
//! layered service, one boxed future more and one boxed response body.

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
pub(crate) type Answer = Pin<Box<dyn Future<Output = Response<ListenerBody>> + Send>>;

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
                Ok(response) => {
                    response.map(|body| ListenerBody::layered(body.map_err(Into::into)))
                }
                Err(err) => failed(&err.into()),
            }
        })
    }
}

/// `500` for a layer whose service failed (hyper would only close the
/// connection): the client learns that it was the server.
fn failed(err: &BoxError) -> Response<ListenerBody> {
    tracing::warn!(%err, "a layer of Server::http_layer failed a request");
    refuse(
        StatusCode::INTERNAL_SERVER_ERROR,
        "Internal Server Error: a layer of this server failed the request",
    )
    .with_header(header::CONNECTION, "close")
    .map(ListenerBody::Own)
}

/// The body of every response of the built-in server: this crate's own,
/// or a layered service's (boxed) with what must live as long. One type,
/// so hyper's connection code is compiled once, for both.
pub(crate) enum ListenerBody {
    /// Of the front door, or of the listener itself.
    Own(super::HttpBody),
    /// Of the user's layered service.
    Layered {
        body: UnsyncBoxBody<Bytes, BoxError>,
        guard: Option<Box<dyn std::any::Any + Send>>,
    },
}

impl fmt::Debug for ListenerBody {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ListenerBody::Own(body) => f.debug_tuple("Own").field(body).finish(),
            ListenerBody::Layered { .. } => f.debug_struct("Layered").finish_non_exhaustive(),
        }
    }
}

impl ListenerBody {
    fn layered<B>(body: B) -> ListenerBody
    where
        B: Body<Data = Bytes, Error = BoxError> + Send + 'static,
    {
        ListenerBody::Layered {
            body: body.boxed_unsync(),
            guard: None,
        }
    }

    /// This body, keeping `guard` until it is dropped.
    pub(crate) fn holding(self, guard: impl std::any::Any + Send + Sync) -> ListenerBody {
        match self {
            ListenerBody::Own(body) => ListenerBody::Own(body.holding(guard)),
            ListenerBody::Layered { body, guard: None } => ListenerBody::Layered {
                body,
                guard: Some(Box::new(guard)),
            },
            ListenerBody::Layered {
                body,
                guard: Some(earlier),
            } => ListenerBody::Layered {
                body,
                guard: Some(Box::new((earlier, guard))),
            },
        }
    }
}

impl Body for ListenerBody {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        match self.get_mut() {
            ListenerBody::Own(body) => Pin::new(body)
                .poll_frame(cx)
                .map(|frame| frame.map(|frame| frame.map_err(|never| match never {}))),
            ListenerBody::Layered { body, .. } => Pin::new(body).poll_frame(cx),
        }
    }

    fn is_end_stream(&self) -> bool {
        match self {
            ListenerBody::Own(body) => body.is_end_stream(),
            ListenerBody::Layered { body, .. } => body.is_end_stream(),
        }
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            ListenerBody::Own(body) => body.size_hint(),
            ListenerBody::Layered { body, .. } => body.size_hint(),
        }
    }
}
