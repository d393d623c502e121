//! Roots and several inputs in one round (`ctx.roots`, `ctx.ask`), on the
//! `conformance` example's fixtures `test_input_required_result_list_roots`
//! and `test_input_required_result_multiple_inputs`: in the 2026-07-28 era
//! one `input_required` result carries every question the retry lacks; in a
//! legacy session every question is a request to the client, all sent
//! before any answer. Over stdio and Streamable HTTP, each message exact.

use crate::common;

use common::http::{self, Server};
use common::{Peer, assert_valid};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::time::Duration;

const MODERN: &str = "2026-07-28";
const LEGACY: &str = "2025-11-25";
const ROOTS_TOOL: &str = "test_input_required_result_list_roots";
const SEVERAL_TOOL: &str = "test_input_required_result_multiple_inputs";

fn name_form() -> Value {
    json!({"method": "elicitation/create", "params": {"mode": "form", "message": "What is your name?",
        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}})
}

fn greeting_request() -> Value {
    json!({"method": "sampling/createMessage", "params": {
        "messages": [{"role": "user", "content": {"type": "text", "text": "Generate a greeting"}}],
        "maxTokens": 50}})
}

fn roots_request() -> Value {
    json!({"method": "roots/list", "params": {}})
}

fn name_answer() -> Value {
    json!({"action": "accept", "content": {"name": "Alice"}})
}

fn greeting_answer() -> Value {
    json!({"role": "assistant", "content": {"type": "text", "text": "Hello there"}, "model": "m"})
}

fn roots_answer() -> Value {
    json!({"roots": [{"uri": "file:///work/a", "name": "A"}, {"uri": "file:///work/b"}]})
}

/// A 2026-07-28 `tools/call` of `name` from a client declaring `capabilities`.
fn modern_call(id: u64, name: &str, capabilities: Value) -> Value {
    let mut message = common::call(id, name, json!({}), true);
    message["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] = capabilities;
    message
}

/// `message` again as call `id`, answering `responses` under `state`.
fn retry(message: &Value, id: u64, responses: Value, state: &Value) -> Value {
    let mut retry = message.clone();
    retry["id"] = id.into();
    retry["params"]["inputResponses"] = responses;
    retry["params"]["requestState"] = state.clone();
    retry
}

/// The `input_required` result of `response`: exactly `requests`; its state.
#[track_caller]
fn input_required(response: &Value, requests: Value) -> Value {
    let result = &response["result"];
    assert_valid(MODERN, "InputRequiredResult", result);
    assert_eq!(result["resultType"], "input_required", "{response}");
    assert_eq!(result["inputRequests"], requests, "{response}");
    // In the order asked, not sorted.
    let keys: Vec<&String> = result["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    let asked: Vec<&String> = requests.as_object().unwrap().keys().collect();
    assert_eq!(keys, asked, "{response}");
    result["requestState"].clone()
}

/// The one text of a complete, successful `CallToolResult`.
#[track_caller]
fn complete_text(response: &Value) -> String {
    let result = &response["result"];
    assert_ne!(result["isError"], true, "{response}");
    assert_eq!(
        result["content"].as_array().map(Vec::len),
        Some(1),
        "{response}"
    );
    result["content"][0]["text"].as_str().unwrap().to_owned()
}

fn all_three() -> Value {
    json!({"elicitation": {}, "sampling": {}, "roots": {}})
}

const SEVERAL_DONE: &str = "Hello there Alice! Roots: file:///work/a, file:///work/b";

#[test]
fn modern_stdio_asks_for_roots_in_a_round_and_refuses_a_client_without_them() {
    let mut peer = Peer::spawn("conformance", &[]);
    peer.version = MODERN.into();
    let first = modern_call(1, ROOTS_TOOL, json!({"roots": {}}));
    let response = peer.request(first.clone());
    let state = input_required(&response, json!({"client_roots": roots_request()}));
    let response = peer.request(retry(
        &first,
        2,
        json!({"client_roots": roots_answer()}),
        &state,
    ));
    assert_valid(MODERN, "CallToolResult", &response["result"]);
    assert_eq!(
        complete_text(&response),
        "Roots: file:///work/a, file:///work/b"
    );

    // An answer that is not a ListRootsResult reaches the tool as an error.
    let first = modern_call(3, ROOTS_TOOL, json!({"roots": {}}));
    let state = input_required(
        &peer.request(first.clone()),
        json!({"client_roots": roots_request()}),
    );
    let response = peer.request(retry(
        &first,
        4,
        json!({"client_roots": {"roots": "none"}}),
        &state,
    ));
    assert_eq!(response["result"]["isError"], true, "{response}");
    let text = response["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("the client's roots/list answer is not valid: "),
        "{text}"
    );

    // More roots than the server takes: refused, named.
    let first = modern_call(5, ROOTS_TOOL, json!({"roots": {}}));
    let state = input_required(
        &peer.request(first.clone()),
        json!({"client_roots": roots_request()}),
    );
    let many: Vec<Value> = (0..1001)
        .map(|i| json!({"uri": format!("file:///r/{i}")}))
        .collect();
    let response = peer.request(retry(
        &first,
        6,
        json!({"client_roots": {"roots": many}}),
        &state,
    ));
    assert_eq!(
        response["result"]["content"][0]["text"],
        "the client's roots/list answer has 1001 roots, more than the 1000 this server takes",
        "{response}"
    );

    // No `roots` capability: -32021 naming it, nothing asked.
    let response = peer.request(modern_call(7, ROOTS_TOOL, json!({"elicitation": {}})));
    assert_eq!(response["error"]["code"], -32021, "{response}");
    assert_eq!(
        response["error"]["data"]["requiredCapabilities"],
        json!({"roots": {}}),
        "{response}"
    );
}

#[test]
fn modern_stdio_asks_several_inputs_in_one_round_and_only_the_missing_ones_again() {
    let mut peer = Peer::spawn("conformance", &[]);
    peer.version = MODERN.into();
    let first = modern_call(1, SEVERAL_TOOL, all_three());
    let state = input_required(
        &peer.request(first.clone()),
        json!({"user_name": name_form(), "greeting": greeting_request(), "client_roots": roots_request()}),
    );
    // Only the name: the next round asks the other two, the name sealed.
    let response = peer.request(retry(
        &first,
        2,
        json!({"user_name": name_answer()}),
        &state,
    ));
    let state = input_required(
        &response,
        json!({"greeting": greeting_request(), "client_roots": roots_request()}),
    );
    // A changed name in the retry is ignored: the sealed one stands.
    let responses = json!({"user_name": {"action": "accept", "content": {"name": "Mallory"}},
        "greeting": greeting_answer(), "client_roots": roots_answer()});
    let response = peer.request(retry(&first, 3, responses, &state));
    assert_valid(MODERN, "CallToolResult", &response["result"]);
    assert_eq!(complete_text(&response), SEVERAL_DONE);

    // All three answered at once.
    let first = modern_call(4, SEVERAL_TOOL, all_three());
    let state = input_required(
        &peer.request(first.clone()),
        json!({"user_name": name_form(), "greeting": greeting_request(), "client_roots": roots_request()}),
    );
    let responses = json!({"user_name": name_answer(), "greeting": greeting_answer(),
        "client_roots": roots_answer()});
    assert_eq!(
        complete_text(&peer.request(retry(&first, 5, responses, &state))),
        SEVERAL_DONE
    );

    // Two capabilities missing: -32021 names both.
    let response = peer.request(modern_call(6, SEVERAL_TOOL, json!({"elicitation": {}})));
    assert_eq!(response["error"]["code"], -32021, "{response}");
    assert_eq!(
        response["error"]["data"]["requiredCapabilities"],
        json!({"sampling": {}, "roots": {}}),
        "{response}"
    );
}

/// A 2025-11-25 session of the `conformance` example from a client
/// declaring `capabilities`.
fn legacy_peer(capabilities: Value) -> Peer {
    let mut peer = Peer::spawn("conformance", &[]);
    peer.version = LEGACY.into();
    let mut init = common::initialize(0, LEGACY);
    init["params"]["capabilities"] = capabilities;
    let response = peer.request(init);
    assert_eq!(response["result"]["protocolVersion"], LEGACY, "{response}");
    peer.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    peer
}

#[test]
fn legacy_stdio_sends_roots_list_and_refuses_a_client_without_roots() {
    let mut peer = legacy_peer(json!({"roots": {"listChanged": true}}));
    peer.send(&common::call(1, ROOTS_TOOL, json!({}), false));
    let request = peer.recv();
    assert_eq!(
        request,
        json!({"jsonrpc": "2.0", "id": "mcp-server-1", "method": "roots/list", "params": {}})
    );
    peer.send(&json!({"jsonrpc": "2.0", "id": "mcp-server-1", "result": roots_answer()}));
    let response = peer.recv();
    assert_eq!(response["id"], 1, "{response}");
    assert_eq!(
        complete_text(&response),
        "Roots: file:///work/a, file:///work/b"
    );

    let mut peer = legacy_peer(json!({"elicitation": {}}));
    let response = peer.request(common::call(1, ROOTS_TOOL, json!({}), false));
    assert_eq!(
        response["result"],
        json!({"content": [{"type": "text",
            "text": "this client cannot list its roots (it did not declare the roots capability)"}],
            "isError": true})
    );
}

#[test]
fn legacy_stdio_sends_several_inputs_at_once_and_withdraws_the_rest_on_a_failure() {
    let mut peer = legacy_peer(all_three());
    peer.send(&common::call(1, SEVERAL_TOOL, json!({}), false));
    // All three come before any is answered.
    let asked: Vec<Value> = (0..3).map(|_| peer.recv()).collect();
    let frame = |n: u64, question: Value| {
        let mut frame = question;
        frame["jsonrpc"] = "2.0".into();
        frame["id"] = format!("mcp-server-{n}").into();
        frame
    };
    assert_eq!(
        asked,
        vec![
            frame(1, name_form()),
            frame(2, greeting_request()),
            frame(3, roots_request())
        ]
    );
    // Answered in reverse order.
    for (id, result) in [
        ("mcp-server-3", roots_answer()),
        ("mcp-server-2", greeting_answer()),
        ("mcp-server-1", name_answer()),
    ] {
        peer.send(&json!({"jsonrpc": "2.0", "id": id, "result": result}));
    }
    let response = peer.recv();
    assert_eq!(response["id"], 1, "{response}");
    assert_eq!(complete_text(&response), SEVERAL_DONE);

    // The client fails the sampling request: the call ends with that, and
    // the two questions still open are withdrawn.
    peer.send(&common::call(2, SEVERAL_TOOL, json!({}), false));
    for _ in 0..3 {
        peer.recv();
    }
    peer.send(&json!({"jsonrpc": "2.0", "id": "mcp-server-5",
        "error": {"code": -1, "message": "no model here"}}));
    let mut seen: Vec<Value> = (0..3).map(|_| peer.recv()).collect();
    let response = seen.pop().unwrap();
    assert_eq!(
        response,
        json!({"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text",
            "text": "the client failed the sampling request: no model here"}], "isError": true}})
    );
    let withdrawn = |id: &str| {
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": id, "reason": "the server no longer needs the answer"}})
    };
    assert_eq!(
        seen,
        vec![withdrawn("mcp-server-4"), withdrawn("mcp-server-6")]
    );
}

#[test]
fn modern_http_carries_several_inputs_in_one_input_required_result() {
    let server = Server::start_example("conformance", &[]);
    let mut first = http::call(1, SEVERAL_TOOL, json!({}));
    first["params"]["_meta"] = http::meta(all_three());
    let response = server.modern(&first, &[]).json();
    let state = input_required(
        &response,
        json!({"user_name": name_form(), "greeting": greeting_request(), "client_roots": roots_request()}),
    );
    let responses = json!({"user_name": name_answer(), "greeting": greeting_answer(),
        "client_roots": roots_answer()});
    let response = server
        .modern(&retry(&first, 2, responses, &state), &[])
        .json();
    assert_eq!(complete_text(&response), SEVERAL_DONE);
}

#[test]
fn legacy_http_streams_every_question_of_the_round_before_any_answer() {
    let server = Server::start_example("conformance", &[]);
    let session = open_session(&server, all_three());
    let mut stream = TcpStream::connect(&server.addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": SEVERAL_TOOL, "arguments": {}}});
    stream
        .write_all(&http::request_bytes(
            &server.addr,
            "POST",
            &[("Mcp-Session-Id", &session)],
            &call.to_string(),
        ))
        .unwrap();
    let mut reader = BufReader::new(stream);
    let mut asked = Vec::new();
    let mut line = String::new();
    while asked.len() < 3 {
        line.clear();
        assert!(reader.read_line(&mut line).unwrap() > 0, "{asked:?}");
        if let Some(data) = line.trim_end().strip_prefix("data: ") {
            let request: Value = serde_json::from_str(data).unwrap();
            assert_valid(LEGACY, "JSONRPCRequest", &request);
            asked.push(request);
        }
    }
    let methods: Vec<&str> = asked
        .iter()
        .map(|r| r["method"].as_str().unwrap())
        .collect();
    assert_eq!(
        methods,
        ["elicitation/create", "sampling/createMessage", "roots/list"]
    );
    assert_eq!(asked[2]["params"], json!({}));
    for (request, result) in asked
        .iter()
        .zip([name_answer(), greeting_answer(), roots_answer()])
    {
        let answer = json!({"jsonrpc": "2.0", "id": request["id"], "result": result});
        let posted = server.post(&[("Mcp-Session-Id", &session)], &answer.to_string());
        assert_eq!(posted.status, 202, "{posted:?}");
    }
    let response = loop {
        line.clear();
        assert!(
            reader.read_line(&mut line).unwrap() > 0,
            "the stream ended early"
        );
        if let Some(data) = line.trim_end().strip_prefix("data: ") {
            break serde_json::from_str::<Value>(data).unwrap();
        }
    };
    assert_valid(LEGACY, "JSONRPCResponse", &response);
    assert_eq!(response["id"], 1, "{response}");
    assert_eq!(complete_text(&response), SEVERAL_DONE);
}

/// `initialize` over POST from a client declaring `capabilities`; the session id.
fn open_session(server: &Server, capabilities: Value) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": LEGACY, "capabilities": capabilities,
        "clientInfo": {"name": "inputs-tests", "version": "1"}}});
    let response = server.post(&[], &init.to_string());
    assert_eq!(response.status, 200, "{response:?}");
    let id = response
        .header("mcp-session-id")
        .expect("a session id")
        .to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let done = server.post(&[("Mcp-Session-Id", &id)], &initialized.to_string());
    assert_eq!(done.status, 202);
    id
}
