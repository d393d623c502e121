//! The request headers HTTP checks: `Origin` and `Host` (DNS rebinding),
//! the 2026-07-28 routing headers (`MCP-Protocol-Version`, `Mcp-Method`,
//! `Mcp-Name`, `Mcp-Param-*`) and their `=?base64?…?=` sentinel, and the
//! W3C trace context (`traceparent`, `tracestate`).

use crate::protocol::http;
use crate::protocol::trace_context::TraceContext;
use hyper::header::{HeaderMap, HeaderName, HeaderValue};
use std::borrow::Cow;

/// `MCP-Protocol-Version`.
pub(crate) const PROTOCOL_VERSION: HeaderName = HeaderName::from_static(http::PROTOCOL_VERSION);
/// `Mcp-Method`.
pub(crate) const METHOD: HeaderName = HeaderName::from_static(http::METHOD);
/// `Mcp-Name`.
pub(crate) const NAME: HeaderName = HeaderName::from_static(http::NAME);
/// `Mcp-Session-Id` (legacy era).
pub(crate) const SESSION_ID: HeaderName = HeaderName::from_static(http::SESSION_ID);
/// `Last-Event-ID` (SSE): where a resumed legacy stream picks up.
pub(crate) const LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");

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

/// How often a header was sent, and its value when once.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) enum Sent<'h> {
    /// Not at all.
    #[default]
    Never,
    /// Once, with this value.
    Once(&'h HeaderValue),
    /// More than once.
    Repeated,
}

impl<'h> Sent<'h> {
    fn add(&mut self, value: &'h HeaderValue) {
        *self = match self {
            Sent::Never => Sent::Once(value),
            _ => Sent::Repeated,
        };
    }

    /// The value, decoded, as [`single`] reads it (`name` for the refusal).
    pub(crate) fn single(self, name: &HeaderName) -> Result<Option<Cow<'h, str>>, BadHeader> {
        match self {
            Sent::Never => Ok(None),
            Sent::Once(value) => decode(name.as_str(), value).map(Some),
            Sent::Repeated => Err(BadHeader(format!(
                "the {name} header was sent more than once"
            ))),
        }
    }
}

/// The headers a 2026-07-28 POST reads, found in one walk over the
/// request's headers. A lookup by a name that is not a standard one hashes
/// the name byte by byte, one such lookup per header, where the walk
/// compares a few names (most standard ones, which compare as an index)
/// for all of them (the cost of each: BENCHMARKS.md).
#[derive(Debug, Default)]
pub(crate) struct Routing<'h> {
    /// `MCP-Protocol-Version`.
    pub(crate) protocol_version: Sent<'h>,
    /// `Mcp-Method`.
    pub(crate) method: Sent<'h>,
    /// `Mcp-Name`.
    pub(crate) name: Sent<'h>,
    /// Whether `traceparent` came: only then is the trace context read.
    pub(crate) traced: bool,
}

impl<'h> Routing<'h> {
    /// The routing headers of `headers`.
    pub(crate) fn of(headers: &'h HeaderMap) -> Routing<'h> {
        let mut routing = Routing::default();
        for (name, value) in headers {
            match name.as_str() {
                "mcp-protocol-version" => routing.protocol_version.add(value),
                "mcp-method" => routing.method.add(value),
                "mcp-name" => routing.name.add(value),
                "traceparent" => routing.traced = true,
                _ => {}
            }
        }
        routing
    }
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

/// A header value as text ([`http::decode_value`]), or why not, naming
/// the header.
pub(crate) fn decode<'v>(name: &str, value: &'v HeaderValue) -> Result<Cow<'v, str>, BadHeader> {
    http::decode_value(value.as_bytes())
        .map_err(|why| BadHeader(format!("the {name} header {why}")))
}

/// The values (one, unless the client repeated it) of header `name`
/// (an `Mcp-Param-*` one, not known in advance); header names compare
/// case-insensitively.
pub(crate) fn param<'h>(
    headers: &'h HeaderMap,
    name: &str,
) -> impl Iterator<Item = &'h HeaderValue> + use<'h> {
    let name = HeaderName::from_bytes(name.as_bytes()).ok();
    name.into_iter()
        .flat_map(move |name| headers.get_all(name).into_iter())
}

/// A `host[:port]` authority as `Host` and an origin carry it, parsed
/// strictly (RFC 9110 §7.2, RFC 3986 §3.2): the host is a reg-name (which
/// covers IPv4 literals) or a bracketed IPv6 literal, kept with its brackets
/// (`[::1]`) as the allowed hosts are written; the port, when there is a
/// `:`, is one or more digits that fit 16 bits. No userinfo, nothing after.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Authority<'a> {
    /// The host as sent (compare it case-insensitively).
    pub(crate) host: &'a str,
    /// The port, if one was given.
    pub(crate) port: Option<u16>,
}

/// `text` as an [`Authority`], or `None` when it is anything else. Taking
/// the host as "whatever comes before the first `:`" let
/// `localhost:80@evil.com`, `localhost:evil` and `[::1]evil` pass for
/// loopback names: every byte must belong to the grammar here.
pub(crate) fn authority(text: &str) -> Option<Authority<'_>> {
    let (host, port) = if text.starts_with('[') {
        let end = text.find(']')?;
        let (host, rest) = text.split_at(end + 1);
        // IPvFuture (`[v1.…]`) is refused: no client of a local server
        // sends it, and it names nothing an allow-list holds.
        host[1..end].parse::<std::net::Ipv6Addr>().ok()?;
        (host, rest)
    } else {
        let end = text.find(':').unwrap_or(text.len());
        let (host, rest) = text.split_at(end);
        if host.is_empty() || !is_reg_name(host) {
            return None;
        }
        (host, rest)
    };
    let port = match port {
        "" => None,
        rest => {
            let digits = rest.strip_prefix(':')?;
            // Digits only: `u16::from_str` alone would take a leading `+`.
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            Some(digits.parse::<u16>().ok()?)
        }
    };
    Some(Authority { host, port })
}

/// RFC 3986 `reg-name`: unreserved characters, sub-delims and
/// percent-encoded octets (two hex digits after each `%`).
fn is_reg_name(host: &str) -> bool {
    let bytes = host.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = |at: usize| bytes.get(at).is_some_and(u8::is_ascii_hexdigit);
                if !(hex(i + 1) && hex(i + 2)) {
                    return false;
                }
                i += 3;
            }
            b if b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=".contains(&b) => i += 1,
            _ => return false,
        }
    }
    true
}

/// Whether `origin` may call: it is listed exactly in `origins`, or it is
/// exactly `http(s)://host[:port]` (an [`authority`], no path, no
/// userinfo) and its host is one of `hosts`.
pub(crate) fn origin_allowed(origin: &str, hosts: &[String], origins: &[String]) -> bool {
    if origins.iter().any(|o| o.eq_ignore_ascii_case(origin)) {
        return true;
    }
    let Some((scheme, rest)) = origin.split_once("://") else {
        return false;
    };
    matches!(scheme, "http" | "https")
        && authority(rest).is_some_and(|a| host_allowed(a.host, hosts))
}

/// Whether `host` (an [`Authority`]'s) is one of `hosts`, ignoring case.
pub(crate) fn host_allowed(host: &str, hosts: &[String]) -> bool {
    hosts.iter().any(|h| h.eq_ignore_ascii_case(host))
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
        assert_eq!(
            decode("x", &HeaderValue::from_static("=?base64?!!?=")),
            Err(BadHeader(
                "the x header holds an =?base64?…?= value that is not valid base64".to_owned()
            ))
        );
        let v = HeaderValue::from_bytes("é".as_bytes()).unwrap();
        assert_eq!(
            decode("x", &v),
            Err(BadHeader(
                "the x header holds characters other than visible ASCII; encode them as =?base64?…?=".to_owned()
            ))
        );
    }

    #[test]
    fn one_walk_finds_what_the_lookups_find() {
        let mut headers = HeaderMap::new();
        headers.append(
            "MCP-Protocol-Version",
            HeaderValue::from_static("2026-07-28"),
        );
        headers.append(METHOD, HeaderValue::from_static("tools/call"));
        headers.append(NAME, HeaderValue::from_static("=?base64?YWRk?="));
        headers.append(NAME, HeaderValue::from_static("add"));
        headers.append(hyper::header::ACCEPT, HeaderValue::from_static("*/*"));
        let routing = Routing::of(&headers);
        for name in [PROTOCOL_VERSION, METHOD, NAME, SESSION_ID] {
            let sent = match name.as_str() {
                "mcp-protocol-version" => routing.protocol_version,
                "mcp-method" => routing.method,
                "mcp-name" => routing.name,
                _ => Sent::Never,
            };
            assert_eq!(sent.single(&name), single(&headers, &name), "{name}");
        }
        assert!(routing.name.single(&NAME).is_err());
        assert!(!routing.traced);
        headers.append(TRACEPARENT, HeaderValue::from_static("00-bad"));
        assert!(Routing::of(&headers).traced);
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
        assert!(origin_allowed("http://localhost", &hosts, &[]));
        assert!(origin_allowed("https://127.0.0.1:8443", &hosts, &[]));
        assert!(origin_allowed("http://[::1]", &hosts, &[]));
        assert!(origin_allowed("http://[::1]:3000", &hosts, &[]));
        assert!(origin_allowed("http://LOCALHOST:3000", &hosts, &[]));
        assert!(!origin_allowed("https://evil.example", &hosts, &[]));
        assert!(!origin_allowed("null", &hosts, &[]));
        assert!(origin_allowed(
            "https://app.example",
            &hosts,
            &["https://app.example".to_owned()]
        ));
        // Nothing but `scheme://host[:port]`: no userinfo, trailing junk,
        // path, other scheme or missing host.
        for origin in [
            "http://localhost:80@evil.com",
            "http://localhost@evil.com",
            "http://user@localhost",
            "http://localhost:evil",
            "http://localhost:3000/",
            "http://localhost/path",
            "http://localhost?x",
            "http://localhost#x",
            "http://[::1]evil",
            "http://[::1].evil.com",
            "http://localhost.evil.com",
            "http://",
            "http://:80",
            "ftp://localhost",
            "HTTP//localhost",
            "localhost",
            "http://localhost:80:80",
            "http://localhost:+80",
        ] {
            assert!(!origin_allowed(origin, &hosts, &[]), "{origin}");
        }
    }

    #[test]
    fn authorities_parse_strictly() {
        let ok = |text: &str, host: &str, port: Option<u16>| {
            assert_eq!(
                authority(text),
                Some(Authority { host, port }),
                "{text} should parse"
            );
        };
        ok("localhost", "localhost", None);
        ok("localhost:8080", "localhost", Some(8080));
        ok("LocalHost:80", "LocalHost", Some(80));
        ok("127.0.0.1:1234", "127.0.0.1", Some(1234));
        ok("127.0.0.1", "127.0.0.1", None);
        ok("[::1]", "[::1]", None);
        ok("[::1]:80", "[::1]", Some(80));
        ok("[2001:db8::7]:65535", "[2001:db8::7]", Some(65535));
        ok("[::ffff:127.0.0.1]:1", "[::ffff:127.0.0.1]", Some(1));
        ok("mcp.example.com:0", "mcp.example.com", Some(0));
        ok("xn--bcher-kva.example", "xn--bcher-kva.example", None);
        ok("my_host~1", "my_host~1", None);
        ok("a%2Db", "a%2Db", None);
        ok("localhost:08080", "localhost", Some(8080));
        for bad in [
            "",
            ":80",
            "localhost:",
            "localhost:evil",
            "localhost:80@evil.com",
            "localhost:80:80",
            "localhost:+80",
            "localhost:-1",
            "localhost:65536",
            "localhost:99999999999999999999",
            "localhost: 80",
            "localhost :80",
            " localhost",
            "localhost ",
            "user@localhost",
            "user:pass@localhost",
            "localhost/evil",
            "localhost?",
            "localhost#",
            "local host",
            "localhost\\evil",
            "a%2",
            "a%zz",
            "[::1]evil",
            "[::1].evil.com",
            "[::1]:",
            "[::1]:evil",
            "[::1]:80evil",
            "[::1",
            "::1",
            "[]",
            "[localhost]",
            "[v1.fe]",
            "[::1]]",
            "[[::1]]",
            "[127.0.0.1]",
            "[::1%25eth0]",
            "\u{e9}vil",
        ] {
            assert_eq!(authority(bad), None, "{bad:?} should not parse");
        }
    }
}
