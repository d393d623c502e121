//! W3C Trace Context (<https://www.w3.org/TR/trace-context/>): the
//! `traceparent` and `tracestate` a caller sends, in `params._meta`
//! (2026-07-28) or as HTTP headers. A value that does not parse is ignored,
//! never an error: tracing must not make a call fail.

use crate::protocol::params::Meta;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;

/// The longest `tracestate` kept (the W3C limit for a whole header value).
const MAX_TRACESTATE: usize = 512;

/// A caller's valid trace context.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TraceContext {
    /// The trace, never all zeros.
    pub trace_id: [u8; 16],
    /// The caller's span, the parent of the call's span; never all zeros.
    pub parent_id: [u8; 8],
    /// The trace flags (bit 0: sampled).
    pub flags: u8,
    /// The vendor list, as sent (kept only with a valid `traceparent`, and
    /// only when it is printable ASCII of at most 512 bytes).
    pub state: Option<Box<str>>,
}

impl TraceContext {
    /// The context from a `traceparent` and an optional `tracestate`, or
    /// `None` when `traceparent` is not valid (then `tracestate` is ignored
    /// too, as the W3C rules say).
    pub(crate) fn parse(traceparent: &str, tracestate: Option<&str>) -> Option<TraceContext> {
        let (trace_id, parent_id, flags) = parse_traceparent(traceparent.trim())?;
        let state = tracestate
            .map(str::trim)
            .filter(|s| !s.is_empty() && s.len() <= MAX_TRACESTATE)
            .filter(|s| s.bytes().all(|b| (0x20..=0x7e).contains(&b)))
            .map(Box::from);
        Some(TraceContext {
            trace_id,
            parent_id,
            flags,
            state,
        })
    }

    /// The context in a 2026-07-28 request's `params._meta` (its
    /// `traceparent` and `tracestate` keys). A missing or invalid
    /// `traceparent` (not even a string) is no context, never an error.
    pub(crate) fn from_meta(meta: &Meta<'_>) -> Option<TraceContext> {
        // Each read as a string, else ignored: a wrongly typed value is no
        // context, not a failure of the whole `_meta`.
        let text = |raw: &RawValue| serde_json::from_str::<Cow<'_, str>>(raw.get()).ok();
        let traceparent = text(meta.get("traceparent")?)?;
        let tracestate = meta.get("tracestate").and_then(text);
        TraceContext::parse(&traceparent, tracestate.as_deref())
    }

    /// The trace id as 32 lowercase hex digits.
    pub(crate) fn trace_id_hex(&self) -> Hex<'_> {
        Hex(&self.trace_id)
    }

    /// The caller's span id as 16 lowercase hex digits.
    pub(crate) fn parent_id_hex(&self) -> Hex<'_> {
        Hex(&self.parent_id)
    }
}

/// The version-00 `traceparent` of this context (`00-<trace>-<parent>-<flags>`).
impl fmt::Display for TraceContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "00-{}-{}-{:02x}",
            self.trace_id_hex(),
            self.parent_id_hex(),
            self.flags
        )
    }
}

/// Bytes shown as lowercase hex.
#[derive(Debug)]
pub(crate) struct Hex<'a>(&'a [u8]);

impl fmt::Display for Hex<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

/// `version-traceid-parentid-flags`. Version `00` is exactly 55 bytes; a
/// later version (`01`..`fe`) is read the same way, and may go on after a
/// `-` (the W3C forward-compatibility rule); `ff` is invalid. Hex is
/// lowercase only.
fn parse_traceparent(value: &str) -> Option<([u8; 16], [u8; 8], u8)> {
    let bytes = value.as_bytes();
    let version = hex_byte(bytes.get(0..2)?)?;
    let valid_length = match version {
        0xff => false,
        0 => bytes.len() == 55,
        _ => bytes.len() == 55 || (bytes.len() > 55 && bytes[55] == b'-'),
    };
    if !valid_length || bytes[2] != b'-' || bytes[35] != b'-' || bytes[52] != b'-' {
        return None;
    }
    let mut trace_id = [0; 16];
    fill(&mut trace_id, &bytes[3..35])?;
    let mut parent_id = [0; 8];
    fill(&mut parent_id, &bytes[36..52])?;
    let flags = hex_byte(&bytes[53..55])?;
    if trace_id == [0; 16] || parent_id == [0; 8] {
        return None;
    }
    Some((trace_id, parent_id, flags))
}

/// Decodes `hex` (twice `out`'s length, lowercase) into `out`.
fn fill(out: &mut [u8], hex: &[u8]) -> Option<()> {
    for (byte, pair) in out.iter_mut().zip(hex.chunks_exact(2)) {
        *byte = hex_byte(pair)?;
    }
    Some(())
}

fn hex_byte(pair: &[u8]) -> Option<u8> {
    let digit = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    Some(digit(pair[0])? << 4 | digit(pair[1])?)
}

#[cfg(test)]
mod tests {
    use super::*;

    const VALID: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    #[test]
    fn a_valid_traceparent_round_trips() {
        let context = TraceContext::parse(VALID, Some("rojo=00f067aa0ba902b7")).unwrap();
        assert_eq!(
            context.trace_id_hex().to_string(),
            "4bf92f3577b34da6a3ce929d0e0e4736"
        );
        assert_eq!(context.parent_id_hex().to_string(), "00f067aa0ba902b7");
        assert_eq!(context.flags, 1);
        assert_eq!(context.state.as_deref(), Some("rojo=00f067aa0ba902b7"));
        assert_eq!(context.to_string(), VALID);
    }

    #[test]
    fn invalid_traceparents_are_refused() {
        let cases = [
            "",
            "00",
            // All-zero trace id, all-zero parent id.
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            // Uppercase hex, a non-hex digit.
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",
            // Version ff, and version 00 with anything after it.
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
            // Wrong separators and lengths.
            "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e473-600f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x",
        ];
        for case in cases {
            assert_eq!(TraceContext::parse(case, Some("a=b")), None, "{case:?}");
        }
    }

    #[test]
    fn the_context_is_read_from_meta_and_a_bad_one_ignored() {
        fn context_of(meta: serde_json::Value) -> Option<TraceContext> {
            let params = serde_json::json!({ "_meta": meta }).to_string();
            let raw = RawValue::from_string(params).unwrap();
            let params = crate::protocol::params::Params::parse(Some(&raw)).unwrap();
            TraceContext::from_meta(params.meta.as_ref().unwrap())
        }
        let trace = |traceparent: serde_json::Value| {
            context_of(serde_json::json!({
                crate::protocol::meta::PROTOCOL_VERSION: "2026-07-28",
                "traceparent": traceparent,
                "tracestate": "vendor=1",
            }))
        };
        let context = trace(VALID.into()).expect("a trace context");
        assert_eq!(context.to_string(), VALID);
        assert_eq!(context.state.as_deref(), Some("vendor=1"));
        // Invalid, or not even a string: no trace context.
        assert_eq!(trace("00-nonsense".into()), None);
        assert_eq!(trace(42.into()), None);
        assert_eq!(context_of(serde_json::json!({})), None);
    }

    #[test]
    fn a_later_version_is_read_by_the_version_00_layout() {
        let later = "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-comes-next";
        let context = TraceContext::parse(later, None).unwrap();
        assert_eq!(context.parent_id_hex().to_string(), "00f067aa0ba902b7");
        // But its extra part must follow a dash.
        let glued = "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x";
        assert_eq!(TraceContext::parse(glued, None), None);
    }

    #[test]
    fn an_unusable_tracestate_is_dropped_but_the_traceparent_kept() {
        for state in ["", "é=1", &"a=b,".repeat(200)] {
            let context = TraceContext::parse(VALID, Some(state)).unwrap();
            assert_eq!(context.state, None, "{state:?}");
        }
    }
}
