//! How the page's handlers read a request and answer: bounded JSON bodies
//! in, JSON replies and errors out. The route table and every part of
//! the page (the panel, the apps) share these.

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::CONTENT_TYPE;
use hyper::{Response, StatusCode};
use serde_json::{Value, json};
use std::convert::Infallible;

/// The largest request body taken, in bytes: a line, an answer.
pub(crate) const MAX_BODY: usize = 1 << 20;

/// A request that passed the guard, its body bounded by [`MAX_BODY`].
pub(crate) type Request = hyper::Request<Limited<Incoming>>;
/// A response.
pub(crate) type Reply = Response<BoxBody<Bytes, Infallible>>;
pub(crate) fn body(bytes: impl Into<Bytes>) -> BoxBody<Bytes, Infallible> {
    Full::new(bytes.into()).boxed()
}

/// A JSON reply.
pub(crate) fn reply(status: StatusCode, value: &Value) -> Reply {
    Response::builder()
        .status(status)
        .header(CONTENT_TYPE, "application/json")
        .body(body(value.to_string()))
        .unwrap_or_default()
}

/// An error reply: `{"error": …}`.
pub(crate) fn error(status: StatusCode, message: impl Into<String>) -> Reply {
    reply(status, &json!({"error": message.into()}))
}

pub(crate) fn too_large() -> Reply {
    error(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!("the request body is over {MAX_BODY} bytes"),
    )
}

/// A request's JSON body; a reply saying what is wrong with it otherwise.
pub(crate) async fn read_json(request: Request) -> Result<Value, Reply> {
    let bytes = match request.into_body().collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(e) if e.is::<http_body_util::LengthLimitError>() => return Err(too_large()),
        Err(e) => {
            return Err(error(
                StatusCode::BAD_REQUEST,
                format!("the request body: {e}"),
            ));
        }
    };
    serde_json::from_slice(&bytes).map_err(|e| {
        error(
            StatusCode::BAD_REQUEST,
            format!("the body is not JSON: {e}"),
        )
    })
}
