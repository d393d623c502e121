//! SSE polling (SEP-1699) on legacy Streamable HTTP, on the `conformance`
//! example's `test_reconnection` fixture (`ctx.close_sse_stream()` first,
//! the result 100 ms later): the POST's stream ends with an event carrying
//! an id and `retry`, a `GET` with `Last-Event-ID` resumes it with the
//! result, each once; ids are the session's to resume, and elsewhere
//! (stdio, 2026-07-28 HTTP) closing does nothing. Every byte checked.

use crate::common;

use common::Peer;
use common::http::{self, Server};
use serde_json::{Value, json};

const LEGACY: &str = "2025-11-25";

/// `initialize` over POST from a client declaring nothing; the session id.
fn open_session(server: &Server) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": LEGACY, "capabilities": {},
        "clientInfo": {"name": "polling-tests", "version": "1"}}});
    let response = server.post(&[], &init.to_string());
    assert_eq!(response.status, 200, "{response:?}");
    let id = response.header("mcp-session-id").unwrap().to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let done = server.post(&[("Mcp-Session-Id", &id)], &initialized.to_string());
    assert_eq!(done.status, 202);
    id
}

fn legacy_call(id: u64, name: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": name, "arguments": {}}})
    .to_string()
}

/// A GET of `session` resuming from `last`.
fn resume(server: &Server, session: &str, last: &str) -> http::Response {
    server.raw(&http::request_bytes(
        &server.addr,
        "GET",
        &[
            ("Accept", "text/event-stream"),
            ("Mcp-Session-Id", session),
            ("Last-Event-ID", last),
        ],
        "",
    ))
}

/// The stream id of a body that starts with an event of id `<stream>-1`.
fn stream_of(body: &str) -> String {
    let id = body
        .strip_prefix("id: ")
        .and_then(|rest| rest.split('\n').next())
        .unwrap_or_else(|| panic!("no id first: {body:?}"));
    let stream = id.strip_suffix("-1").unwrap_or_else(|| panic!("{id}"));
    assert_eq!(stream.len(), 18, "{id}");
    assert!(stream.bytes().all(|b| b.is_ascii_hexdigit()), "{id}");
    stream.to_owned()
}

const RESULT: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"text":"Reconnection test completed","type":"text"}]}}"#;

#[test]
fn a_closed_stream_ends_with_retry_and_is_resumed_once_with_last_event_id() {
    let server = Server::start_example("conformance", &[]);
    let session = open_session(&server);
    let posted = server.post(
        &[("Mcp-Session-Id", &session)],
        &legacy_call(1, "test_reconnection"),
    );
    assert_eq!(posted.status, 200, "{posted:?}");
    assert_eq!(posted.header("content-type"), Some("text/event-stream"));
    let stream = stream_of(&posted.body);
    assert_eq!(
        posted.body,
        format!("id: {stream}-1\nretry: 1000\ndata:\n\n")
    );

    let resumed = resume(&server, &session, &format!("{stream}-1"));
    assert_eq!(resumed.status, 200, "{resumed:?}");
    assert_eq!(resumed.header("content-type"), Some("text/event-stream"));
    assert_eq!(
        resumed.body,
        format!("id: {stream}-2\nevent: message\ndata: {RESULT}\n\n")
    );
    let result: Value = serde_json::from_str(RESULT).unwrap();
    common::assert_valid(LEGACY, "JSONRPCResponse", &result);

    // Once only; an id of no stream, or of another session's, is refused.
    let again = resume(&server, &session, &format!("{stream}-1"));
    assert_eq!(again.status, 400, "{again:?}");
    assert_eq!(
        again.body,
        "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32600,\"message\":\"Bad Request: Last-Event-ID names no stream \
         of this session to resume (unknown, resumed already, or dropped); call again\"}}\n"
    );
    let posted = server.post(
        &[("Mcp-Session-Id", &session)],
        &legacy_call(1, "test_reconnection"),
    );
    let stream = stream_of(&posted.body);
    let other = open_session(&server);
    assert_eq!(resume(&server, &other, &format!("{stream}-1")).status, 400);
    // An id after the stream's last event: not one it sent.
    let ahead = resume(&server, &session, &format!("{stream}-7"));
    assert_eq!(ahead.status, 400, "{ahead:?}");
    assert_eq!(ahead.body, again.body);
    // Still parked after the refusals: the right id resumes it.
    let resumed = resume(&server, &session, &format!("{stream}-1"));
    assert_eq!(
        resumed.body,
        format!("id: {stream}-2\nevent: message\ndata: {RESULT}\n\n")
    );
}

#[test]
fn every_event_of_a_legacy_stream_carries_the_next_id() {
    let server = Server::start_example("conformance", &[]);
    let session = open_session(&server);
    let mut call: Value = serde_json::from_str(&legacy_call(1, "test_tool_with_progress")).unwrap();
    call["params"]["_meta"] = json!({"progressToken": "p"});
    let posted = server.post(&[("Mcp-Session-Id", &session)], &call.to_string());
    let stream = stream_of(&posted.body);
    let ids: Vec<String> = posted
        .body
        .split("\n\n")
        .filter(|event| !event.is_empty())
        .map(|event| event.lines().next().unwrap().to_owned())
        .collect();
    let expected: Vec<String> = (1..=ids.len())
        .map(|n| format!("id: {stream}-{n}"))
        .collect();
    assert!(ids.len() >= 2, "{posted:?}");
    assert_eq!(ids, expected);
}

#[test]
fn closing_does_nothing_on_stdio_and_in_the_2026_era() {
    let mut peer = Peer::spawn("conformance", &[]);
    peer.request(common::initialize(0, LEGACY));
    peer.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let response = peer.request(common::call(1, "test_reconnection", json!({}), false));
    assert_eq!(
        response,
        json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text",
            "text": "Reconnection test completed"}]}})
    );

    let server = Server::start_example("conformance", &[]);
    let response = server.modern(&http::call(2, "test_reconnection", json!({})), &[]);
    assert_eq!(response.status, 200, "{response:?}");
    let message = response.json();
    assert_eq!(
        message["result"]["content"],
        json!([{"type": "text", "text": "Reconnection test completed"}])
    );
}
