//! The servers panel of `mcp-host web` in a real browser (Debian's
//! chromium, Playwright, tests/web/panel.py): each server with its state
//! and tools, its switch (the scripted model API records what each
//! request offered), and "Log in" against a real authorization server.

use crate::common;

use common::fake_model::{
    FakeModel, McpConfig, Recorded, Reply, claude_events, claude_message, everything_entry,
    text_block,
};
use common::web::WebHost;
use serde_json::json;

fn end(text: &str) -> Reply {
    Reply::sse(claude_events(&claude_message(
        json!([text_block(text)]),
        "end_turn",
        1,
        1,
    )))
}

/// The names of a request's tools, in order.
fn names(request: &Recorded) -> Vec<String> {
    request.body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .map(|t| t["name"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// Two `everything` servers: `alpha` with every tool, `beta` with two.
fn two_servers() -> McpConfig {
    common::everything();
    let mut beta = everything_entry(&[]);
    beta["tools"] = json!({"allow": ["add", "slow"]});
    McpConfig::new(&json!({"mcpServers": {"alpha": everything_entry(&[]), "beta": beta}}))
}

#[test]
fn a_server_switched_off_on_the_page_leaves_the_next_request_and_comes_back() {
    let fake = FakeModel::start(vec![end("one"), end("two"), end("three")]);
    let config = two_servers();
    let host = WebHost::start(&config, &["--approve", "all"], &fake);
    let seen = host.drive_script("panel.py", "switch");
    assert_eq!(seen["states"], json!(["connected", "connected"]));
    let beta_tools: Vec<&str> = seen["beta_tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert_eq!(beta_tools.len(), 2, "{beta_tools:?}");
    assert!(beta_tools[0].starts_with("beta__add "), "{beta_tools:?}");
    // Switched off, its tools are still listed on the panel.
    assert_eq!(seen["beta_tools_off"], seen["beta_tools"]);
    let requests = fake.requests();
    assert_eq!(requests.len(), 3);
    let first = names(&requests[0]);
    let beta: Vec<&String> = first.iter().filter(|n| n.starts_with("beta__")).collect();
    assert_eq!(beta, ["beta__add", "beta__slow"]);
    let second = names(&requests[1]);
    let without: Vec<String> = first
        .iter()
        .filter(|n| !n.starts_with("beta__"))
        .cloned()
        .collect();
    assert_eq!(second, without);
    assert!(!second.is_empty());
    // Back in their places, the same bytes.
    assert_eq!(requests[2].body["tools"], requests[0].body["tools"]);
}

/// "Log in" against npm `oidc-provider` in front of `everything --http`
/// (host_oidc.rs's stack): the server waits for a login instead of
/// holding up the start; the page opens the provider's login, the test
/// signs in and consents there, the loopback redirect completes it, and
/// the server joins with its tools, called with the new token.
#[cfg(feature = "oauth")]
#[test]
fn log_in_on_the_page_runs_the_oauth_flow_and_the_server_joins() {
    let stack = crate::host_oidc::Stack::start("web-login", 3600);
    let fake = FakeModel::start(vec![
        Reply::sse(claude_events(&claude_message(
            json!([common::fake_model::tool_use("toolu_1", "whoami", json!({}))]),
            "tool_use",
            1,
            1,
        ))),
        end("done"),
    ]);
    let xdg = stack.xdg();
    let host = WebHost::start_with(
        &stack.config(),
        &["--approve", "all"],
        &fake,
        &[("XDG_CONFIG_HOME", &xdg)],
    );
    let seen = host.drive_script("panel.py", "login");
    assert_eq!(
        seen["before"],
        json!({"reason": "it asks for a login (OAuth)", "switches": 0})
    );
    // The provider's login page, then its consent page.
    assert_eq!(seen["provider_pages"], 2, "{seen}");
    assert_eq!(seen["callback"], "callback");
    assert_eq!(seen["state"], "connected");
    assert!(
        seen["tools"].as_array().unwrap().contains(&json!("whoami")),
        "{seen}"
    );
    assert_eq!(stack.count_once("grant=authorization_code", 1), 1);
    let requests = fake.requests();
    assert_eq!(requests.len(), 2);
    assert!(names(&requests[0]).contains(&"whoami".to_owned()));
    let result = requests[1].raw_body.clone();
    assert!(result.contains(r#"\"subject\":\"ada\""#), "{result}");
}

/// The text of every user message of `request`, in order.
fn user_texts(request: &Recorded) -> Vec<String> {
    let mut texts = Vec::new();
    for message in request.body["messages"].as_array().unwrap() {
        if message["role"] != "user" {
            continue;
        }
        match &message["content"] {
            serde_json::Value::String(text) => texts.push(text.clone()),
            serde_json::Value::Array(blocks) => texts.extend(
                blocks
                    .iter()
                    .filter_map(|b| b["text"].as_str().map(str::to_owned)),
            ),
            _ => {}
        }
    }
    texts
}

fn everything_host(fake: &FakeModel) -> (McpConfig, WebHost) {
    common::everything();
    let config = McpConfig::everything("everything", &[]);
    let host = WebHost::start(&config, &["--approve", "all"], fake);
    (config, host)
}

#[test]
fn a_prompt_runs_as_a_slash_command_with_a_completion_chosen() {
    let fake = FakeModel::start(vec![end("done")]);
    let (_config, host) = everything_host(&fake);
    let seen = host.drive_script("panel.py", "prompt");
    assert_eq!(seen["listed"], json!(["/translate Translate (everything)"]));
    // The server's completion, with the text as context.
    assert_eq!(seen["after_s"], json!(["Spanish", "Swedish"]));
    assert_eq!(seen["chosen"], "Swedish");
    assert_eq!(
        seen["user"],
        json!(["/translate language=Swedish text=the cat sleeps"])
    );
    assert_eq!(seen["form_left"], 0);
    let requests = fake.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(
        user_texts(&requests[0]),
        [
            "Translate the text below into Swedish. Answer with the translation only.",
            "the cat sleeps"
        ]
    );
}

#[test]
fn a_resource_attached_goes_with_the_line() {
    let fake = FakeModel::start(vec![end("done")]);
    let (_config, host) = everything_host(&fake);
    let seen = host.drive_script("panel.py", "attach");
    assert_eq!(
        seen["attached"],
        json!(["everything:everything://about Remove"])
    );
    assert_eq!(
        seen["user"],
        json!(["what is this?\n(attached: everything:everything://about)"])
    );
    assert_eq!(seen["attached_after"], 0);
    let requests = fake.requests();
    assert_eq!(requests.len(), 1);
    let texts = user_texts(&requests[0]);
    assert_eq!(texts[0], "what is this?");
    assert_eq!(
        texts[1],
        "[Attached: the resource <everything://about> of server `everything`.]"
    );
    let body = &requests[0].raw_body;
    assert!(
        body.contains("everything: a kitchen-sink MCP server of mcp-runtime."),
        "{body}"
    );
}
