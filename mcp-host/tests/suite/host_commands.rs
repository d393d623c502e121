//! The commands typed instead of a line (`/tools`, `/servers`, `/skills`,
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

#[test]
fn servers_says_each_servers_state_protocol_and_counts() {
    let config = two_servers();
    let fake = FakeModel::start(vec![]);
    let run = host(&config, &fake, &["--quiet"], "/servers\n");
    assert!(run.status.success(), "{}", run.stderr);
    let ready = "ready, protocol 2026-07-28";
    assert_eq!(
        run.stdout,
        format!(
            "alpha: {ready}, 2 tools, 1 prompt, 4 resources, 2 templates, 0 skills\n\
             beta: {ready}, 1 tool, 1 prompt, 4 resources, 2 templates, 0 skills\n\
             off: disabled in the config\n"
        )
    );
}

#[test]
fn resources_lists_each_servers_resources_and_templates() {
    let config = McpConfig::everything("everything", &[]);
    let fake = FakeModel::start(vec![]);
    let run = host(&config, &fake, &["--quiet"], "/resources\n");
    assert!(run.status.success(), "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "everything: 4 resources, 2 templates\n\
         \x20 ui://everything/stats.html: Stats (text/html;profile=mcp-app)\n\
         \x20 everything://about: About everything (text/plain)\n\
         \x20 everything://pixel.png: pixel (image/png)\n\
         \x20 everything://bonus: bonus_state (text/plain)\n\
         \x20 everything://filler/{bytes} (template): filler (text/plain)\n\
         \x20 everything://greeting/{language}/{name} (template): greeting (text/plain)\n"
    );
}

#[test]
fn a_prompt_runs_as_the_next_turn_with_its_messages() {
    let config = McpConfig::everything("everything", &[]);
    let fake = FakeModel::start(vec![end("Bonjour"), end("ok")]);
    let run = host(
        &config,
        &fake,
        &["--quiet"],
        "/prompt translate language=French text=\"Good morning\" tone='very formal'\nthanks\n",
    );
    assert!(run.status.success(), "{}", run.stderr);
    assert_eq!(run.stdout, "Bonjour\n\nok\n\n");
    let requests = fake.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        normalized(&requests[1].body["messages"]),
        json!([
            {"role": "user", "content": [
                {"type": "text", "text": "Translate the text below into French, in a very formal tone. Answer with the translation only."},
                {"type": "text", "text": "Good morning"}
            ]},
            {"role": "assistant", "content": [{"type": "text", "text": "Bonjour"}]},
            user_text("thanks")
        ])
    );
}

#[test]
fn prompt_mistakes_are_named_and_nothing_is_sent() {
    let mut a = everything_entry(&[]);
    a["tools"] = json!({"allow": ["echo"]});
    let config = McpConfig::new(&json!({"mcpServers": {"alpha": a.clone(), "beta": a}}));
    let fake = FakeModel::start(vec![end("done")]);
    let run = host(
        &config,
        &fake,
        &["--quiet"],
        "/prompt nope\n\
         /prompt translate language=French\n\
         /prompt alpha:translate language=French\n\
         /prompt alpha:translate language=French text=hi colour=red\n\
         /prompt gamma:translate\n\
         /prompt beta:translate language=French text=hi\n",
    );
    assert!(run.status.success(), "{}", run.stderr);
    assert_eq!(
        run.stderr,
        "mcp-host: /prompt: no ready server has a prompt `nope` (Tab after `/prompt ` lists them)\n\
         mcp-host: /prompt: servers share the prompt `translate`: write alpha:translate or beta:translate\n\
         mcp-host: /prompt: prompt `translate` of server `alpha` needs `text` (its arguments: language, text, tone?; ? optional)\n\
         mcp-host: /prompt: prompt `translate` of server `alpha` takes no argument `colour` (its arguments: language, text, tone?; ? optional)\n\
         mcp-host: /prompt: server `gamma` is not ready or not configured (/servers)\n"
    );
    let requests = fake.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(
        normalized(&requests[0].body["messages"]),
        json!([{"role": "user", "content": [
            {"type": "text", "text": "Translate the text below into French. Answer with the translation only."},
            {"type": "text", "text": "hi"}
        ]}])
    );
}

#[test]
fn a_named_resource_is_attached_to_the_line() {
    let config = McpConfig::everything("everything", &[]);
    let fake = FakeModel::start(vec![end("It is a test server.")]);
    let run = host(
        &config,
        &fake,
        &["--quiet"],
        "what is @everything:everything://about ?\n",
    );
    assert!(run.status.success(), "{}", run.stderr);
    assert_eq!(run.stdout, "It is a test server.\n\n");
    let requests = fake.requests();
    assert_eq!(
        normalized(&requests[0].body["messages"]),
        json!([{"role": "user", "content": [
            {"type": "text", "text": "what is @everything:everything://about ?"},
            {"type": "text", "text": "[Attached: the resource <everything://about> of server `everything`.]"},
            {"type": "text", "text": format!("Resource <everything://about>:\n{ABOUT}")}
        ]}])
    );
}

/// The `everything` example's `everything://about`.
const ABOUT: &str = "everything: a kitchen-sink MCP server of mcp-runtime. Its tools show structured and \
     text results, errors, progress, logs, cancellation, elicitation and tasks; its \
     resources are this text, a PNG, the bonus tool's state and the templates \
     everything://filler/{bytes} and everything://greeting/{language}/{name}.";

#[test]
fn a_resource_that_cannot_be_read_keeps_the_line_back() {
    let config = McpConfig::everything("everything", &[]);
    let fake = FakeModel::start(vec![end("ok")]);
    let run = host(
        &config,
        &fake,
        &["--quiet"],
        "read @everything:everything://nothing\n\
         read @everthing:everything://about\n\
         keep @@everything:everything://about as text\n",
    );
    assert!(run.status.success(), "{}", run.stderr);
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{}", run.stderr);
    assert!(
        lines[0].starts_with("mcp-host: `@everything:everything://nothing`: ")
            && lines[0].ends_with("; the line was not sent"),
        "{}",
        run.stderr
    );
    assert_eq!(
        lines[1],
        "mcp-host: `@everthing:everything://about`: no server is called `everthing` (`@@` at a word's start sends `@` as text)"
    );
    let requests = fake.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(
        normalized(&requests[0].body["messages"]),
        json!([user_text("keep @everything:everything://about as text")])
    );
}

/// `tests/interop/hostile_surface.py` as the one server `hostile`.
fn hostile_surface() -> McpConfig {
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop/hostile_surface.py");
    McpConfig::new(&json!({"mcpServers": {"hostile": {
        "command": "python3",
        "args": [script.to_str().unwrap()]
    }}}))
}

#[test]
fn a_flood_of_prompt_messages_and_a_huge_resource_are_refused_and_named() {
    let config = hostile_surface();
    let fake = FakeModel::start(vec![end("still here")]);
    let run = host(
        &config,
        &fake,
        &["--quiet"],
        "/prompt flood\nread @hostile:test://huge\nhello\n",
    );
    assert!(run.status.success(), "{}", run.stderr);
    // The program's lines (the client warns of the message it discarded).
    let lines: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("mcp-host:"))
        .collect();
    assert_eq!(lines.len(), 2, "{}", run.stderr);
    assert_eq!(
        lines[0],
        "mcp-host: /prompt: prompt `flood` of server `hostile`: server `hostile`: prompt `flood` returned 10,000 messages, more than the 1,000 a prompt may hold; it was refused",
        "{}",
        run.stderr
    );
    assert!(
        lines[1].starts_with("mcp-host: `@hostile:test://huge`: ")
            && lines[1].ends_with("; the line was not sent"),
        "{}",
        run.stderr
    );
    // Only the last line reached the model, and the 100 MiB were never held.
    assert_eq!(run.stdout, "still here\n\n");
    let requests = fake.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(
        normalized(&requests[0].body["messages"]),
        json!([user_text("hello")])
    );
    assert!(
        run.peak_rss_kib < 64 * 1024,
        "peak RSS {} KiB",
        run.peak_rss_kib
    );
}

#[test]
fn a_prompt_that_ends_with_the_assistants_words_is_the_answer_and_the_model_hears_the_reply() {
    let config = hostile_surface();
    let fake = FakeModel::start(vec![end("Booked")]);
    let run = host(
        &config,
        &fake,
        &["--quiet", "--json"],
        "/prompt interview x=Lisbon\nFrom Paris, in May\n",
    );
    assert!(run.status.success(), "{}", run.stderr);
    let lines: Vec<Value> = run
        .stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("one JSON object a line"))
        .collect();
    assert_eq!(lines.len(), 2, "{}", run.stdout);
    assert_eq!(lines[0]["text"], "Where from?\nAnd when?");
    assert_eq!(lines[0]["stop_reason"], "prompt_reply");
    assert_eq!(lines[0]["turns"], 0);
    assert_eq!(lines[1]["text"], "Booked");
    // No request ended with the assistant's message (a prefill, which
    // Claude refuses): the prompt's words went with the person's reply.
    let requests = fake.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(
        normalized(&requests[0].body["messages"]),
        json!([
            user_text("Plan a trip to Lisbon"),
            {"role": "assistant", "content": [
                {"type": "text", "text": "Where from?"},
                {"type": "text", "text": "And when?"}
            ]},
            user_text("From Paris, in May")
        ])
    );
}

/// The `conformance` example, which serves a folder of skills.
fn skills_server() -> McpConfig {
    let command = common::example("conformance");
    McpConfig::new(&json!({"mcpServers": {
        "docs": {"command": command.to_str().unwrap(), "args": []}
    }}))
}

#[test]
fn skills_lists_each_servers_skills_and_skill_loads_one_as_the_next_turn() {
    let config = skills_server();
    let fake = FakeModel::start(vec![end("Refunds take five days.")]);
    let run = host(
        &config,
        &fake,
        &["--quiet"],
        "/skills\n/skill nosuch\n/skill docs:refunds\n",
    );
    assert!(run.status.success(), "{}", run.stderr);
    assert!(
        run.stdout
            .starts_with("- refunds (server `docs`, <skill://acme/billing/refunds/SKILL.md>): "),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.ends_with("Refunds take five days.\n\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr.contains(
            "mcp-host: /skill: no ready server has a skill `nosuch` (/skills lists them)\n"
        ),
        "{}",
        run.stderr
    );
    let skill_md = std::fs::read_to_string(
        common::workspace_root().join("examples/skills/acme/billing/refunds/SKILL.md"),
    )
    .unwrap();
    let requests = fake.requests();
    assert_eq!(requests.len(), 1, "only the loaded skill went to the model");
    assert_eq!(
        normalized(&requests[0].body["messages"]),
        json!([user_text(&format!(
            "[Skill loaded from server `docs` (<skill://acme/billing/refunds/SKILL.md>). It is that server's text, not the host's.]\n\n{skill_md}"
        ))])
    );
}
