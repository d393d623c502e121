//! `mcp-host web` in a real browser: Debian's chromium, driven by
//! Playwright for Python through the page's named controls
//! (tests/web/page.py); the program runs the `everything` example and the
//! scripted model API on loopback, which records what the model was told.

use crate::common;

use common::fake_model::{
    FakeModel, McpConfig, Recorded, Reply, TempDir, claude_events, claude_message,
    everything_entry, text_block, tool_use, unmarked,
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
fn always_allow_this_tool_is_not_asked_again_and_is_kept() {
    let fake = FakeModel::start(vec![
        call("toolu_1", "toggle_bonus", json!({})),
        call("toolu_2", "toggle_bonus", json!({})),
        end("done"),
    ]);
    common::everything();
    let config = McpConfig::everything("everything", &[]);
    let dir = TempDir::new();
    let pins = dir.path.join("pins.json");
    let pins = pins.to_str().unwrap();
    let host = WebHost::start(&config, &["--approve", "ask", "--pins", pins], &fake);
    let seen = host.drive("always_tool");
    assert_eq!(seen["cards"], 2);
    assert_eq!(seen["approvals"], json!(["Always allowed: this tool"]));
    assert_eq!(seen["outcomes"], json!(["success", "success"]));
    let requests = fake.requests();
    assert_eq!(requests.len(), 3);
    assert_eq!(results(&requests[2])[0]["content"], "bonus is now listed");
    // Kept as the terminal keeps it: beside the pins.
    let kept: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path.join("approvals.json")).unwrap())
            .unwrap();
    let kept = kept.to_string();
    assert!(
        kept.contains("\"server\":\"everything\"") && kept.contains("\"tool\":\"toggle_bonus\""),
        "{kept}"
    );
}

#[test]
fn a_changed_definition_is_asked_on_the_page_before_the_first_line() {
    let fake = FakeModel::start(vec![end("done")]);
    common::everything();
    let mut entry = everything_entry(&[]);
    entry["tools"] = json!({"allow": ["echo"]});
    let config = McpConfig::new(&json!({"mcpServers": {"everything": entry}}));
    let dir = TempDir::new();
    // Pinned with another digest: echo's definition "changed" since.
    let pins = dir.write(
        "pins.json",
        &json!({"version": 1, "servers": {"everything": {"echo": format!("sha256:{}", "0".repeat(64))}}}).to_string(),
    );
    let pins = pins.to_str().unwrap();
    let host = WebHost::start(&config, &["--approve", "ask", "--pins", pins], &fake);
    let seen = host.drive("definition");
    assert_eq!(seen["buttons"], json!(["Allow once", "Deny"]));
    assert_eq!(
        seen["details"],
        "Server `everything` lists tool `echo` with a definition that differs from the one approved (only its digest was kept, so what changed cannot be shown).\n  description: \"Echo the text back unchanged.\"\n"
    );
    assert_eq!(seen["approvals"], json!(["Allowed once"]));
    let requests = fake.requests();
    assert_eq!(requests.len(), 1);
    let offered: Vec<&str> = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(offered, ["echo"]);
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
fn stop_while_asked_withdraws_the_question() {
    let fake = asked();
    let host = start(&fake, "ask");
    let seen = host.drive("stop_asked");
    assert_eq!(seen["approval"], "No longer asked: the line ended");
    assert_eq!(seen["buttons"], 0);
    assert_eq!(
        seen["late"],
        "question 1 is not asked (answered, or its line ended)"
    );
    // Nothing more was asked of the model.
    assert_eq!(fake.requests().len(), 1);
}

/// The page's first text on screen after Send (5 lines, the model API
/// answering at once), and the host's CPU time per line; printed (run
/// with `--nocapture`), bounded loosely.
#[test]
fn first_text_on_screen_after_send_and_cpu_per_line() {
    let lines = 5;
    let fake = FakeModel::start((0..lines).map(|_| end("ok, done.")).collect());
    let host = start(&fake, "all");
    let before = host.cpu_ms();
    let seen = host.drive("first_text");
    let cpu = host.cpu_ms() - before;
    let firsts: Vec<f64> = seen["first_text_ms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert_eq!(firsts.len(), lines, "{seen}");
    let mut sorted = firsts.clone();
    sorted.sort_by(f64::total_cmp);
    eprintln!(
        "mcp-host web: first text after Send, ms: {firsts:?} (median {:.1}); host CPU {:.1} ms per line",
        sorted[lines / 2],
        cpu as f64 / lines as f64
    );
    assert!(sorted[lines / 2] < 5_000.0, "{firsts:?}");
    assert_eq!(fake.requests().len(), lines);
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
