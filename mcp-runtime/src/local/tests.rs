//! The door's own tests: typed results, errors, concurrency, cancellation,
//! the callbacks, and the limits.

use super::*;
use crate::__private::tool_builder;
use crate::context::Context;
use crate::context::elicit::{ElicitRequest, FormField};
use crate::level::Level;
use crate::outcome::ToolOutcome;
use crate::protocol::ErrorCode;
use crate::protocol::model::{ContentBlock, ElicitAction, Role, SamplingContent};
use crate::tool::{Tool, ToolCall};
use crate::{SampleRequest, ToolBuilder};
use serde_json::json;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Pair {
    a: f64,
    b: f64,
}

fn add() -> Tool {
    tool_builder::<Pair, _>("add", |pair, _| {
        Box::pin(async move { ToolOutcome::structured(&(pair.a + pair.b)) })
    })
    .build()
}

/// A tool that runs `body` with its context.
fn with_ctx<F, Fut>(name: &str, body: F) -> Tool
where
    F: Fn(Context) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ToolOutcome> + Send + 'static,
{
    ToolBuilder::new(name, move |call: ToolCall| {
        Box::pin(body(call.context().clone()))
    })
    .build()
}

fn args(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => panic!("not an object"),
    }
}

fn text(result: &CallToolResult) -> &str {
    match &result.content[0] {
        ContentBlock::Text(block) => &block.text,
        other => panic!("not text: {other:?}"),
    }
}

fn server(tools: Vec<Tool>) -> LocalClient {
    Server::new("door", "1").tools(tools).local().unwrap()
}

#[tokio::test]
async fn a_call_gives_the_typed_result_and_the_tool_list_is_typed() {
    let client = server(vec![add()]);
    let tools = client.tools();
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0].name, "add");
    assert_eq!(tools[0].input_schema["required"], json!(["a", "b"]));
    let result = client
        .call("add", args(json!({"a": 1, "b": 2})))
        .await
        .unwrap();
    assert_eq!(result.structured_content, Some(json!(3.0)));
    assert_eq!(text(&result), "3.0");
    assert!(!result.is_error);
}

#[tokio::test]
async fn an_unknown_tool_is_the_wires_error_and_bad_arguments_a_result() {
    let client = server(vec![add()]);
    let err = client.call("nope", Map::new()).await.unwrap_err();
    assert_eq!(err.code, -32602);
    assert_eq!(err.message, "Unknown tool: nope");
    assert_eq!(err.data, Some(json!({"name": "nope"})));
    let result = client
        .call("add", args(json!({"a": "x", "b": 2})))
        .await
        .unwrap();
    assert!(result.is_error);
    assert_eq!(
        text(&result),
        "Invalid arguments for tool 'add': `a`: invalid type: string \"x\", expected f64."
    );
    let missing = client.call("add", args(json!({"a": 1}))).await.unwrap();
    assert_eq!(
        text(&missing),
        "Invalid arguments for tool 'add': missing field `b`."
    );
}

#[tokio::test]
async fn the_live_tool_set_shows() {
    let client = server(vec![add()]);
    let set = client.door.shared.tools.clone();
    set.add(with_ctx("later", |_| async { ToolOutcome::text("hi") }))
        .unwrap();
    assert_eq!(client.tools().len(), 2);
    assert_eq!(text(&client.call("later", Map::new()).await.unwrap()), "hi");
}

#[tokio::test]
async fn two_slow_calls_on_one_handle_run_at_once() {
    // Each call waits for the other: run one after the other, the first
    // would wait alone until its deadline.
    let both = Arc::new(tokio::sync::Barrier::new(2));
    let slow = with_ctx("slow", move |_| {
        let both = Arc::clone(&both);
        async move {
            match tokio::time::timeout(Duration::from_secs(60), both.wait()).await {
                Ok(_) => ToolOutcome::text("met"),
                Err(_) => ToolOutcome::text("alone"),
            }
        }
    });
    let client = server(vec![slow]);
    let other = client.clone();
    let (a, b) = tokio::join!(
        client.call("slow", Map::new()),
        other.call("slow", Map::new())
    );
    assert_eq!(text(&a.unwrap()), "met", "ran one after the other");
    assert_eq!(text(&b.unwrap()), "met", "ran one after the other");
}

#[tokio::test]
async fn dropping_the_call_cancels_it() {
    let seen = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&seen);
    let waits = with_ctx("waits", move |ctx| {
        let flag = Arc::clone(&flag);
        async move {
            // A task of the tool's own outlives the dropped future and
            // sees the cancellation.
            tokio::spawn(async move {
                ctx.cancelled().await;
                flag.store(true, Ordering::SeqCst);
            });
            std::future::pending::<()>().await;
            ToolOutcome::text("never")
        }
    });
    let client = server(vec![waits]);
    let timed = tokio::time::timeout(Duration::from_millis(50), client.call("waits", Map::new()));
    assert!(timed.await.is_err());
    let deadline = Instant::now() + Duration::from_secs(60);
    while !seen.load(Ordering::SeqCst) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert!(seen.load(Ordering::SeqCst), "ctx.cancelled() did not fire");
    assert_eq!(client.door.in_flight.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn progress_and_logs_reach_the_callbacks_typed() {
    let tool = with_ctx("steps", |ctx| async move {
        for step in 1..=3 {
            if ctx
                .progress(f64::from(step), Some(3.0), Some("step"))
                .is_err()
            {
                return ToolOutcome::error("cancelled");
            }
        }
        ctx.log(Level::Debug, "quiet");
        ctx.log(Level::Warning, json!({"loud": true}));
        ToolOutcome::text("ok")
    });
    let client = server(vec![tool]);
    // Without callbacks nothing is reported, and the call works.
    assert_eq!(text(&client.call("steps", Map::new()).await.unwrap()), "ok");
    let progress = Arc::new(Mutex::new(Vec::new()));
    let logs = Arc::new(Mutex::new(Vec::new()));
    let (p, l) = (Arc::clone(&progress), Arc::clone(&logs));
    let options = CallOptions::new()
        .on_progress(move |params| p.lock().unwrap().push(params))
        .on_log(move |params| l.lock().unwrap().push(params))
        .log_level(Level::Info);
    let result = client
        .call_with("steps", Map::new(), options)
        .await
        .unwrap();
    assert_eq!(text(&result), "ok");
    let progress = progress.lock().unwrap();
    assert_eq!(progress.len(), 3);
    assert_eq!(progress[2].progress, 3.0);
    assert_eq!(progress[2].total, Some(3.0));
    assert_eq!(progress[0].message.as_deref(), Some("step"));
    let logs = logs.lock().unwrap();
    assert_eq!(logs.len(), 1, "debug is below the level");
    assert_eq!(logs[0].level, "warning");
    assert_eq!(logs[0].logger.as_deref(), Some("steps"));
    assert_eq!(logs[0].data, json!({"loud": true}));
}

fn asks_name() -> Tool {
    with_ctx("greet", |ctx| async move {
        let declared = ctx.client_capabilities().get("elicitation").is_some();
        let request =
            ElicitRequest::new("Your name?").field("name", FormField::string().required());
        match ctx.elicit("name", request).await {
            Ok(answer) => match answer.content_as::<Map<String, Value>>() {
                Ok(fields) => ToolOutcome::text(format!(
                    "Hello, {}!",
                    fields["name"].as_str().unwrap_or("?")
                )),
                Err(err) => ToolOutcome::error(err.to_string()),
            },
            Err(err) => ToolOutcome::error(format!("declared: {declared}; {err}")),
        }
    })
}

#[tokio::test]
async fn elicitation_reaches_the_callback_and_without_one_the_tool_hears_so() {
    let without = server(vec![asks_name()]);
    let refused = without.call("greet", Map::new()).await.unwrap();
    assert!(refused.is_error);
    assert_eq!(
        text(&refused),
        "declared: false; this client cannot answer questions (it did not declare the elicitation capability)"
    );
    let asked = Arc::new(Mutex::new(None));
    let seen = Arc::clone(&asked);
    let client = without.on_elicitation(move |params: ElicitParams| {
        *seen.lock().unwrap() = Some(params);
        async {
            Ok(ElicitResult {
                action: ElicitAction::Accept,
                content: Some(args(json!({"name": "Ada"}))),
            })
        }
    });
    let result = client.call("greet", Map::new()).await.unwrap();
    assert_eq!(text(&result), "Hello, Ada!");
    let params = asked.lock().unwrap().take().unwrap();
    assert_eq!(params.message, "Your name?");
    assert_eq!(params.mode.as_deref(), Some("form"));
    assert_eq!(
        params.requested_schema.unwrap()["required"],
        json!(["name"])
    );
}

#[tokio::test]
async fn sampling_reaches_the_callback_and_a_failure_reaches_the_tool() {
    let tool = with_ctx("summarize", |ctx| async move {
        let request = SampleRequest::prompt("Summarize: a b c")
            .max_tokens(10)
            .model_hint("claude");
        match ctx.sample("summary", request).await {
            Ok(answer) => ToolOutcome::text(answer.text().unwrap_or_default()),
            Err(err) => ToolOutcome::error(err.to_string()),
        }
    });
    let plain = server(vec![tool]);
    let refused = plain.call("summarize", Map::new()).await.unwrap();
    assert!(
        text(&refused).contains("did not declare the sampling capability"),
        "{refused:?}"
    );
    let client = plain
        .clone()
        .on_sampling(|params: CreateMessageParams| async move {
            assert_eq!(params.max_tokens, 10);
            assert_eq!(
                serde_json::to_value(&params.model_preferences).unwrap(),
                json!({"hints": [{"name": "claude"}]})
            );
            Ok(CreateMessageResult {
                role: Role::Assistant,
                content: SamplingContent::text(format!("{} messages", params.messages.len()))
                    .into(),
                model: "test".into(),
                stop_reason: Some("endTurn".into()),
            })
        });
    let result = client.call("summarize", Map::new()).await.unwrap();
    assert_eq!(text(&result), "1 messages");
    let failing = plain.on_sampling(|_| async { Err(RpcError::internal_error("no model")) });
    let failed = failing.call("summarize", Map::new()).await.unwrap();
    assert_eq!(
        text(&failed),
        "the client failed the sampling request: no model"
    );
}

#[tokio::test]
async fn a_panic_and_a_timeout_are_error_results() {
    let panics = with_ctx("panics", |_| async { panic!("boom") });
    let sleeps = with_ctx("sleeps", |_| async {
        tokio::time::sleep(Duration::from_secs(30)).await;
        ToolOutcome::text("late")
    });
    let client = server(vec![panics, sleeps]);
    let result = client.call("panics", Map::new()).await.unwrap();
    assert!(result.is_error);
    assert!(
        text(&result).contains("failed with an internal error"),
        "{result:?}"
    );
    let options = CallOptions::new().timeout(Duration::from_millis(20));
    let timed = client
        .call_with("sleeps", Map::new(), options)
        .await
        .unwrap();
    assert!(timed.is_error);
    assert_eq!(text(&timed), "The tool 'sleeps' timed out after 20ms.");
}

#[tokio::test]
async fn the_principal_is_presented_and_scopes_are_checked() {
    let guarded = ToolBuilder::new("guarded", |call: ToolCall| {
        let subject = call.context().principal().map(|p| p.subject().to_owned());
        Box::pin(async move { ToolOutcome::text(subject.unwrap_or_default()) })
    })
    .scopes(["admin"])
    .build();
    let client = server(vec![guarded]);
    let alice = client
        .clone()
        .principal(Principal::new("alice", ["admin"], Map::new()));
    assert_eq!(
        text(&alice.call("guarded", Map::new()).await.unwrap()),
        "alice"
    );
    let bob = client.principal(Principal::new("bob", ["read"], Map::new()));
    let err = bob.call("guarded", Map::new()).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::FORBIDDEN.code());
}

#[tokio::test]
async fn the_handle_is_shared_across_tasks() {
    fn shareable<T: Clone + Send + Sync + 'static>(_: &T) {}
    let client = server(vec![add()]);
    shareable(&client);
    // The call's future is `Send`: a host can spawn it.
    let spawned = tokio::spawn({
        let client = client.clone();
        async move { client.call("add", args(json!({"a": 2, "b": 3}))).await }
    });
    let result = spawned.await.unwrap().unwrap();
    assert_eq!(result.structured_content, Some(json!(5.0)));
}
