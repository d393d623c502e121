//! Streamable HTTP over a real socket: `everything --http 127.0.0.1:0`,
//! driven by a minimal HTTP/1.1 client on std's `TcpStream`. Every JSON-RPC
//! body is validated against the official schema of its revision.

use crate::common;

use common::http::{
    MODERN, Response, Server, Tap, call, call_bytes, dechunk, meta, read_response, request,
    request_bytes,
};
use common::{assert_valid, example_binary};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

// ---- responses ----

#[test]
fn a_call_whose_result_comes_first_is_answered_with_json() {
    let server = Server::start(&[]);
    let response = server.modern(&call(1, "add", json!({"a": 1, "b": 2})), &[]);
    assert_eq!(response.status, 200, "{response:?}");
    let message = response.json();
    assert_valid(MODERN, "CallToolResult", &message["result"]);
    assert_eq!(message["result"]["structuredContent"], json!({"sum": 3.0}));
    let list = server.modern(&request(2, "tools/list"), &[]).json();
    assert_valid(MODERN, "ListToolsResult", &list["result"]);
    let discover = server.modern(&request(3, "server/discover"), &[]).json();
    assert_eq!(discover["result"]["supportedVersions"][0], MODERN);
}

/// A `tools/call`'s params are read in the message's own pass when its
/// `method` comes first, and captured then read when it comes after: the
/// answers are the same, and so are the refusals of params that do not
/// read.
#[test]
fn a_tools_call_is_answered_alike_whatever_the_order_of_its_members() {
    let server = Server::start(&[]);
    let meta = meta(json!({})).to_string();
    let headers = [
        ("MCP-Protocol-Version", MODERN),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "add"),
    ];
    let params = format!(r#"{{"name":"add","arguments":{{"a":1,"b":2}},"_meta":{meta}}}"#);
    for body in [
        format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{params}}}"#),
        format!(r#"{{"params":{params},"jsonrpc":"2.0","method":"tools/call","id":7}}"#),
    ] {
        let response = server.post(&headers, &body);
        assert_eq!(response.status, 200, "{body}: {response:?}");
        let message = response.json();
        assert_eq!(message["id"], 7);
        assert_eq!(message["result"]["structuredContent"], json!({"sum": 3.0}));
    }
    let refused = |body: String, status: u16, code: i64| {
        let message = server.post(&headers, &body).expect_error(status, code);
        (message["id"].clone(), message["error"]["message"].clone())
    };
    for bad in [
        r#"{"name":5}"#.to_owned(),
        format!(r#"{{"name":"add","name":"add","_meta":{meta}}}"#),
        r#"["add",{}]"#.to_owned(),
    ] {
        let first = refused(
            format!(r#"{{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{bad}}}"#),
            400,
            -32602,
        );
        let last = refused(
            format!(r#"{{"jsonrpc":"2.0","id":8,"params":{bad},"method":"tools/call"}}"#),
            400,
            -32602,
        );
        assert_eq!(first, last, "{bad}");
        assert_eq!(first.0, 8);
    }
}

#[test]
fn notifications_before_the_result_make_an_event_stream() {
    let server = Server::start(&[]);
    let mut message = call(1, "slow", json!({"ms": 100, "steps": 2}));
    message["params"]["_meta"]["progressToken"] = "p".into();
    let response = server.modern(&message, &[]);
    assert_eq!(response.status, 200);
    assert_eq!(response.header("x-accel-buffering"), Some("no"));
    assert_eq!(response.header("cache-control"), Some("no-cache"));
    let events = response.events();
    assert_eq!(events.len(), 3, "{events:?}");
    assert_eq!(events[0]["method"], "notifications/progress");
    assert_eq!(events[1]["method"], "notifications/progress");
    assert_eq!(events[2]["id"], 1);
    assert_valid(MODERN, "CallToolResult", &events[2]["result"]);
}

/// A call that streams 200 MB of log notifications (2,000 of 100 KB) to a
/// client that reads nothing yet: past the stream's 1 MiB bound they are
/// dropped and a warning says so; the result still comes, once the client
/// reads. Before the byte bound the stream counted events (64) and queued
/// every frame behind them, so the peak RSS followed the 200 MB; with it,
/// the RSS stays near the bound (BENCHMARKS.md, "Figures behind design
/// choices").
#[test]
fn an_event_stream_nobody_reads_drops_notifications_past_its_byte_bound() {
    const TIMES: usize = 2_000;
    const PEAK_BOUND_KIB: u64 = 48 << 10;
    let server = Server::start(&[]);
    let mut message = call(
        1,
        "noisy",
        json!({"text": "n".repeat(100_000), "to": "log", "times": TIMES}),
    );
    message["params"]["_meta"]["io.modelcontextprotocol/logLevel"] = "info".into();
    let mut stream = TcpStream::connect(&server.addr).unwrap();
    // Generous: 200 MB are made and dropped on a loaded machine too.
    stream
        .set_read_timeout(Some(Duration::from_secs(300)))
        .unwrap();
    let bytes = call_bytes(&server.addr, "noisy", &message.to_string());
    stream.write_all(&bytes).unwrap();
    // Not read until the call has queued its bound and dropped the rest.
    server.wait_for_log("notifications (progress, log messages) were dropped", 1);
    let response = read_response(&mut stream);
    let peak = common::status_kib(server.child.id(), "VmHWM");
    assert_eq!(response.status, 200, "{}", response.status);
    let events = response.events();
    let last = events.last().expect("events");
    assert_eq!(last["id"], 1, "the result ends the stream");
    assert_eq!(
        last["result"]["content"][0]["text"],
        format!("printed {} bytes", TIMES * 100_000)
    );
    let logs = events.len() - 1;
    eprintln!("peak RSS (VmHWM) {peak} KiB; {logs} of {TIMES} log notifications delivered");
    assert!(logs < TIMES, "nothing was dropped");
    assert!(
        peak < PEAK_BOUND_KIB,
        "peak RSS {peak} KiB, bound {PEAK_BOUND_KIB} KiB"
    );
}

/// A `progressToken` over 256 bytes is refused with `-32602` naming the
/// limit (status 200, as the session's other refusals of a call's params),
/// and the tool does not run (no event stream).
#[test]
fn a_progress_token_over_the_limit_is_refused() {
    let server = Server::start(&[]);
    let mut message = call(1, "slow", json!({"ms": 2_000, "steps": 100}));
    message["params"]["_meta"]["progressToken"] = "t".repeat(4_000_000).into();
    let refused = server.modern(&message, &[]).expect_error(200, -32602);
    assert_eq!(
        refused["error"]["message"],
        "Invalid params: params._meta.progressToken is 4000000 bytes; the limit is 256 bytes"
    );
    message["params"]["_meta"]["progressToken"] = "t".repeat(256).into();
    message["params"]["arguments"] = json!({"ms": 10});
    let events = server.modern(&message, &[]).events();
    assert_eq!(events[0]["params"]["progressToken"], "t".repeat(256));
}

#[test]
fn a_notification_is_accepted_with_202() {
    let server = Server::start(&[]);
    let response = server.post(
        &[
            ("MCP-Protocol-Version", MODERN),
            ("Mcp-Method", "notifications/cancelled"),
        ],
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
    );
    assert_eq!(response.status, 202, "{response:?}");
    assert!(response.body.is_empty());
}

#[test]
fn closing_the_connection_cancels_the_call() {
    let server = Server::start(&[]);
    let message = call(1, "slow", json!({"ms": 20000}));
    let mut stream = TcpStream::connect(&server.addr).unwrap();
    let bytes = call_bytes(&server.addr, "slow", &message.to_string());
    stream.write_all(&bytes).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    drop(stream);
    let deadline = Instant::now() + Duration::from_secs(5);
    while !server.log().contains("cancelled its calls") {
        assert!(
            Instant::now() < deadline,
            "no cancellation: {}",
            server.log()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

// ---- status codes ----

#[test]
fn get_and_delete_are_not_allowed() {
    let server = Server::start(&[]);
    for method in ["GET", "DELETE"] {
        let response = server.raw(&request_bytes(&server.addr, method, &[], ""));
        assert_eq!(response.status, 405, "{method}");
        assert_eq!(response.header("allow"), Some("POST"));
        assert_valid(
            MODERN,
            "JSONRPCErrorResponse",
            &serde_json::from_str(&response.body).unwrap(),
        );
    }
}

#[test]
fn media_types_are_checked() {
    let server = Server::start(&[]);
    let body = call(1, "add", json!({"a": 1, "b": 2})).to_string();
    let wrong_type = server.post(&[("Content-Type", "text/plain")], &body);
    assert_eq!(wrong_type.status, 415);
    let json_only = server.post(&[("Accept", "application/json")], &body);
    assert_eq!(json_only.status, 406);
}

#[test]
fn the_validation_ladder_answers_in_order() {
    let server = Server::start(&[]);
    // (1) parse error, (2) not a request.
    server
        .post(&[("MCP-Protocol-Version", MODERN)], "{not json")
        .expect_error(400, -32700);
    // (3) no envelope: -32602 even though the headers disagree too.
    let bare = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}});
    server
        .post(
            &[
                ("MCP-Protocol-Version", MODERN),
                ("Mcp-Method", "tools/call"),
            ],
            &bare.to_string(),
        )
        .expect_error(400, -32602);
    // (4) headers against the body.
    let list = request(2, "tools/list");
    let missing = server.post(&[("MCP-Protocol-Version", MODERN)], &list.to_string());
    missing.expect_error(400, -32020);
    server
        .modern(&list, &[("Mcp-Method", "tools/list")])
        .expect_error(400, -32020); // duplicated routing header
    server
        .post(
            &[
                ("MCP-Protocol-Version", MODERN),
                ("Mcp-Method", "TOOLS/LIST"),
            ],
            &list.to_string(),
        )
        .expect_error(400, -32020); // values compare case-sensitively
    server
        .post(
            &[
                ("MCP-Protocol-Version", "2025-11-25"),
                ("Mcp-Method", "tools/list"),
            ],
            &list.to_string(),
        )
        .expect_error(400, -32020);
    let add = call(3, "add", json!({"a": 1, "b": 2}));
    server
        .post(
            &[
                ("MCP-Protocol-Version", MODERN),
                ("Mcp-Method", "tools/call"),
                ("Mcp-Name", "echo"),
            ],
            &add.to_string(),
        )
        .expect_error(400, -32020);
    // Mcp-Name's base64 sentinel decodes before comparing ("add").
    let sentinel = server.post(
        &[
            ("MCP-Protocol-Version", MODERN),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "=?base64?YWRk?="),
        ],
        &add.to_string(),
    );
    assert_eq!(sentinel.status, 200, "{sentinel:?}");
    // (4) before (5): a header mismatch wins over an unsupported version.
    let mut old = request(4, "tools/list");
    old["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = "1900-01-01".into();
    server
        .post(
            &[
                ("MCP-Protocol-Version", MODERN),
                ("Mcp-Method", "tools/list"),
            ],
            &old.to_string(),
        )
        .expect_error(400, -32020);
    // (5) unsupported version.
    let refused = server
        .post(
            &[
                ("MCP-Protocol-Version", "1900-01-01"),
                ("Mcp-Method", "tools/list"),
            ],
            &old.to_string(),
        )
        .expect_error(400, -32022);
    assert_eq!(refused["error"]["data"]["requested"], "1900-01-01");
    // (6) unknown method: 404.
    server
        .modern(&request(5, "ping"), &[])
        .expect_error(404, -32601);
    // (7) unknown tool: an ordinary error, 200.
    server
        .modern(&call(6, "nope", json!({})), &[])
        .expect_error(200, -32602);
}

#[test]
fn a_needed_capability_missing_is_400() {
    let server = Server::start(&[]);
    server
        .modern(&call(1, "book_table", json!({"party": 2})), &[])
        .expect_error(400, -32021);
}

#[test]
fn mirrored_arguments_are_checked_against_their_headers() {
    let server = Server::start(&[]);
    let locate = |args: Value| call(1, "locate", args);
    let ok = |r: &Response| {
        assert_eq!(r.status, 200, "{r:?}");
        let message = r.json();
        assert_valid(MODERN, "CallToolResult", &message["result"]);
        message["result"]["structuredContent"].clone()
    };
    let eu = locate(json!({"region": "eu"}));
    // Missing header while the body has a value.
    server.modern(&eu, &[]).expect_error(400, -32020);
    // Mismatch.
    server
        .modern(&eu, &[("Mcp-Param-Region", "us")])
        .expect_error(400, -32020);
    // Equal; the sentinel decodes; header names are case-insensitive.
    assert_eq!(
        ok(&server.modern(&eu, &[("Mcp-Param-Region", "eu")])),
        json!({"region": "eu", "shard": null})
    );
    ok(&server.modern(&eu, &[("mcp-param-region", "=?base64?ZXU=?=")]));
    // Bad base64.
    server
        .modern(&eu, &[("Mcp-Param-Region", "=?base64?!!?=")])
        .expect_error(400, -32020);
    // Integers compare numerically.
    let sharded = locate(json!({"region": "eu", "shard": 42}));
    for header in ["42", "42.0"] {
        let result = ok(&server.modern(
            &sharded,
            &[("Mcp-Param-Region", "eu"), ("Mcp-Param-Shard", header)],
        ));
        assert_eq!(result["shard"], 42);
    }
    server
        .modern(
            &sharded,
            &[("Mcp-Param-Region", "eu"), ("Mcp-Param-Shard", "43")],
        )
        .expect_error(400, -32020);
    // A header whose argument has no value in the body.
    server
        .modern(&eu, &[("Mcp-Param-Region", "eu"), ("Mcp-Param-Shard", "1")])
        .expect_error(400, -32020);
    // Unknown Mcp-Param-* headers are ignored.
    ok(&server.modern(&eu, &[("Mcp-Param-Region", "eu"), ("Mcp-Param-Zone", "z")]));
}

// ---- safe by default ----

#[test]
fn foreign_origins_and_hosts_are_forbidden() {
    let server = Server::start(&[]);
    let body = call(1, "add", json!({"a": 1, "b": 2}));
    let evil = server.modern(&body, &[("Origin", "https://evil.example")]);
    assert_eq!(evil.status, 403, "{evil:?}");
    let local = server.modern(&body, &[("Origin", "http://localhost:3000")]);
    assert_eq!(local.status, 200, "{local:?}");
    // DNS rebinding: a loopback server answers only to loopback names.
    let mut bytes = request_bytes(&server.addr, "POST", &[], &body.to_string());
    let text = String::from_utf8(bytes.clone()).unwrap();
    bytes = text
        .replace(&format!("Host: {}", server.addr), "Host: evil.example:80")
        .into_bytes();
    assert_eq!(server.raw(&bytes).status, 403);
}

/// `bytes` with its `Host: <addr>` line replaced by `hosts`, one header each.
fn with_hosts(server: &Server, bytes: &[u8], hosts: &[&str]) -> Vec<u8> {
    let lines: Vec<String> = hosts.iter().map(|h| format!("Host: {h}")).collect();
    String::from_utf8(bytes.to_vec())
        .unwrap()
        .replace(&format!("Host: {}", server.addr), &lines.join("\r\n"))
        .into_bytes()
}

#[test]
fn hosts_and_origins_are_parsed_strictly() {
    let server = Server::start(&[]);
    let message = call(1, "add", json!({"a": 1, "b": 2}));
    let port = server.addr.rsplit(':').next().unwrap().to_owned();
    let routing = [
        ("MCP-Protocol-Version", MODERN),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "add"),
    ];
    let bytes = request_bytes(&server.addr, "POST", &routing, &message.to_string());
    let host_status = |hosts: &[&str]| server.raw(&with_hosts(&server, &bytes, hosts)).status;
    // What a loopback server answers to keeps working.
    let localhost = format!("localhost:{port}");
    let loopback = format!("127.0.0.1:{port}");
    let ipv6 = format!("[::1]:{port}");
    for good in [
        "localhost",
        &localhost,
        &loopback,
        "127.0.0.1",
        &ipv6,
        "[::1]",
    ] {
        assert_eq!(host_status(&[good]), 200, "Host: {good}");
    }
    // A host that only begins like a loopback name is not one.
    for bad in [
        "localhost:80@evil.com",
        "localhost:evil",
        "[::1]evil",
        "localhost@evil.com",
        "localhost:80:80",
        "localhost:+80",
        "localhost.evil.com",
        "[::1].evil.com",
    ] {
        let response = server.raw(&with_hosts(&server, &bytes, &[bad]));
        assert_eq!(response.status, 403, "Host: {bad}: {response:?}");
        assert!(response.body.contains("Host"), "{response:?}");
    }
    // Two Host headers, even both allowed, are a bad request.
    for pair in [["localhost", "localhost"], ["localhost", "evil.example"]] {
        let response = server.raw(&with_hosts(&server, &bytes, &pair));
        assert_eq!(response.status, 400, "Host: {pair:?}: {response:?}");
        assert!(response.body.contains("more than once"), "{response:?}");
    }
    // An Origin is `scheme://host[:port]` and nothing else.
    for bad in [
        "http://localhost:80@evil.com",
        "http://localhost@evil.com",
        "http://localhost:evil",
        "http://[::1]evil",
        "http://localhost/",
    ] {
        let response = server.modern(&message, &[("Origin", bad)]);
        assert_eq!(response.status, 403, "Origin: {bad}: {response:?}");
    }
    let local = format!("http://localhost:{port}");
    for good in ["http://localhost", local.as_str(), "https://[::1]:3000"] {
        let response = server.modern(&message, &[("Origin", good)]);
        assert_eq!(response.status, 200, "Origin: {good}: {response:?}");
    }
}

#[test]
fn a_body_over_the_limit_is_refused_unread() {
    let server = Server::start(&[]);
    let mut stream = TcpStream::connect(&server.addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100000000\r\n\r\n{{",
        server.addr
    );
    stream.write_all(head.as_bytes()).unwrap();
    let response = read_response(&mut stream);
    assert_eq!(response.status, 413, "{response:?}");
}

// ---- MRTR across processes ----

#[test]
fn replicas_with_one_seal_key_and_one_store_accept_each_others_states() {
    let key = "0123456789abcdef0123456789abcdef-shared";
    let redis = common::services::Redis::start();
    let url = redis.url();
    let shared = [("MCP_SEAL_KEY", key), ("REDIS_URL", url.as_str())];
    let a = Server::start(&shared);
    let b = Server::start(&shared);
    // The same key but a store of its own: it never issued the state.
    let alone = Server::start(&[("MCP_SEAL_KEY", key)]);
    let other = Server::start(&[("MCP_SEAL_KEY", "another key of at least thirty-two bytes")]);
    assert!(!a.log().contains("no request-state key"), "{}", a.log());
    let mut book = call(1, "book_table", json!({"party": 2}));
    book["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] =
        json!({"elicitation": {}});
    let question = a.modern(&book, &[]).json();
    assert_valid(MODERN, "InputRequiredResult", &question["result"]);
    let mut retry = book.clone();
    retry["id"] = 2.into();
    retry["params"]["inputResponses"] =
        json!({"guest": {"action": "accept", "content": {"name": "Ada"}}});
    retry["params"]["requestState"] = question["result"]["requestState"].clone();
    let refused = other.modern(&retry, &[]).json();
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    let unknown = alone.modern(&retry, &[]).json();
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    assert!(
        unknown["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not known to this server's state store"),
        "{unknown}"
    );
    let done = b.modern(&retry, &[]).json();
    assert_valid(MODERN, "CallToolResult", &done["result"]);
    assert_eq!(
        done["result"]["structuredContent"],
        json!({"booked": true, "name": "Ada", "party": 2})
    );
}

/// The log line about the missing request-state key, once it is there.
fn no_key_line(server: &Server) -> String {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let log = server.log();
        let lines: Vec<&str> = log
            .lines()
            .filter(|line| line.contains("no request-state key"))
            .collect();
        if let [line] = lines[..] {
            return line.to_owned();
        }
        assert!(lines.is_empty(), "more than one line: {log}");
        assert!(Instant::now() < deadline, "{log}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn without_a_seal_key_one_line_says_replicas_will_not_share_state() {
    // A single process (no replica tag): one line at info, no warning.
    // (The test server logs `mcpfn_runtime=debug`, so info lines show.)
    let server = Server::start(&[]);
    let line = no_key_line(&server);
    assert!(line.contains(" INFO "), "{line}");
    // One of several replicas (MCP_REPLICA sets the tag): a warning.
    let replica = Server::start(&[("MCP_REPLICA", "r1")]);
    let line = no_key_line(&replica);
    assert!(line.contains(" WARN "), "{line}");
}

// ---- shutdown ----

/// Sends `request` to `addr` on a thread that reads its response, once the
/// call it makes has sent its first progress event: the call runs (and
/// holds what it holds) when this returns.
fn call_running(addr: &str, request: Vec<u8>) -> std::thread::JoinHandle<Response> {
    let (seen, started) = std::sync::mpsc::channel();
    let addr = addr.to_owned();
    let reader = std::thread::spawn(move || {
        let mut stream = TcpStream::connect(&addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(120)))
            .unwrap();
        stream.write_all(&request).unwrap();
        let mut tap = Tap::new(stream, "notifications/progress", seen);
        let response = read_response(&mut tap);
        assert!(tap.ended(), "the response did not end within 120 s");
        response
    });
    started
        .recv_timeout(Duration::from_secs(60))
        .expect("the call sent no progress within 60 s");
    reader
}

/// A 2026-07-28 `tools/call` of `slow` for `ms` in steps of 10 ms that
/// reports its progress.
fn slow_with_progress(addr: &str, id: u64, ms: u64) -> Vec<u8> {
    let mut message = call(id, "slow", json!({"ms": ms, "steps": ms / 10}));
    message["params"]["_meta"]["progressToken"] = "p".into();
    call_bytes(addr, "slow", &message.to_string())
}

/// Sends SIGTERM without `libc`.
fn sigterm(pid: u32) {
    let status = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
}

#[test]
fn sigterm_drains_calls_in_flight_then_exits() {
    let mut server = Server::start(&[]);
    let in_flight = call_running(&server.addr, slow_with_progress(&server.addr, 1, 800));
    sigterm(server.child.id());
    let response = in_flight.join().unwrap();
    assert_eq!(response.status, 200, "{response:?}");
    let events = response.events();
    let last = events.last().expect("events");
    assert_eq!(last["id"], 1, "{events:?}");
    assert_eq!(last["result"]["structuredContent"]["ms"], 800, "{last}");
    assert_valid(MODERN, "CallToolResult", &last["result"]);
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "still running after the drain");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status}");
    assert!(
        TcpStream::connect(&server.addr).is_err(),
        "no new connections"
    );
}

// ---- legacy era (2025-03-26 … 2025-11-25) ----

const LEGACY: &str = "2025-11-25";

/// `initialize` over POST; returns the minted session id.
fn open_session(server: &Server, capabilities: Value) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": LEGACY, "capabilities": capabilities,
        "clientInfo": {"name": "http-tests", "version": "1"}}});
    let response = server.post(&[], &init.to_string());
    assert_eq!(response.status, 200, "{response:?}");
    let body: Value = serde_json::from_str(&response.body).unwrap();
    assert_valid(LEGACY, "JSONRPCResponse", &body);
    assert_eq!(body["result"]["protocolVersion"], LEGACY);
    let id = response
        .header("mcp-session-id")
        .expect("a session id")
        .to_owned();
    assert!(
        id.len() >= 16 && id.bytes().all(|b| (0x21..=0x7e).contains(&b)),
        "{id}"
    );
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let done = server.post(&[("Mcp-Session-Id", &id)], &initialized.to_string());
    assert_eq!(done.status, 202);
    id
}

/// Opens a connection and sends `body` as a POST of legacy `session`, for
/// tests that read the response themselves, often on another thread.
fn post_in_session(addr: &str, session: &str, body: &str) -> TcpStream {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    stream
        .write_all(&request_bytes(
            addr,
            "POST",
            &[("Mcp-Session-Id", session)],
            body,
        ))
        .unwrap();
    stream
}

fn legacy_call(id: u64, name: &str, arguments: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": name, "arguments": arguments}})
    .to_string()
}

/// The legacy SSE events' data, each validated.
fn legacy_events(response: &Response) -> Vec<Value> {
    assert_eq!(
        response.header("content-type"),
        Some("text/event-stream"),
        "{response:?}"
    );
    response
        .body
        .split("\n\n")
        .filter_map(|event| event.lines().find_map(|l| l.strip_prefix("data: ")))
        .map(|data| {
            let message: Value = serde_json::from_str(data).unwrap();
            assert_valid(LEGACY, "JSONRPCMessage", &message);
            message
        })
        .collect()
}

#[test]
fn a_legacy_session_is_minted_required_and_deleted() {
    let server = Server::start(&[]);
    let id = open_session(&server, json!({}));
    let headers = [
        ("Mcp-Session-Id", id.as_str()),
        ("MCP-Protocol-Version", LEGACY),
    ];
    let add = server.post(&headers, &legacy_call(1, "add", json!({"a": 1, "b": 2})));
    assert_eq!(add.status, 200, "{add:?}");
    let body: Value = serde_json::from_str(&add.body).unwrap();
    assert_valid(LEGACY, "JSONRPCResponse", &body);
    assert_eq!(body["result"]["structuredContent"], json!({"sum": 3.0}));
    // Missing id: 400; unknown id: 404; wrong version header: 400.
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).to_string();
    assert_eq!(server.post(&[], &list).status, 400);
    assert_eq!(
        server.post(&[("Mcp-Session-Id", "nope")], &list).status,
        404
    );
    let wrong = server.post(
        &[
            ("Mcp-Session-Id", &id),
            ("MCP-Protocol-Version", "1900-01-01"),
        ],
        &list,
    );
    assert_eq!(wrong.status, 400);
    // An ordinary JSON-RPC error stays 200 (404 would read as "session expired").
    let unknown = json!({"jsonrpc": "2.0", "id": 3, "method": "nope"}).to_string();
    let unknown = server.post(&headers, &unknown);
    assert_eq!(unknown.status, 200);
    assert_valid(
        LEGACY,
        "JSONRPCErrorResponse",
        &serde_json::from_str(&unknown.body).unwrap(),
    );
    // DELETE ends it.
    let delete = server.raw(&request_bytes(&server.addr, "DELETE", &headers, ""));
    assert_eq!(delete.status, 204, "{delete:?}");
    assert_eq!(server.post(&headers, &list).status, 404);
}

#[test]
fn a_legacy_call_streams_its_elicitation_and_takes_the_answer_as_a_post() {
    let server = Server::start(&[]);
    let id = open_session(&server, json!({"elicitation": {}}));
    let addr = server.addr.clone();
    let session = id.clone();
    let call = std::thread::spawn(move || {
        let stream = post_in_session(
            &addr,
            &session,
            &legacy_call(1, "book_table", json!({"party": 2})),
        );
        // Read the head and the first event, answer it, then read the rest.
        let mut reader = BufReader::new(stream);
        let mut seen = String::new();
        let mut line = String::new();
        while !seen.contains("elicitation/create") {
            line.clear();
            assert!(reader.read_line(&mut line).unwrap() > 0, "{seen}");
            seen.push_str(&line);
        }
        let data = seen.lines().find_map(|l| l.strip_prefix("data: ")).unwrap();
        let request: Value = serde_json::from_str(data).unwrap();
        assert_valid(LEGACY, "JSONRPCRequest", &request);
        let answer = json!({"jsonrpc": "2.0", "id": request["id"],
            "result": {"action": "accept", "content": {"name": "Ada"}}});
        let posted = TcpStream::connect(&addr).and_then(|mut s| {
            s.write_all(&request_bytes(
                &addr,
                "POST",
                &[("Mcp-Session-Id", &session)],
                &answer.to_string(),
            ))?;
            Ok(read_response(&mut s))
        });
        assert_eq!(posted.unwrap().status, 202);
        let mut rest = String::new();
        let _ = reader.read_to_string(&mut rest);
        format!("{seen}{rest}")
    });
    let text = call.join().unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    assert!(
        head.to_ascii_lowercase().contains("text/event-stream"),
        "{head}"
    );
    let response = Response {
        status: 200,
        headers: vec![("content-type".into(), "text/event-stream".into())],
        body: dechunk(body),
    };
    let events = legacy_events(&response);
    let last = events.last().unwrap();
    assert_eq!(last["id"], 1, "{events:?}");
    assert_eq!(
        last["result"]["structuredContent"],
        json!({"booked": true, "name": "Ada", "party": 2})
    );
}

#[test]
fn the_push_stream_is_one_per_session_and_carries_list_changes() {
    let server = Server::start(&[]);
    let id = open_session(&server, json!({}));
    let mut push = TcpStream::connect(&server.addr).unwrap();
    push.set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let get = format!(
        "GET /mcp HTTP/1.1\r\nHost: {}\r\nAccept: text/event-stream\r\nMcp-Session-Id: {id}\r\n\r\n",
        server.addr
    );
    push.write_all(get.as_bytes()).unwrap();
    let mut reader = BufReader::new(push);
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    assert!(line.contains("200"), "{line}");
    let second = server.raw(
        get.replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n")
            .as_bytes(),
    );
    assert_eq!(second.status, 409, "{second:?}");
    let toggle = server.post(
        &[("Mcp-Session-Id", &id)],
        &legacy_call(1, "toggle_bonus", json!({})),
    );
    assert_eq!(toggle.status, 200);
    let mut seen = String::new();
    while !seen.contains("data: ") {
        line.clear();
        assert!(reader.read_line(&mut line).unwrap() > 0);
        seen.push_str(&line);
    }
    let data = seen.lines().find_map(|l| l.strip_prefix("data: ")).unwrap();
    let message: Value = serde_json::from_str(data).unwrap();
    assert_valid(LEGACY, "JSONRPCNotification", &message);
    assert_eq!(message["method"], "notifications/tools/list_changed");
    // GET without a session id: 405.
    let bare = format!(
        "GET /mcp HTTP/1.1\r\nHost: {}\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n",
        server.addr
    );
    assert_eq!(server.raw(bare.as_bytes()).status, 405);
}

#[test]
fn requests_beyond_the_pending_limit_get_503() {
    let server = Server::start(&[("MAX_PENDING", "1"), ("MAX_CONCURRENT", "1")]);
    // 5 s: the refusal below is asked for while it runs.
    let slow = call_running(&server.addr, slow_with_progress(&server.addr, 1, 5000));
    let busy = server.modern(&call(2, "add", json!({"a": 1, "b": 2})), &[]);
    assert_eq!(busy.status, 503, "{busy:?}");
    assert_eq!(busy.header("retry-after"), Some("1"));
    assert_eq!(slow.join().unwrap().status, 200);
    let later = server.modern(&call(3, "add", json!({"a": 1, "b": 2})), &[]);
    assert_eq!(later.status, 200, "{later:?}");
}

#[test]
fn a_listen_stream_carries_list_changes_and_ends_with_its_result_on_shutdown() {
    let mut server = Server::start(&[]);
    let mut listen = request(7, "subscriptions/listen");
    listen["params"]["notifications"] = json!({"toolsListChanged": true});
    let mut stream = TcpStream::connect(&server.addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let headers = [
        ("MCP-Protocol-Version", MODERN),
        ("Mcp-Method", "subscriptions/listen"),
    ];
    stream
        .write_all(&request_bytes(
            &server.addr,
            "POST",
            &headers,
            &listen.to_string(),
        ))
        .unwrap();
    let mut reader = BufReader::new(stream);
    let mut seen = String::new();
    let mut line = String::new();
    while !seen.contains("acknowledged") {
        line.clear();
        assert!(reader.read_line(&mut line).unwrap() > 0, "{seen}");
        seen.push_str(&line);
    }
    let toggle = server.modern(&call(1, "toggle_bonus", json!({})), &[]);
    assert_eq!(toggle.status, 200);
    while !seen.contains("list_changed") {
        line.clear();
        assert!(reader.read_line(&mut line).unwrap() > 0, "{seen}");
        seen.push_str(&line);
    }
    sigterm(server.child.id());
    let mut rest = String::new();
    reader.read_to_string(&mut rest).unwrap();
    let text = format!("{seen}{rest}");
    let (_, body) = text.split_once("\r\n\r\n").unwrap();
    let events = Response {
        status: 200,
        headers: vec![("content-type".into(), "text/event-stream".into())],
        body: dechunk(body),
    }
    .events();
    assert_eq!(events.len(), 3, "{events:?}");
    assert_eq!(events[1]["method"], "notifications/tools/list_changed");
    assert_eq!(events[2]["id"], 7, "the final response ends the stream");
    let deadline = Instant::now() + Duration::from_secs(10);
    while server.child.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "still running");
        std::thread::sleep(Duration::from_millis(20));
    }
}

// ---- connections ----

/// Reads one response with a Content-Length body, leaving the connection open.
fn read_one(reader: &mut BufReader<TcpStream>) -> (u16, String) {
    let mut status = 0;
    let mut length = 0;
    let mut line = String::new();
    loop {
        line.clear();
        assert!(reader.read_line(&mut line).unwrap() > 0, "closed early");
        if status == 0 {
            status = line.split(' ').nth(1).unwrap().parse().unwrap();
        } else if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().unwrap();
            }
        } else if line == "\r\n" {
            break;
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    (status, String::from_utf8(body).unwrap())
}

/// A connection to `addr` to send several requests on: its writing half
/// and its buffered reading half (reads time out after 10 s).
fn kept_alive(addr: &str) -> (TcpStream, BufReader<TcpStream>) {
    let stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    (stream.try_clone().unwrap(), BufReader::new(stream))
}

/// A 2026-07-28 `add` call `id` (of `a` and 1) that keeps its connection open.
fn keep_alive_add(addr: &str, id: u64, a: u64) -> String {
    let headers = [
        ("MCP-Protocol-Version", MODERN),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "add"),
    ];
    let body = call(id, "add", json!({"a": a, "b": 1})).to_string();
    String::from_utf8(request_bytes(addr, "POST", &headers, &body))
        .unwrap()
        .replace("Connection: close\r\n", "")
}

#[test]
fn connections_are_kept_alive_until_idle() {
    let server = Server::start(&[("HTTP_HEADER_TIMEOUT_MS", "500")]);
    let (mut writer, mut reader) = kept_alive(&server.addr);
    for id in 1..=3 {
        let request = keep_alive_add(&server.addr, id, id);
        writer.write_all(request.as_bytes()).unwrap();
        let (status, body) = read_one(&mut reader);
        assert_eq!(status, 200);
        let message: Value = serde_json::from_str(&body).unwrap();
        assert_valid(MODERN, "JSONRPCResponse", &message);
        assert_eq!(message["id"], id);
    }
    // Idle past the timeout: the server closes the connection.
    let started = Instant::now();
    let mut rest = Vec::new();
    let _ = reader.read_to_end(&mut rest);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn a_client_slow_to_send_its_headers_is_cut_off() {
    let server = Server::start(&[("HTTP_HEADER_TIMEOUT_MS", "300")]);
    let mut stream = TcpStream::connect(&server.addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let started = Instant::now();
    stream.write_all(b"POST /mcp HTTP/1.1\r\nHost: ").unwrap();
    let mut rest = Vec::new();
    let _ = stream.read_to_end(&mut rest);
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(250) && took < Duration::from_secs(5),
        "{took:?}"
    );
}

#[test]
fn the_axum_example_mounts_the_service_next_to_its_routes() {
    let mut child = Command::new(example_binary("axum"))
        .env("ADDR", "127.0.0.1:0")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the axum example starts");
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .trim()
        .strip_prefix("serving http://")
        .and_then(|rest| rest.strip_suffix("/mcp"))
        .unwrap_or_else(|| panic!("{line}"))
        .to_owned();
    let server = Server {
        child,
        addr,
        log: Arc::default(),
    };
    let health = server.raw(
        format!(
            "GET /health HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            server.addr
        )
        .as_bytes(),
    );
    assert_eq!((health.status, health.body.as_str()), (200, "ok"));
    let response = server.modern(&call(1, "add", json!({"a": 1, "b": 2})), &[]);
    assert_eq!(response.status, 200, "{response:?}");
    assert_eq!(response.json()["result"]["structuredContent"], 3.0);
}

#[test]
fn a_legacy_cancellation_ends_the_call_and_its_stream() {
    let server = Server::start(&[]);
    let id = open_session(&server, json!({}));
    let call = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {
        "name": "slow", "arguments": {"ms": 600_000, "steps": 6000},
        "_meta": {"progressToken": "p"}}});
    let request = request_bytes(
        &server.addr,
        "POST",
        &[("Mcp-Session-Id", &id)],
        &call.to_string(),
    );
    let slow = call_running(&server.addr, request);
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 9, "reason": "test"}});
    let response = server.post(&[("Mcp-Session-Id", &id)], &cancel.to_string());
    assert_eq!(response.status, 202);
    // The tool stops (a ten-minute call, which would send progress all
    // along), then its stream ends without a result.
    server.wait_for_log("slow: cancelled by the client after", 1);
    let ended = slow.join().unwrap();
    assert!(
        legacy_events(&ended).iter().all(|e| e.get("id").is_none()),
        "{ended:?}"
    );
}

#[test]
fn a_legacy_session_takes_concurrent_posts_naming_any_supported_version() {
    // The conformance suite's `server-sse-multiple-streams`: a 2025-11-25
    // session, three POSTs at once with `MCP-Protocol-Version: 2025-03-26`.
    let server = Arc::new(Server::start(&[]));
    let id = open_session(&server, json!({}));
    let posts: Vec<_> = (0..3)
        .map(|n| {
            let (server, id) = (Arc::clone(&server), id.clone());
            std::thread::spawn(move || {
                let list = json!({"jsonrpc": "2.0", "id": 1000 + n, "method": "tools/list",
                    "params": {}});
                server.post(
                    &[
                        ("Mcp-Session-Id", &id),
                        ("MCP-Protocol-Version", "2025-03-26"),
                        ("Accept", "text/event-stream, application/json"),
                    ],
                    &list.to_string(),
                )
            })
        })
        .collect();
    for (n, post) in posts.into_iter().enumerate() {
        let response = post.join().unwrap();
        assert_eq!(response.status, 200, "{response:?}");
        let body: Value = serde_json::from_str(&response.body).unwrap();
        assert_eq!(body["id"], 1000 + n as u64);
        assert_valid(LEGACY, "ListToolsResult", &body["result"]);
    }
    // Unsupported versions stay refused: an unknown one, and the 2026-07-28
    // one on a request without its envelope.
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).to_string();
    for version in ["1900-01-01", MODERN] {
        let refused = server.post(
            &[("Mcp-Session-Id", &id), ("MCP-Protocol-Version", version)],
            &list,
        );
        assert_eq!(refused.status, 400, "{version}: {refused:?}");
        assert_valid(
            LEGACY,
            "JSONRPCErrorResponse",
            &serde_json::from_str(&refused.body).unwrap(),
        );
    }
}

#[test]
fn an_unsupported_version_names_the_versions_discover_lists() {
    let server = Server::start(&[]);
    let discover = server.modern(&request(1, "server/discover"), &[]).json();
    assert_valid(MODERN, "DiscoverResult", &discover["result"]);
    let supported = discover["result"]["supportedVersions"].clone();
    assert_eq!(supported[0], MODERN);
    let mut message = request(301, "server/discover");
    message["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = "v999.0.0".into();
    let response = server.post(
        &[
            ("MCP-Protocol-Version", "v999.0.0"),
            ("Mcp-Method", "server/discover"),
        ],
        &message.to_string(),
    );
    let error = response.expect_error(400, -32022);
    assert_valid(MODERN, "UnsupportedProtocolVersionError", &error);
    assert_eq!(error["id"], 301);
    assert_eq!(
        error["error"]["data"],
        json!({"supported": supported, "requested": "v999.0.0"})
    );
}

#[test]
fn an_enveloped_initialize_is_not_found_while_a_bare_one_opens_a_session() {
    let server = Server::start(&[]);
    // The 2026-07-28 form: the envelope (and its version header).
    let error = server
        .modern(&request(500, "initialize"), &[])
        .expect_error(404, -32601);
    assert_valid(MODERN, "JSONRPCErrorResponse", &error);
    assert_valid(MODERN, "MethodNotFoundError", &error["error"]);
    assert_eq!(error["id"], 500);
    // The handshake without the envelope keeps opening a legacy session,
    // even when a 2026-07-28 version header is left over from a probe.
    open_session(&server, json!({}));
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": LEGACY, "capabilities": {},
        "clientInfo": {"name": "http-tests", "version": "1"}}});
    let response = server.post(&[("MCP-Protocol-Version", MODERN)], &init.to_string());
    assert_eq!(response.status, 200, "{response:?}");
    assert!(response.header("mcp-session-id").is_some(), "{response:?}");
    let body: Value = serde_json::from_str(&response.body).unwrap();
    assert_valid(LEGACY, "InitializeResult", &body["result"]);
}

#[test]
fn a_modern_elicitation_streams_notifications_and_its_result_only() {
    // The conformance suite's `sep-2575-http-server-no-independent-requests-on-stream`.
    let server = Server::start_example("conformance", &[]);
    let mut message = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "test_streaming_elicitation", "arguments": {},
        "_meta": meta(json!({"elicitation": {}}))}});
    // Without a progress token: the question alone, as JSON.
    let response = server.modern(&message, &[]);
    assert_eq!(response.status, 200, "{response:?}");
    let only = response.json();
    assert_eq!(only["result"]["resultType"], "input_required", "{only}");
    assert_valid(MODERN, "InputRequiredResult", &only["result"]);
    // With one: the progress, then the question, on one stream.
    message["params"]["_meta"]["progressToken"] = "p".into();
    let events = server.modern(&message, &[]).events();
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!(events[0]["method"], "notifications/progress");
    assert_eq!(events[1]["id"], 7);
    assert_valid(MODERN, "InputRequiredResult", &events[1]["result"]);
    for event in &events {
        let method = event["method"].as_str().unwrap_or("notifications/");
        assert!(
            method.starts_with("notifications/"),
            "a request on the stream: {event}"
        );
    }
}

#[test]
fn a_modern_call_logs_only_when_its_request_sets_a_level() {
    // The conformance suite's `sep-2575-server-no-log-without-loglevel`.
    let server = Server::start_example("conformance", &[]);
    let mut message = call(1, "test_logging_tool", json!({}));
    let quiet = server.modern(&message, &[]).json();
    assert_eq!(quiet["id"], 1);
    assert_valid(MODERN, "CallToolResult", &quiet["result"]);
    message["params"]["_meta"]["io.modelcontextprotocol/logLevel"] = "info".into();
    let events = server.modern(&message, &[]).events();
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!(events[0]["method"], "notifications/message");
    assert_valid(MODERN, "CallToolResult", &events[1]["result"]);
}

#[test]
fn a_legacy_log_level_set_on_one_post_applies_to_calls_on_the_others() {
    let server = Server::start(&[]);
    let id = open_session(&server, json!({}));
    let headers = [
        ("Mcp-Session-Id", id.as_str()),
        ("MCP-Protocol-Version", LEGACY),
    ];
    let set_level = json!({"jsonrpc": "2.0", "id": 1, "method": "logging/setLevel",
        "params": {"level": "debug"}});
    let response = server.post(&headers, &set_level.to_string());
    assert_eq!(response.status, 200, "{response:?}");
    let body: Value = serde_json::from_str(&response.body).unwrap();
    assert_valid(LEGACY, "JSONRPCResponse", &body);
    // `slow` logs each step at info: two log notifications, then the result.
    let response = server.post(
        &headers,
        &legacy_call(2, "slow", json!({"ms": 20, "steps": 2})),
    );
    assert_eq!(response.status, 200, "{response:?}");
    let events = legacy_events(&response);
    let logs: Vec<&Value> = events
        .iter()
        .filter(|e| e["method"] == "notifications/message")
        .collect();
    assert_eq!(logs.len(), 2, "{events:?}");
    assert_eq!(logs[0]["params"]["level"], "info");
    assert_eq!(logs[1]["params"]["data"], "slept step 2 of 2");
    let last = events.last().unwrap();
    assert_eq!(last["id"], 2, "{events:?}");
    assert_eq!(
        last["result"]["structuredContent"],
        json!({"ms": 20, "steps": 2})
    );
}

// ---- hostile clients (issue 16) ----

/// The head of a 2026-07-28 `tools/call` POST declaring `length` bytes of
/// body, kept alive.
fn call_head(addr: &str, name: &str, length: usize) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: {MODERN}\r\nMcp-Method: tools/call\r\nMcp-Name: {name}\r\nContent-Length: {length}\r\n\r\n"
    )
}

/// Reads a response head (status and lowercased headers) off `stream`,
/// giving up at `deadline`; `None` if it never came.
fn head_by(stream: &mut TcpStream, deadline: Instant) -> Option<(u16, String)> {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        let left = deadline.checked_duration_since(Instant::now())?;
        stream
            .set_read_timeout(Some(left.max(Duration::from_millis(10))))
            .unwrap();
        match stream.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => return None,
        }
    }
    let head = String::from_utf8_lossy(&head).to_ascii_lowercase();
    let status = head.split(' ').nth(1)?.parse().ok()?;
    Some((status, head))
}

/// An honest `add` on a new connection: its status and how long it took.
fn honest_call(addr: &str) -> (u16, Duration) {
    let started = Instant::now();
    let mut stream = TcpStream::connect(addr).unwrap();
    let body = call(1, "add", json!({"a": 1, "b": 2})).to_string();
    stream.write_all(&call_bytes(addr, "add", &body)).unwrap();
    let status = head_by(&mut stream, started + Duration::from_secs(10)).map_or(0, |(s, _)| s);
    (status, started.elapsed())
}

#[test]
fn a_stalled_body_is_answered_408_and_its_connection_closed() {
    let server = Server::start(&[("HTTP_BODY_TIMEOUT_MS", "1000")]);
    // 200 clients declare almost the whole message limit and send 1 KiB.
    let started = Instant::now();
    let mut streams: Vec<TcpStream> = (0..200)
        .map(|_| {
            let mut stream = TcpStream::connect(&server.addr).unwrap();
            stream
                .write_all(call_head(&server.addr, "echo", 8_388_000).as_bytes())
                .unwrap();
            stream.write_all(&[b' '; 1024]).unwrap();
            stream
        })
        .collect();
    let deadline = started + Duration::from_secs(10);
    let mut slowest = Duration::ZERO;
    for stream in &mut streams {
        let (status, head) = head_by(stream, deadline).expect("answered before the deadline");
        assert_eq!(status, 408, "{head}");
        assert!(head.contains("connection: close"), "{head}");
        let mut rest = Vec::new();
        let _ = stream.read_to_end(&mut rest);
        slowest = slowest.max(started.elapsed());
    }
    eprintln!("200/200 stalled bodies answered 408 and closed within {slowest:?}");
    assert!(slowest < Duration::from_secs(5), "{slowest:?}");
    assert_eq!(honest_call(&server.addr).0, 200);
}

#[test]
fn stalled_bodies_hold_at_most_the_body_budget() {
    // 12 MiB: one stalled body of nearly 8 MiB fits, a second does not.
    let server = Server::start(&[("HTTP_BODY_BUDGET", "12582912")]);
    assert_eq!(honest_call(&server.addr).0, 200);
    let before = server.status_kib("VmRSS");
    let chunk = vec![b' '; 8_388_000 - 1024];
    let _stalled: Vec<TcpStream> = (0..20)
        .map(|_| {
            let mut stream = TcpStream::connect(&server.addr).unwrap();
            stream
                .set_write_timeout(Some(Duration::from_secs(5)))
                .unwrap();
            let _ = stream.write_all(call_head(&server.addr, "echo", 8_388_000).as_bytes());
            // Refused bodies are cut off mid-way: their writes fail.
            let _ = stream.write_all(&chunk);
            stream
        })
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    let grown = server.status_kib("VmRSS").saturating_sub(before) / 1024;
    eprintln!("20 stalled 8 MB bodies: RSS grew by {grown} MiB (budget 12 MiB)");
    // The budget and a few MiB of buffers (8 MiB measured: the one body
    // held); a second body held would pass it.
    assert!(grown < 16, "RSS grew by {grown} MiB, the budget is 12 MiB");
    // A body that cannot fit is refused before a byte of it is read.
    let mut stream = TcpStream::connect(&server.addr).unwrap();
    stream
        .write_all(call_head(&server.addr, "echo", 8_388_000).as_bytes())
        .unwrap();
    let (status, head) =
        head_by(&mut stream, Instant::now() + Duration::from_secs(5)).expect("answered at once");
    assert_eq!(status, 503, "{head}");
    assert!(head.contains("retry-after: 1"), "{head}");
    // Small bodies still fit.
    let (status, took) = honest_call(&server.addr);
    assert_eq!(status, 200);
    eprintln!("an honest call beside them: 200 in {took:?}");
}

#[test]
fn a_client_that_reads_no_response_loses_its_connection_after_the_write_timeout() {
    let server = Server::start(&[("HTTP_WRITE_TIMEOUT_MS", "1000")]);
    assert_eq!(honest_call(&server.addr).0, 200);
    let fds = server.open_fds();
    let before = server.status_kib("VmRSS");
    let text = "x".repeat(8_000_000);
    let body = call(1, "echo", json!({ "text": text })).to_string();
    let started = Instant::now();
    // 20 clients ask for an 8 MB response each and never read it.
    let _unread: Vec<TcpStream> = (0..20)
        .map(|_| {
            let mut stream = TcpStream::connect(&server.addr).unwrap();
            stream
                .write_all(call_head(&server.addr, "echo", body.len()).as_bytes())
                .unwrap();
            stream.write_all(body.as_bytes()).unwrap();
            stream
        })
        .collect();
    let sent = started.elapsed();
    let (mut held, mut rss) = (0, 0);
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let open = server.open_fds();
        held = held.max(open);
        rss = rss.max(server.status_kib("VmRSS").saturating_sub(before) / 1024);
        if open <= fds {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{open} descriptors still open (from {fds}), RSS +{rss} MiB"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let after = server.status_kib("VmRSS").saturating_sub(before) / 1024;
    eprintln!(
        "20 unread 8 MB responses (sent in {sent:?}): up to {held} descriptors (from {fds}), \
         RSS up to +{rss} MiB; all closed {:?} after the first request, RSS then +{after} MiB",
        started.elapsed()
    );
    assert!(held > fds, "the connections were open ({held} vs {fds})");
    assert_eq!(honest_call(&server.addr).0, 200);
}

/// Opens `n` `subscriptions/listen` streams; returns the streams and how
/// many were answered with each status (0: never answered).
fn listen_streams(addr: &str, n: usize) -> (Vec<TcpStream>, Vec<(u16, usize)>) {
    let mut listen = request(7, "subscriptions/listen");
    listen["params"]["notifications"] = json!({"toolsListChanged": true});
    let headers = [
        ("MCP-Protocol-Version", MODERN),
        ("Mcp-Method", "subscriptions/listen"),
    ];
    let bytes = String::from_utf8(request_bytes(addr, "POST", &headers, &listen.to_string()))
        .unwrap()
        .replace("Connection: close\r\n", "");
    let mut streams: Vec<TcpStream> = (0..n)
        .filter_map(|_| {
            let mut stream = TcpStream::connect(addr).ok()?;
            stream.write_all(bytes.as_bytes()).ok()?;
            Some(stream)
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut counts: Vec<(u16, usize)> = Vec::new();
    for stream in &mut streams {
        let status = head_by(stream, deadline).map_or(0, |(s, _)| s);
        match counts.iter_mut().find(|(s, _)| *s == status) {
            Some((_, count)) => *count += 1,
            None => counts.push((status, 1)),
        }
    }
    counts.sort_unstable();
    (streams, counts)
}

#[test]
fn held_listen_streams_leave_room_for_honest_calls() {
    // 256 descriptors, which the server cannot raise: 300 listen streams
    // from one address would take them all.
    let server = Server::start_with_open_files(256, 256, &[]);
    let (_streams, counts) = listen_streams(&server.addr, 300);
    let (status, took) = honest_call(&server.addr);
    eprintln!(
        "300 listen streams from one address at 256 descriptors: statuses {counts:?}; \
         an honest call on a new connection: {status} in {took:?}"
    );
    assert_eq!(status, 200, "{counts:?}");
    assert!(took < Duration::from_secs(2), "{took:?}");
    assert!(
        counts.contains(&(200, 32)),
        "32 streams per client: {counts:?}"
    );
    assert!(
        counts.iter().all(|(s, _)| [200, 429, 503].contains(s)),
        "every other one is refused: {counts:?}"
    );
    // A refused one is told why, and when to come back.
    let (_more, again) = listen_streams(&server.addr, 1);
    assert_eq!(again, vec![(429, 1)]);
}

#[test]
fn the_soft_open_file_limit_is_raised_to_the_hard_one() {
    let server = Server::start_with_open_files(256, 4096, &[]);
    let limits = std::fs::read_to_string(format!("/proc/{}/limits", server.child.id())).unwrap();
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .unwrap()
        .to_owned();
    eprintln!("{line}");
    assert_eq!(
        line.split_whitespace().nth(3),
        Some("4096"),
        "soft limit: {line}"
    );
    assert!(
        server.log().contains("raised the soft open-file limit"),
        "{}",
        server.log()
    );
}

#[test]
fn running_out_of_descriptors_is_logged_once_a_second() {
    // The connection limit set above the descriptors: accept fails.
    let server = Server::start_with_open_files(128, 128, &[("HTTP_MAX_CONNECTIONS", "100000")]);
    let started = Instant::now();
    let _idle: Vec<TcpStream> = (0..200)
        .filter_map(|_| TcpStream::connect(&server.addr).ok())
        .collect();
    // It goes on failing, and saying so: a second warning comes.
    server.wait_for_log("accepting a connection failed", 2);
    // However slow the machine, the warnings so far fit in the time they
    // had: at most one a second, counted on the clock that throttles them.
    let lines = server
        .log()
        .matches("accepting a connection failed")
        .count();
    let span = started.elapsed();
    eprintln!("{span:?} out of descriptors: {lines} warnings");
    assert!(
        lines <= span.as_secs() as usize + 1,
        "{lines} warnings in {span:?}"
    );
}

#[test]
fn a_request_on_a_kept_alive_connection_during_the_drain_gets_503() {
    let mut server = Server::start(&[]);
    let (mut writer, mut reader) = kept_alive(&server.addr);
    let keep_alive = |id: u64| keep_alive_add(&server.addr, id, 1);
    writer.write_all(keep_alive(1).as_bytes()).unwrap();
    assert_eq!(read_one(&mut reader).0, 200);
    // A slow call keeps the drain going (5 s: the request below comes
    // while it runs).
    let slow = call_running(&server.addr, slow_with_progress(&server.addr, 9, 5000));
    sigterm(server.child.id());
    server.wait_for_log("shutting down on a signal", 1);
    writer.write_all(keep_alive(2).as_bytes()).unwrap();
    let mut status_line = String::new();
    reader.read_line(&mut status_line).unwrap();
    let mut rest = String::new();
    let _ = reader.read_to_string(&mut rest);
    eprintln!("a request on a kept-alive connection during the drain: {status_line:?}");
    assert!(status_line.starts_with("HTTP/1.1 503"), "{status_line:?}");
    let head = rest.to_ascii_lowercase();
    assert!(head.contains("connection: close"), "{rest}");
    assert!(head.contains("retry-after: 1"), "{rest}");
    assert_eq!(slow.join().unwrap().status, 200);
    let deadline = Instant::now() + Duration::from_secs(10);
    while server.child.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "still running");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn listen_and_legacy_get_streams_share_one_quota_per_client() {
    let server = Server::start(&[("HTTP_STREAMS_PER_CLIENT", "2")]);
    let (listening, counts) = listen_streams(&server.addr, 1);
    assert_eq!(counts, vec![(200, 1)]);
    let get = |id: &str| {
        let mut push = TcpStream::connect(&server.addr).unwrap();
        let get = format!(
            "GET /mcp HTTP/1.1\r\nHost: {}\r\nAccept: text/event-stream\r\nMcp-Session-Id: {id}\r\n\r\n",
            server.addr
        );
        push.write_all(get.as_bytes()).unwrap();
        let status = head_by(&mut push, Instant::now() + Duration::from_secs(10));
        (push, status.map_or(0, |(s, _)| s))
    };
    let (_first, status) = get(&open_session(&server, json!({})));
    assert_eq!(status, 200);
    let second_session = open_session(&server, json!({}));
    let (_refused, status) = get(&second_session);
    assert_eq!(status, 429, "the third stream of one address");
    // Ending a stream gives its place back.
    drop(listening);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let (_push, status) = get(&second_session);
        if status == 200 {
            break;
        }
        assert_eq!(status, 429);
        assert!(Instant::now() < deadline, "the slot never came back");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A connection to `addr` from the loopback address `from` (another
/// client, as far as the server can tell).
fn connect_from(from: &str, addr: &str) -> TcpStream {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .unwrap();
    runtime.block_on(async {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind(format!("{from}:0").parse().unwrap()).unwrap();
        let stream = socket.connect(addr.parse().unwrap()).await.unwrap();
        let stream = stream.into_std().unwrap();
        stream.set_nonblocking(false).unwrap();
        stream
    })
}

/// Status and body of an `add` call on `stream`.
fn add_on(stream: &mut TcpStream, addr: &str) -> (u16, String) {
    let body = call(1, "add", json!({"a": 1, "b": 2})).to_string();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let _ = stream.write_all(&call_bytes(addr, "add", &body));
    let mut text = String::new();
    let _ = stream.read_to_string(&mut text);
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, text)
}

#[test]
fn one_address_holding_idle_connections_leaves_the_others_theirs() {
    let server = Server::start(&[("HTTP_CONNECTIONS_PER_ADDRESS", "10")]);
    let held: Vec<TcpStream> = (0..10)
        .map(|_| TcpStream::connect(&server.addr).unwrap())
        .collect();
    // Once the accept loop has counted them (a probe before may be served
    // and closed), the 11th is refused.
    let deadline = Instant::now() + Duration::from_secs(60);
    let (status, text) = loop {
        let (status, text) = add_on(&mut TcpStream::connect(&server.addr).unwrap(), &server.addr);
        if status != 200 || Instant::now() > deadline {
            break (status, text);
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status, 503, "{text}");
    assert!(
        text.contains("too many connections from this address"),
        "{text}"
    );
    // Another address is served at once.
    let started = Instant::now();
    let (status, text) = add_on(&mut connect_from("127.0.0.2", &server.addr), &server.addr);
    assert_eq!(status, 200, "{text}");
    eprintln!(
        "10 idle connections held by 127.0.0.1: its 11th refused 503; 127.0.0.2 served in {:?}",
        started.elapsed()
    );
    // Closing one gives the address its place back.
    drop(held);
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let (status, _) = add_on(&mut TcpStream::connect(&server.addr).unwrap(), &server.addr);
        if status == 200 {
            break;
        }
        assert!(Instant::now() < deadline, "the places never came back");
        std::thread::sleep(Duration::from_millis(50));
    }
}
