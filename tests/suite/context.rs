//! Context, long-running tools, elicitation and list changes, in process:
//! hand-built tools (`ToolBuilder`) served through the same main loop as
//! stdio, driven by `mcpfn_runtime::testing::wire::Client` and by raw JSON lines.

use mcpfn_runtime::testing::wire::Client;
use mcpfn_runtime::testing::{MemoryTransport, memory};
use mcpfn_runtime::{
    Content, ElicitRequest, Level, ProtocolVersion, Server, State, Structured, Tool, ToolBuilder,
    ToolCall, ToolOutcome,
};
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

const LEGACY: ProtocolVersion = ProtocolVersion::V2025_11_25;

fn tool<F, Fut>(name: &str, f: F) -> Tool
where
    F: Fn(ToolCall) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = ToolOutcome> + Send + 'static,
{
    ToolBuilder::new(name, move |call| Box::pin(f(call))).build()
}

fn counter() -> Tool {
    tool("count", |call| async move {
        let ctx = call.context().clone();
        for i in 1..=3 {
            if let Err(e) = ctx.progress(f64::from(i), Some(3.0), Some("counting")) {
                return ToolOutcome::error(e.to_string());
            }
            // Not increasing: skipped.
            let _ = ctx.progress(0.5, None, None);
            ctx.log(Level::Debug, format!("debug {i}"));
            ctx.log(Level::Warning, json!({"step": i}));
        }
        ToolOutcome::text("done")
    })
}

#[tokio::test]
async fn progress_is_sent_only_with_a_token_in_both_eras() {
    for version in [LEGACY, ProtocolVersion::LATEST] {
        let mut client = Client::builder(Server::new("p", "1").tool(counter()))
            .protocol_version(version)
            .connect()
            .await
            .unwrap();
        let with = client.call_with_progress("count", json!({})).await.unwrap();
        let progress: Vec<f64> = with
            .progress()
            .iter()
            .map(|p| p["progress"].as_f64().unwrap())
            .collect();
        assert_eq!(progress, [1.0, 2.0, 3.0], "{version}");
        assert_eq!(with.progress()[0]["total"], 3.0);
        assert_eq!(with.progress()[0]["message"], "counting");
        let without = client.call("count", json!({})).await.unwrap();
        assert!(without.progress().is_empty(), "{version}");
        assert!(
            without.logs().is_empty(),
            "no log level set: no messages ({version})"
        );
    }
}

#[tokio::test]
async fn log_messages_follow_the_level_in_both_eras() {
    for version in [LEGACY, ProtocolVersion::LATEST] {
        let mut client = Client::builder(Server::new("l", "1").tool(counter()))
            .protocol_version(version)
            .log_level(Level::Warning)
            .connect()
            .await
            .unwrap();
        let result = client.call("count", json!({})).await.unwrap();
        let logs = result.logs();
        assert_eq!(logs.len(), 3, "only warnings pass ({version})");
        assert_eq!(
            logs[0],
            &json!({"level": "warning", "logger": "count", "data": {"step": 1}})
        );
    }
    let mut legacy = Client::builder(Server::new("l", "1").tool(counter()))
        .protocol_version(LEGACY)
        .connect()
        .await
        .unwrap();
    let bad = legacy
        .request("logging/setLevel", json!({"level": "loud"}))
        .await
        .unwrap_err();
    assert_eq!(bad.code, -32602);
    // An unknown per-request log level is invalid params (sent raw: the
    // testing client only sends valid levels).
    let (mut raw, _server) = start(Server::new("l", "1").tool(counter()));
    let line = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "count", "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/logLevel": "loud"}}});
    assert_eq!(ask(&mut raw, line).await["error"]["code"], -32602);
    let mut modern = Client::builder(Server::new("l", "1").tool(counter()))
        .connect()
        .await
        .unwrap();
    let set_level = modern
        .request("logging/setLevel", json!({"level": "info"}))
        .await
        .unwrap_err();
    assert_eq!(
        set_level.code, -32601,
        "logging/setLevel is gone in 2026-07-28"
    );
}

fn start(
    server: Server,
) -> (
    MemoryTransport,
    tokio::task::JoinHandle<std::io::Result<()>>,
) {
    let (client, server_end) = memory();
    let (read, write) = tokio::io::split(server_end);
    (client, tokio::spawn(server.serve(read, write)))
}

async fn recv(client: &mut MemoryTransport) -> Value {
    let line = tokio::time::timeout(Duration::from_secs(10), client.recv())
        .await
        .expect("a line within 10 s")
        .unwrap()
        .expect("the server is still there");
    serde_json::from_str(&line).unwrap()
}

async fn ask(client: &mut MemoryTransport, message: Value) -> Value {
    client.send(&message.to_string()).await.unwrap();
    recv(client).await
}

async fn initialize(client: &mut MemoryTransport, capabilities: Value) {
    let init = json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": capabilities, "clientInfo": {"name": "t", "version": "1"}}});
    let response = ask(client, init).await;
    assert_eq!(response["result"]["protocolVersion"], "2025-11-25");
}

fn call_line(id: Value, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
}

/// A tool that waits until cancelled or 10 s pass; records whether its
/// future was dropped unfinished.
fn sleeper(dropped: Arc<AtomicBool>) -> Tool {
    tool("sleep", move |_call| {
        let dropped = Arc::clone(&dropped);
        async move {
            struct Guard(Arc<AtomicBool>);
            impl Drop for Guard {
                fn drop(&mut self) {
                    self.0.store(true, Ordering::SeqCst);
                }
            }
            let guard = Guard(dropped);
            tokio::time::sleep(Duration::from_secs(10)).await;
            std::mem::forget(guard);
            ToolOutcome::text("woke up")
        }
    })
}

#[tokio::test]
async fn cancellation_drops_the_call_and_sends_nothing_for_it() {
    let dropped = Arc::new(AtomicBool::new(false));
    let (mut client, _server) = start(Server::new("c", "1").tool(sleeper(Arc::clone(&dropped))));
    initialize(&mut client, json!({})).await;
    client
        .send(&call_line(json!("s1"), "sleep", json!({})).to_string())
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "s1", "reason": "user"}});
    client.send(&cancel.to_string()).await.unwrap();
    // Cancelling an unknown or finished id is ignored.
    let unknown = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 999}});
    client.send(&unknown.to_string()).await.unwrap();
    let ping = ask(
        &mut client,
        json!({"jsonrpc": "2.0", "id": "after", "method": "ping"}),
    )
    .await;
    assert_eq!(
        ping["id"], "after",
        "the next line is the ping's, not the cancelled call's"
    );
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(
        dropped.load(Ordering::SeqCst),
        "the tool's future was dropped"
    );
    client.close().await.unwrap();
    assert_eq!(
        client.recv().await.unwrap(),
        None,
        "nothing more, ever, for s1"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cooperative_cancellation_reaches_code_that_never_awaits() {
    // What the tool saw, read here: a panic inside the tool would be caught
    // by the runtime (an error result nobody reads), so no assertion runs
    // in its body.
    let (seen, saw) = tokio::sync::oneshot::channel();
    let seen = std::sync::Mutex::new(Some(seen));
    let running = Arc::new(tokio::sync::Notify::new());
    let started = Arc::clone(&running);
    // A CPU-bound loop: dropping its future cannot stop it, the signal can.
    let spinner = tool("spin", move |call| {
        let seen = seen.lock().unwrap().take();
        let started = Arc::clone(&started);
        async move {
            let ctx = call.context().clone();
            started.notify_one();
            let deadline = Instant::now() + Duration::from_secs(60);
            while !ctx.is_cancelled() && Instant::now() < deadline {
                std::hint::spin_loop();
            }
            let progress = ctx.progress(1.0, None, None).map_err(|e| e.to_string());
            if let Some(seen) = seen {
                let _ = seen.send((ctx.is_cancelled(), progress));
            }
            ToolOutcome::text("never sent")
        }
    });
    let (mut raw, _server) = start(Server::new("c", "1").tool(spinner));
    initialize(&mut raw, json!({})).await;
    raw.send(&call_line(json!(7), "spin", json!({})).to_string())
        .await
        .unwrap();
    // Cancelled once it runs: a cancellation before would name no call.
    running.notified().await;
    let cancel =
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}});
    raw.send(&cancel.to_string()).await.unwrap();
    let (cancelled, progress) = tokio::time::timeout(Duration::from_secs(60), saw)
        .await
        .expect("the loop ended")
        .expect("the tool reported");
    assert!(cancelled, "the loop saw the cancellation");
    let refused = progress.expect_err("progress fails once cancelled, so `?` stops the tool");
    assert!(refused.contains("cancelled"), "{refused}");
    let ping = ask(
        &mut raw,
        json!({"jsonrpc": "2.0", "id": 8, "method": "ping"}),
    )
    .await;
    assert_eq!(ping["id"], 8, "no response for the cancelled call");
}

#[tokio::test]
async fn timeouts_end_calls_with_an_error_result() {
    let slow = |name: &str| {
        tool(name, |_call| async {
            tokio::time::sleep(Duration::from_secs(5)).await;
            ToolOutcome::text("late")
        })
    };
    let per_tool = ToolBuilder::new("per_tool", |_call| {
        Box::pin(async {
            tokio::time::sleep(Duration::from_secs(5)).await;
            ToolOutcome::text("late")
        })
    })
    .timeout(Duration::from_millis(50))
    .build();
    let server = Server::new("t", "1")
        .call_timeout(Duration::from_secs(1))
        .tools([slow("server_default"), per_tool]);
    let mut client = Client::builder(server)
        .protocol_version(LEGACY)
        .connect()
        .await
        .unwrap();
    let started = Instant::now();
    let result = client.call("per_tool", json!({})).await.unwrap();
    assert!(result.is_error());
    assert_eq!(
        result.text(),
        Some("The tool 'per_tool' timed out after 50ms.")
    );
    assert!(started.elapsed() < Duration::from_secs(1));
    let result = client.call("server_default", json!({})).await.unwrap();
    assert_eq!(
        result.text(),
        Some("The tool 'server_default' timed out after 1s.")
    );
}

#[tokio::test]
async fn concurrency_is_limited_and_excess_calls_wait() {
    let running = Arc::new(AtomicUsize::new(0));
    let peak = Arc::new(AtomicUsize::new(0));
    let (r, p) = (Arc::clone(&running), Arc::clone(&peak));
    let work = tool("work", move |_call| {
        let (running, peak) = (Arc::clone(&r), Arc::clone(&p));
        async move {
            let now = running.fetch_add(1, Ordering::SeqCst) + 1;
            peak.fetch_max(now, Ordering::SeqCst);
            tokio::time::sleep(Duration::from_millis(30)).await;
            running.fetch_sub(1, Ordering::SeqCst);
            ToolOutcome::text("ok")
        }
    });
    let (mut raw, _server) = start(Server::new("c", "1").max_concurrent_calls(2).tool(work));
    initialize(&mut raw, json!({})).await;
    for id in 0..6 {
        raw.send(&call_line(json!(id), "work", json!({})).to_string())
            .await
            .unwrap();
    }
    for _ in 0..6 {
        assert_eq!(recv(&mut raw).await["result"]["content"][0]["text"], "ok");
    }
    assert_eq!(peak.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn the_rate_limit_and_the_pending_limit_refuse_with_error_results() {
    let quick = tool("quick", |_call| async { ToolOutcome::text("ok") });
    let mut client = Client::builder(Server::new("r", "1").rate_limit(1, 2).tool(quick))
        .protocol_version(LEGACY)
        .connect()
        .await
        .unwrap();
    assert!(!client.call("quick", json!({})).await.unwrap().is_error());
    assert!(!client.call("quick", json!({})).await.unwrap().is_error());
    let refused = client.call("quick", json!({})).await.unwrap();
    assert!(refused.is_error());
    assert!(
        refused
            .text()
            .unwrap()
            .starts_with("Rate limit exceeded: 'quick' was not run. Retry in "),
        "{refused:?}"
    );

    let dropped = Arc::new(AtomicBool::new(false));
    let (mut raw, _server) = start(
        Server::new("b", "1")
            .max_concurrent_calls(1)
            .max_pending_calls(1)
            .tool(sleeper(dropped)),
    );
    initialize(&mut raw, json!({})).await;
    raw.send(&call_line(json!(1), "sleep", json!({})).to_string())
        .await
        .unwrap();
    let busy = ask(&mut raw, call_line(json!(2), "sleep", json!({}))).await;
    assert_eq!(busy["id"], 2);
    assert_eq!(busy["result"]["isError"], true);
    assert!(
        busy["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("The server is busy")
    );
    // A second call reusing the id of a call in flight is refused.
    let duplicate = ask(&mut raw, call_line(json!(1), "sleep", json!({}))).await;
    assert_eq!(duplicate["error"]["code"], -32600);
}

struct Greeting(&'static str);

#[tokio::test]
async fn state_is_shared_and_checked_at_startup() {
    let greet = ToolBuilder::new("greet", |call| {
        Box::pin(async move {
            let greeting: State<Greeting> = call.context().state().expect("registered");
            ToolOutcome::text(greeting.0)
        })
    })
    .requires_state::<Greeting>()
    .build();
    let mut client = Client::builder(
        Server::new("s", "1")
            .state(Greeting("hello"))
            .tool(greet.clone()),
    )
    .connect()
    .await
    .unwrap();
    assert_eq!(
        client.call("greet", json!({})).await.unwrap().text(),
        Some("hello")
    );
    let (_raw, server) = start(Server::new("s", "1").tool(greet));
    let err = server.await.unwrap().unwrap_err();
    assert!(err.to_string().contains("takes State<"), "{err}");
    assert!(err.to_string().contains("Greeting"), "{err}");
}

/// Asks for a name, then greets; says so when the user declines.
fn asker() -> Tool {
    tool("ask_name", |call| async move {
        let ctx = call.context().clone();
        let form = ElicitRequest::form(
            "What is your name?",
            json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
        );
        match ctx.elicit("name", form).await {
            Ok(answer) if answer.is_accepted() => {
                let name = answer.content.unwrap_or_default()["name"]
                    .as_str()
                    .unwrap_or("?")
                    .to_owned();
                ToolOutcome::text(format!("Hello, {name}!"))
            }
            Ok(answer) => ToolOutcome::text(format!("No name given ({:?})", answer.action)),
            Err(err) => ToolOutcome::error(err.to_string()),
        }
    })
}

#[tokio::test]
async fn elicitation_works_the_same_in_both_eras() {
    for version in [
        ProtocolVersion::V2025_06_18,
        LEGACY,
        ProtocolVersion::LATEST,
    ] {
        let seen = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&seen);
        let mut client = Client::builder(Server::new("e", "1").tool(asker()))
            .protocol_version(version)
            .on_elicitation(move |params| {
                counter.fetch_add(1, Ordering::SeqCst);
                assert_eq!(params["message"], "What is your name?");
                json!({"action": "accept", "content": {"name": "Ada"}})
            })
            .connect()
            .await
            .unwrap();
        let result = client.call("ask_name", json!({})).await.unwrap();
        assert_eq!(result.text(), Some("Hello, Ada!"), "{version}");
        assert_eq!(seen.load(Ordering::SeqCst), 1, "{version}");

        let mut decliner = Client::builder(Server::new("e", "1").tool(asker()))
            .protocol_version(version)
            .on_elicitation(|_| json!({"action": "decline"}))
            .connect()
            .await
            .unwrap();
        let result = decliner.call("ask_name", json!({})).await.unwrap();
        assert_eq!(result.text(), Some("No name given (Decline)"), "{version}");
    }
}

#[tokio::test]
async fn legacy_elicitation_is_a_real_server_request() {
    let (mut raw, _server) = start(Server::new("e", "1").tool(asker()));
    initialize(&mut raw, json!({"elicitation": {}})).await;
    raw.send(&call_line(json!(1), "ask_name", json!({})).to_string())
        .await
        .unwrap();
    let request = recv(&mut raw).await;
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(request["params"]["mode"], "form");
    assert!(request["id"].is_string(), "a fresh id of the server's own");
    let reply = json!({"jsonrpc": "2.0", "id": request["id"], "result": {"action": "accept", "content": {"name": "Lin"}}});
    let done = ask(&mut raw, reply).await;
    assert_eq!(done["id"], 1);
    assert_eq!(done["result"]["content"][0]["text"], "Hello, Lin!");

    // Without the capability the tool gets an error it can report.
    let (mut plain, _server) = start(Server::new("e", "1").tool(asker()));
    initialize(&mut plain, json!({})).await;
    let refused = ask(&mut plain, call_line(json!(2), "ask_name", json!({}))).await;
    assert_eq!(refused["result"]["isError"], true);
    assert!(
        refused["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("elicitation capability")
    );
}

fn modern_call(id: u64, name: &str, capabilities: Value, extra: Value) -> Value {
    let mut params = json!({"name": name, "arguments": {}, "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities}});
    if let (Some(params), Value::Object(extra)) = (params.as_object_mut(), extra) {
        params.extend(extra);
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

#[tokio::test]
async fn modern_elicitation_is_input_required_with_sealed_state() {
    let (mut raw, _server) = start(Server::new("e", "1").tool(asker()));
    let first = ask(
        &mut raw,
        modern_call(1, "ask_name", json!({"elicitation": {}}), json!({})),
    )
    .await;
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required");
    assert_eq!(
        result["inputRequests"]["name"]["method"],
        "elicitation/create"
    );
    assert_eq!(
        result["inputRequests"]["name"]["params"]["message"],
        "What is your name?"
    );
    assert!(result.get("ttlMs").is_none() && result.get("content").is_none());
    let state = result["requestState"].as_str().unwrap().to_owned();

    let answer = json!({"inputResponses": {"name": {"action": "accept", "content": {"name": "Kay"}}}, "requestState": state});
    let second = ask(
        &mut raw,
        modern_call(2, "ask_name", json!({"elicitation": {}}), answer),
    )
    .await;
    assert_eq!(second["result"]["resultType"], "complete");
    assert_eq!(second["result"]["content"][0]["text"], "Hello, Kay!");

    let mut tampered = state.clone();
    tampered.replace_range(0..1, if tampered.starts_with('A') { "B" } else { "A" });
    let bad = json!({"inputResponses": {"name": {"action": "accept", "content": {"name": "Eve"}}}, "requestState": tampered});
    let refused = ask(
        &mut raw,
        modern_call(3, "ask_name", json!({"elicitation": {}}), bad),
    )
    .await;
    assert_eq!(refused["error"]["code"], -32602);
    assert_eq!(
        refused["error"]["message"],
        "Invalid params: requestState is not one this server issued"
    );

    let no_capability = ask(&mut raw, modern_call(4, "ask_name", json!({}), json!({}))).await;
    assert_eq!(
        no_capability["error"],
        json!({"code": -32021, "message": "Missing required client capability",
            "data": {"requiredCapabilities": {"elicitation": {}}}})
    );
}

fn toggler() -> Tool {
    tool("toggle", |call| async move {
        let tools = call.context().tools();
        if tools.is_enabled("extra") {
            tools.disable("extra");
            ToolOutcome::text("disabled extra")
        } else {
            tools.enable("extra");
            ToolOutcome::text("enabled extra")
        }
    })
}

fn extra() -> Tool {
    tool("extra", |_call| async { ToolOutcome::text("extra") })
}

#[tokio::test]
async fn legacy_clients_hear_of_list_changes() {
    let mut client = Client::builder(Server::new("t", "1").tools([toggler(), extra()]))
        .protocol_version(LEGACY)
        .connect()
        .await
        .unwrap();
    assert_eq!(client.list_tools().await.unwrap().len(), 2);
    client.call("toggle", json!({})).await.unwrap();
    let note = client
        .next_notification(Duration::from_secs(5))
        .await
        .unwrap();
    assert_eq!(
        note,
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {}})
    );
    let names: Vec<Value> = client
        .list_tools()
        .await
        .unwrap()
        .iter()
        .map(|t| t["name"].clone())
        .collect();
    assert_eq!(names, [json!("toggle")]);
    let gone = client.call("extra", json!({})).await.unwrap_err();
    assert_eq!(gone.code, -32602, "a disabled tool cannot be called");
}

#[tokio::test]
async fn modern_clients_hear_of_list_changes_only_on_a_subscription() {
    let (mut raw, _server) = start(Server::new("t", "1").tools([toggler(), extra()]));
    // A call without a subscription: no notification follows.
    let toggled = ask(&mut raw, modern_call(1, "toggle", json!({}), json!({}))).await;
    assert_eq!(toggled["result"]["content"][0]["text"], "disabled extra");
    let listen = json!({"jsonrpc": "2.0", "id": "listen-1", "method": "subscriptions/listen", "params": {
        "notifications": {"toolsListChanged": true, "promptsListChanged": true},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}}});
    let ack = ask(&mut raw, listen).await;
    assert_eq!(
        ack,
        json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged", "params": {
            "_meta": {"io.modelcontextprotocol/subscriptionId": "listen-1"},
            "notifications": {"toolsListChanged": true}}})
    );
    raw.send(&modern_call(2, "toggle", json!({}), json!({})).to_string())
        .await
        .unwrap();
    let mut seen = [recv(&mut raw).await, recv(&mut raw).await];
    seen.sort_by_key(|m| m.get("id").is_some());
    assert_eq!(
        seen[0],
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {
            "_meta": {"io.modelcontextprotocol/subscriptionId": "listen-1"}}})
    );
    assert_eq!(seen[1]["id"], 2);
    // Cancelling the listen request ends the subscription: no more notifications.
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "listen-1"}});
    raw.send(&cancel.to_string()).await.unwrap();
    let third = ask(&mut raw, modern_call(3, "toggle", json!({}), json!({}))).await;
    assert_eq!(third["id"], 3);
    raw.close().await.unwrap();
    assert_eq!(
        raw.recv().await.unwrap(),
        None,
        "no notification after the subscription ended"
    );
}

#[tokio::test]
async fn open_subscriptions_get_their_final_response_at_shutdown() {
    let (mut raw, server) = start(Server::new("t", "1").tool(extra()));
    let listen = json!({"jsonrpc": "2.0", "id": 5, "method": "subscriptions/listen", "params": {
        "notifications": {"toolsListChanged": true},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}}});
    ask(&mut raw, listen).await;
    raw.close().await.unwrap();
    let end = recv(&mut raw).await;
    assert_eq!(
        end,
        json!({"jsonrpc": "2.0", "id": 5, "result": {"resultType": "complete",
            "_meta": {"io.modelcontextprotocol/subscriptionId": 5}}})
    );
    server.await.unwrap().unwrap();
}

#[tokio::test]
async fn shutdown_waits_for_calls_then_cancels_past_the_drain_timeout() {
    let slowish = tool("slowish", |_call| async {
        tokio::time::sleep(Duration::from_millis(100)).await;
        ToolOutcome::text("finished")
    });
    let dropped = Arc::new(AtomicBool::new(false));
    let server = Server::new("d", "1")
        .drain_timeout(Duration::from_millis(400))
        .tools([slowish, sleeper(Arc::clone(&dropped))]);
    let (mut raw, handle) = start(server);
    initialize(&mut raw, json!({})).await;
    raw.send(&call_line(json!(1), "slowish", json!({})).to_string())
        .await
        .unwrap();
    raw.send(&call_line(json!(2), "sleep", json!({})).to_string())
        .await
        .unwrap();
    raw.close().await.unwrap();
    let started = Instant::now();
    let first = recv(&mut raw).await;
    assert_eq!(first["result"]["content"][0]["text"], "finished");
    let second = recv(&mut raw).await;
    assert_eq!(
        second,
        json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32603, "message": "The server shut down before the call finished"}})
    );
    handle.await.unwrap().unwrap();
    assert!(started.elapsed() < Duration::from_secs(2));
    assert!(dropped.load(Ordering::SeqCst));
}

/// An output that takes one write every 20 ms: a client that reads slowly.
struct SlowOutput {
    written: Arc<std::sync::Mutex<Vec<u8>>>,
    next: std::pin::Pin<Box<tokio::time::Sleep>>,
}

impl tokio::io::AsyncWrite for SlowOutput {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        bytes: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        std::task::ready!(self.next.as_mut().poll(cx));
        self.written.lock().unwrap().extend_from_slice(bytes);
        let next = tokio::time::Instant::now() + Duration::from_millis(20);
        self.next.as_mut().reset(next);
        std::task::Poll::Ready(Ok(bytes.len()))
    }

    fn poll_flush(
        self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn poll_shutdown(
        self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::task::Poll::Ready(Ok(()))
    }
}

#[tokio::test]
async fn a_call_cancelled_by_the_drain_timeout_is_answered_to_a_slow_reader() {
    // Cancelled at the very end of the drain, the error response would be
    // queued just as the loop gives up writing: calls are cancelled a tenth
    // of the drain (here 40 ms) earlier, so it still goes out.
    let dropped = Arc::new(AtomicBool::new(false));
    let server = Server::new("d", "1")
        .drain_timeout(Duration::from_millis(400))
        .tool(sleeper(Arc::clone(&dropped)));
    let init = json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let input = format!("{init}\n{}\n", call_line(json!(2), "sleep", json!({})));
    let written = Arc::new(std::sync::Mutex::new(Vec::new()));
    let output = SlowOutput {
        written: Arc::clone(&written),
        next: Box::pin(tokio::time::sleep(Duration::ZERO)),
    };
    let started = Instant::now();
    server.serve(input.as_bytes(), output).await.unwrap();
    assert!(started.elapsed() < Duration::from_secs(2));
    let written = String::from_utf8(written.lock().unwrap().clone()).unwrap();
    let lines: Vec<Value> = written
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{written}");
    assert_eq!(
        lines[1],
        json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32603, "message": "The server shut down before the call finished"}})
    );
    assert!(
        dropped.load(Ordering::SeqCst),
        "the call's future was dropped"
    );
}

#[tokio::test]
async fn mixed_content_degrades_per_version() {
    let mixed = tool("mixed", |_call| async {
        ToolOutcome::Content(vec![
            Content::text("summary"),
            Content::image(b"\x89PNG\r\n\x1a\n", "image/png"),
            Content::audio(b"RIFF", "audio/wav"),
            Content::resource_link("file:///report.pdf", "report.pdf").mime_type("application/pdf"),
            Content::embedded_text("mem://notes", "hello").mime_type("text/plain"),
        ])
    });
    let mut modern = Client::builder(Server::new("m", "1").tool(mixed.clone()))
        .connect()
        .await
        .unwrap();
    let result = modern.call("mixed", json!({})).await.unwrap();
    let kinds = result.content_types();
    assert_eq!(
        kinds,
        ["text", "image", "audio", "resource_link", "resource"]
    );
    let mut old = Client::builder(Server::new("m", "1").tool(mixed))
        .protocol_version(ProtocolVersion::V2024_11_05)
        .connect()
        .await
        .unwrap();
    let result = old.call("mixed", json!({})).await.unwrap();
    let kinds = result.content_types();
    assert_eq!(kinds, ["text", "image", "text", "text", "resource"]);
}

/// How loud `beep` was.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Loudness {
    /// Decibels.
    db: f64,
}

/// Beep, and say how loud; the sound and a link to it come beside the figure.
#[mcpfn_runtime::tool]
async fn beep(db: f64) -> anyhow::Result<Structured<Loudness>> {
    anyhow::ensure!(db >= 0.0, "db must not be negative");
    Ok(Structured::new(Loudness { db })
        .with(Content::audio(b"RIFF", "audio/wav"))
        .with(Content::resource_link("file:///beep.wav", "beep.wav")))
}

#[tokio::test]
async fn blocks_beside_structured_output_degrade_per_version() {
    let mirror = json!({"type": "text", "text": "{\"db\":3.0}"});
    let audio = json!({"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"});
    let no_audio = json!({"type": "text", "text": "[audio/wav audio of 8 base64 bytes omitted: this protocol version cannot carry audio]"});
    let link = json!({"type": "resource_link", "uri": "file:///beep.wav", "name": "beep.wav"});
    let no_link = json!({"type": "text", "text": "[resource beep.wav: file:///beep.wav]"});
    let cases = [
        (
            ProtocolVersion::V2024_11_05,
            json!({"content": [mirror, no_audio, no_link]}),
        ),
        (
            ProtocolVersion::V2025_03_26,
            json!({"content": [mirror, audio, no_link]}),
        ),
        (
            ProtocolVersion::V2025_06_18,
            json!({"content": [mirror, audio, link], "structuredContent": {"db": 3.0}}),
        ),
    ];
    for (version, expected) in cases {
        let mut client = Client::builder(Server::new("b", "1").tools(mcpfn_runtime::tools![beep]))
            .protocol_version(version)
            .connect()
            .await
            .unwrap();
        let result = client.call("beep", json!({"db": 3})).await.unwrap();
        assert_eq!(result.result, expected, "{version}");
        let failed = client.call("beep", json!({"db": -1})).await.unwrap();
        assert_eq!(
            failed.result,
            json!({"content": [{"type": "text", "text": "db must not be negative"}], "isError": true}),
            "{version}"
        );
    }
}

#[tokio::test]
async fn an_elicitation_after_input_ended_fails_at_once() {
    // The tool awaits first, so it asks only after the client has gone.
    let late = tool("late_ask", |call| async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let form = ElicitRequest::form("Still there?", json!({"type": "object", "properties": {}}));
        match call.context().elicit("still", form).await {
            Ok(_) => ToolOutcome::text("answered"),
            Err(err) => ToolOutcome::error(err.to_string()),
        }
    });
    let (mut raw, server) = start(Server::new("e", "1").tool(late));
    initialize(&mut raw, json!({"elicitation": {}})).await;
    raw.send(&call_line(json!(1), "late_ask", json!({})).to_string())
        .await
        .unwrap();
    raw.close().await.unwrap();
    let started = Instant::now();
    let answer = recv(&mut raw).await;
    assert_eq!(answer["id"], 1);
    assert_eq!(
        answer["result"]["content"][0]["text"],
        "the client went away before answering"
    );
    server.await.unwrap().unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "no drain-timeout wait"
    );
}

/// `testing::Client`, the layer over the in-process door: the same tools,
/// the same answers as over the wire, with typed results.
mod door_client {
    use super::{LEGACY, asker, counter, tool};
    use mcpfn_runtime::testing::{Client, wire};
    use mcpfn_runtime::{Level, Server, ToolOutcome};
    use serde_json::json;
    use std::sync::Arc;
    use std::time::Duration;

    #[tokio::test]
    async fn progress_only_when_asked_and_logs_from_the_level() {
        let client = Client::builder(Server::new("p", "1").tool(counter()))
            .log_level(Level::Warning)
            .connect()
            .await
            .unwrap();
        let with = client.call_with_progress("count", json!({})).await.unwrap();
        let progress: Vec<f64> = with.progress().iter().map(|p| p.progress).collect();
        assert_eq!(progress, [1.0, 2.0, 3.0]);
        assert_eq!(with.progress()[0].total, Some(3.0));
        assert_eq!(with.logs().len(), 3, "only warnings pass");
        assert_eq!(with.logs()[0].data, json!({"step": 1}));
        assert_eq!(with.logs()[0].logger.as_deref(), Some("count"));
        let without = client.call("count", json!({})).await.unwrap();
        assert!(without.progress().is_empty());
        assert_eq!(without.text(), Some("done"));

        let quiet = Client::builder(Server::new("p", "1").tool(counter()))
            .connect()
            .await
            .unwrap();
        assert!(
            quiet
                .call("count", json!({}))
                .await
                .unwrap()
                .logs()
                .is_empty(),
            "no level, no logs"
        );
    }

    #[tokio::test]
    async fn elicitation_answers_as_over_the_wire_and_a_bad_answer_is_the_tools_error() {
        for version in [LEGACY, mcpfn_runtime::ProtocolVersion::LATEST] {
            let door = Client::builder(Server::new("e", "1").tool(asker()))
                .protocol_version(version)
                .on_elicitation(|params| {
                    assert_eq!(params["message"], "What is your name?");
                    json!({"action": "accept", "content": {"name": "Ada"}})
                })
                .connect()
                .await
                .unwrap();
            assert_eq!(door.protocol_version(), version);
            let mut over_the_wire = wire::Client::builder(Server::new("e", "1").tool(asker()))
                .protocol_version(version)
                .on_elicitation(|_| json!({"action": "accept", "content": {"name": "Ada"}}))
                .connect()
                .await
                .unwrap();
            let local = door.call("ask_name", json!({})).await.unwrap();
            let wired = over_the_wire.call("ask_name", json!({})).await.unwrap();
            assert_eq!(local.text(), Some("Hello, Ada!"), "{version}");
            assert_eq!(local.text(), wired.text(), "{version}");
            assert_eq!(local.content_types(), ["text"]);
        }
        let confused = Client::builder(Server::new("e", "1").tool(asker()))
            .on_elicitation(|_| json!({"action": "maybe"}))
            .connect()
            .await
            .unwrap();
        let result = confused.call("ask_name", json!({})).await.unwrap();
        assert!(result.is_error());
        assert!(
            result
                .text()
                .unwrap()
                .contains("elicitation handler answered"),
            "{result:?}"
        );
        let unasked = Client::builder(Server::new("e", "1").tool(asker()))
            .connect()
            .await
            .unwrap();
        let result = unasked.call("ask_name", json!({})).await.unwrap();
        assert!(result.is_error(), "no handler: no elicitation capability");
    }

    #[tokio::test]
    async fn calls_run_at_once_and_refusals_are_errors() {
        // Each call waits for the other: run one after the other, the
        // first would wait alone until its deadline.
        let both = Arc::new(tokio::sync::Barrier::new(2));
        let slow = tool("slow", move |_call| {
            let both = Arc::clone(&both);
            async move {
                match tokio::time::timeout(Duration::from_secs(60), both.wait()).await {
                    Ok(_) => ToolOutcome::text("met"),
                    Err(_) => ToolOutcome::text("alone"),
                }
            }
        });
        let client = Client::builder(Server::new("c", "1").tool(slow))
            .connect()
            .await
            .unwrap();
        let clone = client.clone();
        let (a, b) = tokio::join!(
            client.call("slow", json!({})),
            clone.call("slow", serde_json::Value::Null)
        );
        assert_eq!(a.unwrap().text(), Some("met"), "ran one after the other");
        assert_eq!(b.unwrap().text(), Some("met"), "ran one after the other");
        assert_eq!(client.tools()[0].name, "slow");
        let unknown = client.call("nope", json!({})).await.unwrap_err();
        assert_eq!(unknown.code, -32602);
        let not_an_object = client.call("slow", json!([1])).await.unwrap_err();
        assert_eq!(not_an_object.code, -32602);
        assert!(not_an_object.message.contains("must be an object"));
    }
}

/// A tool that answers with its request's `_meta` as its context has it.
fn meta_echo() -> Tool {
    tool("meta", |call| async move {
        ToolOutcome::text(
            call.context()
                .meta()
                .map_or_else(|| "none".to_owned(), Value::to_string),
        )
    })
}

#[tokio::test]
async fn the_context_has_the_requests_whole_meta_in_both_eras() {
    let (mut client, _server) = start(Server::new("m", "1").tool(meta_echo()));
    let sent = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        "io.modelcontextprotocol/logLevel": "debug",
        "progressToken": 5,
        "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "com.example/deep": {"list": [1, 2.5, null], "text": "é\n"},
    });
    // One key spelled with an escape: the context has the key it names.
    let line = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "meta", "arguments": {}, "_meta": sent}})
    .to_string()
    .replace("com.example/deep", "com.example\\/deep");
    client.send(&line).await.unwrap();
    let answer = recv(&mut client).await;
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    assert_eq!(serde_json::from_str::<Value>(text).unwrap(), sent);

    let (mut client, _server) = start(Server::new("m", "1").tool(meta_echo()));
    initialize(&mut client, json!({})).await;
    // The envelope's keys in a legacy session are only keys: kept as sent.
    let legacy = json!({"progressToken": "p1", "com.example/x": 1,
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"roots": {}}});
    let answer = ask(
        &mut client,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "meta", "arguments": {}, "_meta": legacy}}),
    )
    .await;
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    assert_eq!(serde_json::from_str::<Value>(text).unwrap(), legacy);
    let answer = ask(&mut client, call_line(json!(3), "meta", json!({}))).await;
    assert_eq!(answer["result"]["content"][0]["text"], "none");
}
