//! The tool-use loop as a library: `Agent` over a scripted provider (the
//! Anthropic request and response shapes, with no HTTP), with in-process
//! `#[tool]` fns, a whole in-process `Server` and a remote server from an
//! `mcp.json` in one catalog. The HTTP side of the providers and the
//! `mcp-host` program are tested in `host_program.rs` and
//! `host_servers.rs`, against fake model APIs on loopback.

use crate::common;

use common::run;
use mcpfn_client::BoxFuture;
use mcpfn_host::agent::approval::{ApprovalRequest, Approver, Decision};
use mcpfn_host::agent::history::LastTurns;
use mcpfn_host::agent::interrupt::{INTERRUPTED, Interrupt};
use mcpfn_host::agent::{Agent, MAX_TURNS};
use mcpfn_host::config::McpConfig;
use mcpfn_host::provider::{
    self, Anthropic, Provider, ProviderError, Reply, Request, ToolCall, Usage,
};
use mcpfn_host::tool_offer::ToolOffer;
use mcpfn_protocol::model::CallToolResult;
use mcpfn_runtime::{Context, Server, tool, tools};
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Answers with scripted Anthropic response bodies (or errors) and keeps
/// every request; the Anthropic provider makes the messages (it is never
/// asked to send).
#[derive(Debug)]
struct Scripted {
    shapes: Anthropic,
    replies: Mutex<VecDeque<Result<Value, ProviderError>>>,
    requests: Mutex<Vec<Value>>,
}

impl Scripted {
    fn new(replies: Vec<Result<Value, ProviderError>>) -> Arc<Scripted> {
        Arc::new(Scripted {
            shapes: Anthropic::new("http://127.0.0.1:9", None).unwrap(),
            replies: Mutex::new(replies.into()),
            requests: Mutex::default(),
        })
    }

    fn requests(&self) -> Vec<Value> {
        self.requests.lock().unwrap().clone()
    }
}

fn message(content: Value, stop: &str) -> Result<Value, ProviderError> {
    Ok(
        json!({"content": content, "stop_reason": stop, "usage": {"input_tokens": 10, "output_tokens": 2}}),
    )
}

fn tool_use(id: &str, name: &str, input: Value) -> Value {
    json!({"type": "tool_use", "id": id, "name": name, "input": input})
}

fn text(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

impl Provider for Scripted {
    fn default_model(&self) -> &str {
        "scripted"
    }

    fn tools(&self, offers: &[ToolOffer]) -> Vec<Value> {
        self.shapes.tools(offers)
    }

    fn user_message(&self, text: &str) -> Value {
        self.shapes.user_message(text)
    }

    fn content_message(
        &self,
        role: mcpfn_protocol::model::Role,
        content: &[mcpfn_protocol::model::ContentBlock],
    ) -> Value {
        self.shapes.content_message(role, content)
    }

    fn tool_results(&self, results: &[(&ToolCall, &CallToolResult)]) -> Vec<Value> {
        self.shapes.tool_results(results)
    }

    fn send<'a>(&'a self, request: Request<'a>) -> BoxFuture<'a, Result<Reply, ProviderError>> {
        self.requests.lock().unwrap().push(json!({
            "model": request.model, "system": request.system,
            "messages": request.messages, "tools": request.tools,
        }));
        let next = self.replies.lock().unwrap().pop_front();
        Box::pin(async move {
            match next {
                Some(Ok(body)) => provider::anthropic::read_response(body),
                Some(Err(e)) => Err(e),
                None => Err(ProviderError::InvalidResponse {
                    api: "the scripted API".into(),
                    reason: "the script ran out".into(),
                }),
            }
        })
    }
}

/// The weather in a city, right now.
#[tool(read_only)]
async fn get_weather(city: String) -> String {
    format!("{city}今天晴，25°C")
}

static RUNNING: AtomicUsize = AtomicUsize::new(0);
static MOST_RUNNING: AtomicUsize = AtomicUsize::new(0);

/// Waits `ms` milliseconds, counting how many waits overlap.
#[tool]
async fn wait(ms: u64) -> u64 {
    let now = RUNNING.fetch_add(1, Ordering::SeqCst) + 1;
    MOST_RUNNING.fetch_max(now, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(ms)).await;
    RUNNING.fetch_sub(1, Ordering::SeqCst);
    ms
}

/// Answers `n` (a tool of a whole in-process server).
#[tool]
async fn tick(n: u64) -> u64 {
    n
}

static CANCELLED: AtomicUsize = AtomicUsize::new(0);

/// Never answers; a task it spawned counts its cancellations (the call's
/// own future is dropped with the line, so only a task outside it sees).
#[tool]
async fn hang(ctx: Context) -> String {
    tokio::spawn(async move {
        ctx.cancelled().await;
        CANCELLED.fetch_add(1, Ordering::SeqCst);
    });
    std::future::pending::<()>().await;
    String::new()
}

#[test]
fn an_agent_that_cannot_serve_its_tools_says_why_with_the_runtimes_error_as_the_cause() {
    run(async {
        let error = Agent::with_provider(Scripted::new(Vec::new()))
            .tools(tools![get_weather])
            .tools(tools![get_weather])
            .build()
            .await
            .unwrap_err();
        let cause = std::error::Error::source(&error).expect("the runtime's error");
        assert!(cause.to_string().contains("get_weather"), "{cause}");
        assert_eq!(
            error.to_string(),
            format!("the in-process tools cannot be served: {cause}")
        );
    });
}

#[test]
fn in_process_tools_answer_the_seed_flow_and_the_history_carries_them_to_the_next_line() {
    run(async {
        let model = Scripted::new(vec![
            message(
                json!([
                    text("我需要查一下北京的天气。"),
                    tool_use("toolu_01", "get_weather", json!({"city": "北京"}))
                ]),
                "tool_use",
            ),
            message(json!([text("北京今天晴，25°C，适合出门。")]), "end_turn"),
            message(
                json!([tool_use("toolu_02", "get_weather", json!({"city": "上海"}))]),
                "tool_use",
            ),
            message(json!([text("上海今天晴，25°C。")]), "end_turn"),
        ]);
        let agent = Agent::with_provider(model.clone())
            .tools(tools![get_weather])
            .system("你是一个专业的天气助手，回答简洁。")
            .build()
            .await
            .unwrap();
        let mut chat = agent.conversation();
        let answer = agent.send(&mut chat, "北京今天天气怎么样").await.unwrap();
        assert_eq!(answer.text, "北京今天晴，25°C，适合出门。");
        assert_eq!(
            (answer.stop_reason.as_str(), answer.responses),
            ("end_turn", 2)
        );
        assert_eq!(
            answer.usage,
            Usage {
                input_tokens: 20,
                output_tokens: 4,
                ..Usage::default()
            }
        );
        assert_eq!(answer.tool_calls[0].name, "get_weather");
        assert_eq!(answer.tool_calls[0].server, "local");
        let answer = agent.send(&mut chat, "那上海呢").await.unwrap();
        assert_eq!(answer.text, "上海今天晴，25°C。");
        assert_eq!(
            chat.usage(),
            Usage {
                input_tokens: 40,
                output_tokens: 8,
                ..Usage::default()
            }
        );

        let requests = model.requests();
        assert_eq!(requests.len(), 4);
        assert_eq!(requests[0]["system"], "你是一个专业的天气助手，回答简洁。");
        assert_eq!(requests[0]["tools"][0]["name"], "get_weather");
        assert_eq!(
            requests[2]["messages"],
            json!([
                {"role": "user", "content": "北京今天天气怎么样"},
                {"role": "assistant", "content": [text("我需要查一下北京的天气。"), tool_use("toolu_01", "get_weather", json!({"city": "北京"}))]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "北京今天晴，25°C"}]},
                {"role": "assistant", "content": [text("北京今天晴，25°C，适合出门。")]},
                {"role": "user", "content": "那上海呢"}
            ])
        );
        assert_eq!(chat.history().turn_count(), 2);
    });
}

#[test]
fn calls_of_one_response_run_at_once_within_the_bound_and_answer_in_order() {
    run(async {
        let calls = json!([
            tool_use("a", "wait", json!({"ms": 400})),
            tool_use("b", "wait", json!({"ms": 200})),
            tool_use("c", "wait", json!({"ms": 300})),
            tool_use("d", "nowhere", json!({})),
        ]);
        for (bound, most, fastest, slowest) in [(8, 3, 350, 800), (1, 1, 850, 2_000)] {
            MOST_RUNNING.store(0, Ordering::SeqCst);
            let model = Scripted::new(vec![
                message(calls.clone(), "tool_use"),
                message(json!([text("ok")]), "end_turn"),
            ]);
            let agent = Agent::with_provider(model.clone())
                .tools(tools![wait])
                .calls_in_flight(bound)
                .build()
                .await
                .unwrap();
            let mut chat = agent.conversation();
            let started = Instant::now();
            let answer = agent.send(&mut chat, "wait").await.unwrap();
            let took = started.elapsed().as_millis();
            assert!(
                (fastest..slowest).contains(&took),
                "bound {bound}: {took} ms"
            );
            assert_eq!(MOST_RUNNING.load(Ordering::SeqCst), most);
            let results = &model.requests()[1]["messages"][2];
            let ids: Vec<&str> = results["content"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| b["tool_use_id"].as_str().unwrap())
                .collect();
            assert_eq!(
                ids,
                ["a", "b", "c", "d"],
                "one user message, in tool_use order"
            );
            assert_eq!(results["content"][3]["is_error"], true);
            let unknown = &answer.tool_calls[3];
            assert_eq!(
                (
                    unknown.name.as_str(),
                    unknown.server.as_str(),
                    unknown.is_error
                ),
                ("nowhere", "", true)
            );
        }
    });
}

/// Declines everything, keeping what it was shown.
#[derive(Debug, Default)]
struct Refuser(Mutex<Vec<(String, String, Value, bool)>>);

impl Approver for Refuser {
    fn decide<'a>(&'a self, request: &'a ApprovalRequest<'a>) -> BoxFuture<'a, Decision> {
        self.0.lock().unwrap().push((
            request.tool.name.clone(),
            request.server.to_owned(),
            request.input.clone(),
            request.is_trusted_read_only(),
        ));
        Box::pin(async { Decision::Decline })
    }
}

#[test]
fn the_approver_sees_each_call_and_a_declined_call_says_so_to_the_model() {
    run(async {
        let model = Scripted::new(vec![
            message(
                json!([tool_use("t1", "get_weather", json!({"city": "北京"}))]),
                "tool_use",
            ),
            message(json!([text("好的")]), "end_turn"),
        ]);
        let refuser = Arc::new(Refuser::default());
        let agent = Agent::with_provider(model.clone())
            .tools(tools![get_weather])
            .approve_with(refuser.clone())
            .build()
            .await
            .unwrap();
        let answer = agent.send(&mut agent.conversation(), "天气").await.unwrap();
        assert!(answer.tool_calls[0].is_error);
        assert_eq!(
            refuser.0.lock().unwrap().clone(),
            vec![(
                "get_weather".to_owned(),
                "local".to_owned(),
                json!({"city": "北京"}),
                true
            )]
        );
        let result = &model.requests()[1]["messages"][2]["content"][0];
        assert_eq!(result["is_error"], true);
        assert!(
            result["content"].as_str().unwrap().contains("declined"),
            "{result}"
        );
    });
}

#[test]
fn a_request_failing_before_any_tool_ran_leaves_the_history_as_it_was_before_the_line() {
    run(async {
        let model = Scripted::new(vec![
            message(json!([text("你好！")]), "end_turn"),
            Err(ProviderError::Api {
                api: "the scripted API".into(),
                status: 500,
                message: "overloaded".into(),
                attempts: 1,
            }),
            message(json!([text("还在")]), "end_turn"),
        ]);
        let agent = Agent::with_provider(model.clone())
            .tools(tools![get_weather])
            .build()
            .await
            .unwrap();
        let mut chat = agent.conversation();
        agent.send(&mut chat, "你好").await.unwrap();
        let before = chat.history().clone();
        let failed = agent.send(&mut chat, "北京天气").await.unwrap_err();
        assert_eq!(failed.partial.stop_reason, "error");
        assert_eq!(
            (
                failed.partial.responses,
                failed.partial.text.as_str(),
                failed.partial.tool_calls.len(),
                failed.calls_kept
            ),
            (0, "", 0, 0)
        );
        assert_eq!(chat.history(), &before);
        agent.send(&mut chat, "在吗").await.unwrap();
        let last = model.requests().pop().unwrap();
        assert_eq!(last["messages"].as_array().unwrap().len(), 3, "{last}");
    });
}

#[test]
fn the_guard_ends_a_runaway_loop_with_every_tool_use_answered() {
    run(async {
        let again = || {
            message(
                json!([tool_use("t", "get_weather", json!({"city": "北京"}))]),
                "tool_use",
            )
        };
        let model = Scripted::new(vec![
            again(),
            again(),
            again(),
            message(json!([text("ok")]), "end_turn"),
        ]);
        let agent = Agent::with_provider(model.clone())
            .tools(tools![get_weather])
            .max_turns(3)
            .build()
            .await
            .unwrap();
        let mut chat = agent.conversation();
        let answer = agent.send(&mut chat, "loop").await.unwrap();
        assert_eq!(
            (
                answer.stop_reason.as_str(),
                answer.responses,
                answer.tool_calls.len()
            ),
            (MAX_TURNS, 3, 3)
        );
        let messages = chat.history().messages();
        assert_eq!(messages.len(), 7, "user + 3 × (tool_use, tool_result)");
        assert_eq!(messages[6]["content"][0]["type"], "tool_result");
    });
}

#[test]
fn pause_turn_is_resent_without_a_new_user_message_and_a_cut_off_tool_use_still_gets_a_result() {
    run(async {
        let model = Scripted::new(vec![
            message(json!([text("searching…")]), "pause_turn"),
            message(
                json!([text("half"), tool_use("t9", "get_weather", json!({}))]),
                "max_tokens",
            ),
        ]);
        let agent = Agent::with_provider(model.clone())
            .tools(tools![get_weather])
            .build()
            .await
            .unwrap();
        let mut chat = agent.conversation();
        let answer = agent.send(&mut chat, "go").await.unwrap();
        assert_eq!(
            (
                answer.stop_reason.as_str(),
                answer.responses,
                answer.text.as_str()
            ),
            ("max_tokens", 2, "half")
        );
        let second = &model.requests()[1]["messages"];
        assert_eq!(
            second.as_array().unwrap().len(),
            2,
            "the paused content, no new user message"
        );
        assert_eq!(second[1]["content"], json!([text("searching…")]));
        let last = chat.history().messages().last().unwrap();
        assert_eq!(last["content"][0]["tool_use_id"], "t9");
        assert_eq!(last["content"][0]["is_error"], true);
    });
}

#[test]
fn last_turns_trims_between_lines_and_keeps_the_first_question() {
    run(async {
        let replies = (0..4)
            .map(|i| message(json!([text(&format!("answer {i}"))]), "end_turn"))
            .collect();
        let model = Scripted::new(replies);
        let agent = Agent::with_provider(model.clone())
            .history(LastTurns(1))
            .build()
            .await
            .unwrap();
        let mut chat = agent.conversation();
        for line in ["first", "second", "third", "fourth"] {
            agent.send(&mut chat, line).await.unwrap();
        }
        let last = &model.requests()[3]["messages"];
        assert_eq!(
            last,
            &json!([
                {"role": "user", "content": "first"},
                {"role": "user", "content": "third"},
                {"role": "assistant", "content": [text("answer 2")]},
                {"role": "user", "content": "fourth"}
            ])
        );
    });
}

#[test]
fn a_dropped_line_cancels_its_running_calls() {
    run(async {
        CANCELLED.store(0, Ordering::SeqCst);
        let model = Scripted::new(vec![message(
            json!([tool_use("h", "hang", json!({}))]),
            "tool_use",
        )]);
        let agent = Agent::with_provider(model)
            .tools(tools![hang])
            .build()
            .await
            .unwrap();
        let mut chat = agent.conversation();
        let line = agent.send(&mut chat, "hang");
        assert!(
            tokio::time::timeout(Duration::from_millis(300), line)
                .await
                .is_err()
        );
        let deadline = Instant::now() + Duration::from_secs(5);
        while CANCELLED.load(Ordering::SeqCst) == 0 {
            assert!(
                Instant::now() < deadline,
                "the tool never saw the cancellation"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    });
}

#[test]
fn in_process_fns_a_whole_server_and_a_remote_server_share_one_catalog() {
    run(async {
        let config = McpConfig::parse(&format!(
            r#"{{"mcpServers": {{"everything": {{"command": "{}"}}}}}}"#,
            common::everything().display()
        ))
        .unwrap();
        let model = Scripted::new(vec![
            message(
                json!([
                    tool_use("1", "get_weather", json!({"city": "北京"})),
                    tool_use("2", "add", json!({"a": 2, "b": 3})),
                    tool_use("3", "tick", json!({"n": 1}))
                ]),
                "tool_use",
            ),
            message(json!([text("done")]), "end_turn"),
        ]);
        let agent = Agent::with_provider(model.clone())
            .tools(tools![get_weather])
            .server("timer", Server::new("timer", "1.0.0").tools(tools![tick]))
            .config(config)
            .build()
            .await
            .unwrap();
        assert!(agent.catalog().failures().is_empty());
        let answer = agent
            .send(&mut agent.conversation(), "all three")
            .await
            .unwrap();
        let servers: Vec<(&str, &str, bool)> = answer
            .tool_calls
            .iter()
            .map(|c| (c.name.as_str(), c.server.as_str(), c.is_error))
            .collect();
        assert_eq!(
            servers,
            [
                ("get_weather", "local", false),
                ("add", "everything", false),
                ("tick", "timer", false)
            ]
        );
        let results = &model.requests()[1]["messages"][2]["content"];
        assert_eq!(results[0]["content"], "北京今天晴，25°C");
        assert_eq!(results[2]["content"], "1");
    });
}

/// The README's agent is `examples/agent.rs`, which the build compiles.
#[test]
fn the_readme_agent_is_the_compiled_example() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("../README.md")).unwrap();
    let example = std::fs::read_to_string(root.join("examples/agent.rs")).unwrap();
    assert!(
        readme.contains(&format!("```rs\n{example}```")),
        "README.md's agent block differs from mcp-host/examples/agent.rs"
    );
}

#[test]
fn a_tool_that_runs_as_a_task_is_an_ordinary_call_to_the_loop() {
    run(async {
        let config = McpConfig::parse(&format!(
            r#"{{"mcpServers": {{"jobs": {{"command": "{}"}}}}}}"#,
            common::example("conformance").display()
        ))
        .unwrap();
        let model = Scripted::new(vec![
            message(
                json!([
                    tool_use(
                        "1",
                        "slow_compute",
                        json!({"seconds": 1, "label": "report"})
                    ),
                    tool_use("2", "failing_job", json!({}))
                ]),
                "tool_use",
            ),
            message(json!([text("done")]), "end_turn"),
        ]);
        let agent = Agent::with_provider(model.clone())
            .config(config)
            .build()
            .await
            .unwrap();
        assert!(agent.catalog().failures().is_empty());
        let answer = agent
            .send(&mut agent.conversation(), "run both")
            .await
            .unwrap();
        let calls: Vec<(&str, bool)> = answer
            .tool_calls
            .iter()
            .map(|c| (c.name.as_str(), c.is_error))
            .collect();
        // `slow_compute` (task = "optional") and `failing_job` (task =
        // "required", whose task completes with an isError result) ran as
        // tasks the client polled; the loop saw two results.
        assert_eq!(calls, [("slow_compute", false), ("failing_job", true)]);
        let results = &model.requests()[1]["messages"][2]["content"];
        assert_eq!(results[0]["content"], "report: computed for 1 s");
        assert!(
            results[1]["content"]
                .as_str()
                .unwrap()
                .contains("the job failed"),
            "{results}"
        );
    });
}

/// Never answers (no counter: `hang`'s is another test's).
#[tool]
async fn stall() -> String {
    std::future::pending::<()>().await;
    String::new()
}

#[test]
fn an_interrupted_line_keeps_its_finished_call_and_answers_the_cut_one() {
    run(async {
        let model = Scripted::new(vec![
            message(
                json!([
                    tool_use("w", "get_weather", json!({"city": "Oslo"})),
                    tool_use("h", "stall", json!({}))
                ]),
                "tool_use",
            ),
            message(json!([text("next")]), "end_turn"),
        ]);
        let agent = Agent::with_provider(Arc::clone(&model) as Arc<dyn Provider>)
            .tools(tools![get_weather, stall])
            .build()
            .await
            .unwrap();
        let mut chat = agent.conversation();
        let interrupt = Interrupt::new();
        let flip = interrupt.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            flip.interrupt();
        });
        let answer = agent
            .send(&mut chat, "weather")
            .interrupt(&interrupt)
            .await
            .unwrap();
        assert_eq!(answer.stop_reason, INTERRUPTED);
        let errors: Vec<bool> = answer.tool_calls.iter().map(|c| c.is_error).collect();
        assert_eq!(errors, [false, true]);
        // The line, the response, and one message of both results.
        let messages = chat.history().messages().to_vec();
        assert_eq!(messages.len(), 3, "{messages:?}");
        let results = &messages[2]["content"];
        assert_eq!(results[0]["tool_use_id"], "w");
        assert_ne!(results[0]["is_error"], true);
        assert_eq!(results[1]["tool_use_id"], "h");
        assert_eq!(results[1]["is_error"], true);
        assert!(
            results[1]
                .to_string()
                .contains("The user interrupted this call"),
            "{results}"
        );
        // The next line goes on from there.
        let next = agent.send(&mut chat, "again").await.unwrap();
        assert_eq!(next.text, "next");
        // (This test's provider does not join a line to tool results.)
        let sent = model.requests()[1]["messages"].as_array().unwrap().clone();
        assert_eq!(sent.len(), 4);
        assert_eq!(sent[..3], messages[..]);
    });
}
