//! The commands typed instead of a line (`/tools`, `/servers`,
//! `/resources`, `/prompt`, `/help`) and `@server:URI` attachments, through
//! the program's stdin and stdout as pipes: what each lists, what the model
//! API is sent (recorded by the scripted fake), and the one stderr line of
//! a mistake after which the conversation goes on.

use crate::common;

use common::fake_model::{
    FakeModel, HostRun, McpConfig, Reply, claude_message, everything_entry, run_host, text_block,
};
use serde_json::{Value, json};

const CLAUDE_KEY: &str = "sk-ant-test-key";

fn end(text: &str) -> Reply {
    Reply::ok(claude_message(json!([text_block(text)]), "end_turn", 1, 1))
}

/// The program on `config` with `args`, `stdin` its lines.
fn host(config: &McpConfig, fake: &FakeModel, args: &[&str], stdin: &str) -> HostRun {
    let mut all = vec!["--config", config.arg(), "--approve", "all"];
    all.extend_from_slice(args);
    run_host(
        &all,
        &[
            ("ANTHROPIC_BASE_URL", &fake.base_url),
            ("ANTHROPIC_API_KEY", CLAUDE_KEY),
        ],
        stdin,
    )
}

/// Two `everything` servers offering two tools and one tool, a third
/// disabled.
fn two_servers() -> McpConfig {
    let mut a = everything_entry(&[]);
    a["tools"] = json!({"allow": ["echo", "add"]});
    let mut b = everything_entry(&[]);
    b["tools"] = json!({"allow": ["echo"]});
    let mut off = everything_entry(&[]);
    off["disabled"] = json!(true);
    McpConfig::new(&json!({"mcpServers": {"alpha": a, "beta": b, "off": off}}))
}

/// A user message of one text block.
fn user_text(text: &str) -> Value {
    json!({"role": "user", "content": [{"type": "text", "text": text}]})
}

/// `messages` without the caching breakpoints, each string `content`
/// written as the one text block it stands for (the API takes both).
fn normalized(messages: &Value) -> Value {
    let mut messages = common::fake_model::unmarked(messages);
    for message in messages.as_array_mut().expect("messages is an array") {
        if let Some(text) = message["content"].as_str() {
            message["content"] = json!([{"type": "text", "text": text}]);
        }
    }
    messages
}

#[test]
fn tools_lists_every_offered_tool_by_server() {
    let config = two_servers();
    let fake = FakeModel::start(vec![]);
    let run = host(&config, &fake, &["--quiet"], "/tools\n");
    assert!(run.status.success(), "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "alpha: 2 tools\n\
         \x20 add: Add two numbers.\n\
         \x20 echo (as alpha__echo): Echo the text back unchanged.\n\
         beta: 1 tool\n\
         \x20 echo (as beta__echo): Echo the text back unchanged.\n\
         off: disabled in the config\n"
    );
    assert_eq!(run.stderr, "");
    assert!(fake.requests().is_empty());
}

#[test]
fn a_mistake_is_one_stderr_line_and_the_conversation_goes_on() {
    let config = McpConfig::everything("everything", &[]);
    let fake = FakeModel::start(vec![end("first"), end("second")]);
    let run = host(
        &config,
        &fake,
        &["--quiet"],
        "/tool\nhello\n/tools now\n//tools is a path\n",
    );
    assert!(run.status.success(), "{}", run.stderr);
    assert_eq!(
        run.stderr,
        "mcp-host: unknown command `/tool` (/help lists them; `//tool` sends `/tool` to the model)\n\
         mcp-host: /tools takes no arguments\n"
    );
    assert_eq!(run.stdout, "first\n\nsecond\n\n");
    let requests = fake.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        normalized(&requests[1].body["messages"]),
        json!([
            user_text("hello"),
            {"role": "assistant", "content": [{"type": "text", "text": "first"}]},
            user_text("/tools is a path")
        ])
    );
}

#[test]
fn help_lists_the_commands_and_with_json_goes_to_stderr() {
    let config = McpConfig::everything("everything", &[]);
    let fake = FakeModel::start(vec![]);
    let run = host(&config, &fake, &["--quiet", "--json"], "/help\n");
    assert!(run.status.success(), "{}", run.stderr);
    assert_eq!(run.stdout, "", "stdout stays one JSON object a line");
    assert!(
        run.stderr
            .starts_with("/tools: every offered tool, by server\n"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(
            "@SERVER:URI in a line attaches that resource; `//text` sends `/text`, `@@` sends `@`\n"
        ),
        "{}",
        run.stderr
    );
}
