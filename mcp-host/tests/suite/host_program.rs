//! Contract tests of the `mcp-host` program against scripted model APIs
//! (tests/suite/common/fake_model.rs) for both providers: what it sends (paths,
//! headers, the exact `messages` arrays), how it runs the model's tool
//! calls on a real MCP server (the `everything` example over stdio, one per
//! test, from an `mcp.json` in a temp dir), and what it prints.
//!
//! The exact JSON of each `tool_result` and `role: tool` message comes from
//! an oracle: the same `everything` server called through the library's
//! catalog and converted by each provider module's dialect functions, so a test checks the
//! program's wiring (ids, order, history, verbatim assistant content) byte
//! for byte without copying the server's output into the test.

use crate::common;

use common::fake_model::{
    FakeModel, HostRun, McpConfig, Reply, claude_message, closed_port_url, everything_entry,
    openai_completion, run_host, text_block, tool_use, unmarked,
};
use mcpfn_host::catalog::{Catalog, CatalogOptions};
use mcpfn_host::provider::anthropic;
use mcpfn_host::provider::openai::{self, Strict};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

const CLAUDE_KEY: &str = "sk-ant-test-key";
const OPENAI_KEY: &str = "sk-openai-test-key";

/// The same servers as the program's config, called through the library.
struct Oracle {
    runtime: tokio::runtime::Runtime,
    catalog: Catalog,
}

impl Oracle {
    fn new(config: &McpConfig) -> Oracle {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let parsed = mcpfn_host::config::McpConfig::load(&config.path).unwrap();
        let catalog = runtime
            .block_on(Catalog::build(
                &parsed,
                Vec::new(),
                CatalogOptions::default(),
            ))
            .unwrap();
        assert!(catalog.failures().is_empty(), "{:?}", catalog.failures());
        Oracle { runtime, catalog }
    }

    fn claude_tools(&self) -> Value {
        Value::Array(anthropic::tools(&self.catalog.offers()))
    }

    fn openai_tools(&self) -> Value {
        Value::Array(openai::tools(&self.catalog.offers(), Strict::Off))
    }

    fn call(&self, name: &str, input: Value) -> mcpfn_protocol::model::CallToolResult {
        self.runtime.block_on(self.catalog.call(name, input))
    }

    /// The `tool_result` block answering `id`, a call of `name` with `input`.
    fn claude_result(&self, id: &str, name: &str, input: Value) -> Value {
        anthropic::tool_result(id, &self.call(name, input))
    }

    /// The `role: tool` message answering `id`.
    fn openai_result(&self, id: &str, name: &str, input: Value) -> Value {
        openai::tool_message(id, &self.call(name, input), 1).message
    }
}

/// The environment that points the program at `fake` for Anthropic.
fn claude_env(fake: &FakeModel) -> Vec<(&'static str, String)> {
    vec![
        ("ANTHROPIC_BASE_URL", fake.base_url.clone()),
        ("ANTHROPIC_API_KEY", CLAUDE_KEY.to_owned()),
    ]
}

/// The environment that points the program at `fake` for OpenAI.
fn openai_env(fake: &FakeModel) -> Vec<(&'static str, String)> {
    vec![
        ("OPENAI_BASE_URL", fake.base_url.clone()),
        ("OPENAI_API_KEY", OPENAI_KEY.to_owned()),
    ]
}

/// Runs the program with `--config config` and `args`.
fn host(config: &McpConfig, args: &[&str], env: &[(&'static str, String)], stdin: &str) -> HostRun {
    let mut all = vec!["--config", config.arg()];
    all.extend_from_slice(args);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    run_host(&all, &env, stdin)
}

/// Asserts a clean exit and returns the JSON lines.
fn lines(run: &HostRun, count: usize) -> Vec<Value> {
    assert!(
        run.status.success(),
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        run.status,
        run.stdout,
        run.stderr
    );
    let lines = run.json_lines();
    assert_eq!(
        lines.len(),
        count,
        "stdout:\n{}\nstderr:\n{}",
        run.stdout,
        run.stderr
    );
    lines
}

/// `{"role":"user","content":text}`. A user line may be sent as a plain
/// string or as one text block (the API takes both); [`normalized`] makes
/// the two compare equal.
fn user(text: &str) -> Value {
    json!({"role": "user", "content": text})
}

fn assistant(content: &Value) -> Value {
    json!({"role": "assistant", "content": content})
}

/// `messages` with each string `content` of a message written as the one
/// text block it stands for (Anthropic only: OpenAI's `content` stays), and
/// without the prompt-caching breakpoints ([`unmarked`]).
fn normalized(messages: &Value) -> Value {
    let mut messages = unmarked(messages);
    for message in messages.as_array_mut().expect("messages is an array") {
        if let Some(text) = message["content"].as_str() {
            message["content"] = json!([{"type": "text", "text": text}]);
        }
    }
    messages
}

fn assert_claude_messages(request: &Value, expected: &Value) {
    assert_eq!(
        normalized(&request["messages"]),
        normalized(expected),
        "the request's messages:\n{:#}",
        request["messages"]
    );
}

/// Checks what every Anthropic request must carry.
fn assert_claude_request(fake: &FakeModel) {
    for request in fake.requests() {
        assert_eq!(request.method, "POST");
        assert_eq!(request.path, "/v1/messages");
        assert_eq!(request.header("x-api-key"), Some(CLAUDE_KEY));
        assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
        let content_type = request.header("content-type").unwrap_or("");
        assert!(
            content_type.starts_with("application/json"),
            "{content_type}"
        );
        assert_eq!(request.header("authorization"), None);
        // Never a system message: the prompt is the top-level `system`.
        for message in request.body["messages"].as_array().unwrap() {
            let role = message["role"].as_str().unwrap();
            assert!(role == "user" || role == "assistant", "{message}");
        }
    }
}

/// Checks what every OpenAI request must carry.
fn assert_openai_request(fake: &FakeModel) {
    for request in fake.requests() {
        assert_eq!(request.method, "POST");
        assert_eq!(request.path, "/chat/completions");
        assert_eq!(
            request.header("authorization"),
            Some(format!("Bearer {OPENAI_KEY}").as_str())
        );
        let content_type = request.header("content-type").unwrap_or("");
        assert!(
            content_type.starts_with("application/json"),
            "{content_type}"
        );
        assert_eq!(request.header("x-api-key"), None);
        assert!(request.body.get("max_tokens").is_none(), "{}", request.body);
    }
}

/// The body's keys.
fn keys(body: &Value) -> BTreeSet<&str> {
    body.as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect()
}

/// Every `tool_use` of an assistant message is answered by a `tool_result`
/// in the next message, which is a user message.
fn assert_claude_history_valid(messages: &Value) {
    let messages = messages.as_array().unwrap();
    for (i, message) in messages.iter().enumerate() {
        let Some(blocks) = message["content"].as_array() else {
            continue;
        };
        let uses: Vec<&str> = blocks
            .iter()
            .filter(|b| b["type"] == "tool_use")
            .map(|b| b["id"].as_str().unwrap())
            .collect();
        if uses.is_empty() {
            continue;
        }
        assert_eq!(message["role"], "assistant");
        let next = messages
            .get(i + 1)
            .unwrap_or_else(|| panic!("tool_use without results: {message}"));
        assert_eq!(next["role"], "user", "{next}");
        let results: Vec<&str> = next["content"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|b| b["type"] == "tool_result")
            .map(|b| b["tool_use_id"].as_str().unwrap())
            .collect();
        assert_eq!(results, uses, "{next}");
    }
}

/// The config of one stdio `everything` named `name`.
fn everything(name: &str) -> McpConfig {
    McpConfig::everything(name, &[])
}

fn weather_input(city: &str) -> Value {
    json!({"location": city})
}

// ---------------------------------------------------------------------------
// The seed flow, both providers.

#[test]
fn claude_weather_flow_across_two_lines() {
    let config = everything("weather");
    let oracle = Oracle::new(&config);
    let first = json!([
        text_block("我来查一下北京的天气。"),
        tool_use("toolu_01", "get_weather_data", weather_input("北京"))
    ]);
    let second = json!([text_block("北京今天"), text_block("天气不错。")]);
    let third = json!([
        text_block("再查上海。"),
        tool_use("toolu_02", "get_weather_data", weather_input("上海"))
    ]);
    let fourth = json!([text_block("上海今天也不错。")]);
    let fake = FakeModel::start(vec![
        Reply::ok(claude_message(first.clone(), "tool_use", 100, 20)),
        Reply::ok(claude_message(second.clone(), "end_turn", 150, 30)),
        Reply::ok(claude_message(third.clone(), "tool_use", 200, 40)),
        Reply::ok(claude_message(fourth.clone(), "end_turn", 260, 50)),
    ]);
    let run = host(
        &config,
        &["--system", "你是天气助手", "--json", "--approve", "all"],
        &claude_env(&fake),
        "北京今天天气怎么样\n\n那上海呢\n",
    );
    let out = lines(&run, 2);
    assert_eq!(
        out[0],
        json!({
            "text": "北京今天天气不错。",
            "stop_reason": "end_turn",
            "turns": 2,
            "usage": {"input_tokens": 250, "output_tokens": 50},
            "tool_calls": [{"name": "get_weather_data", "server": "weather", "is_error": false}]
        })
    );
    assert_eq!(
        out[1],
        json!({
            "text": "上海今天也不错。",
            "stop_reason": "end_turn",
            "turns": 2,
            "usage": {"input_tokens": 460, "output_tokens": 90},
            "tool_calls": [{"name": "get_weather_data", "server": "weather", "is_error": false}]
        })
    );

    let requests = fake.requests();
    assert_eq!(requests.len(), 4);
    assert_claude_request(&fake);
    for request in &requests {
        let body = &request.body;
        assert_eq!(
            keys(body),
            BTreeSet::from(["model", "max_tokens", "system", "messages", "tools"]),
            "{body}"
        );
        assert_eq!(body["model"], "claude-sonnet-4-6");
        assert_eq!(body["max_tokens"], 1024);
        assert_eq!(
            unmarked(&body["system"]),
            json!([{"type": "text", "text": "你是天气助手"}])
        );
        assert_eq!(unmarked(&body["tools"]), oracle.claude_tools());
    }
    // The offered tools have exactly the API's three fields.
    for tool in oracle.claude_tools().as_array().unwrap() {
        assert_eq!(
            keys(tool),
            BTreeSet::from(["name", "description", "input_schema"])
        );
    }

    let beijing = oracle.claude_result("toolu_01", "get_weather_data", weather_input("北京"));
    assert_eq!(beijing["type"], "tool_result");
    assert_eq!(beijing["tool_use_id"], "toolu_01");
    assert!(beijing.get("is_error").is_none());
    let shanghai = oracle.claude_result("toolu_02", "get_weather_data", weather_input("上海"));

    let mut history = vec![user("北京今天天气怎么样")];
    assert_claude_messages(&requests[0].body, &json!(history));
    history.push(assistant(&first));
    history.push(json!({"role": "user", "content": [beijing]}));
    assert_claude_messages(&requests[1].body, &json!(history));
    history.push(assistant(&second));
    history.push(user("那上海呢"));
    assert_claude_messages(&requests[2].body, &json!(history));
    history.push(assistant(&third));
    history.push(json!({"role": "user", "content": [shanghai]}));
    assert_claude_messages(&requests[3].body, &json!(history));
}

#[test]
fn openai_weather_flow_across_two_lines() {
    let config = everything("weather");
    let oracle = Oracle::new(&config);
    let first = json!({
        "role": "assistant",
        "content": "我来查一下。",
        "tool_calls": [{"id": "call_1", "type": "function",
            "function": {"name": "get_weather_data", "arguments": "{\"location\":\"北京\"}"}}]
    });
    let second = json!({"role": "assistant", "content": "北京今天天气不错。"});
    let third = json!({
        "role": "assistant",
        "content": null,
        "tool_calls": [{"id": "call_2", "type": "function",
            "function": {"name": "get_weather_data", "arguments": "{\"location\": \"上海\"}"}}]
    });
    let fourth = json!({"role": "assistant", "content": "上海也不错。"});
    let fake = FakeModel::start(vec![
        Reply::ok(openai_completion(first.clone(), "tool_calls", 100, 20)),
        Reply::ok(openai_completion(second.clone(), "stop", 150, 30)),
        Reply::ok(openai_completion(third.clone(), "tool_calls", 200, 40)),
        Reply::ok(openai_completion(fourth.clone(), "stop", 260, 50)),
    ]);
    let run = host(
        &config,
        &[
            "--provider",
            "openai",
            "--system",
            "你是天气助手",
            "--json",
            "--approve",
            "all",
        ],
        &openai_env(&fake),
        "北京今天天气怎么样\n那上海呢\n",
    );
    let out = lines(&run, 2);
    assert_eq!(
        out[0],
        json!({
            "text": "北京今天天气不错。",
            "stop_reason": "stop",
            "turns": 2,
            "usage": {"input_tokens": 250, "output_tokens": 50},
            "tool_calls": [{"name": "get_weather_data", "server": "weather", "is_error": false}]
        })
    );
    assert_eq!(
        out[1],
        json!({
            "text": "上海也不错。",
            "stop_reason": "stop",
            "turns": 2,
            "usage": {"input_tokens": 460, "output_tokens": 90},
            "tool_calls": [{"name": "get_weather_data", "server": "weather", "is_error": false}]
        })
    );

    let requests = fake.requests();
    assert_eq!(requests.len(), 4);
    assert_openai_request(&fake);
    for request in &requests {
        let body = &request.body;
        assert_eq!(
            keys(body),
            BTreeSet::from(["model", "max_completion_tokens", "messages", "tools"]),
            "{body}"
        );
        assert_eq!(body["model"], "gpt-4.1");
        assert_eq!(body["max_completion_tokens"], 1024);
        assert_eq!(body["tools"], oracle.openai_tools());
    }
    for tool in oracle.openai_tools().as_array().unwrap() {
        assert_eq!(tool["type"], "function");
        assert_eq!(
            keys(&tool["function"]),
            BTreeSet::from(["name", "description", "parameters"])
        );
    }

    let system = json!({"role": "system", "content": "你是天气助手"});
    let mut history = vec![system, user("北京今天天气怎么样")];
    assert_eq!(requests[0].body["messages"], json!(history));
    history.push(first);
    history.push(oracle.openai_result("call_1", "get_weather_data", weather_input("北京")));
    assert_eq!(requests[1].body["messages"], json!(history));
    history.push(second);
    history.push(user("那上海呢"));
    assert_eq!(requests[2].body["messages"], json!(history));
    history.push(third);
    history.push(oracle.openai_result("call_2", "get_weather_data", weather_input("上海")));
    assert_eq!(requests[3].body["messages"], json!(history));
}

#[test]
fn flags_set_model_and_max_tokens_and_no_system_means_no_system_field() {
    let config = everything("everything");
    let fake = FakeModel::start(vec![Reply::ok(claude_message(
        json!([text_block("hi")]),
        "end_turn",
        1,
        1,
    ))]);
    let run = host(
        &config,
        &["--model", "claude-opus-4-1", "--max-tokens", "77", "--json"],
        &claude_env(&fake),
        "hello\n",
    );
    lines(&run, 1);
    let body = &fake.requests()[0].body;
    assert_eq!(body["model"], "claude-opus-4-1");
    assert_eq!(body["max_tokens"], 77);
    assert!(body.get("system").is_none(), "{body}");

    let fake = FakeModel::start(vec![Reply::ok(openai_completion(
        json!({"role": "assistant", "content": "hi"}),
        "stop",
        1,
        1,
    ))]);
    let run = host(
        &config,
        &[
            "--provider",
            "openai",
            "--model",
            "gpt-5-mini",
            "--max-tokens",
            "78",
            "--json",
        ],
        &openai_env(&fake),
        "hello\n",
    );
    lines(&run, 1);
    let body = &fake.requests()[0].body;
    assert_eq!(body["model"], "gpt-5-mini");
    assert_eq!(body["max_completion_tokens"], 78);
    // No --system: no system message either.
    assert_eq!(body["messages"], json!([user("hello")]));
}

// ---------------------------------------------------------------------------
// Parallel calls.

#[test]
fn two_slow_calls_of_one_response_run_at_once_and_answer_in_tool_use_order() {
    let config = everything("everything");
    let oracle = Oracle::new(&config);
    // The first call is the longer: a sequential host, or one that answers
    // in completion order, fails.
    let calls = json!([
        tool_use("toolu_a", "slow", json!({"ms": 1500})),
        tool_use("toolu_b", "slow", json!({"ms": 1200}))
    ]);
    let fake = FakeModel::start(vec![
        Reply::ok(claude_message(calls.clone(), "tool_use", 10, 10)),
        Reply::ok(claude_message(
            json!([text_block("done")]),
            "end_turn",
            10,
            10,
        )),
    ]);
    let run = host(
        &config,
        &["--json", "--approve", "all"],
        &claude_env(&fake),
        "sleep twice\n",
    );
    let out = lines(&run, 1);
    assert_eq!(
        out[0]["tool_calls"],
        json!([
            {"name": "slow", "server": "everything", "is_error": false},
            {"name": "slow", "server": "everything", "is_error": false}
        ])
    );
    let requests = fake.requests();
    assert_eq!(requests.len(), 2);
    let tool_phase = requests[1].received - requests[0].received;
    assert!(
        tool_phase >= Duration::from_millis(1500),
        "the tool phase took {tool_phase:?}"
    );
    assert!(
        tool_phase < Duration::from_millis(2600),
        "the two calls did not overlap: the tool phase took {tool_phase:?}"
    );
    eprintln!("two calls of 1.5 s and 1.2 s: tool phase {tool_phase:?}");
    let results = json!([
        oracle.claude_result("toolu_a", "slow", json!({"ms": 1500})),
        oracle.claude_result("toolu_b", "slow", json!({"ms": 1200}))
    ]);
    assert_claude_messages(
        &requests[1].body,
        &json!([
            user("sleep twice"),
            assistant(&calls),
            {"role": "user", "content": results}
        ]),
    );
}

// ---------------------------------------------------------------------------
// Failures become is_error results.

#[test]
fn claude_tool_errors_unreadable_arguments_and_unknown_names_are_is_error_results() {
    let config = everything("everything");
    let oracle = Oracle::new(&config);
    let calls = json!([
        tool_use("toolu_1", "fail", json!({"reason": "没有这个城市"})),
        tool_use("toolu_2", "add", json!({"a": "one", "b": 2})),
        tool_use("toolu_3", "no_such_tool", json!({})),
        tool_use("toolu_4", "add", json!({"a": 1, "b": 2}))
    ]);
    let fake = FakeModel::start(vec![
        Reply::ok(claude_message(calls.clone(), "tool_use", 10, 10)),
        Reply::ok(claude_message(
            json!([text_block("ok")]),
            "end_turn",
            10,
            10,
        )),
    ]);
    let run = host(
        &config,
        &["--json", "--approve", "all"],
        &claude_env(&fake),
        "try\n",
    );
    let out = lines(&run, 1);
    assert_eq!(
        out[0]["tool_calls"],
        json!([
            {"name": "fail", "server": "everything", "is_error": true},
            {"name": "add", "server": "everything", "is_error": true},
            {"name": "no_such_tool", "server": "", "is_error": true},
            {"name": "add", "server": "everything", "is_error": false}
        ])
    );
    let requests = fake.requests();
    assert_eq!(requests.len(), 2);
    let results = unmarked(&requests[1].body["messages"][2]["content"]);
    let results = results.as_array().unwrap();
    assert_eq!(results.len(), 4, "{results:?}");
    // The tool's own error result, as the server gave it.
    assert_eq!(
        results[0],
        json!({"type": "tool_result", "tool_use_id": "toolu_1", "content": "没有这个城市", "is_error": true})
    );
    // Arguments the tool cannot read: is_error, and the same text the
    // library gives.
    // (mcp-runtime answers arguments its tool cannot read with an
    // `isError` result, not a JSON-RPC error: see the next test for one.)
    let mcp_answer = oracle.call("add", json!({"a": "one", "b": 2}));
    assert!(mcp_answer.is_error);
    assert_eq!(results[1], anthropic::tool_result("toolu_2", &mcp_answer));
    assert_eq!(results[2]["type"], "tool_result");
    assert_eq!(results[2]["tool_use_id"], "toolu_3");
    assert_eq!(results[2]["is_error"], true);
    assert!(
        results[2].to_string().contains("no_such_tool"),
        "{}",
        results[2]
    );
    assert_eq!(
        results[3],
        oracle.claude_result("toolu_4", "add", json!({"a": 1, "b": 2}))
    );
    assert!(results[3].get("is_error").is_none());
    assert_claude_messages(
        &requests[1].body,
        &json!([user("try"), assistant(&calls), {"role": "user", "content": results}]),
    );
}

#[test]
fn openai_invalid_json_arguments_and_tool_errors_are_error_tool_messages() {
    let config = everything("everything");
    let oracle = Oracle::new(&config);
    let calls = json!({
        "role": "assistant",
        "content": null,
        "tool_calls": [
            {"id": "call_bad", "type": "function", "function": {"name": "echo", "arguments": "{\"text\": \"unterminated"}},
            {"id": "call_fail", "type": "function", "function": {"name": "fail", "arguments": "{}"}},
            {"id": "call_ok", "type": "function", "function": {"name": "echo", "arguments": "{\"text\":\"你好\"}"}},
            {"id": "call_none", "type": "function", "function": {"name": "nothing_here", "arguments": "{}"}}
        ]
    });
    let fake = FakeModel::start(vec![
        Reply::ok(openai_completion(calls.clone(), "tool_calls", 10, 10)),
        Reply::ok(openai_completion(
            json!({"role": "assistant", "content": "ok"}),
            "stop",
            10,
            10,
        )),
    ]);
    let run = host(
        &config,
        &["--provider", "openai", "--json", "--approve", "all"],
        &openai_env(&fake),
        "try\n",
    );
    let out = lines(&run, 1);
    assert_eq!(
        out[0]["tool_calls"],
        json!([
            {"name": "echo", "server": "everything", "is_error": true},
            {"name": "fail", "server": "everything", "is_error": true},
            {"name": "echo", "server": "everything", "is_error": false},
            {"name": "nothing_here", "server": "", "is_error": true}
        ])
    );
    let requests = fake.requests();
    assert_eq!(requests.len(), 2);
    let messages = requests[1].body["messages"].as_array().unwrap().clone();
    assert_eq!(messages.len(), 6, "{messages:#?}");
    assert_eq!(messages[0], user("try"));
    assert_eq!(messages[1], calls);
    let ids: Vec<&str> = messages[2..]
        .iter()
        .map(|m| {
            assert_eq!(m["role"], "tool");
            assert!(m["content"].is_string(), "{m}");
            m["tool_call_id"].as_str().unwrap()
        })
        .collect();
    assert_eq!(ids, ["call_bad", "call_fail", "call_ok", "call_none"]);
    let bad = messages[2]["content"].as_str().unwrap();
    assert!(bad.contains("JSON"), "{bad}");
    assert_eq!(
        messages[3],
        oracle.openai_result("call_fail", "fail", json!({}))
    );
    assert_eq!(
        messages[4],
        json!({"role": "tool", "tool_call_id": "call_ok", "content": "你好"})
    );
    assert!(
        messages[5]["content"]
            .as_str()
            .unwrap()
            .contains("nothing_here")
    );
}

// ---------------------------------------------------------------------------
// Images.

#[test]
fn an_mcp_image_is_an_image_block_for_claude() {
    let config = everything("everything");
    let oracle = Oracle::new(&config);
    let calls = json!([tool_use("toolu_img", "sample_content", json!({}))]);
    let fake = FakeModel::start(vec![
        Reply::ok(claude_message(calls.clone(), "tool_use", 10, 10)),
        Reply::ok(claude_message(
            json!([text_block("seen")]),
            "end_turn",
            10,
            10,
        )),
    ]);
    let run = host(
        &config,
        &["--json", "--approve", "all"],
        &claude_env(&fake),
        "show me\n",
    );
    lines(&run, 1);
    let requests = fake.requests();
    let result = unmarked(&requests[1].body["messages"][2]["content"][0]);
    assert_eq!(
        result,
        oracle.claude_result("toolu_img", "sample_content", json!({}))
    );
    let mcp_image = oracle
        .call("sample_content", json!({}))
        .content
        .iter()
        .find_map(|b| match b {
            mcpfn_protocol::model::ContentBlock::Image(image) => Some(image.data.clone()),
            _ => None,
        })
        .unwrap();
    let blocks = result["content"].as_array().unwrap();
    assert!(
        blocks.contains(&json!({
            "type": "image",
            "source": {"type": "base64", "media_type": "image/png", "data": mcp_image}
        })),
        "{result:#}"
    );
}

#[test]
fn an_mcp_image_goes_to_openai_in_a_user_message_after_the_tool_messages() {
    let config = everything("everything");
    let oracle = Oracle::new(&config);
    let calls = json!({
        "role": "assistant",
        "content": null,
        "tool_calls": [
            {"id": "call_img", "type": "function",
                "function": {"name": "sample_content", "arguments": "{}"}},
            {"id": "call_add", "type": "function",
                "function": {"name": "add", "arguments": "{\"a\": 1, \"b\": 2}"}}
        ]
    });
    let fake = FakeModel::start(vec![
        Reply::ok(openai_completion(calls.clone(), "tool_calls", 10, 10)),
        Reply::ok(openai_completion(
            json!({"role": "assistant", "content": "seen"}),
            "stop",
            10,
            10,
        )),
    ]);
    let run = host(
        &config,
        &["--provider", "openai", "--json", "--approve", "all"],
        &openai_env(&fake),
        "show me\n",
    );
    lines(&run, 1);
    let requests = fake.requests();
    let messages = requests[1].body["messages"].as_array().unwrap();
    assert_eq!(messages[1], calls);
    // The tool messages first, in the order of the calls, text only: the
    // image is a note there naming where it went.
    let tool = &messages[2];
    assert_eq!(
        (&tool["role"], &tool["tool_call_id"]),
        (&json!("tool"), &json!("call_img"))
    );
    let content = tool["content"].as_str().expect("text content");
    assert!(
        content.contains("One block of each kind follows."),
        "{content}"
    );
    assert!(
        content.contains("[Image 1 (image/png) is in the user message after the tool results.]"),
        "{content}"
    );
    assert!(!content.contains("iVBORw0KGgo"), "{content}");
    assert_eq!(
        messages[3],
        oracle.openai_result("call_add", "add", json!({"a": 1, "b": 2}))
    );
    // Then one user message with the image, naming the call, as a data URL
    // of the bytes the server sent.
    let mcp_image = oracle
        .call("sample_content", json!({}))
        .content
        .iter()
        .find_map(|b| match b {
            mcpfn_protocol::model::ContentBlock::Image(image) => Some(image.data.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(
        messages[4],
        json!({"role": "user", "content": [
            {"type": "text", "text": "The images returned by the tool calls above, in order:"},
            {"type": "text", "text": "Image 1, from tool call call_img:"},
            {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{mcp_image}")}}
        ]})
    );
    assert_eq!(messages.len(), 5, "{messages:#?}");
}

// ---------------------------------------------------------------------------
// pause_turn, the turn guard.

#[test]
fn pause_turn_is_resent_with_the_paused_content_and_no_new_user_message() {
    let config = everything("everything");
    let paused = json!([
        text_block("Searching."),
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "weather"}}
    ]);
    let fake = FakeModel::start(vec![
        Reply::ok(claude_message(paused.clone(), "pause_turn", 10, 5)),
        Reply::ok(claude_message(
            json!([text_block("Found it.")]),
            "end_turn",
            20,
            7,
        )),
        Reply::ok(claude_message(
            json!([text_block("Again.")]),
            "end_turn",
            30,
            9,
        )),
    ]);
    let run = host(&config, &["--json"], &claude_env(&fake), "search\nmore\n");
    let out = lines(&run, 2);
    assert_eq!(
        out[0],
        json!({
            "text": "Found it.",
            "stop_reason": "end_turn",
            "turns": 2,
            "usage": {"input_tokens": 30, "output_tokens": 12},
            "tool_calls": []
        })
    );
    let requests = fake.requests();
    assert_eq!(requests.len(), 3);
    assert_claude_messages(
        &requests[1].body,
        &json!([user("search"), assistant(&paused)]),
    );
    let history = requests[2].body["messages"].as_array().unwrap();
    assert_eq!(history.last().unwrap()["role"], "user");
    assert_eq!(history.len(), 4, "{history:#?}");
}

#[test]
fn max_turns_stops_after_the_nth_response_and_its_calls_still_run() {
    let config = everything("everything");
    let oracle = Oracle::new(&config);
    let ask = |id: &str, text: &str| {
        json!([
            text_block(&format!("calling {text}")),
            tool_use(id, "echo", json!({"text": text}))
        ])
    };
    let fake = FakeModel::start(vec![
        Reply::ok(claude_message(ask("toolu_1", "one"), "tool_use", 10, 1)),
        Reply::ok(claude_message(ask("toolu_2", "two"), "tool_use", 20, 2)),
        Reply::ok(claude_message(ask("toolu_3", "three"), "tool_use", 30, 3)),
        Reply::ok(claude_message(
            json!([text_block("bye")]),
            "end_turn",
            40,
            4,
        )),
    ]);
    let run = host(
        &config,
        &["--json", "--max-turns", "2", "--approve", "all"],
        &claude_env(&fake),
        "loop\nnext\n",
    );
    let out = lines(&run, 2);
    assert_eq!(
        out[0],
        json!({
            "text": "calling two",
            "stop_reason": "max_turns",
            "turns": 2,
            "usage": {"input_tokens": 30, "output_tokens": 3},
            "tool_calls": [
                {"name": "echo", "server": "everything", "is_error": false},
                {"name": "echo", "server": "everything", "is_error": false}
            ]
        })
    );
    // Line 2 got one tool round and its end_turn: max_turns is per line.
    assert_eq!(out[1]["stop_reason"], "end_turn");
    assert_eq!(out[1]["turns"], 2);
    let requests = fake.requests();
    assert_eq!(requests.len(), 4, "exactly 2 requests for line 1");
    // The next line's request: the guard's last results are in it, and
    // every tool_use has its tool_result.
    let next = &requests[2].body["messages"];
    assert_claude_history_valid(next);
    let next = next.as_array().unwrap();
    // The new line follows the results in their message (roles alternate).
    assert_eq!(
        normalized(&json!(next)),
        normalized(&json!([
            user("loop"),
            assistant(&ask("toolu_1", "one")),
            {"role": "user", "content": [oracle.claude_result("toolu_1", "echo", json!({"text": "one"}))]},
            assistant(&ask("toolu_2", "two")),
            {"role": "user", "content": [
                oracle.claude_result("toolu_2", "echo", json!({"text": "two"})),
                {"type": "text", "text": "next"}
            ]},
        ]))
    );
    assert_claude_history_valid(&requests[3].body["messages"]);
}

// ---------------------------------------------------------------------------
// Approvals.

/// One response asking for `toggle_bonus` (not read-only) and `echo`
/// (read-only), then an answer; the program's run and the tool results.
fn approval_run(config: &McpConfig, approve: Option<&str>) -> (HostRun, Value) {
    let calls = json!([
        tool_use("toolu_w", "toggle_bonus", json!({})),
        tool_use("toolu_r", "echo", json!({"text": "read me"}))
    ]);
    let fake = FakeModel::start(vec![
        Reply::ok(claude_message(calls, "tool_use", 10, 10)),
        Reply::ok(claude_message(
            json!([text_block("ok")]),
            "end_turn",
            10,
            10,
        )),
    ]);
    let mut args = vec!["--json"];
    if let Some(approve) = approve {
        args.extend(["--approve", approve]);
    }
    let run = host(config, &args, &claude_env(&fake), "go\n");
    let requests = fake.requests();
    assert_eq!(requests.len(), 2, "stderr:\n{}", run.stderr);
    let results = unmarked(&requests[1].body["messages"][2]["content"]);
    (run, results)
}

fn assert_declined(result: &Value, id: &str) {
    assert_eq!(result["tool_use_id"], id);
    assert_eq!(result["is_error"], true, "{result}");
    let text = result["content"].to_string().to_lowercase();
    assert!(text.contains("declined"), "{result}");
}

#[test]
fn approve_read_only_declines_tools_not_marked_read_only() {
    let config = everything("everything");
    let (run, results) = approval_run(&config, Some("read-only"));
    let out = lines(&run, 1);
    assert_declined(&results[0], "toolu_w");
    assert_eq!(
        results[1],
        json!({"type": "tool_result", "tool_use_id": "toolu_r", "content": "read me"})
    );
    assert_eq!(
        out[0]["tool_calls"],
        json!([
            {"name": "toggle_bonus", "server": "everything", "is_error": true},
            {"name": "echo", "server": "everything", "is_error": false}
        ])
    );
}

/// The result of a call not run because no one could be asked.
fn unasked(id: &str) -> Value {
    json!({"type": "tool_result", "tool_use_id": id, "is_error": true,
        "content": "The call was not run: it needs a person's approval and no one could be asked."})
}

#[test]
fn approve_ask_without_a_terminal_says_no_one_could_be_asked() {
    let config = everything("everything");
    // Once as the default and once explicitly.
    for approve in [None, Some("ask")] {
        let (run, results) = approval_run(&config, approve);
        lines(&run, 1);
        // Not "declined": nobody was asked. The trusted read-only `echo`
        // needs no one and runs.
        assert_eq!(results[0], unasked("toolu_w"));
        assert_eq!(
            results[1],
            json!({"type": "tool_result", "tool_use_id": "toolu_r", "content": "read me"})
        );
        let said = "mcp-host: --approve ask: no terminal to ask on (";
        assert_eq!(run.stderr.matches(said).count(), 1, "{}", run.stderr);
        assert!(
            run.stderr.contains("); calls that need approval are not run, and the model is told no one could be asked; tools a trusted server marks read-only still run\n"),
            "{}",
            run.stderr
        );
    }
}

#[test]
fn approve_all_runs_everything() {
    let config = everything("everything");
    let (run, results) = approval_run(&config, Some("all"));
    let out = lines(&run, 1);
    assert_eq!(
        results,
        json!([
            // `bonus` starts listed: the call ran and hid it.
            {"type": "tool_result", "tool_use_id": "toolu_w", "content": "bonus is now hidden"},
            {"type": "tool_result", "tool_use_id": "toolu_r", "content": "read me"}
        ])
    );
    assert_eq!(
        out[0]["tool_calls"],
        json!([
            {"name": "toggle_bonus", "server": "everything", "is_error": false},
            {"name": "echo", "server": "everything", "is_error": false}
        ])
    );
}

#[test]
fn approve_read_only_believes_read_only_hints_of_trusted_servers_only() {
    let mut entry = everything_entry(&[]);
    entry["trusted"] = json!(false);
    let config = McpConfig::new(&json!({"mcpServers": {"untrusted": entry}}));
    let (run, results) = approval_run(&config, Some("read-only"));
    lines(&run, 1);
    assert_declined(&results[0], "toolu_w");
    assert_declined(&results[1], "toolu_r");
}

// ---------------------------------------------------------------------------
// Provider errors and retries.

/// One line answered "fine" after the scripted failures.
fn fine(tokens: u64) -> Reply {
    Reply::ok(claude_message(
        json!([text_block("fine")]),
        "end_turn",
        tokens,
        1,
    ))
}

#[test]
fn a_429_is_retried_after_its_retry_after_seconds_and_counts_once() {
    let config = everything("everything");
    let fake = FakeModel::start(vec![
        Reply::claude_error(429, "rate_limit_error", "slow down").header("retry-after", "1"),
        fine(5),
    ]);
    let run = host(&config, &["--json"], &claude_env(&fake), "hi\n");
    let out = lines(&run, 1);
    assert_eq!(
        out[0],
        json!({"text": "fine", "stop_reason": "end_turn", "turns": 1,
            "usage": {"input_tokens": 5, "output_tokens": 1}, "tool_calls": []})
    );
    let requests = fake.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].raw_body, requests[1].raw_body);
    let waited = requests[1].received - requests[0].received;
    eprintln!("retry-after: 1 → waited {waited:?}");
    assert!(waited >= Duration::from_millis(950), "{waited:?}");
    assert!(waited < Duration::from_millis(2500), "{waited:?}");
}

#[test]
fn three_529s_end_the_line_with_error_and_leave_the_history_unchanged() {
    let config = everything("everything");
    let overloaded = || Reply::claude_error(529, "overloaded_error", "Overloaded");
    let fake = FakeModel::start(vec![
        fine(3),
        overloaded(),
        overloaded(),
        overloaded(),
        fine(4),
    ]);
    let run = host(
        &config,
        &["--json"],
        &claude_env(&fake),
        "first\nsecond\nthird\n",
    );
    let out = lines(&run, 3);
    assert_eq!(out[1]["stop_reason"], "error");
    assert_eq!(out[1]["text"], "");
    assert_eq!(out[1]["turns"], 0);
    assert_eq!(
        out[1]["usage"],
        json!({"input_tokens": 0, "output_tokens": 0})
    );
    assert_eq!(out[1]["tool_calls"], json!([]));
    let error = out[1]["error"].as_str().expect("an error string");
    assert!(error.contains("Overloaded"), "{error}");
    assert!(out[0].get("error").is_none());
    assert_eq!(out[2]["stop_reason"], "end_turn");

    let requests = fake.requests();
    assert_eq!(requests.len(), 5, "3 attempts for the second line");
    // No retry-after: 0.5 s, then 1 s, each less up to a quarter (jitter).
    let first_wait = requests[2].received - requests[1].received;
    let second_wait = requests[3].received - requests[2].received;
    eprintln!("529 backoff: {first_wait:?}, {second_wait:?}");
    assert!(first_wait >= Duration::from_millis(350), "{first_wait:?}");
    assert!(first_wait < Duration::from_millis(1500), "{first_wait:?}");
    assert!(second_wait >= Duration::from_millis(700), "{second_wait:?}");
    assert!(second_wait < Duration::from_millis(2500), "{second_wait:?}");
    // The third line's history: the first exchange, then the third line;
    // the failed line left nothing.
    assert_claude_messages(
        &requests[4].body,
        &json!([
            user("first"),
            assistant(&json!([text_block("fine")])),
            user("third")
        ]),
    );
}

/// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) for `at`.
fn http_date(at: SystemTime) -> String {
    let secs = at.duration_since(UNIX_EPOCH).unwrap().as_secs();
    let days = secs / 86_400;
    let rest = secs % 86_400;
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][(days % 7) as usize];
    let months = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    format!(
        "{weekday}, {day:02} {} {year} {:02}:{:02}:{:02} GMT",
        months[(month - 1) as usize],
        rest / 3600,
        rest / 60 % 60,
        rest % 60
    )
}

#[test]
fn http_date_formats_the_rfc_example() {
    assert_eq!(
        http_date(UNIX_EPOCH + Duration::from_secs(784_111_777)),
        "Sun, 06 Nov 1994 08:49:37 GMT"
    );
}

#[test]
fn a_503_with_an_http_date_retry_after_waits_until_that_date() {
    let config = everything("everything");
    // The date, at whole-second precision, 2 to 3 s ahead; the retry must
    // not come before it (the 0.5 s backoff of a 503 without the header
    // would), nor long after.
    let now = SystemTime::now();
    let clock = std::time::Instant::now();
    let secs = (now + Duration::from_secs(3))
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let date = UNIX_EPOCH + Duration::from_secs(secs);
    let due = clock + date.duration_since(now).unwrap();
    let at = http_date(date);
    let fake = FakeModel::start(vec![
        Reply::claude_error(503, "api_error", "unavailable").header("retry-after", &at),
        fine(5),
    ]);
    let run = host(&config, &["--json"], &claude_env(&fake), "hi\n");
    let out = lines(&run, 1);
    assert_eq!(out[0]["stop_reason"], "end_turn");
    assert_eq!(out[0]["turns"], 1);
    let requests = fake.requests();
    assert_eq!(requests.len(), 2);
    let waited = requests[1].received - requests[0].received;
    eprintln!("retry-after: {at} → waited {waited:?}");
    // 50 ms for the two clocks' readings above.
    assert!(
        requests[1].received + Duration::from_millis(50) >= due,
        "retried {:?} before the date",
        due - requests[1].received
    );
    assert!(
        requests[1].received < due + Duration::from_millis(1500),
        "retried {:?} after the date",
        requests[1].received - due
    );
}

#[test]
fn a_401_exits_1_with_the_apis_message_and_no_line_for_that_input() {
    let config = everything("everything");
    let fake = FakeModel::start(vec![
        fine(1),
        Reply::claude_error(401, "authentication_error", "invalid x-api-key"),
        fine(1),
    ]);
    let run = host(&config, &["--json"], &claude_env(&fake), "a\nb\nc\n");
    assert_eq!(run.status.code(), Some(1), "stderr:\n{}", run.stderr);
    let out = run.json_lines();
    assert_eq!(out.len(), 1, "stdout:\n{}", run.stdout);
    assert_eq!(out[0]["text"], "fine");
    assert!(run.stderr.contains("invalid x-api-key"), "{}", run.stderr);
    // At once: no retry, and no later line is sent.
    assert_eq!(fake.requests().len(), 2);
}

#[test]
fn an_openai_403_exits_1_with_the_apis_message() {
    let config = everything("everything");
    let fake = FakeModel::start(vec![Reply::openai_error(
        403,
        "invalid_request_error",
        "Project does not have access to model gpt-4.1",
    )]);
    let run = host(
        &config,
        &["--provider", "openai", "--json"],
        &openai_env(&fake),
        "a\nb\n",
    );
    assert_eq!(run.status.code(), Some(1), "stderr:\n{}", run.stderr);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr
            .contains("Project does not have access to model gpt-4.1"),
        "{}",
        run.stderr
    );
    assert_eq!(fake.requests().len(), 1);
}

#[test]
fn a_400_or_404_ends_the_line_with_the_apis_message_and_no_retry() {
    let config = everything("everything");
    let fake = FakeModel::start(vec![
        Reply::claude_error(
            400,
            "invalid_request_error",
            "messages.0.content: Field required",
        ),
        Reply::claude_error(404, "not_found_error", "model: claude-nonexistent"),
        fine(2),
    ]);
    let run = host(&config, &["--json"], &claude_env(&fake), "a\nb\nc\n");
    let out = lines(&run, 3);
    for (line, message) in [
        (&out[0], "messages.0.content: Field required"),
        (&out[1], "model: claude-nonexistent"),
    ] {
        assert_eq!(line["stop_reason"], "error");
        assert_eq!(line["text"], "");
        assert_eq!(line["turns"], 0);
        let error = line["error"].as_str().expect("an error string");
        assert!(error.contains(message), "{error}");
    }
    assert_eq!(out[2]["stop_reason"], "end_turn");
    let requests = fake.requests();
    assert_eq!(requests.len(), 3, "one request per line: no retries");
    assert_claude_messages(&requests[2].body, &json!([user("c")]));
}

#[test]
fn openai_errors_carry_the_apis_message_too() {
    let config = everything("everything");
    let fake = FakeModel::start(vec![
        Reply::openai_error(400, "invalid_request_error", "Invalid 'messages[1]'"),
        Reply::ok(openai_completion(
            json!({"role": "assistant", "content": "fine"}),
            "stop",
            3,
            4,
        )),
    ]);
    let run = host(
        &config,
        &["--provider", "openai", "--json"],
        &openai_env(&fake),
        "a\nb\n",
    );
    let out = lines(&run, 2);
    assert_eq!(out[0]["stop_reason"], "error");
    assert!(
        out[0]["error"]
            .as_str()
            .unwrap()
            .contains("Invalid 'messages[1]'")
    );
    assert_eq!(
        out[1],
        json!({"text": "fine", "stop_reason": "stop", "turns": 1,
            "usage": {"input_tokens": 3, "output_tokens": 4}, "tool_calls": []})
    );
    assert_eq!(fake.requests()[1].body["messages"], json!([user("b")]));
}

#[test]
fn an_unreachable_api_ends_each_line_with_error() {
    let config = everything("everything");
    let env = vec![
        ("ANTHROPIC_BASE_URL", closed_port_url()),
        ("ANTHROPIC_API_KEY", CLAUDE_KEY.to_owned()),
    ];
    let run = host(&config, &["--json"], &env, "a\nb\n");
    // No line answered: the program says so and fails.
    assert_eq!(run.status.code(), Some(1), "{}", run.stderr);
    assert!(
        run.stderr
            .ends_with("mcp-host: no line was answered (2 failed or timed out)\n"),
        "{}",
        run.stderr
    );
    let out = run.json_lines();
    assert_eq!(out.len(), 2, "{}", run.stdout);
    for line in &out {
        assert_eq!(line["stop_reason"], "error");
        assert_eq!(line["text"], "");
        let error = line["error"].as_str().expect("an error string");
        // Retried as the SDKs retry a connection error, and named.
        assert!(
            error.starts_with("the Anthropic API could not be reached: ")
                && error.ends_with(" (3 attempts)"),
            "{error}"
        );
    }
}

#[test]
fn model_api_408_409_and_5xx_are_retried_as_the_sdks_retry_them() {
    let config = everything("everything");
    let quick = |reply: Reply| reply.header("retry-after-ms", "10");
    let fake = FakeModel::start(vec![
        quick(Reply::claude_error(408, "timeout_error", "Request timeout")),
        quick(Reply::claude_error(
            500,
            "api_error",
            "Internal server error",
        )),
        fine(1),
        // No retry-after: the backoff, 0.5 s less up to a quarter.
        Reply::claude_error(409, "conflict_error", "lock timeout"),
        quick(Reply::raw(502, "<html>bad gateway</html>")),
        fine(2),
    ]);
    let run = host(&config, &["--json"], &claude_env(&fake), "a\nb\n");
    let out = lines(&run, 2);
    for (line, tokens) in out.iter().zip([1, 2]) {
        assert_eq!(line["stop_reason"], "end_turn", "{line}");
        assert_eq!(line["turns"], 1, "a retried request is one response");
        assert_eq!(line["usage"]["input_tokens"], tokens);
    }
    let requests = fake.requests();
    assert_eq!(requests.len(), 6);
    assert!(
        requests
            .iter()
            .all(|r| r.raw_body == requests[0].raw_body || r.raw_body == requests[3].raw_body)
    );
    let backoff = requests[4].received - requests[3].received;
    eprintln!("409 without retry-after: waited {backoff:?}");
    assert!(backoff >= Duration::from_millis(350), "{backoff:?}");
    assert!(backoff < Duration::from_millis(1500), "{backoff:?}");
    let quick_wait = requests[1].received - requests[0].received;
    assert!(quick_wait < Duration::from_millis(300), "{quick_wait:?}");
}

#[test]
fn x_should_retry_decides_and_retry_after_ms_is_honoured() {
    let config = everything("everything");
    let fake = FakeModel::start(vec![
        Reply::claude_error(503, "api_error", "unavailable, do not retry")
            .header("x-should-retry", "false"),
        Reply::claude_error(400, "invalid_request_error", "try me again")
            .header("x-should-retry", "true")
            .header("retry-after-ms", "10"),
        // retry-after-ms wins over retry-after.
        Reply::claude_error(429, "rate_limit_error", "slow down")
            .header("retry-after-ms", "1200")
            .header("retry-after", "30"),
        fine(3),
    ]);
    let run = host(&config, &["--json"], &claude_env(&fake), "a\nb\n");
    let out = lines(&run, 2);
    assert_eq!(out[0]["stop_reason"], "error");
    assert_eq!(
        out[0]["error"],
        "the Anthropic API refused the request (HTTP 503): unavailable, do not retry"
    );
    assert_eq!(out[1]["stop_reason"], "end_turn", "{}", out[1]);
    let requests = fake.requests();
    assert_eq!(requests.len(), 4, "the 503 once, the 400 retried");
    let waited = requests[3].received - requests[2].received;
    eprintln!("retry-after-ms: 1200 → waited {waited:?}");
    assert!(waited >= Duration::from_millis(1190), "{waited:?}");
    assert!(waited < Duration::from_millis(2500), "{waited:?}");
}

/// `{"content":[],"stop_reason":"end_turn","padding":[{"a":1},…]}` of
/// about `bytes` bytes: about 90 bytes of memory per byte once parsed.
fn tiny_objects(bytes: usize) -> Vec<u8> {
    let mut body = br#"{"content":[],"stop_reason":"end_turn","padding":["#.to_vec();
    while body.len() < bytes {
        body.extend_from_slice(br#"{"a":1},"#);
    }
    body.extend_from_slice(br#"{"a":1}]}"#);
    body
}

/// A complete Anthropic response of one text block, `len` bytes long.
fn claude_text_of_len(len: usize) -> Vec<u8> {
    let empty = serde_json::to_vec(&claude_message(json!([text_block("")]), "end_turn", 1, 1));
    let pad = len - empty.unwrap().len();
    let body = serde_json::to_vec(&claude_message(
        json!([text_block(&"x".repeat(pad))]),
        "end_turn",
        1,
        1,
    ))
    .unwrap();
    assert_eq!(body.len(), len);
    body
}

#[test]
fn a_response_larger_than_max_tokens_allows_is_refused_unparsed_and_the_next_line_is_answered() {
    let config = everything("everything");
    // --max-tokens 1024: the bound is its floor, 1 MiB.
    let bound = 1 << 20;
    let fake = FakeModel::start(vec![
        Reply::raw(200, tiny_objects(60 << 20)),
        Reply::raw(200, claude_text_of_len(bound + 1)).chunked(),
        Reply::raw(200, tiny_objects(900_000)).chunked(),
        Reply::raw(200, claude_text_of_len(bound)).chunked(),
        fine(4),
    ]);
    let run = host(&config, &["--json"], &claude_env(&fake), "a\nb\nc\nd\ne\n");
    let out = lines(&run, 5);
    let too_large = "the Anthropic API's response was larger than 1048576 bytes, the bound for this request's max_tokens; it was not read";
    assert_eq!(out[0]["error"], too_large, "declared by content-length");
    assert_eq!(out[1]["error"], too_large, "one byte over, chunked");
    let error = out[2]["error"].as_str().unwrap();
    assert!(
        error.starts_with("the Anthropic API's response was refused unparsed (9000")
            && error.contains("would take more than 16 MiB of memory once parsed"),
        "{error}"
    );
    for line in &out[..3] {
        assert_eq!(line["stop_reason"], "error");
    }
    assert_eq!(
        out[3]["stop_reason"], "end_turn",
        "exactly the bound is read"
    );
    let text = out[3]["text"].as_str().unwrap().len();
    assert!(text > bound - 400 && text < bound, "{text}");
    assert_eq!(out[4]["stop_reason"], "end_turn");
    assert_eq!(
        fake.requests().len(),
        5,
        "a too-large response is not retried"
    );
    eprintln!(
        "a 60 MiB response of tiny objects: host peak RSS {} KiB",
        run.peak_rss_kib
    );
    assert!(run.peak_rss_kib > 0, "/proc gave no VmHWM");
    assert!(run.peak_rss_kib < 64 << 10, "{} KiB", run.peak_rss_kib);
}

#[test]
fn the_history_a_model_api_fills_with_its_largest_responses_is_trimmed_to_32_mb() {
    let config = everything("everything");
    // --max-tokens 262144: a response may take 16 MiB; each line's answer
    // is 12 MB of text.
    let fake = FakeModel::start(
        (0..4)
            .map(|_| Reply::raw(200, claude_text_of_len(12_000_000)))
            .collect(),
    );
    let run = host(
        &config,
        &["--json", "--max-tokens", "262144"],
        &claude_env(&fake),
        "a\nb\nc\nd\n",
    );
    let out = lines(&run, 4);
    for line in &out {
        assert_eq!(line["stop_reason"], "end_turn", "{line}");
    }
    let sizes: Vec<usize> = fake.requests().iter().map(|r| r.raw_body.len()).collect();
    eprintln!(
        "request bodies {sizes:?}; host peak RSS {} KiB",
        run.peak_rss_kib
    );
    // Three lines' answers (36 MB) would pass 32 MB: the oldest turn is
    // dropped before the fourth request.
    assert!(sizes[2] > 24_000_000, "{sizes:?}");
    assert!(sizes[3] < 32_000_000, "{sizes:?}");
    assert!(sizes[3] > 24_000_000, "{sizes:?}");
}

#[test]
fn a_2xx_that_is_not_the_apis_response_ends_the_line_with_an_error_naming_the_api() {
    let config = everything("everything");
    let fake = FakeModel::start(vec![
        Reply::raw(200, "{\"id\": \"msg_1\", \"content\": [{\"type\""),
        Reply::ok(json!({"type": "message"})),
        fine(4),
    ]);
    let run = host(&config, &["--json"], &claude_env(&fake), "a\nb\nc\n");
    let out = lines(&run, 3);
    let error = out[0]["error"].as_str().unwrap();
    assert!(
        error.starts_with("the Anthropic API's response could not be read: not JSON ("),
        "{error}"
    );
    assert_eq!(
        out[1]["error"],
        "the Anthropic API's response could not be read: no `content` array"
    );
    assert_eq!(out[2]["stop_reason"], "end_turn");
    assert_eq!(
        fake.requests().len(),
        3,
        "an unreadable response is not retried"
    );
}

// ---------------------------------------------------------------------------
// Output and other stop reasons.

#[test]
fn without_json_stdout_is_the_text_and_a_blank_line_per_input() {
    let config = everything("everything");
    let fake = FakeModel::start(vec![
        Reply::ok(claude_message(
            json!([text_block("Hel"), text_block("lo!")]),
            "end_turn",
            1,
            1,
        )),
        Reply::ok(claude_message(
            json!([
                text_block("Checking."),
                tool_use("toolu_1", "echo", json!({"text": "x"}))
            ]),
            "tool_use",
            1,
            1,
        )),
        Reply::ok(claude_message(
            json!([text_block("第二行\n两行")]),
            "end_turn",
            1,
            1,
        )),
    ]);
    let run = host(
        &config,
        &["--approve", "all"],
        &claude_env(&fake),
        "one\n\ntwo\n",
    );
    assert!(run.status.success(), "{}", run.stderr);
    // Only the last response's text for the line; the tool round's
    // "Checking." is not printed.
    assert_eq!(run.stdout, "Hello!\n\n第二行\n两行\n\n");
}

#[test]
fn claude_max_tokens_stop_sequence_and_refusal_end_the_line_with_that_reason() {
    let config = everything("everything");
    let mut stopped = claude_message(json!([text_block("The end")]), "stop_sequence", 1, 1);
    stopped["stop_sequence"] = json!("END");
    let fake = FakeModel::start(vec![
        Reply::ok(claude_message(
            json!([text_block("A long ans")]),
            "max_tokens",
            1,
            1024,
        )),
        Reply::ok(stopped),
        Reply::ok(claude_message(json!([]), "refusal", 1, 0)),
    ]);
    let run = host(&config, &["--json"], &claude_env(&fake), "a\nb\nc\n");
    let out = lines(&run, 3);
    assert_eq!(
        out[0],
        json!({"text": "A long ans", "stop_reason": "max_tokens", "turns": 1,
            "usage": {"input_tokens": 1, "output_tokens": 1024}, "tool_calls": []})
    );
    assert_eq!(out[1]["stop_reason"], "stop_sequence");
    assert_eq!(out[1]["text"], "The end");
    assert_eq!(out[2]["stop_reason"], "refusal");
    assert_eq!(out[2]["text"], "");
    assert_eq!(fake.requests().len(), 3, "no continuation requests");
}

#[test]
fn openai_length_and_content_filter_end_the_line_with_that_reason() {
    let config = everything("everything");
    let fake = FakeModel::start(vec![
        Reply::ok(openai_completion(
            json!({"role": "assistant", "content": "A long ans"}),
            "length",
            2,
            78,
        )),
        Reply::ok(openai_completion(
            json!({"role": "assistant", "content": null}),
            "content_filter",
            2,
            0,
        )),
    ]);
    let run = host(
        &config,
        &["--provider", "openai", "--json"],
        &openai_env(&fake),
        "a\nb\n",
    );
    let out = lines(&run, 2);
    assert_eq!(
        out[0],
        json!({"text": "A long ans", "stop_reason": "length", "turns": 1,
            "usage": {"input_tokens": 2, "output_tokens": 78}, "tool_calls": []})
    );
    assert_eq!(out[1]["stop_reason"], "content_filter");
    assert_eq!(out[1]["text"], "");
    assert_eq!(fake.requests().len(), 2);
}

#[test]
fn tool_calls_name_the_mcp_tool_and_its_config_server() {
    // Two servers with the same tools: each is offered prefixed, and the
    // line's tool_calls give the MCP name and the config name.
    let config = McpConfig::new(&json!({"mcpServers": {
        "alpha": everything_entry(&[]),
        "beta": everything_entry(&[])
    }}));
    let oracle = Oracle::new(&config);
    let fake = FakeModel::start(vec![
        Reply::ok(claude_message(
            json!([tool_use("toolu_1", "beta__echo", json!({"text": "b"}))]),
            "tool_use",
            1,
            1,
        )),
        Reply::ok(claude_message(json!([text_block("ok")]), "end_turn", 1, 1)),
    ]);
    let run = host(
        &config,
        &["--json", "--approve", "all"],
        &claude_env(&fake),
        "x\n",
    );
    let out = lines(&run, 1);
    assert_eq!(
        out[0]["tool_calls"],
        json!([{"name": "echo", "server": "beta", "is_error": false}])
    );
    let requests = fake.requests();
    assert_eq!(unmarked(&requests[0].body["tools"]), oracle.claude_tools());
    assert_eq!(
        unmarked(&requests[1].body["messages"][2]["content"][0]),
        json!({"type": "tool_result", "tool_use_id": "toolu_1", "content": "b"})
    );
}

// ---------------------------------------------------------------------------
// More of the loop's edges.

#[test]
fn a_line_that_overflows_after_a_tool_round_with_nothing_older_to_trim_keeps_the_round() {
    let config = everything("everything");
    let oracle = Oracle::new(&config);
    let calls = json!([tool_use("toolu_1", "echo", json!({"text": "x"}))]);
    let fake = FakeModel::start(vec![
        Reply::ok(claude_message(calls.clone(), "tool_use", 7, 3)),
        Reply::claude_error(
            400,
            "invalid_request_error",
            "prompt is too long: 7612 tokens > 7500 maximum",
        ),
        fine(1),
    ]);
    let run = host(
        &config,
        &["--json", "--approve", "all"],
        &claude_env(&fake),
        "a\nb\n",
    );
    let out = lines(&run, 2);
    // The responses before the failure are reported; the text is empty;
    // the call that ran stays in the history.
    assert_eq!(
        out[0],
        json!({
            "text": "",
            "stop_reason": "error",
            "turns": 1,
            "usage": {"input_tokens": 7, "output_tokens": 3},
            "tool_calls": [{"name": "echo", "server": "everything", "is_error": false}],
            "error": "the Anthropic API refused the request: the conversation does not fit the model's context window (HTTP 400): prompt is too long: 7612 tokens > 7500 maximum",
            "tool_calls_kept": 1
        })
    );
    assert!(
        run.stderr.contains(
            "mcp-host: the model request failed: the Anthropic API refused the request: the conversation does not fit the model's context window (HTTP 400): prompt is too long: 7612 tokens > 7500 maximum; 1 tool call ran before the failure and is kept in the history\n"
        ),
        "{}",
        run.stderr
    );
    let requests = fake.requests();
    // Nothing older than the line to trim: no second try.
    assert_eq!(requests.len(), 3);
    assert_eq!(requests[1].body["messages"].as_array().unwrap().len(), 3);
    // "a", its tool_use and its tool_result stay; "b" follows the result
    // in the same user message.
    let result = oracle.claude_result("toolu_1", "echo", json!({"text": "x"}));
    assert_claude_messages(
        &requests[2].body,
        &json!([
            user("a"),
            assistant(&calls),
            {"role": "user", "content": [result, {"type": "text", "text": "b"}]}
        ]),
    );
    assert_claude_history_valid(&requests[2].body["messages"]);
}

#[test]
fn a_tool_use_cut_off_by_max_tokens_is_not_run_but_answered() {
    let config = everything("everything");
    let cut = json!([
        text_block("Let me"),
        tool_use("toolu_cut", "toggle_bonus", json!({}))
    ]);
    let fake = FakeModel::start(vec![
        Reply::ok(claude_message(cut.clone(), "max_tokens", 5, 16)),
        fine(1),
        // A server whose `bonus` was toggled would answer "listed" here.
        Reply::ok(claude_message(
            json!([tool_use("toolu_t", "toggle_bonus", json!({}))]),
            "tool_use",
            1,
            1,
        )),
        fine(1),
    ]);
    let run = host(
        &config,
        &["--json", "--approve", "all"],
        &claude_env(&fake),
        "a\nb\nc\n",
    );
    let out = lines(&run, 3);
    assert_eq!(out[0]["stop_reason"], "max_tokens");
    assert_eq!(out[0]["text"], "Let me");
    assert_eq!(out[0]["turns"], 1);
    assert_eq!(out[0]["tool_calls"][0]["is_error"], true);
    let requests = fake.requests();
    assert_eq!(requests.len(), 4);
    let history = &requests[1].body["messages"];
    assert_claude_history_valid(history);
    assert_eq!(history[1], assistant(&cut));
    assert_eq!(history[2]["content"][0]["is_error"], true);
    // The cut-off call never reached the server.
    assert_eq!(
        requests[3].body["messages"]
            .as_array()
            .unwrap()
            .last()
            .unwrap()["content"][0]["content"],
        "bonus is now hidden"
    );
}

#[test]
fn each_answer_is_written_before_the_next_line_is_read() {
    use std::io::{BufRead, BufReader, Write};
    let config = everything("everything");
    let fake = FakeModel::start(vec![fine(1), fine(2)]);
    let mut command = std::process::Command::new("setsid");
    command
        .arg("-w")
        .arg(common::fake_model::host_binary())
        .args(["--config", config.arg(), "--json"]);
    for (name, _) in std::env::vars() {
        if name.starts_with("ANTHROPIC_") || name.starts_with("OPENAI_") {
            command.env_remove(name);
        }
    }
    let mut child = command
        .env("ANTHROPIC_BASE_URL", &fake.base_url)
        .env("ANTHROPIC_API_KEY", CLAUDE_KEY)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    writeln!(stdin, "first").unwrap();
    stdin.flush().unwrap();
    // stdin stays open: the answer must come anyway.
    let first = rx.recv_timeout(Duration::from_secs(30));
    writeln!(stdin, "second").unwrap();
    drop(stdin);
    let second = rx.recv_timeout(Duration::from_secs(30));
    let status = child.wait().unwrap();
    let first: Value =
        serde_json::from_str(&first.expect("no answer while stdin was open")).unwrap();
    assert_eq!(first["usage"]["input_tokens"], 1);
    let second: Value = serde_json::from_str(&second.unwrap()).unwrap();
    assert_eq!(second["usage"]["input_tokens"], 2);
    assert!(status.success());
}

#[test]
fn empty_stdin_exits_0_with_no_request_and_no_output() {
    let config = everything("everything");
    let fake = FakeModel::start(vec![]);
    let run = host(&config, &["--json"], &claude_env(&fake), "\n  \n");
    assert!(run.status.success(), "{}", run.stderr);
    assert_eq!(run.stdout, "");
    assert!(fake.requests().is_empty());
}

#[test]
fn openai_retries_503_with_backoff_and_gives_up_after_three_429s() {
    let config = everything("everything");
    let rate_limited = || {
        Reply::openai_error(429, "rate_limit_exceeded", "Rate limit reached")
            .header("retry-after", "0")
    };
    let done = |text: &str| {
        Reply::ok(openai_completion(
            json!({"role": "assistant", "content": text}),
            "stop",
            1,
            1,
        ))
    };
    let fake = FakeModel::start(vec![
        Reply::openai_error(503, "server_error", "The server is overloaded"),
        done("one"),
        rate_limited(),
        rate_limited(),
        rate_limited(),
        done("three"),
    ]);
    let run = host(
        &config,
        &["--provider", "openai", "--json"],
        &openai_env(&fake),
        "1\n2\n3\n",
    );
    let out = lines(&run, 3);
    assert_eq!(out[0]["text"], "one");
    assert_eq!(out[0]["turns"], 1);
    assert_eq!(out[1]["stop_reason"], "error");
    assert!(
        out[1]["error"]
            .as_str()
            .unwrap()
            .contains("Rate limit reached")
    );
    assert_eq!(out[2]["text"], "three");
    let requests = fake.requests();
    assert_eq!(requests.len(), 6);
    assert_openai_request(&fake);
    let backoff = requests[1].received - requests[0].received;
    eprintln!("503 without retry-after: waited {backoff:?}");
    assert!(backoff >= Duration::from_millis(350), "{backoff:?}");
    assert!(backoff < Duration::from_millis(1500), "{backoff:?}");
    assert_eq!(
        requests[5].body["messages"],
        json!([
            user("1"),
            {"role": "assistant", "content": "one"},
            user("3")
        ])
    );
}

#[test]
fn openai_read_only_declines_and_max_turns_keeps_the_history_valid() {
    let config = everything("everything");
    let ask = |id: &str| {
        json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": format!("{id}_w"), "type": "function", "function": {"name": "toggle_bonus", "arguments": "{}"}},
            {"id": format!("{id}_r"), "type": "function", "function": {"name": "echo", "arguments": "{\"text\":\"r\"}"}}
        ]})
    };
    let fake = FakeModel::start(vec![
        Reply::ok(openai_completion(ask("c1"), "tool_calls", 1, 1)),
        Reply::ok(openai_completion(
            json!({"role": "assistant", "content": "done"}),
            "stop",
            1,
            1,
        )),
    ]);
    let run = host(
        &config,
        &[
            "--provider",
            "openai",
            "--json",
            "--approve",
            "read-only",
            "--max-turns",
            "1",
        ],
        &openai_env(&fake),
        "a\nb\n",
    );
    let out = lines(&run, 2);
    assert_eq!(out[0]["stop_reason"], "max_turns");
    assert_eq!(out[0]["turns"], 1);
    assert_eq!(
        out[0]["tool_calls"],
        json!([
            {"name": "toggle_bonus", "server": "everything", "is_error": true},
            {"name": "echo", "server": "everything", "is_error": false}
        ])
    );
    let requests = fake.requests();
    assert_eq!(requests.len(), 2);
    let messages = requests[1].body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 5, "{messages:#?}");
    assert_eq!(messages[1], ask("c1"));
    assert_eq!(messages[2]["tool_call_id"], "c1_w");
    let declined = messages[2]["content"].as_str().unwrap().to_lowercase();
    assert!(declined.contains("declined"), "{declined}");
    assert_eq!(
        messages[3],
        json!({"role": "tool", "tool_call_id": "c1_r", "content": "r"})
    );
    assert_eq!(messages[4], user("b"));
}

/// A minimal stdio MCP server (legacy handshake) with one read-only tool,
/// `lookup`, whose every call is answered with JSON-RPC error -32602.
const RPC_ERROR_SERVER: &str = r#"
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    method, id = message.get("method"), message["id"]
    if method == "initialize":
        result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "rpc", "version": "1.0.0"}}
        reply = {"jsonrpc": "2.0", "id": id, "result": result}
    elif method == "tools/list":
        tool = {"name": "lookup", "description": "Look a city up",
                "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
                "annotations": {"readOnlyHint": True}}
        reply = {"jsonrpc": "2.0", "id": id, "result": {"tools": [tool]}}
    elif method == "tools/call":
        reply = {"jsonrpc": "2.0", "id": id, "error": {"code": -32602, "message": "Invalid params: no city called Atlantis"}}
    else:
        reply = {"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "Method not found"}}
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
"#;

#[test]
fn a_json_rpc_error_from_the_server_is_an_is_error_result_for_both_apis() {
    let dir = common::fake_model::TempDir::new();
    let script = dir.write("rpc_error_server.py", RPC_ERROR_SERVER);
    let config = McpConfig::new(&json!({"mcpServers": {
        "rpc": {"command": "python3", "args": [script.to_str().unwrap()]}
    }}));

    let fake = FakeModel::start(vec![
        Reply::ok(claude_message(
            json!([tool_use("toolu_1", "lookup", json!({"city": "Atlantis"}))]),
            "tool_use",
            1,
            1,
        )),
        fine(1),
    ]);
    let run = host(&config, &["--json"], &claude_env(&fake), "where\n");
    let out = lines(&run, 1);
    assert_eq!(
        out[0]["tool_calls"],
        json!([{"name": "lookup", "server": "rpc", "is_error": true}])
    );
    let result = &fake.requests()[1].body["messages"][2]["content"][0];
    assert_eq!(result["tool_use_id"], "toolu_1");
    assert_eq!(result["is_error"], true);
    let text = result["content"].to_string();
    assert!(text.contains("no city called Atlantis"), "{result}");
    assert!(text.contains("-32602"), "{result}");

    let fake = FakeModel::start(vec![
        Reply::ok(openai_completion(
            json!({"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": "{\"city\":\"Atlantis\"}"}}
            ]}),
            "tool_calls",
            1,
            1,
        )),
        Reply::ok(openai_completion(
            json!({"role": "assistant", "content": "no"}),
            "stop",
            1,
            1,
        )),
    ]);
    let run = host(
        &config,
        &["--provider", "openai", "--json"],
        &openai_env(&fake),
        "where\n",
    );
    let out = lines(&run, 1);
    assert_eq!(out[0]["tool_calls"][0]["is_error"], true);
    let tool = &fake.requests()[1].body["messages"][2];
    assert_eq!(tool["tool_call_id"], "call_1");
    let content = tool["content"].as_str().unwrap();
    assert!(content.contains("no city called Atlantis"), "{content}");
}

#[test]
fn approve_ask_never_reads_approvals_from_stdin() {
    // With no terminal, a "y" on stdin is the user's next line, not a yes.
    let config = everything("everything");
    let fake = FakeModel::start(vec![
        Reply::ok(claude_message(
            json!([tool_use("toolu_w", "toggle_bonus", json!({}))]),
            "tool_use",
            1,
            1,
        )),
        fine(1),
        fine(1),
    ]);
    let run = host(
        &config,
        &["--json", "--approve", "ask"],
        &claude_env(&fake),
        "go\ny\n",
    );
    let out = lines(&run, 2);
    assert_eq!(out[0]["tool_calls"][0]["is_error"], true);
    let requests = fake.requests();
    assert_eq!(requests.len(), 3);
    assert_eq!(
        unmarked(&requests[1].body["messages"][2]["content"])[0],
        unasked("toolu_w")
    );
    let last = requests[2].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(normalized(&json!([last])), normalized(&json!([user("y")])));
}

#[test]
fn without_json_an_error_line_is_a_blank_text_and_the_error_goes_to_stderr() {
    let config = everything("everything");
    let fake = FakeModel::start(vec![
        Reply::claude_error(400, "invalid_request_error", "max_tokens: too large"),
        fine(1),
    ]);
    let run = host(&config, &[], &claude_env(&fake), "a\nb\n");
    assert!(run.status.success(), "{}", run.stderr);
    assert_eq!(run.stdout, "\n\nfine\n\n");
    assert!(
        run.stderr.contains("max_tokens: too large"),
        "{}",
        run.stderr
    );
}

#[test]
fn base_urls_with_a_path_or_a_trailing_slash_get_the_apis_paths() {
    let config = everything("everything");
    let fake = FakeModel::start(vec![fine(1)]);
    let env = vec![
        ("ANTHROPIC_BASE_URL", format!("{}/", fake.base_url)),
        ("ANTHROPIC_API_KEY", CLAUDE_KEY.to_owned()),
    ];
    lines(&host(&config, &["--json"], &env, "a\n"), 1);
    assert_eq!(fake.requests()[0].path, "/v1/messages");

    // OpenAI's default base ends in /v1: the path goes after it.
    let fake = FakeModel::start(vec![Reply::ok(openai_completion(
        json!({"role": "assistant", "content": "ok"}),
        "stop",
        1,
        1,
    ))]);
    let env = vec![
        ("OPENAI_BASE_URL", format!("{}/v1/", fake.base_url)),
        ("OPENAI_API_KEY", OPENAI_KEY.to_owned()),
    ];
    lines(
        &host(&config, &["--provider", "openai", "--json"], &env, "a\n"),
        1,
    );
    assert_eq!(fake.requests()[0].path, "/v1/chat/completions");
}

#[test]
fn a_success_status_with_a_body_that_is_no_message_ends_the_line_with_error() {
    let config = everything("everything");
    let fake = FakeModel::start(vec![Reply::ok(json!({"unexpected": true})), fine(1)]);
    let run = host(&config, &["--json"], &claude_env(&fake), "a\nb\n");
    let out = lines(&run, 2);
    assert_eq!(out[0]["stop_reason"], "error");
    assert!(out[0]["error"].is_string());
    assert_eq!(out[1]["stop_reason"], "end_turn");
    assert_claude_messages(&fake.requests()[1].body, &json!([user("b")]));
}

#[test]
fn approve_ask_with_a_terminal_asks_there_in_order() {
    // The answers typed on the terminal are the only way in.
    let config = everything("everything");
    let fake = FakeModel::start(vec![
        Reply::ok(claude_message(
            json!([
                tool_use("toolu_w", "toggle_bonus", json!({})),
                tool_use("toolu_r", "echo", json!({"text": "r"}))
            ]),
            "tool_use",
            1,
            1,
        )),
        fine(1),
    ]);
    let common::terminal::OnTerminal {
        stdout,
        stderr,
        shown,
    } = common::terminal::on_terminal(
        &config,
        &["--json", "--approve", "ask", "--ask-read-only"],
        &fake,
        "go\n",
        b"y\nn\n",
    );
    let out: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| {
        panic!("{e}: stdout {stdout:?}\nstderr:\n{stderr}\nterminal:\n{shown}")
    });
    // The first question got "y", the second "n".
    assert_eq!(
        out["tool_calls"],
        json!([
            {"name": "toggle_bonus", "server": "everything", "is_error": false},
            {"name": "echo", "server": "everything", "is_error": true}
        ]),
        "terminal:\n{shown}"
    );
    let results = &fake.requests()[1].body["messages"][2]["content"];
    assert_eq!(results[0]["content"], "bonus is now hidden");
    assert_declined(&results[1], "toolu_r");
    let first = shown
        .find("toggle_bonus")
        .expect("asked about toggle_bonus");
    let second = shown.find("`echo`").expect("asked about echo");
    assert!(first < second, "{shown}");
    assert!(!stderr.contains("read-only"), "{stderr}");
}

#[test]
fn every_call_of_a_response_runs_at_once_even_past_eight() {
    // "every call of that response runs concurrently": twelve calls of
    // 1 s take about 1 s, not 2 (eight, then four).
    let config = everything("everything");
    let calls: Vec<Value> = (0..12)
        .map(|i| tool_use(&format!("toolu_{i:02}"), "slow", json!({"ms": 1000 + i})))
        .collect();
    let fake = FakeModel::start(vec![
        Reply::ok(claude_message(json!(calls), "tool_use", 1, 1)),
        fine(1),
    ]);
    let run = host(
        &config,
        &["--json", "--approve", "all"],
        &claude_env(&fake),
        "many\n",
    );
    let out = lines(&run, 1);
    assert_eq!(out[0]["tool_calls"].as_array().unwrap().len(), 12);
    let requests = fake.requests();
    let tool_phase = requests[1].received - requests[0].received;
    eprintln!("twelve calls of 1 s: tool phase {tool_phase:?}");
    assert!(tool_phase < Duration::from_millis(1900), "{tool_phase:?}");
    // In the order of the calls, each with its own duration.
    let results = requests[1].body["messages"][2]["content"]
        .as_array()
        .unwrap();
    for (i, result) in results.iter().enumerate() {
        assert_eq!(result["tool_use_id"], format!("toolu_{i:02}"));
        assert!(
            result["content"]
                .to_string()
                .contains(&format!("{}", 1000 + i)),
            "{result}"
        );
    }
}

/// A complete OpenAI completion whose text is `len` bytes of `x`.
fn openai_text_of_len(len: usize) -> Vec<u8> {
    serde_json::to_vec(&openai_completion(
        json!({"role": "assistant", "content": "x".repeat(len)}),
        "stop",
        1,
        1,
    ))
    .unwrap()
}

#[test]
fn the_openai_bound_follows_max_tokens_and_its_errors_name_the_openai_api() {
    let config = everything("everything");
    // --max-tokens 32768: 32,768 × 64 bytes, 2 MiB.
    let fake = FakeModel::start(vec![
        Reply::raw(200, openai_text_of_len(1_500_000)).chunked(),
        Reply::raw(200, openai_text_of_len(2_200_000)).chunked(),
        Reply::openai_error(400, "invalid_request_error", "Invalid 'messages'"),
    ]);
    let run = host(
        &config,
        &["--provider", "openai", "--max-tokens", "32768", "--json"],
        &openai_env(&fake),
        "a\nb\nc\n",
    );
    let out = lines(&run, 3);
    assert_eq!(out[0]["stop_reason"], "stop", "1.5 MB is under the bound");
    assert_eq!(out[0]["text"].as_str().unwrap().len(), 1_500_000);
    assert_eq!(
        out[1]["error"],
        "the OpenAI API's response was larger than 2097152 bytes, the bound for this request's max_tokens; it was not read"
    );
    assert_eq!(
        out[2]["error"],
        "the OpenAI API refused the request (HTTP 400): Invalid 'messages'"
    );
}

#[test]
fn a_model_api_that_does_not_answer_in_time_is_retried_then_named() {
    use mcpfn_host::provider::{ApiClient, Provider};
    let slow = || fine(1).after(Duration::from_millis(1500));
    let fake = FakeModel::start(vec![slow(), slow(), slow(), slow(), fine(2)]);
    let (runtime, provider) =
        claude_library(&fake, ApiClient::new().timeout(Duration::from_millis(200)));
    let messages = [user("hi")];
    let request = say_hi(&messages);
    let error = runtime.block_on(provider.send(request)).unwrap_err();
    assert_eq!(
        error.to_string(),
        "the Anthropic API did not answer within 0.2 s (3 attempts)"
    );
    assert_eq!(fake.requests().len(), 3);
    // Timed out once more, then answered: the retry gets the response.
    let reply = runtime.block_on(provider.send(request)).unwrap();
    assert_eq!(reply.text, "fine");
    assert_eq!(fake.requests().len(), 5);
}

/// The library's Claude provider on `fake` with `client`, and a runtime to
/// drive it.
fn claude_library(
    fake: &FakeModel,
    client: mcpfn_host::provider::ApiClient,
) -> (tokio::runtime::Runtime, mcpfn_host::provider::Anthropic) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let provider = mcpfn_host::provider::Anthropic::new(&fake.base_url, Some(CLAUDE_KEY))
        .unwrap()
        .with_client(client);
    (runtime, provider)
}

/// A request of `messages` with no system prompt and no tools.
fn say_hi(messages: &[Value]) -> mcpfn_host::provider::Request<'_> {
    mcpfn_host::provider::Request {
        model: "claude-sonnet-4-6",
        max_tokens: 1024,
        system: None,
        messages,
        tools: &[],
    }
}

/// A reply that never comes: the request is read, then nothing (an hour).
fn never(reply: Reply) -> Reply {
    reply.after(Duration::from_secs(3600))
}

/// The time from the first request of one line to the first of the next:
/// how long the host held the line (from a little after its deadline's
/// clock started: the fake records a request once it has read it).
fn held(fake: &FakeModel, line: usize, next: usize) -> Duration {
    let requests = fake.requests();
    requests[next].received - requests[line].received
}

#[test]
fn help_names_api_timeout_and_its_default() {
    let run = run_host(&["--help"], &[], "");
    assert!(run.status.success(), "{}", run.stderr);
    assert!(
        run.stdout.contains("[--api-timeout SECONDS]"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("default: the time to write --max-tokens at 20 tokens/s, at least 60 s"),
        "{}",
        run.stdout
    );
}

#[test]
fn an_api_that_accepts_and_never_answers_ends_the_line_at_the_api_timeout() {
    let config = everything("everything");
    let fake = FakeModel::start(vec![never(fine(1)), fine(2)]);
    let run = host(
        &config,
        &["--json", "--api-timeout", "2"],
        &claude_env(&fake),
        "a\nb\n",
    );
    let out = lines(&run, 2);
    assert_eq!(out[0]["stop_reason"], "error");
    assert_eq!(
        out[0]["error"],
        "the Anthropic API did not answer within 2 s"
    );
    assert_eq!(out[1]["text"], "fine");
    assert_eq!(fake.requests().len(), 2, "no retry after the deadline");
    let held = held(&fake, 0, 1);
    eprintln!("a silent API held the line {held:?}");
    assert!(held >= Duration::from_millis(1500), "{held:?}");
    assert!(held < Duration::from_secs(5), "{held:?}");
}

#[test]
fn an_api_that_sends_headers_then_trickles_the_body_ends_the_line_at_the_api_timeout() {
    let config = everything("everything");
    // A whole completion, one byte a second: the stall bound never fires,
    // the deadline does.
    let trickled = Reply::ok(openai_completion(
        json!({"role": "assistant", "content": "slow"}),
        "stop",
        1,
        1,
    ))
    .trickled(Duration::from_secs(1));
    let fine = Reply::ok(openai_completion(
        json!({"role": "assistant", "content": "fine"}),
        "stop",
        1,
        1,
    ));
    let fake = FakeModel::start(vec![trickled, fine]);
    let run = host(
        &config,
        &["--provider", "openai", "--json", "--api-timeout=2"],
        &openai_env(&fake),
        "a\nb\n",
    );
    let out = lines(&run, 2);
    assert_eq!(out[0]["stop_reason"], "error");
    assert_eq!(out[0]["error"], "the OpenAI API did not answer within 2 s");
    assert_eq!(out[1]["text"], "fine");
    let held = held(&fake, 0, 1);
    eprintln!("a trickling API held the line {held:?}");
    assert!(held >= Duration::from_millis(1500), "{held:?}");
    assert!(held < Duration::from_secs(5), "{held:?}");
}

#[test]
fn a_503_then_a_stall_is_retried_once_within_the_api_timeout_then_named() {
    let config = everything("everything");
    let overloaded = || Reply::claude_error(503, "overloaded_error", "Overloaded");
    let fake = FakeModel::start(vec![
        overloaded(),
        never(fine(1)),
        // A retry-after that would pass the deadline: not waited for.
        overloaded().header("retry-after", "5"),
        fine(2),
    ]);
    let run = host(
        &config,
        &["--json", "--api-timeout", "2"],
        &claude_env(&fake),
        "a\nb\nc\n",
    );
    let out = lines(&run, 3);
    assert_eq!(
        out[0]["error"],
        "the Anthropic API did not answer within 2 s (2 attempts)"
    );
    assert_eq!(
        out[1]["error"],
        "the Anthropic API refused the request (HTTP 503): Overloaded"
    );
    assert_eq!(out[2]["text"], "fine");
    assert_eq!(fake.requests().len(), 4);
    let first = held(&fake, 0, 2);
    let second = held(&fake, 2, 3);
    eprintln!("503 then a stall held the line {first:?}; a 503 asking for 5 s held it {second:?}");
    assert!(first >= Duration::from_millis(1500), "{first:?}");
    assert!(first < Duration::from_secs(5), "{first:?}");
    assert!(second < Duration::from_secs(2), "{second:?}");
}

#[test]
fn a_body_that_stops_after_its_headers_ends_the_attempt_at_the_stall_bound_and_is_retried() {
    use mcpfn_host::provider::{ApiClient, Provider};
    let stalled = || fine(1).trickled(Duration::from_secs(3600));
    let fake = FakeModel::start(vec![stalled(), stalled(), stalled(), stalled(), fine(2)]);
    let (runtime, provider) = claude_library(
        &fake,
        ApiClient::new()
            .deadline(Duration::from_secs(20))
            .stall_timeout(Duration::from_millis(300)),
    );
    let messages = [user("hi")];
    let request = say_hi(&messages);
    let started = std::time::Instant::now();
    let error = runtime
        .block_on(async {
            tokio::time::timeout(Duration::from_secs(15), provider.send(request)).await
        })
        .expect("the stall bound ends each attempt long before 15 s")
        .unwrap_err();
    let took = started.elapsed();
    assert_eq!(
        error.to_string(),
        "the Anthropic API stopped sending its response: no bytes for 0.3 s (3 attempts)"
    );
    assert_eq!(fake.requests().len(), 3);
    // 3 × 0.3 s and two backoffs (0.375-0.5 s, 0.75-1 s), far inside 20 s.
    assert!(took < Duration::from_secs(5), "{took:?}");
    // Stalled once more, then answered: the retry gets the response.
    let reply = runtime.block_on(provider.send(request)).unwrap();
    assert_eq!(reply.text, "fine");
    assert_eq!(fake.requests().len(), 5);
}

// ---------------------------------------------------------------------------
// What of the tools' results goes to the model.

/// A legacy stdio server whose tool `big` answers `result {n}: ` and then
/// `bytes` bytes of `x`, and whose tool `picture` answers a PNG of `bytes`
/// bytes of base64.
const BIG_SERVER: &str = r#"
import json, sys
size = int(sys.argv[1])
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    id_, method = message["id"], message.get("method")
    if method == "initialize":
        result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "big", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": [{"name": "big", "description": "A large result.",
                             "inputSchema": {"type": "object",
                                             "properties": {"n": {"type": "integer"}}}},
                            {"name": "picture", "description": "A large image.",
                             "inputSchema": {"type": "object"}}]}
    elif method == "tools/call" and message["params"]["name"] == "picture":
        data = "iVBORw0KGgo" + "A" * (size - 11)
        result = {"content": [{"type": "image", "data": data, "mimeType": "image/png"}]}
    elif method == "tools/call":
        n = message["params"].get("arguments", {}).get("n", 0)
        result = {"content": [{"type": "text", "text": f"result {n}: " + "x" * size}]}
    else:
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": id_, "error": {
            "code": -32601, "message": "Method not found"}}) + "\n")
        sys.stdout.flush()
        continue
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": id_, "result": result}) + "\n")
    sys.stdout.flush()
"#;

#[test]
fn sixteen_large_results_reach_the_model_cut_with_a_note_and_the_library_gets_them_whole() {
    let size: usize = 15 << 20;
    let dir = common::fake_model::TempDir::new();
    let script = dir.write("big.py", BIG_SERVER);
    let config = McpConfig::new(&json!({"mcpServers": {"big": {
        "command": "python3",
        "args": [script.to_str().unwrap(), size.to_string()],
    }}}));
    let uses: Vec<Value> = (0..16)
        .map(|n| tool_use(&format!("toolu_{n:02}"), "big", json!({"n": n})))
        .collect();
    let fake = FakeModel::start(vec![
        Reply::ok(claude_message(Value::Array(uses), "tool_use", 10, 10)),
        fine(20),
        fine(30),
    ]);
    let run = host(
        &config,
        &["--json", "--approve", "all"],
        &claude_env(&fake),
        "all of them\nand now?\n",
    );
    let out = lines(&run, 2);
    assert_eq!(out[0]["stop_reason"], "end_turn", "{}", out[0]);
    assert_eq!(out[0]["tool_calls"].as_array().unwrap().len(), 16);
    let requests = fake.requests();
    assert_eq!(requests.len(), 3);
    let results = &requests[1].body["messages"][2]["content"];
    let results = results.as_array().expect("tool_result blocks");
    assert_eq!(results.len(), 16);
    for (n, block) in results.iter().enumerate() {
        assert_eq!(block["tool_use_id"], format!("toolu_{n:02}"));
        let content = block["content"].as_array().expect("text and the note");
        let prefix = format!("result {n}: ");
        // 400,000 bytes for the response's results, shared equally.
        let kept = 400_000 / 16;
        assert_eq!(content[0]["text"].as_str().unwrap().len(), kept);
        assert!(content[0]["text"].as_str().unwrap().starts_with(&prefix));
        let cut = size + prefix.len() - kept;
        let grouped = |n: usize| {
            let digits = n.to_string();
            let mut out = String::new();
            for (i, c) in digits.chars().enumerate() {
                if i > 0 && (digits.len() - i).is_multiple_of(3) {
                    out.push(',');
                }
                out.push(c);
            }
            out
        };
        assert_eq!(
            content[1]["text"],
            format!(
                "[… {} bytes of this result were cut: the host sends at most 400,000 bytes of the results of one response, 25,000 of this one]",
                grouped(cut)
            )
        );
    }
    // The request, and the next line's, which resends the history: bounded.
    for request in &requests[1..] {
        eprintln!("request body: {} bytes", request.raw_body.len());
        assert!(
            request.raw_body.len() < 420_000,
            "{}",
            request.raw_body.len()
        );
    }
    eprintln!(
        "16 results of 15 MiB: host peak RSS {} KiB",
        run.peak_rss_kib
    );
    assert!(run.peak_rss_kib > 0, "/proc gave no VmHWM");
    assert!(run.peak_rss_kib < 128 << 10, "{} KiB", run.peak_rss_kib);

    // The library's caller gets the whole result.
    let oracle = Oracle::new(&config);
    let whole = oracle.call("big", json!({"n": 3}));
    assert_eq!(common::text(&whole).len(), size + "result 3: ".len());
}

#[test]
fn max_result_bytes_sets_the_bound_and_an_image_over_its_bound_is_a_note() {
    let size: usize = 6 << 20;
    let dir = common::fake_model::TempDir::new();
    let script = dir.write("big.py", BIG_SERVER);
    let config = McpConfig::new(&json!({"mcpServers": {"big": {
        "command": "python3",
        "args": [script.to_str().unwrap(), size.to_string()],
    }}}));
    let fake = FakeModel::start(vec![
        Reply::ok(claude_message(
            json!([
                tool_use("toolu_big", "big", json!({"n": 1})),
                tool_use("toolu_picture", "picture", json!({}))
            ]),
            "tool_use",
            10,
            10,
        )),
        fine(20),
    ]);
    let run = host(
        &config,
        &["--json", "--approve", "all", "--max-result-bytes", "1000"],
        &claude_env(&fake),
        "show me\n",
    );
    let out = lines(&run, 1);
    assert_eq!(out[0]["stop_reason"], "end_turn", "{}", out[0]);
    let requests = fake.requests();
    let results = requests[1].body["messages"][2]["content"]
        .as_array()
        .unwrap();
    let big = results[0]["content"].as_array().unwrap();
    assert_eq!(big[0]["text"].as_str().unwrap().len(), 1000);
    assert_eq!(
        big[1]["text"],
        "[… 6,290,466 bytes of this result were cut: the host sends at most 1,000 bytes of one result]"
    );
    assert_eq!(
        results[1]["content"],
        "[The tool returned an image (image/png, 6,291,456 bytes of base64) that is not shown: the host sends images and binary data of at most 5,242,880 bytes of base64.]"
    );
    assert!(
        requests[1].raw_body.len() < 3_000,
        "{}",
        requests[1].raw_body.len()
    );
}
