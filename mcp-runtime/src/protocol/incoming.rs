//! Classifying one incoming line: request, notification, response, or a
//! rejection that says which JSON-RPC error it earns; and the params of
//! each method a server serves ([`requests`]).

mod envelope;

use envelope::{Envelope, FirstPass, read_envelope};
pub(crate) mod requests;

use super::{ErrorCode, RpcError};
use crate::protocol::id_scan::is_valid_id;
use crate::protocol::params::Params;
use crate::protocol::read::{Present, Text, without_position};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;

/// One well-formed JSON-RPC message, borrowing from the line it was read from.
// A request's params (with the `_meta` envelope) make it the large variant:
// the value is made once per message and taken apart at once, never stored
// in bulk, and boxing it would cost an allocation on every request.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub(crate) enum Incoming<'a> {
    /// A request: it gets exactly one response. Its params are read once,
    /// here ([`Params`]), for every layer that decides on them.
    Request {
        /// The request's id, as sent.
        id: &'a RawValue,
        /// The method.
        method: Cow<'a, str>,
        /// The params, read once.
        params: Params<'a>,
    },
    /// A notification: it is never answered.
    Notification {
        /// The method.
        method: Cow<'a, str>,
        /// The params, unread.
        params: Option<&'a RawValue>,
    },
    /// A response to a request this server sent.
    Response {
        /// The id of the request this answers.
        id: &'a RawValue,
        /// The result, if it succeeded.
        result: Option<&'a RawValue>,
        /// The error, if it failed.
        error: Option<&'a RawValue>,
    },
}

/// Why a line is not a message we can act on, and the id to answer with.
#[derive(Debug)]
pub(crate) struct Rejection<'a> {
    /// What was wrong.
    pub error: RpcError,
    /// The request's id when it could be read; the response omits `id` otherwise.
    pub id: Option<&'a RawValue>,
}

/// Reads one line (without its newline).
pub(crate) fn parse(line: &[u8]) -> Result<Incoming<'_>, Rejection<'_>> {
    if line.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return Err(reject_non_object(line));
    }
    match read_envelope::<FirstPass<'_>>(line) {
        Ok(Envelope {
            jsonrpc,
            id: Present(Some(id)),
            method: Text(Some(method)),
            params: FirstPass::Read(members),
            ..
        }) if jsonrpc.0.as_deref() == Some("2.0") && is_valid_id(id) => {
            // A well-formed `tools/call`, `prompts/get` or `resources/read` request whose
            // params were read in the pass: what `classify` does with
            // captured ones, from the members.
            let params = match members {
                None => Ok(Params::default()),
                Some(members) => Params::of_members(None, members),
            };
            return match params {
                Ok(params) => Ok(Incoming::Request { id, method, params }),
                Err(invalid) => Err(Rejection {
                    error: RpcError::new(ErrorCode::INVALID_PARAMS, invalid.0),
                    id: Some(id),
                }),
            };
        }
        Ok(Envelope {
            jsonrpc,
            id,
            method,
            params: FirstPass::Raw(params),
            result,
            error,
        }) => {
            return classify(Envelope {
                jsonrpc,
                id,
                method,
                params,
                result,
                error,
            });
        }
        // A `tools/call` that is no well-formed request (it is refused, or
        // it is a notification, which keeps its params as sent), or whose
        // params did not read as members, and any message that does not
        // parse: read again with the params captured, so that it gets
        // exactly the answer any other message would.
        _ => {}
    }
    match read_envelope::<Present<'_>>(line) {
        Ok(envelope) => classify(envelope),
        Err(err) => Err(reject_unparsed(line, &err)),
    }
}

/// What a message read with its params captured is.
fn classify<'a>(envelope: Envelope<'a, Present<'a>>) -> Result<Incoming<'a>, Rejection<'a>> {
    let id = envelope.id.0;
    let valid_id = id.filter(|raw| is_valid_id(raw));
    if envelope.jsonrpc.0.as_deref() != Some("2.0") {
        return Err(Rejection {
            error: RpcError::new(
                ErrorCode::INVALID_REQUEST,
                "Invalid Request: \"jsonrpc\" must be \"2.0\"",
            ),
            id: valid_id,
        });
    }
    if let Some(raw) = id
        && valid_id.is_none()
    {
        let message = if raw.get() == "null" {
            "Invalid Request: \"id\" must not be null (a notification has no \"id\" at all)"
        } else {
            "Invalid Request: \"id\" must be a string or an integer"
        };
        return Err(Rejection {
            error: RpcError::new(ErrorCode::INVALID_REQUEST, message),
            id: None,
        });
    }
    let params = envelope.params.0.filter(|raw| raw.get() != "null");
    // JSON-RPC 2.0 allows params by position (an array) or by name (an
    // object); anything else breaks the Request object itself: -32600.
    if let Some(raw) = params
        && !(raw.get().starts_with('{') || raw.get().starts_with('['))
    {
        return Err(Rejection {
            error: RpcError::new(
                ErrorCode::INVALID_REQUEST,
                "Invalid Request: \"params\" must be an object",
            ),
            id: valid_id,
        });
    }
    // An array is a well-formed JSON-RPC request whose params do not fit the
    // method (every MCP method takes named params): -32602, with the id.
    let positional = params.is_some_and(|raw| raw.get().starts_with('['));
    match (envelope.method.0, valid_id) {
        (Some(_), Some(id)) if positional => Err(Rejection {
            error: RpcError::new(
                ErrorCode::INVALID_PARAMS,
                "Invalid params: MCP params are a JSON object of named members, not an array",
            ),
            id: Some(id),
        }),
        (Some(method), Some(id)) => match Params::parse(params) {
            Ok(params) => Ok(Incoming::Request { id, method, params }),
            Err(invalid) => Err(Rejection {
                error: RpcError::new(ErrorCode::INVALID_PARAMS, invalid.0),
                id: Some(id),
            }),
        },
        (Some(method), None) => Ok(Incoming::Notification { method, params }),
        (None, Some(id)) if envelope.result.0.is_some() || envelope.error.0.is_some() => {
            Ok(Incoming::Response {
                id,
                result: envelope.result.0,
                error: envelope.error.0,
            })
        }
        (None, id) => Err(Rejection {
            error: RpcError::new(
                ErrorCode::INVALID_REQUEST,
                "Invalid Request: \"method\" is missing",
            ),
            id,
        }),
    }
}

/// A line that does not start with `{`: not JSON (a parse error, with the
/// reason), or JSON that is no message: an array is a JSON-RPC batch, which
/// MCP does not accept (2025-06-18 removed them), anything else no request.
fn reject_non_object(line: &[u8]) -> Rejection<'_> {
    let is_array = line.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[');
    match serde_json::from_slice::<serde::de::IgnoredAny>(line) {
        // Too deep to check, but certainly no object.
        Err(err) if !is_recursion_limit(&err) => parse_error(&err),
        _ if is_array => Rejection {
            error: RpcError::new(
                ErrorCode::INVALID_REQUEST,
                "Invalid Request: a JSON array (a JSON-RPC batch) is not accepted; MCP \
                 takes one JSON-RPC message, a JSON object, per line",
            ),
            id: None,
        },
        _ => Rejection {
            error: RpcError::new(
                ErrorCode::INVALID_REQUEST,
                "Invalid Request: a JSON-RPC message is a JSON object",
            ),
            id: None,
        },
    }
}

fn parse_error(err: &serde_json::Error) -> Rejection<'static> {
    Rejection {
        error: RpcError::new(
            ErrorCode::PARSE_ERROR,
            format!("Parse error: {}", without_position(err)),
        ),
        id: None,
    }
}

fn is_recursion_limit(err: &serde_json::Error) -> bool {
    err.to_string().starts_with("recursion limit exceeded")
}

/// Not JSON at all is a parse error; JSON of the wrong shape (a field of the
/// wrong type) is an invalid request, answered with the id when one can be
/// found.
fn reject_unparsed<'a>(line: &'a [u8], err: &serde_json::Error) -> Rejection<'a> {
    if err.is_syntax() || err.is_eof() || err.is_io() {
        return parse_error(err);
    }
    if is_recursion_limit(err) {
        return Rejection {
            error: RpcError::new(
                ErrorCode::PARSE_ERROR,
                "Parse error: the message is nested too deeply (limit 128)",
            ),
            id: None,
        };
    }
    // A type error can come before a syntax error later in the line: a line
    // that is not JSON is a parse error whatever its first fields were.
    if let Err(syntax) = serde_json::from_slice::<serde::de::IgnoredAny>(line)
        && !is_recursion_limit(&syntax)
    {
        return parse_error(&syntax);
    }
    Rejection {
        error: RpcError::new(
            ErrorCode::INVALID_REQUEST,
            format!("Invalid Request: {}", without_position(err)),
        ),
        id: salvage_id(line),
    }
}

/// The `id` of an object that failed to parse for another reason.
fn salvage_id(line: &[u8]) -> Option<&RawValue> {
    #[derive(Deserialize)]
    struct IdOnly<'a> {
        #[serde(borrow)]
        id: &'a RawValue,
    }
    serde_json::from_slice::<IdOnly<'_>>(line)
        .ok()
        .map(|only| only.id)
        .filter(|raw| is_valid_id(raw))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rejected(line: &str) -> (i64, Option<String>) {
        match parse(line.as_bytes()) {
            Err(r) => (r.error.code, r.id.map(|id| id.get().to_owned())),
            Ok(m) => panic!("accepted {line}: {m:?}"),
        }
    }

    #[test]
    fn classifies_requests_notifications_and_responses() {
        let req = parse(br#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#).unwrap();
        assert!(matches!(req, Incoming::Request { id, .. } if id.get() == "\"a\""));
        let note = parse(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).unwrap();
        assert!(matches!(note, Incoming::Notification { .. }));
        let resp = parse(br#"{"jsonrpc":"2.0","id":3,"result":{}}"#).unwrap();
        assert!(matches!(resp, Incoming::Response { .. }));
    }

    /// A `tools/call` (or `prompts/get`, `resources/read`) whose params are read in the
    /// message's pass gets what the params' own parse gives (the same
    /// members, the same refusals), and any other shape of it the same
    /// answer as before.
    #[test]
    fn a_tools_call_prompts_get_or_resources_read_reads_its_params_in_the_same_pass() {
        let call = br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"add","arguments":{"a":1},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
        let Ok(Incoming::Request { id, method, params }) = parse(call) else {
            panic!("refused");
        };
        assert_eq!((id.get(), &*method), ("4", "tools/call"));
        assert!(params.raw.is_none(), "read in the pass, not captured");
        assert!(matches!(params.name, Some(Cow::Borrowed("add"))));
        assert_eq!(params.arguments.unwrap().get(), r#"{"a":1}"#);
        assert_eq!(params.envelope_version(), Some("2026-07-28"));
        // A `prompts/get` too: its params are the same members.
        let get = br#"{"jsonrpc":"2.0","id":5,"method":"prompts/get","params":{"name":"greet","arguments":{"who":"x"}}}"#;
        let Ok(Incoming::Request { method, params, .. }) = parse(get) else {
            panic!("refused");
        };
        assert_eq!(&*method, "prompts/get");
        assert!(params.raw.is_none(), "read in the pass, not captured");
        assert_eq!(params.name.as_deref(), Some("greet"));
        assert_eq!(params.arguments.unwrap().get(), r#"{"who":"x"}"#);
        // A `resources/read` too: its `uri` is one of them.
        let read =
            br#"{"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":"t://a\/b"}}"#;
        let Ok(Incoming::Request { method, params, .. }) = parse(read) else {
            panic!("refused");
        };
        assert_eq!(&*method, "resources/read");
        assert!(params.raw.is_none(), "read in the pass, not captured");
        assert_eq!(params.uri.as_deref(), Some("t://a/b"));
        // `params` before `method`: captured, then read (the same members).
        let late = br#"{"jsonrpc":"2.0","id":4,"params":{"name":"add"},"method":"tools/call"}"#;
        let Ok(Incoming::Request { params, .. }) = parse(late) else {
            panic!("refused");
        };
        assert!(params.raw.is_some());
        assert_eq!(params.name.as_deref(), Some("add"));
        // Null params are none.
        let null = br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":null}"#;
        let Ok(Incoming::Request { params, .. }) = parse(null) else {
            panic!("refused");
        };
        assert!(params.name.is_none() && params.meta.is_none());
        // Members of the wrong type, repeated, or no object: -32602 with
        // the id, as from `Params::parse`.
        for bad in [
            r#"{"name":5}"#,
            r#"{"name":"a","name":"b"}"#,
            r#"{"arguments":[1]}"#,
            r#"{"_meta":null}"#,
            r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":7}}"#,
            r#"["add",{}]"#,
        ] {
            let line =
                format!(r#"{{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{bad}}}"#);
            assert_eq!(rejected(&line), (-32602, Some("9".into())), "{bad}");
        }
        let fallback = |line: &str| match parse(line.as_bytes()) {
            Err(r) => r.error.message,
            Ok(m) => panic!("accepted {line}: {m:?}"),
        };
        let message = fallback(
            r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"a","name":"b"}}"#,
        );
        assert_eq!(message, "Invalid params: duplicate field `name`");
        // Params that are no object nor array break the request: -32600.
        assert_eq!(
            rejected(r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":"x"}"#),
            (-32600, Some("9".into()))
        );
        // A bad id or version is refused as for any method.
        assert_eq!(
            rejected(r#"{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{}}"#),
            (-32600, None)
        );
        assert_eq!(
            rejected(r#"{"jsonrpc":"1.0","id":3,"method":"tools/call","params":{}}"#),
            (-32600, Some("3".into()))
        );
        // A notification named tools/call keeps its params as sent.
        let note = br#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":5}}"#;
        let Ok(Incoming::Notification { params, .. }) = parse(note) else {
            panic!("not a notification");
        };
        assert_eq!(params.unwrap().get(), r#"{"name":5}"#);
        // Top-level keys twice, and syntax errors inside params.
        assert_eq!(
            rejected(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","method":"x","params":{}}"#)
                .0,
            -32600
        );
        assert_eq!(
            rejected(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":}}"#),
            (-32700, None)
        );
        assert_eq!(
            rejected(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{}} x"#),
            (-32700, None)
        );
    }

    #[test]
    fn rejects_with_the_right_code() {
        assert_eq!(rejected("not json"), (-32700, None));
        assert_eq!(rejected(r#"{"jsonrpc":"2.0","id":1,"#), (-32700, None));
        assert_eq!(rejected("[1,2]"), (-32600, None));
        assert_eq!(rejected("42"), (-32600, None));
        assert_eq!(
            rejected(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#),
            (-32600, None)
        );
        assert_eq!(
            rejected(r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#),
            (-32600, None)
        );
        assert_eq!(
            rejected(r#"{"jsonrpc":"2.0","id":"\ud800","method":"ping"}"#),
            (-32600, None),
            "a lone surrogate is no string"
        );
        assert!(parse(br#"{"jsonrpc":"2.0","id":"\u00e9t\u00e9","method":"ping"}"#).is_ok());
        assert_eq!(
            rejected(r#"{"jsonrpc":"2.0","id":7}"#),
            (-32600, Some("7".into()))
        );
        assert_eq!(
            rejected(r#"{"jsonrpc":"1.0","id":7,"method":"x"}"#),
            (-32600, Some("7".into()))
        );
        assert_eq!(
            rejected(r#"{"jsonrpc":"2.0","id":7,"method":5}"#),
            (-32600, Some("7".into()))
        );
        assert_eq!(
            rejected(r#"{"jsonrpc":"2.0","id":7,"method":"x","params":3}"#),
            (-32600, Some("7".into()))
        );
        assert_eq!(
            rejected("["),
            (-32700, None),
            "not JSON, whatever it starts with"
        );
        assert_eq!(rejected("[1"), (-32700, None));
        assert_eq!(rejected("[]"), (-32600, None), "JSON, but a batch");
        assert_eq!(
            rejected(r#"{"jsonrpc":"2.0","id":7,"method":5,"#),
            (-32700, None),
            "a type error before a syntax error is still a parse error"
        );
        assert_eq!(
            rejected(r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":["add",{}]}"#),
            (-32602, Some("8".into())),
            "positional params are well-formed JSON-RPC but no MCP params"
        );
        assert!(matches!(
            parse(br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":["8"]}"#),
            Ok(Incoming::Notification { .. })
        ));
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert_eq!(
            rejected(&deep).0,
            -32600,
            "an array, however deep, is not a request"
        );
    }
}
