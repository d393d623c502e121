//! The answers an HTTP request can get before it reaches a session: what
//! is checked before the body is read (`Accept`, `Origin`, `Host`, size),
//! and the plain JSON responses such refusals are.

use super::headers;
use super::{HttpBody, HttpConfig};
use crate::protocol::RpcError;
use crate::protocol::outgoing;
use bytes::Bytes;
use hyper::header::{self, HeaderValue};
use hyper::{Response, StatusCode};

/// The `Accept` value the specification has clients send: checked as a
/// whole before anything is split.
const USUAL_ACCEPT: &[u8] = b"application/json, text/event-stream";

/// Whether `Accept` lists JSON and SSE (wildcards count).
pub(super) fn accepts(headers: &hyper::HeaderMap) -> (bool, bool) {
    let (mut json, mut sse) = (false, false);
    for value in headers.get_all(header::ACCEPT) {
        let value = value.as_bytes();
        if value == USUAL_ACCEPT {
            // What nearly every client sends: one comparison, where the
            // item loop below costs a measurable share of a POST
            // (BENCHMARKS.md).
            return (true, true);
        }
        // Bytes, compared in place: the names sought are ASCII, so an item
        // with other bytes never matches, and no copy is made per item.
        for item in value.split(|&b| b == b',') {
            let media = item.split(|&b| b == b';').next().unwrap_or_default();
            let media = media.trim_ascii();
            let is = |name: &str| media.eq_ignore_ascii_case(name.as_bytes());
            if is("*/*") {
                (json, sse) = (true, true);
            } else if is("application/json") || is("application/*") {
                json = true;
            } else if is("text/event-stream") || is("text/*") {
                sse = true;
            }
        }
    }
    (json, sse)
}

/// `400` for a request with more than one `Host`, which RFC 9112 §3.2 says
/// a server must refuse so: the one a proxy routed on and the one checked
/// here could differ. Checked before anything else, on every path.
pub(super) fn check_single_host(headers: &hyper::HeaderMap) -> Option<Response<HttpBody>> {
    headers.get_all(header::HOST).iter().nth(1).map(|_| {
        refuse(
            StatusCode::BAD_REQUEST,
            "Bad Request: the Host header was sent more than once",
        )
    })
}

/// `403` for an `Origin` not allowed, or a `Host` not allowed when
/// checked. Each is parsed strictly ([`headers::authority`]): a value that
/// does not parse is not allowed.
pub(super) fn check_origin_and_host(
    config: &HttpConfig,
    headers: &hyper::HeaderMap,
) -> Option<Response<HttpBody>> {
    let mut origins = headers.get_all(header::ORIGIN).iter();
    if let Some(origin) = origins.next() {
        // A second Origin is never sent by a browser (RFC 6454 §7.3 says
        // one); refusing it leaves no doubt about which one was checked.
        let allowed = origins.next().is_none()
            && origin
                .to_str()
                .is_ok_and(|o| headers::origin_allowed(o, &config.hosts, &config.origins));
        if !allowed {
            return Some(refuse(
                StatusCode::FORBIDDEN,
                "Forbidden: this Origin is not allowed (see Server::allowed_origins)",
            ));
        }
    }
    if config.check_host {
        let allowed = headers
            .get(header::HOST)
            .and_then(|host| host.to_str().ok())
            .and_then(headers::authority)
            .is_some_and(|authority| headers::host_allowed(authority.host, &config.hosts));
        if !allowed {
            return Some(refuse(
                StatusCode::FORBIDDEN,
                "Forbidden: this Host is not allowed (see Server::allowed_hosts)",
            ));
        }
    }
    None
}

/// `413`, closing the connection.
pub(super) fn too_large(max: usize) -> Response<HttpBody> {
    refuse(
        StatusCode::PAYLOAD_TOO_LARGE,
        &format!("Payload Too Large: the body is over this server's limit of {max} bytes"),
    )
    // The rest of the body is not read, so the connection cannot be reused.
    .with_header(header::CONNECTION, "close")
}

/// An HTTP refusal with an id-less JSON-RPC error body (`-32600`: the
/// request as a whole is refused, whatever it carries).
pub(super) fn refuse(status: StatusCode, message: &str) -> Response<HttpBody> {
    json_response(
        status,
        outgoing::rpc_error(None, &RpcError::invalid_request(message.to_owned())).into_bytes(),
    )
}

/// A JSON response.
pub(super) fn json_response(status: StatusCode, bytes: Vec<u8>) -> Response<HttpBody> {
    let mut response = Response::new(HttpBody::full(Bytes::from(bytes)));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// Adds a header to a response.
pub(super) trait WithHeader {
    fn with_header(self, name: header::HeaderName, value: &'static str) -> Self;
}

impl WithHeader for Response<HttpBody> {
    fn with_header(mut self, name: header::HeaderName, value: &'static str) -> Self {
        self.headers_mut()
            .insert(name, HeaderValue::from_static(value));
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accept(values: &[&[u8]]) -> (bool, bool) {
        let mut headers = hyper::HeaderMap::new();
        for value in values {
            headers.append(header::ACCEPT, HeaderValue::from_bytes(value).unwrap());
        }
        accepts(&headers)
    }

    #[test]
    fn accept_lists_media_types_with_parameters_wildcards_and_any_case() {
        assert_eq!(
            accept(&[b"application/json, text/event-stream"]),
            (true, true)
        );
        assert_eq!(
            accept(&[b"Application/JSON;q=0.9 ,TEXT/Event-Stream ; q=1"]),
            (true, true)
        );
        assert_eq!(
            accept(&[b"application/json", b"text/event-stream"]),
            (true, true)
        );
        assert_eq!(accept(&[USUAL_ACCEPT]), (true, true));
        assert_eq!(accept(&[b"application/json", USUAL_ACCEPT]), (true, true));
        assert_eq!(accept(&[b"*/*"]), (true, true));
        assert_eq!(accept(&[b"application/*, text/*"]), (true, true));
        assert_eq!(accept(&[b"application/json"]), (true, false));
        assert_eq!(accept(&[b"text/event-stream"]), (false, true));
        assert_eq!(accept(&[]), (false, false));
        assert_eq!(
            accept(&[b"application/jsonx, text/event-streams, text/html"]),
            (false, false)
        );
        // An item with bytes outside ASCII matches nothing; the others count.
        assert_eq!(
            accept(&[b"application/json\xe9, text/event-stream"]),
            (false, true)
        );
    }
}
