//! Elicitation that cannot be bypassed, and calls that cannot be stuck:
//! the `everything` example over stdio in both eras (`book_table` asks for a
//! name, and for a deposit when the party is larger than 8), plus the
//! `replayable_input` opt-in in process.

use crate::common;

use common::{Peer, assert_valid, call, envelope};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

const MODERN: &str = "2026-07-28";

/// A peer validated against the 2026-07-28 schema, with extra environment.
fn modern_with(env: &[(&str, &str)]) -> Peer {
    let mut peer = Peer::spawn("everything", env);
    peer.version = MODERN.into();
    peer
}

/// A legacy 2025-11-25 session that declared the elicitation capability.
fn legacy_with(env: &[(&str, &str)]) -> Peer {
    let mut peer = Peer::spawn("everything", env);
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "elicitation-tests", "version": "1"}}});
    let response = peer.request(init);
    assert_eq!(response["result"]["protocolVersion"], "2025-11-25");
    peer.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    peer
}

/// A 2026-07-28 `book_table` call from a client that can answer questions.
fn book(id: u64, party: u32) -> Value {
    let mut message = call(id, "book_table", json!({"party": party}), true);
    message["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] =
        json!({"elicitation": {}});
    message
}

/// `message` again under a new id, answering with `responses` and `state`
/// (each left out when `None`).
fn retry(message: &Value, id: u64, responses: Option<Value>, state: Option<&Value>) -> Value {
    let mut retry = message.clone();
    retry["id"] = id.into();
    if let Some(responses) = responses {
        retry["params"]["inputResponses"] = responses;
    }
    if let Some(state) = state {
        retry["params"]["requestState"] = state.clone();
    }
    retry
}

/// Sends `message`, expects `input_required` asking `key`; returns its state.
fn expect_question(peer: &mut Peer, message: Value, key: &str) -> Value {
    let response = peer.request(message);
    let result = &response["result"];
    assert_valid(MODERN, "InputRequiredResult", result);
    assert_eq!(result["resultType"], "input_required", "{response}");
    assert_eq!(
        result["inputRequests"][key]["method"], "elicitation/create",
        "{response}"
    );
    result["requestState"].clone()
}

fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

/// Asserts a `-32602` whose message contains `needle`.
fn expect_invalid_params(response: &Value, needle: &str) {
    assert_eq!(response["error"]["code"], -32602, "{response}");
    let message = response["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains(needle), "{message:?} lacks {needle:?}");
}

/// Asserts a complete, valid `CallToolResult` that booked a table.
fn expect_booking(response: &Value, name: &str, party: u32) {
    assert_valid(MODERN, "CallToolResult", &response["result"]);
    assert_eq!(response["result"]["resultType"], "complete", "{response}");
    assert_eq!(
        response["result"]["structuredContent"],
        json!({"booked": true, "name": name, "party": party})
    );
}

// ---- 2026-07-28: requestState is the only way answers get in ----

#[test]
fn answers_without_a_request_state_are_refused() {
    let mut peer = modern_with(&[]);
    // The server never asked, yet the client claims the user said "Mallory".
    let forged = retry(
        &book(1, 4),
        1,
        Some(json!({"guest": accept(json!({"name": "Mallory"}))})),
        None,
    );
    let refused = peer.request(forged);
    expect_invalid_params(&refused, "requestState");
    // A state issued for other arguments does not carry them either.
    let state = expect_question(&mut peer, book(2, 5), "guest");
    let elsewhere = retry(
        &book(3, 4),
        3,
        Some(json!({"guest": accept(json!({"name": "Mallory"}))})),
        Some(&state),
    );
    expect_invalid_params(&peer.request(elsewhere), "different tool call");
    // The honest retry still works.
    let honest = retry(
        &book(2, 5),
        4,
        Some(json!({"guest": accept(json!({"name": "Ada"}))})),
        Some(&state),
    );
    expect_booking(&peer.request(honest), "Ada", 5);
}

#[test]
fn an_expired_state_is_refused_and_dropping_it_does_not_help() {
    let mut peer = modern_with(&[("INPUT_REQUEST_TTL_MS", "300")]);
    let first = book(1, 3);
    let state = expect_question(&mut peer, first.clone(), "guest");
    std::thread::sleep(Duration::from_millis(500));
    let answers = json!({"guest": accept(json!({"name": "Late"}))});
    let expired = peer.request(retry(&first, 2, Some(answers.clone()), Some(&state)));
    expect_invalid_params(&expired, "expired");
    // Without the expired state the same answers are still refused.
    let dropped = peer.request(retry(&first, 3, Some(answers), None));
    expect_invalid_params(&dropped, "requestState");
    // Starting over is the way: a new question, a new state.
    expect_question(&mut peer, retry(&first, 4, None, None), "guest");
}

#[test]
fn a_request_state_is_accepted_once() {
    let mut peer = modern_with(&[]);
    let first = book(1, 2);
    let state = expect_question(&mut peer, first.clone(), "guest");
    let answers = json!({"guest": accept(json!({"name": "Grace"}))});
    let done = peer.request(retry(&first, 2, Some(answers.clone()), Some(&state)));
    expect_booking(&done, "Grace", 2);
    // Replaying the round must not book a second and a third table.
    for id in [3, 4] {
        let replay = peer.request(retry(&first, id, Some(answers.clone()), Some(&state)));
        expect_invalid_params(&replay, "already used");
    }
}

#[test]
fn answers_sealed_in_the_state_cannot_be_overridden() {
    let mut peer = modern_with(&[]);
    let first = book(1, 10);
    let state = expect_question(&mut peer, first.clone(), "guest");
    let named = retry(
        &first,
        2,
        Some(json!({"guest": accept(json!({"name": "Alan"}))})),
        Some(&state),
    );
    // The second round's state seals "Alan".
    let sealed = expect_question(&mut peer, named, "deposit");
    let overriding = retry(
        &first,
        3,
        Some(json!({
            "guest": accept(json!({"name": "Mallory"})),
            "deposit": accept(json!({"pay": true})),
        })),
        Some(&sealed),
    );
    expect_booking(&peer.request(overriding), "Alan", 10);
}

// ---- legacy: replies to server requests ----

#[test]
fn stray_and_repeated_elicitation_replies_reach_no_tool() {
    let mut peer = legacy_with(&[]);
    peer.send(&call(1, "book_table", json!({"party": 4}), false));
    let ask = peer.recv();
    assert_valid("2025-11-25", "ElicitRequest", &ask);
    // Replies to ids the server never used, and a reply without an id.
    for id in [
        json!("mcp-server-999"),
        json!(1),
        json!(ask["id"].to_string()),
    ] {
        peer.send(
            &json!({"jsonrpc": "2.0", "id": id, "result": accept(json!({"name": "Mallory"}))}),
        );
    }
    peer.send(&json!({"jsonrpc": "2.0", "id": "nope", "error": {"code": -1, "message": "x"}}));
    peer.expect_nothing_before_a_marker();
    peer.send(
        &json!({"jsonrpc": "2.0", "id": ask["id"], "result": accept(json!({"name": "Grace"}))}),
    );
    let done = peer.recv();
    assert_eq!(done["id"], 1);
    assert_eq!(
        done["result"]["structuredContent"],
        json!({"booked": true, "name": "Grace", "party": 4})
    );
    // A second reply to the same id, and one to the next id the server would use.
    peer.send(
        &json!({"jsonrpc": "2.0", "id": ask["id"], "result": accept(json!({"name": "Mallory"}))}),
    );
    peer.send(&json!({"jsonrpc": "2.0", "id": "mcp-server-2", "result": accept(json!({"name": "Mallory"}))}));
    peer.expect_nothing_before_a_marker();
    // The next question is fresh and takes its own answer.
    peer.send(&call(2, "book_table", json!({"party": 6}), false));
    let ask = peer.recv();
    peer.send(
        &json!({"jsonrpc": "2.0", "id": ask["id"], "result": accept(json!({"name": "Lin"}))}),
    );
    assert_eq!(
        peer.recv()["result"]["structuredContent"],
        json!({"booked": true, "name": "Lin", "party": 6})
    );
    let (status, rest) = peer.close();
    assert!(status.success());
    assert!(rest.is_empty(), "{rest:?}");
}

#[test]
fn a_stray_reply_in_the_stateless_era_is_ignored() {
    let mut peer = modern_with(&[]);
    peer.send(&json!({"jsonrpc": "2.0", "id": "mcp-server-1", "result": accept(json!({"name": "Mallory"}))}));
    peer.expect_nothing_before_a_marker();
    let state = expect_question(&mut peer, book(1, 2), "guest");
    let honest = retry(
        &book(1, 2),
        2,
        Some(json!({"guest": accept(json!({"name": "Ada"}))})),
        Some(&state),
    );
    expect_booking(&peer.request(honest), "Ada", 2);
}

// ---- stuck slots ----

/// The text of an `isError` result.
fn error_text(response: &Value) -> String {
    assert_eq!(response["result"]["isError"], true, "{response}");
    response["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn a_queued_call_gives_up_after_the_queue_timeout_in_both_eras() {
    let env = [("MAX_CONCURRENT", "1"), ("QUEUE_TIMEOUT_MS", "300")];
    for modern in [false, true] {
        let mut peer = if modern {
            modern_with(&env)
        } else {
            let mut peer = Peer::spawn("everything", &env);
            peer.request(common::initialize(0, "2025-11-25"));
            peer
        };
        // `slow` holds the only slot; the next call waits for it.
        peer.send(&call(1, "slow", json!({"ms": 5000}), modern));
        std::thread::sleep(Duration::from_millis(100));
        let started = Instant::now();
        let queued = peer.request(call(2, "slow", json!({"ms": 1}), modern));
        let waited = started.elapsed();
        assert_valid(&peer.version, "CallToolResult", &queued["result"]);
        let text = error_text(&queued);
        assert!(
            text.contains("busy for 300ms") && text.contains("Retry"),
            "{text}"
        );
        assert!(
            waited >= Duration::from_millis(250) && waited < Duration::from_secs(4),
            "{waited:?}"
        );
        // Tools that need no slot still answer at once.
        let sum = peer.request(call(3, "add", json!({"a": 1, "b": 2}), modern));
        assert_eq!(sum["result"]["structuredContent"], json!({"sum": 3.0}));
    }
}

#[test]
fn an_unanswered_legacy_elicitation_times_out_and_frees_its_slot() {
    let mut peer = legacy_with(&[
        ("MAX_CONCURRENT", "1"),
        ("QUEUE_TIMEOUT_MS", "5000"),
        ("ELICIT_TIMEOUT_MS", "400"),
    ]);
    peer.send(&call(1, "book_table", json!({"party": 4}), false));
    let ask = peer.recv();
    assert_eq!(ask["method"], "elicitation/create");
    // Queued behind the unanswered question.
    peer.send(&call(2, "slow", json!({"ms": 1}), false));
    let mut seen = Vec::new();
    while seen.len() < 3 {
        seen.push(peer.recv());
    }
    // The server withdraws its question, the tool reports, the queue moves.
    let cancelled = seen
        .iter()
        .find(|m| m["method"] == "notifications/cancelled")
        .unwrap_or_else(|| panic!("no notifications/cancelled in {seen:?}"));
    assert_eq!(cancelled["params"]["requestId"], ask["id"]);
    let booking = seen.iter().find(|m| m["id"] == 1).expect("a result for 1");
    assert_valid("2025-11-25", "CallToolResult", &booking["result"]);
    let text = error_text(booking);
    assert!(text.contains("did not answer within 400ms"), "{text}");
    let queued = seen.iter().find(|m| m["id"] == 2).expect("a result for 2");
    assert_eq!(queued["result"]["structuredContent"]["ms"], 1);
    // A late answer reaches nothing.
    peer.send(
        &json!({"jsonrpc": "2.0", "id": ask["id"], "result": accept(json!({"name": "Late"}))}),
    );
    peer.expect_nothing_before_a_marker();
}

// ---- the replayable_input opt-in (in process) ----

mod replayable {
    use super::{accept, envelope};
    use mcpfn_runtime::{Context, ElicitRequest, Server, ToolError, tool, tools};
    use serde_json::{Value, json};

    /// Looks up a word, asking which language; asking again is harmless.
    #[tool(replayable_input, read_only)]
    async fn lookup(ctx: Context, word: String) -> Result<String, ToolError> {
        ask_language(&ctx, &word).await
    }

    /// The same, single use (the default).
    #[tool(read_only)]
    async fn lookup_once(ctx: Context, word: String) -> Result<String, ToolError> {
        ask_language(&ctx, &word).await
    }

    async fn ask_language(ctx: &Context, word: &str) -> Result<String, ToolError> {
        let form = ElicitRequest::form(
            format!("Which language is '{word}'?"),
            json!({"type": "object", "properties": {"lang": {"type": "string"}}, "required": ["lang"]}),
        );
        let answer = ctx.elicit("lang", form).await?;
        let lang: Value = answer.content_as()?;
        Ok(format!("{word} ({})", lang["lang"].as_str().unwrap_or("?")))
    }

    fn call(id: u64, name: &str, extra: Value) -> String {
        let mut meta = envelope();
        meta["io.modelcontextprotocol/clientCapabilities"] = json!({"elicitation": {}});
        let mut params = json!({"name": name, "arguments": {"word": "Hund"}, "_meta": meta});
        if let (Some(params), Value::Object(extra)) = (params.as_object_mut(), extra) {
            params.extend(extra);
        }
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}).to_string()
    }

    #[tokio::test]
    async fn a_replayable_tool_accepts_its_state_again() {
        let (mut client, server_end) = mcpfn_runtime::testing::memory();
        let (read, write) = tokio::io::split(server_end);
        let server = Server::new("r", "1").tools(tools![lookup, lookup_once]);
        let server = tokio::spawn(server.serve(read, write));
        let mut exchange = async |line: String| -> Value {
            client.send(&line).await.unwrap();
            serde_json::from_str(&client.recv().await.unwrap().unwrap()).unwrap()
        };
        for (name, replays_ok) in [("lookup", true), ("lookup_once", false)] {
            let first = exchange(call(1, name, json!({}))).await;
            let state = first["result"]["requestState"].clone();
            assert!(state.is_string(), "{first}");
            let answer = json!({"inputResponses": {"lang": accept(json!({"lang": "de"}))}, "requestState": state});
            for id in 2..5 {
                let response = exchange(call(id, name, answer.clone())).await;
                if id == 2 || replays_ok {
                    assert_eq!(
                        response["result"]["content"][0]["text"], "Hund (de)",
                        "{name}: {response}"
                    );
                } else {
                    assert_eq!(response["error"]["code"], -32602, "{name}: {response}");
                }
            }
        }
        client.close().await.unwrap();
        server.await.unwrap().unwrap();
    }

    #[tokio::test]
    async fn a_full_store_refuses_new_rounds_never_answers_to_issued_ones() {
        let (mut client, server_end) = mcpfn_runtime::testing::memory();
        let (read, write) = tokio::io::split(server_end);
        let server = Server::new("r", "1")
            .tools(tools![lookup_once])
            .max_spent_request_states(1);
        let server = tokio::spawn(server.serve(read, write));
        let mut exchange = async |line: String| -> Value {
            client.send(&line).await.unwrap();
            serde_json::from_str(&client.recv().await.unwrap().unwrap()).unwrap()
        };
        let first = exchange(call(1, "lookup_once", json!({}))).await;
        assert!(first["result"]["requestState"].is_string(), "{first}");
        // The store holds the one open round: a second is not issued (the
        // tool is told why and when to retry), rather than an answer to
        // the first refused later.
        let second = exchange(call(2, "lookup_once", json!({}))).await;
        assert_eq!(second["result"]["isError"], true, "{second}");
        let text = second["result"]["content"][0]["text"].as_str().unwrap();
        assert!(
            text.contains("cannot take more input requests") && text.contains("retry in"),
            "{text}"
        );
        let answer = |round: &Value| {
            json!({"inputResponses": {"lang": accept(json!({"lang": "de"}))},
                "requestState": round["result"]["requestState"]})
        };
        let used = exchange(call(3, "lookup_once", answer(&first))).await;
        assert_eq!(used["result"]["content"][0]["text"], "Hund (de)", "{used}");
        let replay = exchange(call(5, "lookup_once", answer(&first))).await;
        assert_eq!(replay["error"]["code"], -32602, "{replay}");
        client.close().await.unwrap();
        server.await.unwrap().unwrap();
    }
}

#[test]
fn a_state_answered_before_a_restart_is_not_accepted_after_it() {
    // The same seal key across the restart, as replicas and restarts with
    // `MCP_SEAL_KEY` have: the state still verifies, but the new process's
    // store never issued it, so it cannot know it is unspent.
    let key = [("MCP_SEAL_KEY", "0123456789abcdef0123456789abcdef-restart")];
    let mut before = modern_with(&key);
    let state = expect_question(&mut before, book(1, 2), "guest");
    let answer = retry(
        &book(1, 2),
        2,
        Some(json!({"guest": accept(json!({"name": "Ada"}))})),
        Some(&state),
    );
    expect_booking(&before.request(answer.clone()), "Ada", 2);
    drop(before);
    let mut after = modern_with(&key);
    let replay = after.request(answer);
    expect_invalid_params(&replay, "not known to this server's state store");
    // A new round on the new process works as ever.
    let state = expect_question(&mut after, book(3, 2), "guest");
    let honest = retry(
        &book(3, 2),
        4,
        Some(json!({"guest": accept(json!({"name": "Ada"}))})),
        Some(&state),
    );
    expect_booking(&after.request(honest), "Ada", 2);
}
