//! A 2026-07-28 POST: the validation ladder (DIGEST §8.4, in that order),
//! then a session of its own whose frames are the response
//! ([`respond`]): JSON when the result is the first
//! frame, SSE when notifications come first.

use super::headers::{self, BadHeader};
use super::respond::respond;
use super::sse::HttpBody;
use super::status::{self, Stage};
use super::{Caller, json_response};
use crate::auth::Gate;
use crate::conn::connection::Connection;
use crate::conn::lifecycle::Lifecycle;
use crate::conn::outbox;
use crate::protocol::http::{HeaderKind, HeaderParam, NamedMember, named_member};
use crate::protocol::incoming::{Incoming, Rejection};
use crate::protocol::outgoing::{self, ErrorData};
use crate::protocol::params::Params;
use crate::protocol::read::without_position;
use crate::protocol::{ProtocolVersion, RpcError, meta};
use crate::session::http_routing;
use crate::shared::Shared;
use hyper::header::HeaderMap;
use hyper::{Response, StatusCode};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::sync::Arc;
use tokio::sync::watch;

/// A refusal of the ladder: a header that disagrees with the body, is
/// missing or malformed (`-32020`).
fn mismatch(message: impl std::fmt::Display) -> RpcError {
    RpcError::header_mismatch(format!("Header mismatch: {message}"))
}

impl From<BadHeader> for RpcError {
    fn from(bad: BadHeader) -> RpcError {
        mismatch(bad.0)
    }
}

/// Answers one POST's message (`caller`: who sent it, `gate`:
/// the authorization settings, if on); `stop` is set when the server shuts
/// down.
pub(super) async fn post(
    shared: &Arc<Shared>,
    stop: &watch::Receiver<bool>,
    headers: &HeaderMap,
    message: Result<Incoming<'_>, Rejection<'_>>,
    caller: Caller,
    gate: Option<&Gate>,
) -> Response<HttpBody> {
    let routing = headers::Routing::of(headers);
    let refusal = match &message {
        // (1) JSON and (2) JSON-RPC shape.
        Err(rejection) => {
            let frame = outgoing::rpc_error(rejection.id, &rejection.error);
            return json_response(
                status::status_of(rejection.error.error_code(), Stage::Refused),
                frame.into_bytes(),
            );
        }
        Ok(Incoming::Notification { .. }) => {
            // Each POST is its own conversation: a notification (e.g. a
            // cancellation) has nothing here to act on; closing a stream
            // is how a 2026-07-28 client cancels.
            let mut response = Response::new(HttpBody::empty());
            *response.status_mut() = StatusCode::ACCEPTED;
            return response;
        }
        Ok(Incoming::Response { .. }) => {
            let error = RpcError::invalid_request(
                "Invalid Request: a POST carries one request or notification, not a response",
            );
            let frame = outgoing::rpc_error(None, &error);
            return json_response(
                status::status_of(error.error_code(), Stage::Refused),
                frame.into_bytes(),
            );
        }
        Ok(Incoming::Request { id, method, params }) => {
            ladder(shared, headers, &routing, method, params)
                .err()
                .map(|refusal| (*id, refusal))
        }
    };
    if let Some((id, refusal)) = refusal {
        let frame = outgoing::rpc_error(Some(id), &refusal);
        return json_response(
            status::status_of(refusal.error_code(), Stage::Refused),
            frame.into_bytes(),
        );
    }
    let (out, frames) = outbox::channel(shared.max_sse_unwritten);
    // Without `traceparent` there is no trace context to read.
    let trace = routing
        .traced
        .then(|| headers::trace_context(headers))
        .flatten();
    let connection = Arc::new(caller.on(Connection::new(out).with_trace(trace)));
    respond(
        shared,
        stop,
        connection,
        frames,
        message,
        status::modern,
        gate,
    )
    .await
}

/// Steps 3 to 7 of the ladder (the session does the method and tool
/// lookups, and the capability checks, as on stdio).
fn ladder(
    shared: &Shared,
    headers: &HeaderMap,
    routing: &headers::Routing<'_>,
    method: &str,
    params: &Params<'_>,
) -> Result<(), RpcError> {
    // (3) The envelope (its keys' types were checked by the one parse).
    let envelope_complete = params
        .meta
        .as_ref()
        .is_some_and(|m| m.protocol_version.is_some() && m.client_capabilities.is_some());
    if !envelope_complete {
        return Err(RpcError::invalid_params(format!(
            "Invalid params: params._meta must carry \"{}\" and \"{}\" (2026-07-28 requests carry their protocol version and client capabilities)",
            meta::PROTOCOL_VERSION,
            meta::CLIENT_CAPABILITIES
        )));
    }
    let version = params.envelope_version().unwrap_or("");
    // (4) Headers against the body.
    match routing
        .protocol_version
        .single(&headers::PROTOCOL_VERSION)?
    {
        None => {
            return Err(mismatch("the MCP-Protocol-Version header is missing"));
        }
        Some(h) if h != version => {
            return Err(mismatch(format!(
                "MCP-Protocol-Version is {h:?} but params._meta names {version:?}"
            )));
        }
        Some(_) => {}
    }
    match routing.method.single(&headers::METHOD)? {
        None => return Err(mismatch("the Mcp-Method header is missing")),
        Some(h) if h != method => {
            return Err(mismatch(format!(
                "Mcp-Method is {h:?} but the body's method is {method:?}"
            )));
        }
        Some(_) => {}
    }
    let name = params.name.as_deref();
    // `Mcp-Name` routes: the tool or prompt's name, the task's id, or the
    // resource's URI.
    let named = named_member(method).map(|member| match member {
        NamedMember::Name => (name, member.path()),
        NamedMember::TaskId => (params.task_id.as_deref(), member.path()),
        NamedMember::Uri => (params.uri.as_deref(), member.path()),
    });
    match (routing.name.single(&headers::NAME)?, named) {
        (None, Some(_)) => return Err(mismatch("the Mcp-Name header is missing")),
        (Some(h), Some((value, field))) if Some(h.trim()) != value => {
            return Err(mismatch(format!(
                "Mcp-Name is {h:?} but {field} is {:?}",
                value.unwrap_or("")
            )));
        }
        _ => {}
    }
    // (5) The version.
    if !ProtocolVersion::parse(version).is_some_and(ProtocolVersion::is_modern) {
        return Err(
            RpcError::unsupported_protocol_version("Unsupported protocol version").with_data(
                ErrorData::UnsupportedVersion {
                    requested: version.to_owned(),
                    supported: supported_versions(),
                }
                .into(),
            ),
        );
    }
    // (6) is the session's routing table; (7) the tool's mirrored arguments
    // (parsed only for a tool that mirrors some), on the tool the session
    // will look up by the same name.
    if let Some(name) = name
        && let Some(mirrored) = http_routing::mirrored(shared, method, name)
    {
        let arguments = match params.arguments {
            None => None,
            Some(raw) => Some(read_arguments(raw)?),
        };
        check_params(mirrored.params(), headers, arguments.as_ref())?;
    }
    Ok(())
}

/// The versions an HTTP client may use, newest first (legacy ones through
/// `initialize`): those of a fresh connection, as `server/discover` lists
/// them.
fn supported_versions() -> Vec<&'static str> {
    Lifecycle::Fresh.supported_versions()
}

/// `Mcp-Param-*` against the arguments the tool mirrors (`params`): a
/// value in the body needs its header, equal after decoding (integers
/// numerically); a header without a value in the body is refused.
fn check_params(
    params: &[HeaderParam],
    headers: &HeaderMap,
    arguments: Option<&Map<String, Value>>,
) -> Result<(), RpcError> {
    for param in params {
        let header = format!("Mcp-Param-{}", param.name);
        let mut values = headers::param(headers, &param.header_name());
        let sent = values.next();
        if values.next().is_some() {
            return Err(mismatch(format!(
                "the {header} header was sent more than once"
            )));
        }
        let body = arguments.and_then(|a| param.value(a));
        let (sent, body) = match (sent, body) {
            (None, None) => continue,
            (None, Some(_)) => {
                return Err(mismatch(format!(
                    "the {header} header is missing; argument `{}` has a value",
                    param.path.join(".")
                )));
            }
            (Some(_), None) => {
                return Err(mismatch(format!(
                    "the {header} header was sent but argument `{}` has no value",
                    param.path.join(".")
                )));
            }
            (Some(sent), Some(body)) => (headers::decode(&header, sent)?, body),
        };
        let equal = match (param.kind, body) {
            (HeaderKind::String, Value::String(s)) => *s == sent,
            (HeaderKind::Integer, Value::Number(n)) => same_number(&sent, n),
            (HeaderKind::Boolean, Value::Bool(b)) => sent == if *b { "true" } else { "false" },
            // A value of the wrong type: the tool reports it (isError).
            _ => continue,
        };
        if !equal {
            return Err(mismatch(format!(
                "{header} is {sent:?} but argument `{}` is {body}",
                param.path.join(".")
            )));
        }
    }
    Ok(())
}

/// The arguments of a tool that mirrors some into headers. An object (the
/// one parse checked it); a key given twice is refused, since the header
/// would be compared with one value and the tool might read the other.
fn read_arguments(raw: &RawValue) -> Result<Map<String, Value>, RpcError> {
    struct Unique(Map<String, Value>);
    impl<'de> serde::Deserialize<'de> for Unique {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Unique, D::Error> {
            struct Visitor;
            impl<'de> serde::de::Visitor<'de> for Visitor {
                type Value = Unique;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("an object")
                }
                fn visit_map<A: serde::de::MapAccess<'de>>(
                    self,
                    mut access: A,
                ) -> Result<Unique, A::Error> {
                    let mut map = Map::new();
                    while let Some((key, value)) = access.next_entry::<String, Value>()? {
                        if map.contains_key(&key) {
                            return Err(serde::de::Error::custom(format_args!(
                                "argument `{key}` is given twice"
                            )));
                        }
                        map.insert(key, value);
                    }
                    Ok(Unique(map))
                }
            }
            d.deserialize_map(Visitor)
        }
    }
    serde_json::from_str::<Unique>(raw.get())
        .map(|unique| unique.0)
        .map_err(|err| {
            RpcError::invalid_params(format!("Invalid params: {}", without_position(&err)))
        })
}

/// Whether header text names the same number as `n` (`42` and `42.0` do).
fn same_number(text: &str, n: &serde_json::Number) -> bool {
    if let (Ok(a), Some(b)) = (text.parse::<i64>(), n.as_i64()) {
        return a == b;
    }
    match (text.parse::<f64>(), n.as_f64()) {
        (Ok(a), Some(b)) => a.is_finite() && a == b,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::http::HeaderParams;
    use hyper::header::HeaderValue;
    use serde_json::json;

    #[test]
    fn a_nested_mirrored_argument_needs_its_header() {
        let schema = json!({"type": "object", "properties": {
            "opts": {"type": "object", "properties": {
                "shard": {"type": "integer", "x-mcp-header": "Shard"}
            }}
        }});
        let read = HeaderParams::read(schema.as_object().unwrap());
        let arguments = json!({"opts": {"shard": 3}});
        let arguments = arguments.as_object();
        let mut headers = HeaderMap::new();
        let refusal = check_params(read.params(), &headers, arguments).unwrap_err();
        assert_eq!(
            refusal.message,
            "Header mismatch: the Mcp-Param-Shard header is missing; argument `opts.shard` has a value"
        );
        headers.append("mcp-param-shard", HeaderValue::from_static("4"));
        assert!(check_params(read.params(), &headers, arguments).is_err());
        headers.insert("mcp-param-shard", HeaderValue::from_static("3"));
        assert_eq!(check_params(read.params(), &headers, arguments), Ok(()));
        assert!(
            check_params(read.params(), &headers, json!({}).as_object()).is_err(),
            "a header without a value in the body"
        );
    }

    #[test]
    fn integers_compare_numerically() {
        let n = |v: i64| serde_json::Number::from(v);
        assert!(same_number("42", &n(42)));
        assert!(same_number("42.0", &n(42)));
        assert!(!same_number("43", &n(42)));
        assert!(!same_number("forty-two", &n(42)));
        assert!(!same_number("inf", &n(42)));
    }
}
