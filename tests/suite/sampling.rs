//! `ctx.sample` over stdio in both eras, through the `conformance` example
//! (`test_sampling` and `summarize`): a real `sampling/createMessage` request
//! in a legacy session (capability, client errors, timeout, cancellation),
//! an `input_required` result and a retry in the 2026-07-28 era. Every
//! message is checked against the official schema of its revision.

use crate::common;

use common::{Peer, assert_valid, call};
use serde_json::{Value, json};

const MODERN: &str = "2026-07-28";

/// A legacy session of `version` on the conformance example, with client
/// `capabilities` and extra environment.
fn legacy(version: &str, capabilities: Value, env: &[(&str, &str)]) -> Peer {
    let mut peer = Peer::spawn("conformance", env);
    peer.version = version.into();
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": capabilities,
        "clientInfo": {"name": "sampling-tests", "version": "1"}}});
    let response = peer.request(init);
    assert_eq!(response["result"]["protocolVersion"], version);
    peer.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    peer
}

/// A model's answer, checked as the client's `CreateMessageResult`.
fn model_answer(version: &str, text: &str) -> Value {
    let answer = json!({
        "role": "assistant",
        "content": {"type": "text", "text": text},
        "model": "test-model",
        "stopReason": "endTurn"
    });
    assert_valid(version, "CreateMessageResult", &answer);
    answer
}

/// Receives the server's `sampling/createMessage` request and checks it.
fn expect_sampling_request(peer: &mut Peer) -> Value {
    let request = peer.recv();
    assert_eq!(request["method"], "sampling/createMessage", "{request}");
    assert!(
        request["id"].is_string(),
        "a fresh id of the server's: {request}"
    );
    let version = peer.version.clone();
    assert_valid(&version, "CreateMessageRequest", &request);
    request
}

/// Sends the client's `reply` to a server request; returns the response
/// to call `id` that follows.
fn answer(peer: &mut Peer, reply: &Value, id: u64) -> Value {
    peer.send(reply);
    let response = peer.recv();
    assert_eq!(response["id"], id, "{response}");
    response
}

/// The text of a complete `tools/call` response, checked as `CallToolResult`.
fn tool_text(version: &str, response: &Value) -> (String, bool) {
    let result = &response["result"];
    assert_valid(version, "CallToolResult", result);
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    (text.to_owned(), result["isError"] == true)
}

#[test]
fn legacy_sampling_sends_a_real_request_and_returns_the_answer() {
    for version in ["2025-06-18", "2025-11-25"] {
        let mut peer = legacy(version, json!({"sampling": {}}), &[]);
        peer.send(&call(
            1,
            "test_sampling",
            json!({"prompt": "Test prompt for sampling"}),
            false,
        ));
        let request = expect_sampling_request(&mut peer);
        assert_eq!(
            request["params"],
            json!({
                "messages": [{"role": "user", "content": {"type": "text", "text": "Test prompt for sampling"}}],
                "maxTokens": 100
            })
        );
        let reply = json!({"jsonrpc": "2.0", "id": request["id"], "result": model_answer(version, "Hello")});
        let response = answer(&mut peer, &reply, 1);
        assert_eq!(
            tool_text(version, &response),
            ("LLM response: Hello".to_owned(), false),
            "{version}"
        );
    }
}

#[test]
fn the_builder_reaches_the_wire() {
    let mut peer = legacy("2025-11-25", json!({"sampling": {}}), &[]);
    peer.send(&call(
        1,
        "summarize",
        json!({"text": "A long story."}),
        false,
    ));
    let request = expect_sampling_request(&mut peer);
    let params = &request["params"];
    assert_eq!(params["messages"].as_array().map(Vec::len), Some(2));
    assert_eq!(params["messages"][1]["content"]["text"], "A long story.");
    assert_eq!(params["maxTokens"], 60);
    assert_eq!(params["systemPrompt"], "You write one-sentence summaries.");
    assert_eq!(params["temperature"], 0.2);
    assert_eq!(params["stopSequences"], json!(["\n\n"]));
    assert_eq!(
        params["modelPreferences"]["hints"],
        json!([{"name": "claude"}])
    );
    let reply = json!({"jsonrpc": "2.0", "id": request["id"], "result": model_answer("2025-11-25", "Short.")});
    let response = answer(&mut peer, &reply, 1);
    assert_eq!(
        tool_text("2025-11-25", &response),
        ("Short. (model: test-model)".to_owned(), false)
    );
}

#[test]
fn legacy_clients_without_the_capability_are_not_asked() {
    let mut peer = legacy("2025-11-25", json!({"elicitation": {}}), &[]);
    let response = peer.request(call(1, "test_sampling", json!({"prompt": "p"}), false));
    let (text, is_error) = tool_text("2025-11-25", &response);
    assert!(is_error, "{response}");
    assert!(text.contains("sampling capability"), "{text}");
}

#[test]
fn a_client_error_or_a_malformed_answer_is_a_tool_error() {
    let mut peer = legacy("2025-11-25", json!({"sampling": {}}), &[]);
    peer.send(&call(1, "test_sampling", json!({"prompt": "p"}), false));
    let request = expect_sampling_request(&mut peer);
    let reply = json!({"jsonrpc": "2.0", "id": request["id"],
        "error": {"code": -1, "message": "User rejected sampling request"}});
    let (text, is_error) = tool_text("2025-11-25", &answer(&mut peer, &reply, 1));
    assert!(is_error);
    assert!(
        text.contains("failed the sampling request: User rejected"),
        "{text}"
    );

    peer.send(&call(2, "test_sampling", json!({"prompt": "p"}), false));
    let request = expect_sampling_request(&mut peer);
    let reply = json!({"jsonrpc": "2.0", "id": request["id"], "result": {"action": "accept"}});
    let (text, is_error) = tool_text("2025-11-25", &answer(&mut peer, &reply, 2));
    assert!(is_error);
    assert!(text.contains("sampling answer is not valid"), "{text}");
}

#[test]
fn an_unanswered_request_is_withdrawn_after_the_timeout() {
    let mut peer = legacy(
        "2025-11-25",
        json!({"sampling": {}}),
        &[("ELICIT_TIMEOUT_MS", "300")],
    );
    peer.send(&call(1, "test_sampling", json!({"prompt": "p"}), false));
    let request = expect_sampling_request(&mut peer);
    let withdrawn = peer.recv();
    assert_eq!(
        withdrawn["method"], "notifications/cancelled",
        "{withdrawn}"
    );
    assert_eq!(withdrawn["params"]["requestId"], request["id"]);
    let response = peer.recv();
    assert_eq!(response["id"], 1);
    let (text, is_error) = tool_text("2025-11-25", &response);
    assert!(is_error);
    assert!(
        text.contains("did not answer the sampling request"),
        "{text}"
    );
}

#[test]
fn cancelling_the_call_withdraws_the_request() {
    let mut peer = legacy("2025-11-25", json!({"sampling": {}}), &[]);
    peer.send(&call(1, "test_sampling", json!({"prompt": "p"}), false));
    let request = expect_sampling_request(&mut peer);
    peer.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 1, "reason": "user pressed stop"}}),
    );
    let withdrawn = peer.recv();
    assert_eq!(
        withdrawn["method"], "notifications/cancelled",
        "{withdrawn}"
    );
    assert_eq!(withdrawn["params"]["requestId"], request["id"]);
    // A late answer reaches nothing, and the cancelled call sends nothing.
    peer.send(&json!({"jsonrpc": "2.0", "id": request["id"], "result": model_answer("2025-11-25", "late")}));
    peer.expect_nothing_before_a_marker();
}

/// A 2026-07-28 `test_sampling` call from a client with `capabilities`.
fn modern_call(id: u64, capabilities: Value) -> Value {
    let mut message = call(id, "test_sampling", json!({"prompt": "Say hi"}), true);
    message["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] = capabilities;
    message
}

fn modern_peer() -> Peer {
    let mut peer = Peer::spawn("conformance", &[]);
    peer.version = MODERN.into();
    peer
}

#[test]
fn modern_sampling_is_an_input_request_answered_on_the_retry() {
    let mut peer = modern_peer();
    let first = modern_call(1, json!({"sampling": {}}));
    let response = peer.request(first.clone());
    let result = &response["result"];
    assert_valid(MODERN, "InputRequiredResult", result);
    assert_eq!(result["resultType"], "input_required", "{response}");
    let input = &result["inputRequests"]["llm"];
    assert_valid(MODERN, "CreateMessageRequest", input);
    assert_eq!(input["method"], "sampling/createMessage");
    assert_eq!(input["params"]["messages"][0]["content"]["text"], "Say hi");
    assert_eq!(input["params"]["maxTokens"], 100);

    let mut retry = first.clone();
    retry["id"] = 2.into();
    retry["params"]["inputResponses"] = json!({"llm": model_answer(MODERN, "Hi!")});
    retry["params"]["requestState"] = result["requestState"].clone();
    let response = peer.request(retry.clone());
    assert_eq!(response["result"]["resultType"], "complete", "{response}");
    assert_eq!(
        tool_text(MODERN, &response),
        ("LLM response: Hi!".to_owned(), false)
    );

    // A malformed answer (an elicitation result) is the tool's error.
    let mut bad = retry;
    bad["id"] = 3.into();
    let response = peer.request(first.clone());
    bad["params"]["requestState"] = response["result"]["requestState"].clone();
    bad["params"]["inputResponses"] = json!({"llm": {"action": "accept"}});
    let response = peer.request(bad);
    let (text, is_error) = tool_text(MODERN, &response);
    assert!(is_error, "{response}");
    assert!(text.contains("sampling answer is not valid"), "{text}");
}

#[test]
fn modern_clients_without_the_capability_get_32021() {
    let mut peer = modern_peer();
    let response = peer.request(modern_call(1, json!({"elicitation": {}})));
    assert_eq!(response["error"]["code"], -32021, "{response}");
    assert_eq!(
        response["error"]["data"]["requiredCapabilities"],
        json!({"sampling": {}})
    );
}

/// Answers every sampling request with "echo: " and the first message's text.
fn echo_model(params: &Value) -> Value {
    let prompt = params["messages"][0]["content"]["text"]
        .as_str()
        .unwrap_or_default();
    json!({"role": "assistant", "content": {"type": "text", "text": format!("echo: {prompt}")},
        "model": "echo"})
}

#[tokio::test]
async fn the_test_client_answers_sampling_in_both_eras() {
    use mcpfn_runtime::testing::wire::Client;
    use mcpfn_runtime::{Context, ProtocolVersion, SampleRequest, Server, ToolError, tool, tools};

    /// Asks the model to repeat a word.
    #[tool]
    async fn repeat(ctx: Context, word: String) -> Result<String, ToolError> {
        let answer = ctx.sample("repeat", SampleRequest::prompt(word)).await?;
        Ok(format!(
            "{} ({})",
            answer.text().unwrap_or_default(),
            answer.model
        ))
    }

    for version in [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28] {
        let server = Server::new("t", "1").tools(tools![repeat]);
        let mut client = Client::builder(server)
            .protocol_version(version)
            .on_sampling(echo_model)
            .connect()
            .await
            .expect("connects");
        let result = client
            .call("repeat", json!({"word": "hi"}))
            .await
            .expect("answered");
        assert_eq!(result.text(), Some("echo: hi (echo)"), "{version:?}");
    }
    // Without a handler the capability is not declared: the tool says so
    // (legacy) or the call fails with -32021 (2026-07-28).
    let server = Server::new("t", "1").tools(tools![repeat]);
    let mut client = Client::builder(server)
        .protocol_version(ProtocolVersion::V2026_07_28)
        .connect()
        .await
        .expect("connects");
    let err = client
        .call("repeat", json!({"word": "hi"}))
        .await
        .expect_err("no sampling capability");
    assert_eq!(err.code, -32021, "{err:?}");
}
