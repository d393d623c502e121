//! Prompts and completions over real transports: the `conformance`
//! example's fixtures over stdio in a legacy session (a real
//! `elicitation/create` inside `prompts/get`) and in the 2026-07-28 era
//! (an `input_required` round), and `everything`'s `translate` prompt
//! with its completion over stdio and Streamable HTTP. Every message is
//! checked against the official schema of its revision.

use crate::common;

use common::http::{self, Server};
use common::{Peer, assert_valid, envelope};
use serde_json::{Value, json};

const LEGACY: &str = "2025-11-25";
const MODERN: &str = "2026-07-28";

/// A legacy session with the `conformance` example that can answer
/// elicitations.
fn legacy() -> Peer {
    let mut peer = Peer::spawn("conformance", &[]);
    peer.version = LEGACY.into();
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": LEGACY, "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "prompt-tests", "version": "1"}}});
    let response = peer.request(init);
    assert_eq!(
        response["result"]["capabilities"]["prompts"],
        json!({"listChanged": true}),
        "{response}"
    );
    assert_eq!(response["result"]["capabilities"]["completions"], json!({}));
    peer.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    peer
}

fn request(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A 2026-07-28 request whose client declares `capabilities`.
fn modern_request(id: u64, method: &str, params: Value, capabilities: Value) -> Value {
    let mut message = request(id, method, params);
    let mut meta = envelope();
    meta["io.modelcontextprotocol/clientCapabilities"] = capabilities;
    message["params"]["_meta"] = meta;
    message
}

/// The result of `response` without its `_meta` (the server's identity),
/// which it must carry in the 2026-07-28 era.
fn modern_result(response: &Value) -> Value {
    let mut result = response["result"].clone();
    let meta = result
        .as_object_mut()
        .and_then(|map| map.remove("_meta"))
        .unwrap_or_else(|| panic!("a 2026-07-28 result carries _meta: {response}"));
    assert!(
        meta["io.modelcontextprotocol/serverInfo"]["name"].is_string(),
        "{meta}"
    );
    result
}

fn text(role: &str, text: &str) -> Value {
    json!({"role": role, "content": {"type": "text", "text": text}})
}

#[test]
fn a_legacy_session_lists_gets_and_completes_prompts_over_stdio() {
    let mut peer = legacy();
    let list = peer.request(request(1, "prompts/list", json!({})));
    assert_valid(LEGACY, "ListPromptsResult", &list["result"]);
    let names: Vec<&str> = list["result"]["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "test_input_required_result_prompt",
            "test_prompt_with_arguments",
            "test_prompt_with_embedded_resource",
            "test_prompt_with_image",
            "test_simple_prompt"
        ]
    );
    assert_eq!(
        list["result"]["prompts"][1],
        json!({"name": "test_prompt_with_arguments",
            "description": "A prompt with required arguments",
            "arguments": [
                {"name": "arg1", "description": "First test argument", "required": true},
                {"name": "arg2", "description": "Second test argument", "required": true}]})
    );
    let got = peer.request(request(
        2,
        "prompts/get",
        json!({"name": "test_prompt_with_arguments", "arguments": {"arg1": "hello", "arg2": "world"}}),
    ));
    assert_valid(LEGACY, "GetPromptResult", &got["result"]);
    assert_eq!(
        got,
        json!({"jsonrpc": "2.0", "id": 2, "result": {
            "description": "A prompt with required arguments",
            "messages": [text("user", "Prompt with arguments: arg1='hello', arg2='world'")]}})
    );
    let embedded = peer.request(request(
        3,
        "prompts/get",
        json!({"name": "test_prompt_with_embedded_resource",
            "arguments": {"resourceUri": "test://example-resource"}}),
    ));
    assert_eq!(
        embedded["result"]["messages"],
        json!([{"role": "user", "content": {"type": "resource", "resource": {
                "uri": "test://example-resource", "mimeType": "text/plain",
                "text": "Embedded resource content for testing."}}},
            text("user", "Please process the embedded resource above.")])
    );
    let image = peer.request(request(
        4,
        "prompts/get",
        json!({"name": "test_prompt_with_image"}),
    ));
    assert_eq!(image["result"]["messages"][0]["content"]["type"], "image");
    assert_eq!(
        image["result"]["messages"][0]["content"]["mimeType"],
        "image/png"
    );
    // A missing required argument and an unknown prompt are named.
    let missing = peer.request(request(
        5,
        "prompts/get",
        json!({"name": "test_prompt_with_arguments", "arguments": {"arg1": "x"}}),
    ));
    assert_eq!(
        missing["error"],
        json!({"code": -32602,
            "message": "Invalid params: the prompt 'test_prompt_with_arguments' needs the argument 'arg2'",
            "data": {"argument": "arg2"}})
    );
    let unknown = peer.request(request(6, "prompts/get", json!({"name": "nope"})));
    assert_eq!(
        unknown["error"],
        json!({"code": -32602,
            "message": "Invalid params: no prompt is named 'nope' (see prompts/list)",
            "data": {"name": "nope"}})
    );
    let not_text = peer.request(request(
        7,
        "prompts/get",
        json!({"name": "test_prompt_with_arguments", "arguments": {"arg1": "x", "arg2": 2}}),
    ));
    assert_eq!(not_text["error"]["code"], -32602, "{not_text}");
    assert_eq!(not_text["error"]["data"], json!({"argument": "arg2"}));
    // Completion of a prompt argument; a template without completers has
    // none, an unknown template is named (tests/suite/completions.rs
    // completes template variables).
    let complete = peer.request(request(
        8,
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"},
            "argument": {"name": "arg1", "value": "test"}}),
    ));
    assert_valid(LEGACY, "CompleteResult", &complete["result"]);
    assert_eq!(
        complete["result"],
        json!({"completion": {"values": ["test", "testValue1", "testValue2"],
            "total": 3, "hasMore": false}})
    );
    let template = peer.request(request(
        9,
        "completion/complete",
        json!({"ref": {"type": "ref/resource", "uri": "test://template/{id}/data"},
            "argument": {"name": "id", "value": ""}}),
    ));
    assert_eq!(
        template["result"],
        json!({"completion": {"values": [], "total": 0, "hasMore": false}})
    );
    let no_template = peer.request(request(
        11,
        "completion/complete",
        json!({"ref": {"type": "ref/resource", "uri": "file:///{path}"},
            "argument": {"name": "path", "value": ""}}),
    ));
    assert_eq!(
        no_template["error"],
        json!({"code": -32602,
            "message": "Invalid params: no resource template is 'file:///{path}' (see resources/templates/list)",
            "data": {"uri": "file:///{path}"}})
    );
    let no_prompt = peer.request(request(
        10,
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "nope"},
            "argument": {"name": "a", "value": ""}}),
    ));
    assert_eq!(no_prompt["error"]["code"], -32602, "{no_prompt}");
}

#[test]
fn a_legacy_prompt_asks_with_a_real_elicitation_request() {
    let mut peer = legacy();
    peer.send(&request(
        1,
        "prompts/get",
        json!({"name": "test_input_required_result_prompt"}),
    ));
    let ask = peer.recv();
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    assert_eq!(
        ask["params"]["message"],
        "What context should the prompt use?"
    );
    peer.send(&json!({"jsonrpc": "2.0", "id": ask["id"], "result": {
        "action": "accept", "content": {"context": "a code review"}}}));
    let done = peer.recv();
    assert_eq!(
        done,
        json!({"jsonrpc": "2.0", "id": 1, "result": {
            "description": "2026-07-28 fixture: asks for the context the prompt should use.",
            "messages": [text("user", "Use this context: a code review")]}})
    );
}

#[test]
fn a_modern_prompt_asks_in_an_input_required_round_over_stdio() {
    let mut peer = Peer::spawn("conformance", &[]);
    peer.version = MODERN.into();
    let list = peer.request(modern_request(1, "prompts/list", json!({}), json!({})));
    assert_valid(MODERN, "ListPromptsResult", &list["result"]);
    let list = modern_result(&list);
    assert_eq!(
        (&list["resultType"], &list["ttlMs"], &list["cacheScope"]),
        (&json!("complete"), &json!(300000), &json!("public"))
    );
    let elicit = json!({"elicitation": {}});
    let first = modern_request(
        2,
        "prompts/get",
        json!({"name": "test_input_required_result_prompt"}),
        elicit.clone(),
    );
    let asked = peer.request(first.clone());
    assert_valid(MODERN, "InputRequiredResult", &asked["result"]);
    let asked = modern_result(&asked);
    let state = asked["requestState"].clone();
    assert!(state.is_string(), "{asked}");
    assert_eq!(
        asked,
        json!({"resultType": "input_required", "requestState": state,
            "inputRequests": {"user_context": {"method": "elicitation/create", "params": {
                "mode": "form", "message": "What context should the prompt use?",
                "requestedSchema": {"type": "object",
                    "properties": {"context": {"type": "string"}}, "required": ["context"]}}}}})
    );
    let mut retry = first.clone();
    retry["id"] = 3.into();
    retry["params"]["requestState"] = state;
    retry["params"]["inputResponses"] =
        json!({"user_context": {"action": "accept", "content": {"context": "tests"}}});
    let done = peer.request(retry.clone());
    assert_valid(MODERN, "GetPromptResult", &done["result"]);
    assert_eq!(
        modern_result(&done),
        json!({"resultType": "complete",
            "description": "2026-07-28 fixture: asks for the context the prompt should use.",
            "messages": [text("user", "Use this context: tests")]})
    );
    // The state is spent; a client that cannot answer is told what it lacks.
    retry["id"] = 4.into();
    assert_eq!(peer.request(retry)["error"]["code"], -32602);
    let mut unable = first;
    unable["id"] = 5.into();
    unable["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] = json!({});
    let refused = peer.request(unable);
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
}

#[test]
fn everything_translates_and_completes_languages_from_the_context_over_stdio() {
    let mut peer = Peer::legacy(LEGACY);
    let list = peer.request(request(1, "prompts/list", json!({})));
    assert_eq!(
        list["result"]["prompts"],
        json!([{"name": "translate", "title": "Translate",
            "description": "Translate a text, keeping its tone",
            "arguments": [
                {"name": "language", "description": "The language to translate into", "required": true},
                {"name": "text", "description": "The text to translate", "required": true},
                {"name": "tone", "description": "The tone to keep, e.g. \"formal\" (the text's own when absent)"}]}])
    );
    let got = peer.request(request(
        2,
        "prompts/get",
        json!({"name": "translate", "arguments": {"language": "French", "text": "Good morning", "tone": "formal"}}),
    ));
    assert_eq!(
        got["result"]["messages"],
        json!([
            text(
                "user",
                "Translate the text below into French, in a formal tone. Answer with the translation only."
            ),
            text("user", "Good morning")
        ])
    );
    let complete = |id: u64, value: &str, arguments: Value| {
        request(
            id,
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "translate"},
                "argument": {"name": "language", "value": value},
                "context": {"arguments": arguments}}),
        )
    };
    let e = peer.request(complete(3, "e", json!({})));
    assert_eq!(
        e["result"]["completion"],
        json!({"values": ["English"], "total": 1, "hasMore": false})
    );
    // The text already given is English: it is not offered.
    let e = peer.request(complete(4, "e", json!({"text": "the cat"})));
    assert_eq!(e["result"]["completion"]["values"], json!([]));
    let all = peer.request(complete(5, "", json!({})));
    assert_eq!(all["result"]["completion"]["total"], 14);
}

#[test]
fn everything_serves_its_prompt_and_completion_over_http() {
    let server = Server::start(&[]);
    let get = modern_request(
        1,
        "prompts/get",
        json!({"name": "translate", "arguments": {"language": "German", "text": "Hi"}}),
        json!({}),
    );
    let got = server.modern(&get, &[]).json();
    assert_valid(MODERN, "GetPromptResult", &got["result"]);
    assert_eq!(
        modern_result(&got),
        json!({"resultType": "complete", "description": "Translate a text, keeping its tone",
            "messages": [text("user", "Translate the text below into German. Answer with the translation only."),
                text("user", "Hi")]})
    );
    let complete = modern_request(
        2,
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "translate"},
            "argument": {"name": "language", "value": "sw"}}),
        json!({}),
    );
    let completed = server.modern(&complete, &[]).json();
    assert_valid(MODERN, "CompleteResult", &completed["result"]);
    assert_eq!(
        modern_result(&completed),
        json!({"resultType": "complete",
            "completion": {"values": ["Swedish"], "total": 1, "hasMore": false}})
    );
    // The list over HTTP, with its cache hints.
    let list = http::request(3, "prompts/list");
    let listed = server.modern(&list, &[]).json();
    assert_eq!(listed["result"]["prompts"][0]["name"], "translate");
    assert_eq!(listed["result"]["cacheScope"], "public");
}
