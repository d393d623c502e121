//! Each tool call's `mcp.tool_call` span, as an OpenTelemetry subscriber
//! sees it: the `otel` example exports every finished span as a JSON line
//! on stderr. Over stdio the caller's trace context comes from
//! `params._meta` (2026-07-28); over HTTP from the `traceparent` header too.

use crate::common;

use common::http::{MODERN, Server};
use common::{call, example_binary, request};
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The host's trace and span, as a W3C `traceparent` carries them.
const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_ID: &str = "00f067aa0ba902b7";

fn traceparent() -> String {
    format!("00-{TRACE_ID}-{PARENT_ID}-01")
}

/// A 2026-07-28 `tools/call` whose `_meta` also carries `extra`.
fn traced_call(id: u64, name: &str, arguments: Value, extra: Value) -> Value {
    let mut message = call(id, name, arguments, true);
    let meta = message["params"]["_meta"].as_object_mut().unwrap();
    meta.extend(extra.as_object().unwrap().clone());
    message
}

/// The spans among the lines of `stderr`.
fn spans(stderr: &str) -> Vec<Value> {
    stderr
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|span| span["name"] == "mcp.tool_call")
        .collect()
}

/// Whether `span` is that of request `id` (attributes are exported as text).
fn is_request(span: &Value, id: u64) -> bool {
    span["attributes"]["jsonrpc.request.id"]
        .as_str()
        .and_then(|text| text.parse::<u64>().ok())
        == Some(id)
}

/// The span of request `id`.
fn span_of(spans: &[Value], id: u64) -> Value {
    spans
        .iter()
        .find(|span| is_request(span, id))
        .unwrap_or_else(|| panic!("no span for request {id} in {spans:#?}"))
        .clone()
}

/// Runs the `otel` example over stdio on `messages` until it exits at the
/// end of its input; returns its responses and its spans.
fn over_stdio(messages: &[Value]) -> (Vec<Value>, Vec<Value>) {
    let (responses, stderr) = run_stdio("otel", &[], messages);
    (responses, spans(&stderr))
}

/// Runs `example` over stdio on `messages` until it exits at the end of its
/// input; returns its responses and its stderr.
fn run_stdio(example: &str, env: &[(&str, &str)], messages: &[Value]) -> (Vec<Value>, String) {
    let mut child = Command::new(example_binary(example))
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the example starts");
    let mut input = String::new();
    for message in messages {
        input.push_str(&message.to_string());
        input.push('\n');
    }
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).unwrap();
    drop(stdin);
    let mut stderr = String::new();
    let mut stderr_pipe = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let _ = stderr_pipe.read_to_string(&mut stderr);
        stderr
    });
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    let status = child.wait().unwrap();
    let stderr = reader.join().unwrap();
    assert!(status.success(), "{status}: {stderr}");
    let responses = stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("JSON"))
        .collect();
    (responses, stderr)
}

fn response(responses: &[Value], id: u64) -> &Value {
    responses
        .iter()
        .find(|r| r["id"] == id)
        .unwrap_or_else(|| panic!("no response {id} in {responses:?}"))
}

#[test]
fn over_stdio_a_traceparent_in_meta_makes_the_call_span_its_child() {
    let extra = json!({"traceparent": traceparent(), "tracestate": "vendor=1"});
    let (responses, spans) = over_stdio(&[traced_call(1, "add", json!({"a": 1, "b": 2}), extra)]);
    assert_eq!(
        response(&responses, 1)["result"]["structuredContent"]["sum"],
        3.0
    );
    let span = span_of(&spans, 1);
    assert_eq!(span["trace_id"], TRACE_ID, "{span:#}");
    assert_eq!(span["parent_span_id"], PARENT_ID, "{span:#}");
    assert_eq!(span["parent_is_remote"], true);
    assert_eq!(span["kind"], "Server");
    let attributes = &span["attributes"];
    assert_eq!(attributes["gen_ai.tool.name"], "add");
    assert_eq!(attributes["mcp.method.name"], "tools/call");
    assert_eq!(attributes["mcp.protocol.version"], MODERN);
    assert_eq!(attributes["mcp.era"], "stateless");
    assert_eq!(attributes["outcome"], "ok");
    assert_eq!(attributes["traceparent"], traceparent());
    assert_eq!(attributes["tracestate"], "vendor=1");
    let duration: f64 = attributes["duration_ms"].as_str().unwrap().parse().unwrap();
    assert!(duration >= 0.0, "{attributes}");
}

#[test]
fn over_stdio_an_invalid_traceparent_is_ignored_and_the_call_succeeds() {
    let invalid = [
        json!({"traceparent": format!("00-{}-{PARENT_ID}-01", "0".repeat(32))}),
        json!({"traceparent": format!("00-{TRACE_ID}-0000000000000000-01")}),
        json!({"traceparent": format!("00-{}-{PARENT_ID}-01", TRACE_ID.to_uppercase())}),
        json!({"traceparent": 42, "tracestate": "vendor=1"}),
        json!({"traceparent": "garbage"}),
    ];
    let messages: Vec<Value> = invalid
        .iter()
        .zip(1..)
        .map(|(extra, id)| traced_call(id, "add", json!({"a": 1, "b": 1}), extra.clone()))
        .collect();
    let (responses, spans) = over_stdio(&messages);
    for id in 1..=invalid.len() as u64 {
        let answer = response(&responses, id);
        assert_eq!(
            answer["result"]["structuredContent"]["sum"], 2.0,
            "{answer}"
        );
        let span = span_of(&spans, id);
        // A root span of a trace of its own.
        assert_ne!(span["trace_id"], TRACE_ID, "{span:#}");
        assert_eq!(span["parent_span_id"], "0000000000000000", "{span:#}");
        assert_eq!(span["attributes"]["traceparent"], Value::Null, "{span:#}");
        assert_eq!(span["attributes"]["outcome"], "ok");
    }
}

#[test]
fn over_stdio_the_span_records_an_is_error_outcome_and_a_legacy_call() {
    let (responses, spans) = over_stdio(&[
        common::initialize(1, "2025-11-25"),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        call(2, "fail", json!({"reason": "no"}), false),
        call(3, "echo", json!({"text": "hi"}), false),
    ]);
    assert_eq!(response(&responses, 2)["result"]["isError"], true);
    let failed = span_of(&spans, 2);
    assert_eq!(failed["attributes"]["outcome"], "isError", "{failed:#}");
    assert!(
        failed["status"].as_str().unwrap().starts_with("Error"),
        "{failed:#}"
    );
    let echoed = span_of(&spans, 3);
    assert_eq!(echoed["attributes"]["outcome"], "ok");
    assert_eq!(echoed["status"], "Ok");
    assert_eq!(echoed["attributes"]["mcp.era"], "legacy");
    assert_eq!(echoed["attributes"]["mcp.protocol.version"], "2025-11-25");
    assert_eq!(echoed["parent_span_id"], "0000000000000000");
    // One span per call: none for the handshake.
    assert_eq!(spans.len(), 2, "{spans:#?}");
}

/// Waits until the server has logged the span of request `id`.
fn wait_for_span(server: &Server, id: u64) -> Value {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let spans = spans(&server.log());
        if let Some(span) = spans.iter().find(|span| is_request(span, id)) {
            return span.clone();
        }
        assert!(
            Instant::now() < deadline,
            "no span for request {id}: {}",
            server.log()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn over_http_the_traceparent_header_links_the_call_and_meta_wins_over_it() {
    let server = Server::start_example("otel", &[]);
    let header = traceparent();
    let headers = [("traceparent", header.as_str()), ("tracestate", "vendor=2")];
    // The header alone, in the 2026-07-28 era.
    let answer = server
        .modern(&call(1, "add", json!({"a": 2, "b": 2}), true), &headers)
        .json();
    assert_eq!(answer["result"]["structuredContent"]["sum"], 4.0);
    let span = wait_for_span(&server, 1);
    assert_eq!(span["trace_id"], TRACE_ID, "{span:#}");
    assert_eq!(span["parent_span_id"], PARENT_ID, "{span:#}");
    assert_eq!(span["attributes"]["tracestate"], "vendor=2");

    // `_meta` names another parent: the call's own context wins.
    let own = "0af7651916cd43dd8448eb211c80319c";
    let message = traced_call(
        2,
        "add",
        json!({"a": 1, "b": 1}),
        json!({"traceparent": format!("00-{own}-b7ad6b7169203331-01")}),
    );
    assert_eq!(server.modern(&message, &headers).status, 200);
    let span = wait_for_span(&server, 2);
    assert_eq!(span["trace_id"], own, "{span:#}");
    assert_eq!(span["parent_span_id"], "b7ad6b7169203331", "{span:#}");
}

#[test]
fn over_http_an_invalid_traceparent_header_is_ignored() {
    let server = Server::start_example("otel", &[]);
    for (id, value) in [
        (1, "00-xyz"),
        (2, "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
    ] {
        let response = server.modern(
            &call(id, "fail", json!({}), true),
            &[("traceparent", value)],
        );
        assert_eq!(response.status, 200, "{response:?}");
        assert_eq!(response.json()["result"]["isError"], true);
        let span = wait_for_span(&server, id);
        assert_eq!(span["parent_span_id"], "0000000000000000", "{span:#}");
        assert_eq!(span["attributes"]["outcome"], "isError");
    }
}

#[test]
fn over_http_a_legacy_session_call_takes_the_header_context() {
    let server = Server::start_example("otel", &[]);
    let init = server.post(&[], &common::initialize(1, "2025-11-25").to_string());
    assert_eq!(init.status, 200, "{init:?}");
    let session = init
        .header("mcp-session-id")
        .expect("a session id")
        .to_owned();
    let header = traceparent();
    let response = server.post(
        &[
            ("mcp-session-id", session.as_str()),
            ("mcp-protocol-version", "2025-11-25"),
            ("traceparent", header.as_str()),
        ],
        &request(
            2,
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "x"}}),
            false,
        )
        .to_string(),
    );
    assert_eq!(response.status, 200, "{response:?}");
    let span = wait_for_span(&server, 2);
    assert_eq!(span["trace_id"], TRACE_ID, "{span:#}");
    assert_eq!(span["attributes"]["mcp.era"], "legacy");
}

#[test]
fn the_call_target_alone_turns_on_the_per_call_debug_line() {
    // The line's target is `mcpfn_runtime::call`; filtering on it alone must
    // be enough (the clock used to be read only under the module's target).
    let (responses, stderr) = run_stdio(
        "everything",
        &[("MCP_LOG", "mcpfn_runtime::call=debug")],
        &[traced_call(
            1,
            "add",
            json!({"a": 1, "b": 2}),
            json!({"traceparent": traceparent()}),
        )],
    );
    assert_eq!(
        response(&responses, 1)["result"]["structuredContent"]["sum"],
        3.0
    );
    let line = stderr
        .lines()
        .find(|line| line.contains(" tool call "))
        .unwrap_or_else(|| panic!("no per-call line in {stderr:?}"));
    assert!(
        line.contains(" DEBUG mcpfn_runtime::call: tool call tool=add id=1 "),
        "{line}"
    );
    assert!(line.contains(r#" outcome="ok" is_error=false"#), "{line}");
}
