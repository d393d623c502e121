//! The request headers HTTP checks: `Origin` and `Host` (DNS rebinding),
//! the 2026-07-28 routing headers (`MCP-Protocol-Version`, `Mcp-Method`,
//! `Mcp-Name`, `Mcp-Param-*`) and their `=?base64?…?=` sentinel, and the
//! W3C trace context (`traceparent`, `tracestate`).

use crate::protocol::trace_context::TraceContext;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hyper::header::{HeaderMap, HeaderName, HeaderValue};
use std::borrow::Cow;

/// `MCP-Protocol-Version`.
pub(crate) const PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
/// `Mcp-Method`.
pub(crate) const METHOD: HeaderName = HeaderName::from_static("mcp-method");
/// `Mcp-Name`.
pub(crate) const NAME: HeaderName = HeaderName::from_static("mcp-name");
/// `Mcp-Session-Id` (legacy era).
pub(crate) const SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");
/// Prefix of the headers mirroring tool arguments.
pub(crate) const PARAM_PREFIX: &str = "mcp-param-";

/// `traceparent` (W3C Trace Context).
const TRACEPARENT: HeaderName = HeaderName::from_static("traceparent");
/// `tracestate` (W3C Trace Context).
const TRACESTATE: HeaderName = HeaderName::from_static("tracestate");

/// The hosts a loopback server answers to, and the origins a browser page
/// on this machine has, by default.
pub(crate) const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

/// A routing header was sent twice, is not visible ASCII, or its sentinel
/// does not decode.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct BadHeader(pub(crate) String);

/// The single value of header `name`, decoded from the base64 sentinel;
/// `Ok(None)` when absent.
pub(crate) fn single<'h>(
    headers: &'h HeaderMap,
    name: &HeaderName,
) -> Result<Option<Cow<'h, str>>, BadHeader> {
    let mut values = headers.get_all(name).iter();
    let Some(value) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err(BadHeader(format!(
            "the {name} header was sent more than once"
        )));
    }
    decode(name.as_str(), value).map(Some)
}

/// The request's W3C trace context: one valid `traceparent` (two are
/// invalid, as W3C says), with the `tracestate` headers joined by commas.
/// Anything invalid is no trace context, never a refusal.
pub(crate) fn trace_context(headers: &HeaderMap) -> Option<TraceContext> {
    let mut parents = headers.get_all(TRACEPARENT).iter();
    let parent = parents.next()?.to_str().ok()?;
    if parents.next().is_some() {
        return None;
    }
    let states: Vec<&str> = headers
        .get_all(TRACESTATE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect();
    let state = (!states.is_empty()).then(|| states.join(","));
    TraceContext::parse(parent, state.as_deref())
}

/// A header value as text: plain visible ASCII (spaces inside allowed), or
/// the sentinel `=?base64?<base64 of UTF-8>?=` (only that is copied).
pub(crate) fn decode<'v>(name: &str, value: &'v HeaderValue) -> Result<Cow<'v, str>, BadHeader> {
    let bad = |why: &str| BadHeader(format!("the {name} header {why}"));
    let text = value.to_str().map_err(|_| {
        bad("holds characters other than visible ASCII; encode them as =?base64?…?=")
    })?;
    if text.bytes().any(|b| b.is_ascii_control()) {
        return Err(bad("holds control characters"));
    }
    match text
        .strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
    {
        Some(encoded) => {
            let bytes = STANDARD
                .decode(encoded)
                .map_err(|_| bad("holds an =?base64?…?= value that is not valid base64"))?;
            String::from_utf8(bytes)
                .map(Cow::Owned)
                .map_err(|_| bad("holds base64 that is not UTF-8"))
        }
        None => Ok(Cow::Borrowed(text)),
    }
}

/// The values (one, unless the client repeated it) of `Mcp-Param-{header}`;
/// header names compare case-insensitively.
pub(crate) fn param<'h>(
    headers: &'h HeaderMap,
    header: &str,
) -> impl Iterator<Item = &'h HeaderValue> {
    let name = HeaderName::from_bytes(format!("{PARAM_PREFIX}{header}").as_bytes()).ok();
    name.into_iter()
        .flat_map(move |name| headers.get_all(name).into_iter())
}

/// The host part of a `Host` header or of an origin's authority:
/// `localhost:8931` → `localhost`, `[::1]:80` → `[::1]`.
pub(crate) fn hostname(authority: &str) -> &str {
    if authority.starts_with('[') {
        return authority
            .find(']')
            .map_or(authority, |end| &authority[..=end]);
    }
    authority.split(':').next().unwrap_or(authority)
}

/// Whether `origin` (`scheme://host[:port]`) may call: its host is one of
/// `hosts`, or the origin is listed exactly in `origins`.
pub(crate) fn origin_allowed(origin: &str, hosts: &[String], origins: &[String]) -> bool {
    if origins.iter().any(|o| o.eq_ignore_ascii_case(origin)) {
        return true;
    }
    let Some((scheme, authority)) = origin.split_once("://") else {
        return false;
    };
    matches!(scheme, "http" | "https")
        && hosts
            .iter()
            .any(|h| h.eq_ignore_ascii_case(hostname(authority)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trace_context_comes_from_one_valid_traceparent() {
        const PARENT: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        let map = |pairs: &[(&'static str, &'static str)]| {
            let mut map = HeaderMap::new();
            for (name, value) in pairs {
                map.append(*name, HeaderValue::from_static(value));
            }
            map
        };
        let trace = trace_context(&map(&[
            ("traceparent", PARENT),
            ("tracestate", "a=1"),
            ("tracestate", "b=2"),
        ]))
        .expect("a trace context");
        assert_eq!(trace.to_string(), PARENT);
        assert_eq!(trace.state.as_deref(), Some("a=1,b=2"));
        assert_eq!(trace_context(&map(&[("tracestate", "a=1")])), None);
        assert_eq!(trace_context(&map(&[("traceparent", "00-bad")])), None);
        assert_eq!(
            trace_context(&map(&[("traceparent", PARENT), ("traceparent", PARENT)])),
            None
        );
    }

    #[test]
    fn sentinels_decode_and_plain_values_pass() {
        let v = HeaderValue::from_static("=?base64?SGVsbG8sIOS4lueVjA==?=");
        assert_eq!(decode("x", &v).unwrap(), "Hello, 世界");
        let v = HeaderValue::from_static("us-west1");
        assert_eq!(decode("x", &v).unwrap(), "us-west1");
        assert!(decode("x", &HeaderValue::from_static("=?base64?!!?=")).is_err());
    }

    #[test]
    fn duplicated_routing_headers_are_refused() {
        let mut headers = HeaderMap::new();
        headers.append(METHOD, HeaderValue::from_static("tools/call"));
        assert_eq!(
            single(&headers, &METHOD).unwrap().as_deref(),
            Some("tools/call")
        );
        headers.append(METHOD, HeaderValue::from_static("tools/call"));
        assert!(single(&headers, &METHOD).is_err());
    }

    #[test]
    fn origins_and_hosts() {
        let hosts: Vec<String> = LOOPBACK_HOSTS.iter().map(|h| (*h).to_owned()).collect();
        assert!(origin_allowed("http://localhost:3000", &hosts, &[]));
        assert!(origin_allowed("http://[::1]", &hosts, &[]));
        assert!(!origin_allowed("https://evil.example", &hosts, &[]));
        assert!(!origin_allowed("null", &hosts, &[]));
        assert!(origin_allowed(
            "https://app.example",
            &hosts,
            &["https://app.example".to_owned()]
        ));
        assert_eq!(hostname("127.0.0.1:8931"), "127.0.0.1");
        assert_eq!(hostname("[::1]:8931"), "[::1]");
    }
}
