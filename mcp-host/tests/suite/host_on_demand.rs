//! Tools past the API's limits, offered on demand, through the `mcp-host`
//! program with the `everything` example over stdio (`TOOLS=200`: 218
//! tools, 217 offered to a model: `stats_sort` is for its app only) and scripted model APIs on loopback: OpenAI's 128-function limit
//! and the host's `search_tools`; Anthropic's tool search with deferred
//! loading past `--max-tool-tokens`, its blocks kept in the history as the
//! API sent them; and, through the library, which tools stay loaded (an
//! in-process server of 150 tools).

use crate::common;

use common::fake_model::{
    FakeModel, McpConfig, Recorded, Reply, claude_message, everything_entry, openai_completion,
    openai_text, openai_tool_calls, run_host, text_block, tool_use,
};
use serde_json::{Value, json};

/// One stdio `everything` with 200 extra copies of `add` (`add_0` …).
fn big_config() -> McpConfig {
    McpConfig::new(&json!({"mcpServers": {"e": everything_entry(&[("TOOLS", "200")])}}))
}

/// The names of a request's tools, OpenAI's (`function.name`) or
/// Anthropic's (`name`).
fn names(request: &Recorded) -> Vec<String> {
    request.body["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools in {}", request.body))
        .iter()
        .map(|t| {
            t["function"]["name"]
                .as_str()
                .or(t["name"].as_str())
                .unwrap()
                .to_owned()
        })
        .collect()
}

#[test]
fn openai_is_offered_at_most_128_functions_and_what_search_tools_finds() {
    let model = FakeModel::start(vec![
        Reply::ok(openai_completion(
            openai_tool_calls(
                None,
                &[("call_1", "search_tools", r#"{"query":"add_150"}"#)],
            ),
            "tool_calls",
            10,
            5,
        )),
        Reply::ok(openai_completion(
            openai_tool_calls(None, &[("call_2", "add_150", r#"{"a":2,"b":3}"#)]),
            "tool_calls",
            10,
            5,
        )),
        Reply::ok(openai_completion(openai_text("5"), "stop", 10, 5)),
    ]);
    let config = big_config();
    let run = run_host(
        &[
            "--config",
            config.arg(),
            "--provider",
            "openai",
            "--json",
            "--approve",
            "all",
        ],
        &[
            ("OPENAI_BASE_URL", model.base_url.as_str()),
            ("OPENAI_API_KEY", "test-key"),
        ],
        "add 2 and 3 with add_150\n",
    );
    assert!(run.status.success(), "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr
            .contains("217 tools offered to gpt-4.1 on demand (through `search_tools`, 0 loaded)"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("more than the API takes in one request (128)"),
        "the switch is said: {}",
        run.stderr
    );
    let requests = model.requests();
    assert_eq!(requests.len(), 3, "{requests:?}");
    // The first request: the search tool alone (no in-process tools to keep).
    assert_eq!(names(&requests[0]), ["search_tools"]);
    assert_eq!(
        requests[0].body["tools"][0]["function"]["parameters"]["required"],
        json!(["query"])
    );
    // The search's result lists the matches; they are offered next, after
    // what was offered before (a prefix: caches hold).
    // Ties keep the server's order (`everything` lists by name).
    let found = ["add_150", "add", "add_0", "add_1", "add_10"];
    let mut expected = vec!["search_tools"];
    expected.extend(found);
    assert_eq!(names(&requests[1]), expected);
    let messages = requests[1].body["messages"].as_array().unwrap();
    let answer = messages.last().unwrap();
    assert_eq!(answer["role"], "tool");
    assert_eq!(answer["tool_call_id"], "call_1");
    let text = answer["content"].as_str().unwrap();
    assert!(
        text.starts_with("Tools matching \"add_150\" (offered from the next step on"),
        "{text}"
    );
    let listed: Vec<&str> = text
        .lines()
        .skip(1)
        .map(|l| l.trim_start_matches("- ").split(':').next().unwrap())
        .collect();
    assert_eq!(listed, found);
    // The found tool runs on the server.
    assert_eq!(names(&requests[2]), expected);
    assert_eq!(requests[2].body["tools"], requests[1].body["tools"]);
    let last = requests[2].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["tool_call_id"], "call_2");
    assert_eq!(last["content"], r#"{"sum":5.0}"#);
    let line = &run.json_lines()[0];
    assert_eq!(line["text"], "5");
    assert_eq!(
        line["tool_calls"],
        json!([
            {"name": "search_tools", "server": "", "is_error": false},
            {"name": "add_150", "server": "e", "is_error": false}
        ])
    );
    for request in &requests {
        assert!(names(request).len() <= 128);
    }
}

#[test]
fn anthropic_defers_loading_past_the_token_budget_and_keeps_the_search_blocks() {
    let searched = json!([
        {"type": "text", "text": "Let me find the tool."},
        {"type": "server_tool_use", "id": "srvtoolu_01ABC", "name": "tool_search_tool_bm25",
         "input": {"query": "add 150"}},
        {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_01ABC",
         "content": {"type": "tool_search_tool_search_result",
                     "tool_references": [{"type": "tool_reference", "tool_name": "add_150"}]}},
        tool_use("toolu_01", "add_150", json!({"a": 2, "b": 3}))
    ]);
    let model = FakeModel::start(vec![
        Reply::ok(claude_message(searched.clone(), "tool_use", 10, 5)),
        Reply::ok(claude_message(json!([text_block("5")]), "end_turn", 10, 5)),
    ]);
    let config = big_config();
    let run = run_host(
        &[
            "--config",
            config.arg(),
            "--json",
            "--approve",
            "all",
            "--max-tool-tokens",
            "2000",
        ],
        &[
            ("ANTHROPIC_BASE_URL", model.base_url.as_str()),
            ("ANTHROPIC_API_KEY", "test-key"),
        ],
        "add 2 and 3 with add_150\n",
    );
    assert!(run.status.success(), "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains(
            "217 tools offered to claude-sonnet-4-6 on demand (217 through the API's tool search, 0 loaded)"
        ),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("over the budget of 2000"),
        "{}",
        run.stderr
    );
    let requests = model.requests();
    assert_eq!(requests.len(), 2, "{requests:?}");
    let tools = requests[0].body["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 218);
    assert_eq!(
        tools[0],
        json!({"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"})
    );
    for tool in &tools[1..] {
        assert_eq!(tool["defer_loading"], true, "{tool}");
        assert!(tool["input_schema"].is_object(), "{tool}");
    }
    // The same bytes on both requests.
    assert_eq!(requests[0].body["tools"], requests[1].body["tools"]);
    // The assistant message goes back as the API sent it: the fake wrote
    // the content's JSON, and the next request carries those very bytes.
    let messages = requests[1].body["messages"].as_array().unwrap();
    assert_eq!(
        messages[1],
        json!({"role": "assistant", "content": searched})
    );
    let bytes = serde_json::to_string(&searched).unwrap();
    assert!(
        requests[1].raw_body.contains(&bytes),
        "{bytes}\nnot in\n{}",
        requests[1].raw_body
    );
    let results: &Value = &messages[2]["content"];
    assert_eq!(results[0]["tool_use_id"], "toolu_01");
    assert_eq!(results[0]["content"], r#"{"sum":5.0}"#);
    let line = &run.json_lines()[0];
    assert_eq!(line["text"], "5");
    assert_eq!(
        line["tool_calls"],
        json!([{"name": "add_150", "server": "e", "is_error": false}])
    );
}

#[test]
fn a_catalog_within_the_limits_is_offered_whole() {
    let model = FakeModel::start(vec![Reply::ok(openai_completion(
        openai_text("hi"),
        "stop",
        10,
        5,
    ))]);
    let config =
        McpConfig::new(&json!({"mcpServers": {"e": everything_entry(&[("TOOLS", "100")])}}));
    let run = run_host(
        &[
            "--config",
            config.arg(),
            "--provider",
            "openai",
            "--json",
            "--approve",
            "all",
        ],
        &[
            ("OPENAI_BASE_URL", model.base_url.as_str()),
            ("OPENAI_API_KEY", "test-key"),
        ],
        "hi\n",
    );
    assert!(run.status.success(), "{}\n{}", run.stdout, run.stderr);
    let requests = model.requests();
    // 117 tools (its app-only `stats_sort` is never offered): under 128, every one, no search tool.
    let offered = names(&requests[0]);
    assert_eq!(offered.len(), 117);
    assert!(!offered.iter().any(|n| n == "search_tools"));
    assert!(
        run.stderr.contains("117 tools offered to gpt-4.1\n"),
        "{}",
        run.stderr
    );
}

/// An in-process server of `n` tools, `t_0` … (each answers its name).
fn many_tools(n: usize) -> mcpfn_runtime::Server {
    let tools: Vec<mcpfn_runtime::Tool> = (0..n)
        .map(|i| {
            let name = format!("t_{i}");
            let answer = name.clone();
            mcpfn_runtime::ToolBuilder::new(name, move |_call| {
                let answer = answer.clone();
                Box::pin(async move { mcpfn_runtime::ToolOutcome::text(answer) })
            })
            .description(format!("Tool number {i}."))
            .build()
        })
        .collect();
    mcpfn_runtime::Server::new("many", "1").tools(tools)
}

#[test]
fn the_host_own_tools_stay_loaded_unless_the_builder_names_others() {
    common::run(async {
        for (always, expected) in [
            (
                None,
                vec!["search_tools", "t_0", "t_1", "t_10", "t_100", "t_101"],
            ),
            (Some("t_149"), vec!["search_tools", "t_149"]),
        ] {
            let model = FakeModel::start(vec![Reply::ok(openai_completion(
                openai_text("hi"),
                "stop",
                10,
                5,
            ))]);
            let provider = mcpfn_host::provider::OpenAi::new(&model.base_url, Some("k")).unwrap();
            let mut builder =
                mcpfn_host::agent::Agent::new(provider).server("many", many_tools(150));
            if let Some(name) = always {
                builder = builder.always_loaded([name]);
            }
            let agent = builder.build().await.unwrap();
            assert_eq!(
                agent.offering(),
                mcpfn_host::agent::on_demand::Offering::LocalSearch {
                    tool: "search_tools".into(),
                    loaded: expected.len() - 1,
                    room: 128 - expected.len(),
                }
            );
            let mut chat = agent.conversation();
            agent.send(&mut chat, "hi").await.unwrap();
            let requests = model.requests();
            assert_eq!(names(&requests[0]), expected, "{always:?}");
        }
    });
}

/// What the model is told of a call of a tool neither loaded nor found,
/// with the host's search tool (`search`) or the API's (`None`).
fn not_offered(tool: &str, search: Option<&str>) -> String {
    let how = match search {
        Some(search) => format!("call `{search}` to find it first"),
        None => "search for it with the tool search first".to_owned(),
    };
    format!(
        "The call was not run: `{tool}` was not offered in this conversation; {how}, then call it."
    )
}

fn openai_calls(calls: &[(&str, &str, &str)]) -> Value {
    openai_completion(openai_tool_calls(None, calls), "tool_calls", 10, 5)
}

#[test]
fn openai_a_tool_not_offered_nor_found_is_refused_and_the_search_is_shown_as_a_call() {
    // `toggle_bonus` flips the server's state: its first call that reaches
    // the server answers "hidden", so the refused call never reached it.
    let script = [
        openai_calls(&[("call_1", "toggle_bonus", "{}")]),
        openai_calls(&[("call_2", "search_tools", r#"{"query":"toggle_bonus"}"#)]),
        openai_calls(&[("call_3", "toggle_bonus", "{}")]),
        openai_completion(openai_text("done"), "stop", 10, 5),
    ];
    // `--events` streams: the fake API streams each response.
    let model = FakeModel::start(
        script
            .iter()
            .map(|c| Reply::sse(common::fake_model::openai_chunks(c)))
            .collect(),
    );
    let config = big_config();
    let env = [
        ("OPENAI_BASE_URL", model.base_url.as_str()),
        ("OPENAI_API_KEY", "test-key"),
    ];
    let args = [
        "--config",
        config.arg(),
        "--provider",
        "openai",
        "--events",
        "--approve",
        "all",
    ];
    let run = run_host(&args, &env, "hide the bonus\n");
    assert!(run.status.success(), "{}\n{}", run.stdout, run.stderr);
    let requests = model.requests();
    assert_eq!(requests.len(), 4, "{}", run.stderr);
    let last = |i: usize| {
        requests[i].body["messages"]
            .as_array()
            .unwrap()
            .last()
            .unwrap()
            .clone()
    };
    assert_eq!(last(1)["tool_call_id"], "call_1");
    // OpenAI has no `is_error`: an error result's text says "Error: ".
    assert_eq!(
        last(1)["content"],
        format!(
            "Error: {}",
            not_offered("toggle_bonus", Some("search_tools"))
        )
    );
    assert_eq!(last(3)["tool_call_id"], "call_3");
    assert_eq!(last(3)["content"], "bonus is now hidden");
    let lines = run.json_lines();
    let events: Vec<&Value> = lines
        .iter()
        .filter(|e| e["event"] != "usage" && e["event"] != "text")
        .collect();
    let kinds: Vec<(&str, &str)> = events
        .iter()
        .map(|e| (e["event"].as_str().unwrap(), e["id"].as_str().unwrap_or("")))
        .collect();
    assert_eq!(
        kinds,
        [
            ("call_requested", "call_1"),
            ("call_not_run", "call_1"),
            ("call_requested", "call_2"),
            ("call_started", "call_2"),
            ("call_finished", "call_2"),
            ("call_requested", "call_3"),
            ("call_approved", "call_3"),
            ("call_started", "call_3"),
            ("call_finished", "call_3"),
            ("answer", ""),
        ],
        "{}",
        run.stdout
    );
    assert_eq!(
        *events[0],
        json!({"event": "call_requested", "id": "call_1", "tool": "toggle_bonus", "server": "e", "input": {}})
    );
    assert_eq!(
        events[1]["reason"],
        not_offered("toggle_bonus", Some("search_tools"))
    );
    assert_eq!(
        *events[2],
        json!({"event": "call_requested", "id": "call_2", "tool": "search_tools", "server": "", "input": {"query": "toggle_bonus"}})
    );
    assert_eq!(events[4]["is_error"], false);
    assert_eq!(
        events[9]["tool_calls"],
        json!([
            {"name": "toggle_bonus", "server": "e", "is_error": true},
            {"name": "search_tools", "server": "", "is_error": false},
            {"name": "toggle_bonus", "server": "e", "is_error": false}
        ])
    );
}

#[test]
fn the_host_search_has_its_stream_lines_like_any_call() {
    let script = [
        openai_calls(&[("call_1", "search_tools", r#"{"query":"add_150"}"#)]),
        openai_completion(openai_text("found"), "stop", 10, 5),
    ];
    let model = FakeModel::start(
        script
            .iter()
            .map(|c| Reply::sse(common::fake_model::openai_chunks(c)))
            .collect(),
    );
    let config = big_config();
    let run = run_host(
        &[
            "--config",
            config.arg(),
            "--provider",
            "openai",
            "--stream",
            "--approve",
            "all",
        ],
        &[
            ("OPENAI_BASE_URL", model.base_url.as_str()),
            ("OPENAI_API_KEY", "test-key"),
        ],
        "find add_150\n",
    );
    assert!(run.status.success(), "{}\n{}", run.stdout, run.stderr);
    let shown: Vec<&str> = run.stderr.lines().filter(|l| l.starts_with('[')).collect();
    assert_eq!(shown.len(), 2, "{}", run.stderr);
    assert_eq!(shown[0], r#"[search_tools {"query":"add_150"}]"#);
    assert!(
        shown[1].starts_with("[search_tools: ") && shown[1].ends_with(" ms]"),
        "{}",
        shown[1]
    );
    assert_eq!(run.stdout, "found\n\n");
}

#[test]
fn anthropic_a_deferred_tool_runs_only_once_the_api_search_found_it() {
    let searched = json!([
        {"type": "server_tool_use", "id": "srvtoolu_01", "name": "tool_search_tool_bm25",
         "input": {"query": "toggle bonus"}},
        {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_01",
         "content": {"type": "tool_search_tool_search_result",
                     "tool_references": [{"type": "tool_reference", "tool_name": "toggle_bonus"}]}},
        tool_use("toolu_2", "toggle_bonus", json!({}))
    ]);
    let model = FakeModel::start(vec![
        Reply::ok(claude_message(
            json!([tool_use("toolu_1", "toggle_bonus", json!({}))]),
            "tool_use",
            10,
            5,
        )),
        Reply::ok(claude_message(searched, "tool_use", 10, 5)),
        Reply::ok(claude_message(
            json!([text_block("done")]),
            "end_turn",
            10,
            5,
        )),
    ]);
    let config = big_config();
    let run = run_host(
        &[
            "--config",
            config.arg(),
            "--json",
            "--approve",
            "all",
            "--max-tool-tokens",
            "2000",
        ],
        &[
            ("ANTHROPIC_BASE_URL", model.base_url.as_str()),
            ("ANTHROPIC_API_KEY", "test-key"),
        ],
        "hide the bonus\n",
    );
    assert!(run.status.success(), "{}\n{}", run.stdout, run.stderr);
    let requests = model.requests();
    assert_eq!(requests.len(), 3, "{}", run.stderr);
    let results = |i: usize| {
        common::fake_model::unmarked(
            &requests[i].body["messages"]
                .as_array()
                .unwrap()
                .last()
                .unwrap()["content"],
        )
    };
    assert_eq!(
        results(1),
        json!([{"type": "tool_result", "tool_use_id": "toolu_1",
                "content": not_offered("toggle_bonus", None), "is_error": true}])
    );
    // Found by the API's search: it runs, and is the server's first call.
    assert_eq!(
        results(2),
        json!([{"type": "tool_result", "tool_use_id": "toolu_2", "content": "bonus is now hidden"}])
    );
    assert_eq!(
        run.json_lines()[0]["tool_calls"],
        json!([
            {"name": "toggle_bonus", "server": "e", "is_error": true},
            {"name": "toggle_bonus", "server": "e", "is_error": false}
        ])
    );
}
