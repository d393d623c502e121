//! Prompt caching, through the real providers and the program against
//! fake model APIs on loopback that record every request: where the
//! Anthropic breakpoints go, the prefix property over a long conversation
//! (every request's prompt up to its last breakpoint is a prefix of the
//! next one's), OpenAI's stable prefix, and the cache fields of `usage`.

use crate::common;

use common::fake_model::{
    FakeModel, McpConfig, Recorded, Reply, claude_message, openai_completion, openai_text,
    openai_tool_calls, run_host, text_block, tool_use,
};
use common::run;
use mcpfn_host::agent::Agent;
use mcpfn_host::provider::{Anthropic, OpenAi, Usage};
use mcpfn_runtime::{tool, tools};
use serde_json::{Value, json};

/// Echoes the text back.
#[tool(read_only)]
async fn echo(text: String) -> String {
    format!("echo: {text}")
}

/// Adds two numbers.
#[tool(read_only)]
async fn add(a: i64, b: i64) -> String {
    (a + b).to_string()
}

/// Shouts the text.
#[tool(read_only)]
async fn shout(text: String) -> String {
    text.to_uppercase()
}

const SYSTEM: &str = "You answer in one sentence.";

/// A request's prompt in the API's rendering order (tools, then system,
/// then messages), each block as JSON without its `cache_control`, and
/// where each breakpoint ends in it.
#[derive(Debug)]
struct Rendered {
    text: String,
    /// Where the tools end (the system prompt starts).
    tools_end: usize,
    /// The end offset of each block that carried `cache_control`.
    breakpoints: Vec<usize>,
}

impl Rendered {
    /// Renders a recorded Messages API body. A string `system` or message
    /// `content` is the one text block the API defines it as shorthand
    /// for, so a message written as a string in one request and as a
    /// marked block in the next renders the same.
    fn of(body: &Value) -> Rendered {
        let mut rendered = Rendered {
            text: String::new(),
            tools_end: 0,
            breakpoints: Vec::new(),
        };
        for tool in body["tools"].as_array().into_iter().flatten() {
            rendered.block(tool);
        }
        rendered.tools_end = rendered.text.len();
        rendered.blocks(&body["system"]);
        for message in body["messages"].as_array().expect("messages") {
            rendered.text.push_str(&format!("<{}>", message["role"]));
            rendered.blocks(&message["content"]);
        }
        rendered
    }

    fn blocks(&mut self, content: &Value) {
        match content {
            Value::String(text) => self.block(&json!({"type": "text", "text": text})),
            Value::Array(blocks) => blocks.iter().for_each(|b| self.block(b)),
            Value::Null => {}
            other => panic!("content that is neither a string nor blocks: {other}"),
        }
    }

    fn block(&mut self, block: &Value) {
        let mut plain = block.clone();
        let marked = plain
            .as_object_mut()
            .and_then(|b| b.remove("cache_control"))
            .is_some();
        self.text.push_str(&plain.to_string());
        if marked {
            self.breakpoints.push(self.text.len());
        }
    }

    fn last_breakpoint(&self) -> usize {
        *self.breakpoints.last().expect("a breakpoint")
    }
}

/// The number of `cache_control` markers anywhere in `raw`.
fn markers(request: &Recorded) -> usize {
    request.raw_body.matches("\"cache_control\"").count()
}

/// The script of line `line` (1-based): every third line is answered
/// with text alone, every seventh with twelve parallel calls (more than
/// the API's 20-block lookback), the others with one call; each answer
/// reports a cache read and a write, to be summed.
fn line_script(line: usize) -> Vec<Reply> {
    let usage = |reply: Value| {
        let mut reply = reply;
        reply["usage"]["cache_read_input_tokens"] = json!(1000);
        reply["usage"]["cache_creation_input_tokens"] = json!(10);
        Reply::ok(reply)
    };
    let done = usage(claude_message(
        json!([text_block(&format!("Done with line {line}."))]),
        "end_turn",
        5,
        3,
    ));
    if line.is_multiple_of(3) {
        return vec![done];
    }
    let calls = if line.is_multiple_of(7) { 12 } else { 1 };
    let mut content = vec![text_block("Let me check.")];
    content.extend((0..calls).map(|i| {
        tool_use(
            &format!("toolu_{line}_{i}"),
            "echo",
            json!({"text": format!("line {line} call {i}")}),
        )
    }));
    vec![
        usage(claude_message(json!(content), "tool_use", 5, 3)),
        done,
    ]
}

#[test]
fn over_a_long_conversation_each_prompt_up_to_its_last_breakpoint_is_the_next_ones_prefix() {
    const LINES: usize = 75;
    let script: Vec<Reply> = (1..=LINES).flat_map(line_script).collect();
    let fake = FakeModel::start(script);
    run(async {
        let provider = || Anthropic::new(&fake.base_url, Some("k")).unwrap();
        // The tool list changes twice: a tool added (line 41), a tool
        // removed (line 61). The agent offers a fixed list, so each list
        // is an agent of its own continuing the same conversation.
        let agents = [
            Agent::new(provider()).tools(tools![echo, add]),
            Agent::new(provider()).tools(tools![echo, add, shout]),
            Agent::new(provider()).tools(tools![echo, shout]),
        ];
        let mut built = Vec::new();
        for agent in agents {
            built.push(agent.system(SYSTEM).build().await.unwrap());
        }
        let mut chat = built[0].conversation();
        let mut usage = Usage::default();
        for line in 1..=LINES {
            let agent = &built[match line {
                ..=40 => 0,
                41..=60 => 1,
                _ => 2,
            }];
            let answer = agent
                .send(&mut chat, &format!("Line {line}: please echo it."))
                .await
                .unwrap_or_else(|e| panic!("line {line}: {e}"));
            assert_eq!(answer.text, format!("Done with line {line}."));
            usage += answer.usage;
        }
        assert_eq!(usage, chat.usage());
        let requests = usage.output_tokens / 3;
        assert_eq!(
            usage,
            Usage {
                input_tokens: requests * (5 + 1000 + 10),
                output_tokens: requests * 3,
                cache_creation_input_tokens: requests * 10,
                cache_read_input_tokens: requests * 1000,
            }
        );
    });
    assert_eq!(fake.unused(), 0);
    let requests = fake.requests();
    assert!(requests.len() >= 100, "{} requests", requests.len());
    let rendered: Vec<Rendered> = requests.iter().map(|r| Rendered::of(&r.body)).collect();

    for (k, (request, prompt)) in requests.iter().zip(&rendered).enumerate() {
        // Tools, system, the previous request's end (from the second on),
        // this one's end: never more than the API's four.
        let expected = if k == 0 { 3 } else { 4 };
        assert_eq!(markers(request), expected, "request {k}");
        assert_eq!(prompt.breakpoints.len(), expected, "request {k}");
        assert_eq!(
            request.body["system"],
            json!([{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}])
        );
        let tools = request.body["tools"].as_array().unwrap();
        assert_eq!(
            tools.last().unwrap()["cache_control"],
            json!({"type": "ephemeral"})
        );
        // The last breakpoint is on the last block of the last message,
        // the growing end.
        assert_eq!(prompt.last_breakpoint(), prompt.text.len(), "request {k}");
    }

    let mut tool_changes = Vec::new();
    for k in 0..rendered.len() - 1 {
        let (this, next) = (&rendered[k], &rendered[k + 1]);
        if this.text[..this.tools_end] != next.text[..next.tools_end] {
            // A changed tool list changes the prompt within its tools, the
            // first section: every cached prefix that reaches past them
            // (system, messages) is lost, so the property cannot hold
            // across the change. What follows the tools still holds it.
            assert!(
                next.text[next.tools_end..]
                    .starts_with(&this.text[this.tools_end..this.last_breakpoint()]),
                "request {k}: more than the tools changed"
            );
            tool_changes.push(k + 1);
            continue;
        }
        let prefix = &this.text[..this.last_breakpoint()];
        assert!(
            next.text.starts_with(prefix),
            "request {k}'s prompt up to its last breakpoint is not a prefix of request {}'s",
            k + 1
        );
        // And the next request carries a breakpoint exactly there, so it
        // reads what this one wrote however many blocks were added since
        // (a line of twelve calls adds 26).
        assert!(
            next.breakpoints.contains(&this.last_breakpoint()),
            "request {} has no breakpoint where request {k} ended",
            k + 1
        );
    }
    assert_eq!(tool_changes.len(), 2, "the two tool-list changes");
}

#[test]
fn with_caching_off_no_request_carries_a_breakpoint() {
    let fake = FakeModel::start(line_script(1));
    run(async {
        let provider = Anthropic::new(&fake.base_url, Some("k"))
            .unwrap()
            .caching(false);
        let agent = Agent::new(provider)
            .tools(tools![echo])
            .system(SYSTEM)
            .build()
            .await
            .unwrap();
        let mut chat = agent.conversation();
        agent.send(&mut chat, "Line 1").await.unwrap();
    });
    let requests = fake.requests();
    assert_eq!(requests.len(), 2);
    for request in &requests {
        assert_eq!(markers(request), 0, "{}", request.raw_body);
        assert_eq!(request.body["system"], SYSTEM);
    }
    assert_eq!(requests[1].body["messages"][0]["content"], "Line 1");
}

#[test]
fn openai_requests_keep_tools_and_system_first_and_only_append_to_the_history() {
    let mut script = Vec::new();
    for line in 0..6 {
        script.push(Reply::ok(openai_completion(
            openai_tool_calls(
                None,
                &[(&format!("call_{line}"), "echo", r#"{"text":"x"}"#)],
            ),
            "tool_calls",
            3,
            1,
        )));
        script.push(Reply::ok(openai_completion(
            openai_text("done"),
            "stop",
            3,
            1,
        )));
    }
    let fake = FakeModel::start(script);
    run(async {
        let provider = OpenAi::new(&fake.base_url, Some("k"))
            .unwrap()
            .prompt_cache_key("conversation-1");
        let agent = Agent::new(provider)
            .tools(tools![echo, add])
            .system(SYSTEM)
            .build()
            .await
            .unwrap();
        let mut chat = agent.conversation();
        for line in 0..6 {
            agent
                .send(&mut chat, &format!("line {line}"))
                .await
                .unwrap();
        }
    });
    let requests = fake.requests();
    assert_eq!(requests.len(), 12);
    // The prompt as the API renders it: tools, then the messages (the
    // system prompt first among them).
    let prompt = |r: &Recorded| {
        let mut text = r.body["tools"].to_string();
        for message in r.body["messages"].as_array().unwrap() {
            text.push_str(&message.to_string());
        }
        text
    };
    for pair in requests.windows(2) {
        assert_eq!(pair[0].body["tools"], pair[1].body["tools"]);
        assert_eq!(
            pair[1].body["messages"][0],
            json!({"role": "system", "content": SYSTEM})
        );
        assert!(
            prompt(&pair[1]).starts_with(&prompt(&pair[0])),
            "a request's prompt is not a prefix of the next one's"
        );
    }
    for request in &requests {
        assert_eq!(request.body["prompt_cache_key"], "conversation-1");
        assert_eq!(markers(request), 0);
    }
}

#[test]
fn the_json_line_reports_the_cache_tokens_and_no_cache_leaves_the_breakpoints_out() {
    let config = McpConfig::new(&json!({"mcpServers": {}}));
    let reply = || {
        let mut body = claude_message(json!([text_block("晴")]), "end_turn", 50, 12);
        body["usage"]["cache_creation_input_tokens"] = json!(2048);
        body["usage"]["cache_read_input_tokens"] = json!(100_000);
        Reply::ok(body)
    };
    for (flags, marked) in [(&[][..], true), (&["--no-cache"][..], false)] {
        let fake = FakeModel::start(vec![reply()]);
        let mut args = vec!["--config", config.arg(), "--json", "--system", SYSTEM];
        args.extend(flags);
        let run = run_host(
            &args,
            &[
                ("ANTHROPIC_BASE_URL", &fake.base_url),
                ("ANTHROPIC_API_KEY", "k"),
            ],
            "北京天气\n",
        );
        assert!(run.status.success(), "{}", run.stderr);
        let lines = run.json_lines();
        assert_eq!(
            lines[0]["usage"],
            json!({
                "input_tokens": 102_098, "output_tokens": 12,
                "cache_creation_input_tokens": 2048, "cache_read_input_tokens": 100_000
            })
        );
        let request = &fake.requests()[0];
        // No tools: the system prompt and the one message carry the two.
        assert_eq!(markers(request), if marked { 2 } else { 0 }, "{flags:?}");
    }
}
