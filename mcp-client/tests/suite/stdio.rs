//! The client over real pipes: the `everything` example as a child process.

use crate::common;

use common::{Recorder, call, everything, run, stdio};
use mcpfn_client::{ClientError, StdioConfig};
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;

const LEGACY: &str = "2025-11-25";
const SECOND: Duration = Duration::from_secs(10);

fn initialize(capabilities: serde_json::Value) -> serde_json::Value {
    json!({"protocolVersion": LEGACY, "capabilities": capabilities,
        "clientInfo": {"name": "mcp-host-tests", "version": "1"}})
}

#[test]
fn initialize_and_call_a_tool() {
    // Built before the test's clock starts: a first build takes minutes.
    everything();
    run(async {
        let client = stdio(
            StdioConfig::new("everything", everything().to_str().unwrap()),
            Arc::new(Recorder::default()),
        );
        let init = call(&client, "initialize", initialize(json!({})), SECOND)
            .await
            .unwrap();
        assert_eq!(init["protocolVersion"], LEGACY, "{init}");
        assert!(init["capabilities"]["tools"].is_object(), "{init}");
        client
            .notify("notifications/initialized", None, &[])
            .await
            .unwrap();
        let sum = call(
            &client,
            "tools/call",
            json!({"name": "add", "arguments": {"a": 1, "b": 2}}),
            SECOND,
        )
        .await
        .unwrap();
        assert_eq!(sum["structuredContent"], json!({"sum": 3.0}), "{sum}");
        // An unknown method comes back as the server's JSON-RPC error.
        let err = call(&client, "nope/nope", json!({}), SECOND)
            .await
            .unwrap_err();
        assert!(
            matches!(err, ClientError::Rpc(ref e) if e.code == -32601),
            "{err}"
        );
        // Many calls at once, each answered to its own caller.
        let calls = (0..50).map(|i| {
            let client = &client;
            async move {
                let r = call(
                    client,
                    "tools/call",
                    json!({"name": "add", "arguments": {"a": i, "b": 1}}),
                    SECOND,
                )
                .await
                .unwrap();
                assert_eq!(r["structuredContent"]["sum"], json!(f64::from(i) + 1.0));
            }
        });
        futures_join(calls).await;
        assert_eq!(client.pending(), 0);
    });
}

async fn futures_join<F: std::future::Future<Output = ()>>(futures: impl Iterator<Item = F>) {
    let mut set = Vec::new();
    for f in futures {
        set.push(f);
    }
    // Poll them all concurrently on this task.
    let mut pinned: Vec<_> = set.into_iter().map(Box::pin).collect();
    std::future::poll_fn(|cx| {
        pinned.retain_mut(|f| f.as_mut().poll(cx).is_pending());
        if pinned.is_empty() {
            std::task::Poll::Ready(())
        } else {
            std::task::Poll::Pending
        }
    })
    .await;
}

#[test]
fn server_requests_and_notifications_reach_the_handler() {
    // Built before the test's clock starts: a first build takes minutes.
    everything();
    run(async {
        let recorder = Arc::new(Recorder::default());
        let client = stdio(
            StdioConfig::new("everything", everything().to_str().unwrap()),
            recorder.clone(),
        );
        call(
            &client,
            "initialize",
            initialize(json!({"elicitation": {}})),
            SECOND,
        )
        .await
        .unwrap();
        client
            .notify("notifications/initialized", None, &[])
            .await
            .unwrap();
        // Legacy elicitation: a request from the server, answered by the handler.
        let booked = call(
            &client,
            "tools/call",
            json!({"name": "book_table", "arguments": {"party": 2}}),
            SECOND,
        )
        .await
        .unwrap();
        assert_eq!(
            booked["structuredContent"],
            json!({"booked": true, "name": "Ada", "party": 2}),
            "{booked}"
        );
        assert_eq!(recorder.requests.lock().unwrap()[0].0, "elicitation/create");
        // Progress notifications while a call runs.
        let slow = call(
            &client,
            "tools/call",
            json!({"name": "slow", "arguments": {"ms": 50, "steps": 2}, "_meta": {"progressToken": "p1"}}),
            SECOND,
        )
        .await
        .unwrap();
        assert_eq!(slow["isError"], json!(null), "{slow}");
        let progress = recorder.wait_for("notifications/progress").await;
        assert_eq!(progress["progressToken"], "p1", "{progress}");
    });
}

#[test]
fn a_timeout_cancels_the_call_and_the_connection_goes_on() {
    // Built before the test's clock starts: a first build takes minutes.
    everything();
    run(async {
        let client = stdio(
            StdioConfig::new("everything", everything().to_str().unwrap()),
            Arc::new(Recorder::default()),
        );
        call(&client, "initialize", initialize(json!({})), SECOND)
            .await
            .unwrap();
        client
            .notify("notifications/initialized", None, &[])
            .await
            .unwrap();
        let started = std::time::Instant::now();
        let err = call(
            &client,
            "tools/call",
            json!({"name": "slow", "arguments": {"ms": 30000}}),
            Duration::from_millis(300),
        )
        .await
        .unwrap_err();
        assert!(matches!(err, ClientError::Timeout { .. }), "{err}");
        assert!(started.elapsed() < Duration::from_secs(5));
        assert!(
            err.to_string()
                .contains("no response to `tools/call` within 0.3 s"),
            "{err}"
        );
        // A dropped caller cancels too.
        let dropped = tokio::time::timeout(
            Duration::from_millis(200),
            call(
                &client,
                "tools/call",
                json!({"name": "slow", "arguments": {"ms": 30000}}),
                SECOND,
            ),
        )
        .await;
        assert!(dropped.is_err());
        assert_eq!(client.pending(), 0);
        let sum = call(
            &client,
            "tools/call",
            json!({"name": "add", "arguments": {"a": 2, "b": 2}}),
            SECOND,
        )
        .await
        .unwrap();
        assert_eq!(sum["structuredContent"]["sum"], 4.0);
    });
}

#[test]
fn dropping_the_client_kills_the_child() {
    // Built before the test's clock starts: a first build takes minutes.
    everything();
    run(async {
        let config = StdioConfig::new("everything", everything().to_str().unwrap());
        let (transport, inbox) = mcpfn_client::StdioTransport::spawn(config).unwrap();
        let pid = transport.pid().unwrap();
        let client = mcpfn_client::Dispatcher::new(
            Box::new(transport),
            inbox,
            Arc::new(mcpfn_client::NoHandler),
            mcpfn_client::DispatcherConfig::new("everything"),
        );
        call(&client, "initialize", initialize(json!({})), SECOND)
            .await
            .unwrap();
        assert!(std::path::Path::new(&format!("/proc/{pid}")).exists());
        drop(client);
        for _ in 0..100 {
            let status = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            // Gone, or a zombie about to be reaped.
            if status.is_empty() || status.split_whitespace().nth(2) == Some("Z") {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("the child {pid} still runs");
    });
}
