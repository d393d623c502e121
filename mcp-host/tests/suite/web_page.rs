//! `mcp-host web` in a real browser: Debian's chromium, driven by
//! Playwright for Python through the page's named controls
//! (tests/web/page.py); the program runs the `everything` example and the
//! scripted model API on loopback, which records what the model was told.

use crate::common;

use common::fake_model::{
    FakeModel, McpConfig, Recorded, Reply, claude_events, claude_message, text_block, tool_use,
    unmarked,
};
use common::web::WebHost;
use serde_json::{Value, json};
use std::time::Duration;

/// A reply streamed as the API streams it.
fn streamed(message: Value) -> Reply {
    Reply::sse(claude_events(&message))
}

fn end(text: &str) -> Reply {
    streamed(claude_message(json!([text_block(text)]), "end_turn", 1, 1))
}

fn call(id: &str, tool: &str, input: Value) -> Reply {
    streamed(claude_message(
        json!([tool_use(id, tool, input)]),
        "tool_use",
        1,
        1,
    ))
}

/// The tool results `request` sends (its last message's blocks).
fn results(request: &Recorded) -> Value {
    let messages = request.body["messages"].as_array().unwrap();
    unmarked(&messages.last().unwrap()["content"])
}

/// The user's text of `request`'s last message.
fn last_user_text(request: &Recorded) -> Value {
    let messages = request.body["messages"].as_array().unwrap();
    unmarked(&messages.last().unwrap()["content"])
}

fn start(fake: &FakeModel, approve: &str) -> WebHost {
    common::everything();
    // Read at start: the file may go once the URL is printed.
    let config = McpConfig::everything("everything", &[]);
    WebHost::start(&config, &["--approve", approve], fake)
}

#[test]
fn a_line_is_streamed_into_the_page() {
    let text = "The quick brown fox jumps over the lazy dog.";
    let fake = FakeModel::start(vec![end(text).trickled(Duration::from_micros(500))]);
    let host = start(&fake, "all");
    let seen = host.drive("streamed");
    assert_eq!(seen["user"], json!(["hello"]));
    assert_eq!(seen["answers"], json!([text]));
    assert_eq!(seen["message_left"], "");
    // Shown in pieces as they came, each a start of the whole.
    let shown: Vec<&str> = seen["seen"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert!(shown.len() >= 3, "{shown:?}");
    assert!(shown.iter().all(|s| text.starts_with(s)), "{shown:?}");
    let requests = fake.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].body["stream"], true);
    assert_eq!(
        last_user_text(&requests[0]),
        json!([{"type": "text", "text": "hello"}])
    );
}

#[test]
fn a_call_is_a_card_with_its_progress_duration_and_outcome() {
    let fake = FakeModel::start(vec![
        call("toolu_1", "slow", json!({"ms": 1500, "steps": 3})),
        end("done"),
    ]);
    let host = start(&fake, "all");
    let seen = host.drive("card");
    assert_eq!(
        seen["fields"],
        json!({
            "Server": "everything",
            "Tool": "slow",
            "State": "finished",
            "Progress": seen["fields"]["Progress"],
            "Outcome": "success",
        })
    );
    assert_eq!(seen["input"], r#"{"ms":1500,"steps":3}"#);
    let progress = seen["progress_seen"].as_str().unwrap();
    assert!(
        ["1 of 3: sleeping", "2 of 3: sleeping"].contains(&progress.trim()),
        "{progress:?}"
    );
    let duration = seen["duration_ms"].as_u64().unwrap();
    assert!((1500..15_000).contains(&duration), "{duration}");
    let requests = fake.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(results(&requests[1])[0]["tool_use_id"], "toolu_1");
}

/// The model calls `toggle_bonus` (asked about: not read-only), then
/// answers "done".
fn asked() -> FakeModel {
    FakeModel::start(vec![
        call("toolu_1", "toggle_bonus", json!({})),
        end("done"),
    ])
}

const BUTTONS: [&str; 4] = [
    "Allow once",
    "Always allow this tool",
    "Always allow this server",
    "Deny",
];

#[test]
fn allow_once_runs_the_call() {
    let fake = asked();
    let host = start(&fake, "ask");
    let seen = host.drive("allow_once");
    assert_eq!(seen["buttons"], json!(BUTTONS));
    assert_eq!(seen["approval"], "Allowed once");
    assert_eq!(seen["fields"]["State"], "finished");
    assert_eq!(seen["fields"]["Outcome"], "success");
    let requests = fake.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        results(&requests[1]),
        json!([{"type": "tool_result", "tool_use_id": "toolu_1", "content": "bonus is now hidden"}])
    );
}

#[test]
fn deny_declines_the_call_and_the_model_is_told() {
    let fake = asked();
    let host = start(&fake, "ask");
    let seen = host.drive("deny");
    assert_eq!(seen["buttons"], json!(BUTTONS));
    assert_eq!(seen["approval"], "Denied");
    assert_eq!(seen["fields"]["State"], "declined");
    assert_eq!(seen["fields"]["Outcome"], "declined: not run");
    let requests = fake.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        results(&requests[1]),
        json!([{
            "type": "tool_result",
            "tool_use_id": "toolu_1",
            "content": "The user declined to run this tool call.",
            "is_error": true
        }])
    );
}

#[test]
fn stop_interrupts_the_line_and_the_next_one_runs() {
    let fake = FakeModel::start(vec![
        call("toolu_1", "slow", json!({"ms": 60_000, "steps": 60})),
        end("after the stop"),
    ]);
    let host = start(&fake, "all");
    let seen = host.drive("stop");
    assert_eq!(seen["state_at_stop"], "running");
    assert_eq!(seen["user"], json!(["take your time", "and now?"]));
    let requests = fake.requests();
    assert_eq!(
        requests.len(),
        2,
        "the stopped line asked the model nothing more"
    );
    // The call cut short is kept, answered as interrupted, with the next
    // line.
    assert_eq!(
        last_user_text(&requests[1]),
        json!([
            {
                "type": "tool_result",
                "tool_use_id": "toolu_1",
                "content": "The user interrupted this call before it returned a result; it was cancelled and may or may not have taken effect.",
                "is_error": true
            },
            {"type": "text", "text": "and now?"}
        ])
    );
}

#[test]
fn a_reload_shows_the_conversation_so_far() {
    let fake = FakeModel::start(vec![
        call("toolu_1", "slow", json!({"ms": 300, "steps": 3})),
        end("done"),
    ]);
    let host = start(&fake, "all");
    let seen = host.drive("reload");
    assert_eq!(seen["same"], true, "{seen}");
    assert_eq!(seen["user"], json!(["take your time"]));
    assert_eq!(seen["answers"], json!(["done"]));
    assert_eq!(seen["cards"], 1);
}

#[test]
fn two_tabs_see_one_conversation_and_one_line_runs_at_a_time() {
    let fake = FakeModel::start(vec![
        call("toolu_1", "slow", json!({"ms": 3000, "steps": 3})),
        end("done"),
    ]);
    let host = start(&fake, "all");
    let seen = host.drive("two_tabs");
    assert_eq!(
        seen["refused"],
        "Not sent: a line is running: wait for its answer, or Stop it"
    );
    assert_eq!(seen["other_user"], json!(["take your time"]));
    assert_eq!(seen["other_answers"], json!(["done"]));
    assert_eq!(seen["message_kept"], "me too");
    assert_eq!(fake.requests().len(), 2);
}
