//! The HTTP the flow itself makes (metadata, registration, token
//! requests): one JSON or form request at a time, bodies bounded, no
//! redirect followed (hyper follows none), and the URL rules: an
//! authorization server is reached over HTTPS, or plain HTTP on loopback
//! only.

use super::error::AuthError;
use crate::bearer::{Challenge, same_origin};
use crate::transport::http::{Connector, chain, connector, header_pair};
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::header::{
    ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderValue, WWW_AUTHENTICATE,
};
use hyper::{Method, Request, Uri};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;
use std::time::Duration;

/// The largest metadata, registration or token response read.
const MAX_BODY_BYTES: usize = 256 * 1024;
/// How long one request to a peer may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// A response: its status and its body read as JSON (`Value::Null` when
/// it is not JSON).
#[derive(Debug)]
pub(crate) struct Reply {
    pub(crate) status: u16,
    pub(crate) json: Value,
    /// The Bearer challenge of its `WWW-Authenticate` headers.
    pub(crate) challenge: Challenge,
}

/// The pooled client every request of the flow goes through.
#[derive(Debug, Clone)]
pub(crate) struct Web {
    client: Client<Connector, Full<Bytes>>,
    /// The MCP server's URL, whose origin gets `server_headers`.
    server: String,
    /// The server entry's own headers, or why one of them cannot be sent.
    server_headers: Result<HeaderMap, String>,
}

/// A request body.
pub(crate) enum Body<'a> {
    None,
    /// A JSON body given as text, with its content type.
    Raw(&'static str, &'a str),
    Json(&'a Value),
    Form(&'a [(&'a str, &'a str)]),
}

impl Web {
    /// A client that adds `headers` (the server entry's) to each request
    /// to the origin of `server_url`. A header that is not valid in HTTP
    /// fails each request to that origin with an error naming it (the
    /// transport refuses the entry for it too), rather than going without.
    pub(crate) fn new(server_url: &str, headers: &[(String, String)]) -> Web {
        let server_headers = headers
            .iter()
            .map(|(name, value)| header_pair(name, value).map_err(|e| e.to_string()))
            .collect();
        Web {
            client: Client::builder(TokioExecutor::new()).build(connector(Duration::from_secs(10))),
            server: server_url.to_owned(),
            server_headers,
        }
    }

    /// `method url` with `body` and, if given, an `Authorization` value;
    /// `peer` names who is asked in errors.
    pub(crate) async fn send(
        &self,
        peer: &str,
        method: Method,
        url: &str,
        body: Body<'_>,
        authorization: Option<&str>,
    ) -> Result<Reply, AuthError> {
        let failed = |reason: String| AuthError::Peer {
            peer: peer.to_owned(),
            reason,
        };
        let uri: Uri = url
            .parse()
            .map_err(|_| failed(format!("`{url}` is not a URL")))?;
        let (content_type, bytes) = match body {
            Body::None => (None, Bytes::new()),
            Body::Raw(content_type, text) => (Some(content_type), Bytes::from(text.to_owned())),
            Body::Json(value) => (Some("application/json"), Bytes::from(value.to_string())),
            Body::Form(pairs) => (
                Some("application/x-www-form-urlencoded"),
                Bytes::from(form(pairs)),
            ),
        };
        let mut request = Request::builder()
            .method(method)
            .uri(uri)
            .header(ACCEPT, "application/json, text/event-stream")
            .body(Full::new(bytes))
            .map_err(|e| failed(e.to_string()))?;
        if same_origin(url, &self.server) {
            let headers = self
                .server_headers
                .as_ref()
                .map_err(|reason| AuthError::Config {
                    reason: format!("server {}: {reason}", self.server),
                })?;
            request.headers_mut().extend(headers.clone());
        }
        if let Some(content_type) = content_type {
            request
                .headers_mut()
                .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
        }
        if let Some(value) = authorization {
            let mut value = HeaderValue::from_str(value)
                .map_err(|_| failed("a credential that is not valid in a header".into()))?;
            value.set_sensitive(true);
            request.headers_mut().insert(AUTHORIZATION, value);
        }
        let exchange = async {
            let response = self
                .client
                .request(request)
                .await
                .map_err(|e| failed(format!("{url} could not be reached: {}", chain(&e))))?;
            let status = response.status().as_u16();
            let challenge = Challenge::from_headers(
                response
                    .headers()
                    .get_all(WWW_AUTHENTICATE)
                    .iter()
                    .filter_map(|v| v.to_str().ok()),
            );
            let body = Limited::new(response.into_body(), MAX_BODY_BYTES)
                .collect()
                .await
                .map_err(|_| {
                    failed(format!(
                        "{url} answered a body larger than {MAX_BODY_BYTES} bytes, or it broke"
                    ))
                })?
                .to_bytes();
            let json = serde_json::from_slice(&body).unwrap_or(Value::Null);
            Ok(Reply {
                status,
                json,
                challenge,
            })
        };
        tokio::time::timeout(REQUEST_TIMEOUT, exchange)
            .await
            .map_err(|_| {
                failed(format!(
                    "{url} did not answer within {} s",
                    REQUEST_TIMEOUT.as_secs()
                ))
            })?
    }
}

/// `application/x-www-form-urlencoded` of `pairs`.
pub(crate) fn form(pairs: &[(&str, &str)]) -> String {
    form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish()
}

/// The path of `url` without a trailing `/` (`""` for the root).
pub(crate) fn path(url: &str) -> String {
    let uri: Uri = url.parse().unwrap_or_default();
    uri.path().trim_end_matches('/').to_owned()
}

/// `scheme://authority` of `url`, as written.
pub(crate) fn base(url: &str) -> Option<String> {
    let uri: Uri = url.parse().ok()?;
    Some(format!("{}://{}", uri.scheme_str()?, uri.authority()?))
}

/// Refuses a URL of an authorization server or a metadata document that
/// is not HTTPS, unless it is plain HTTP to a loopback address (tests,
/// local servers): a token or code must not cross a network in the clear.
pub(crate) fn check_secure(what: &str, url: &str) -> Result<(), AuthError> {
    let uri: Uri = url.parse().map_err(|_| AuthError::Config {
        reason: format!("{what} `{url}` is not a URL"),
    })?;
    let loopback = matches!(
        uri.host(),
        Some("127.0.0.1" | "localhost" | "[::1]" | "::1")
    );
    match uri.scheme_str() {
        Some("https") => Ok(()),
        Some("http") if loopback => Ok(()),
        _ => Err(AuthError::Config {
            reason: format!("{what} `{url}` is not an https:// URL"),
        }),
    }
}

/// The OAuth error of an unsuccessful token-style answer.
pub(crate) fn oauth_error(issuer: &str, reply: &Reply) -> AuthError {
    let text = |key: &str| {
        reply
            .json
            .get(key)
            .and_then(Value::as_str)
            .map(|s| crate::text::excerpt(s, 200))
    };
    AuthError::Refused {
        issuer: issuer.to_owned(),
        error: text("error").unwrap_or_else(|| format!("HTTP {}", reply.status)),
        description: text("error_description").unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_lose_their_trailing_slash() {
        assert_eq!(path("https://a.test/mcp/"), "/mcp");
        assert_eq!(path("https://a.test"), "");
    }

    #[test]
    fn plain_http_only_on_loopback() {
        assert!(check_secure("x", "http://127.0.0.1:9/").is_ok());
        assert!(check_secure("x", "https://as.test/").is_ok());
        assert!(check_secure("x", "http://as.test/").is_err());
    }

    #[tokio::test]
    async fn a_header_not_valid_in_http_fails_the_servers_requests_naming_it() {
        let server = "http://127.0.0.1:9/mcp";
        let web = Web::new(server, &[("x-api-key".into(), "line\nbreak".into())]);
        let error = web
            .send("server", Method::POST, server, Body::None, None)
            .await
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "server http://127.0.0.1:9/mcp: invalid configuration: the value of header `x-api-key` is not valid in HTTP"
        );
    }
}
