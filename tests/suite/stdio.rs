//! Every protocol path of the stdio server, end to end: the `everything`
//! example is spawned, real JSON lines go through its stdin/stdout, and each
//! response is checked exactly and validated against the official schema of
//! the session's protocol version.

use crate::common;

use common::{Peer, assert_matches_schema, assert_valid, call, initialize, request};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// The instructions `everything` advertises.
const INSTRUCTIONS: &str = "Demonstration tools: add, echo, fail, slow (progress, logs, cancellation), panic, noisy, split_words, get_weather_data, locate (header-mirrored arguments), book_table (elicitation), build_report (a task with progress, a question and cancellation), crawl (a resumable task), toggle_bonus and bonus (list changes), sample_content, chart (structured output with an image).";

const LEGACY: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

fn server_info_meta() -> Value {
    json!({"io.modelcontextprotocol/serverInfo": {
        "name": "everything", "version": "0.1.0", "title": "Everything (mcp-runtime example)"
    }})
}

/// The `type` of each content block of a `tools/call` response.
fn content_types(response: &Value) -> Vec<&str> {
    response["result"]["content"]
        .as_array()
        .expect("a content array")
        .iter()
        .map(|b| b["type"].as_str().expect("a type"))
        .collect()
}

fn tool<'a>(list: &'a Value, name: &str) -> &'a Value {
    list["result"]["tools"]
        .as_array()
        .expect("tools array")
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("tool {name} not listed"))
}

/// Checks a successful structured result: schema-valid, structuredContent
/// matches the tool's outputSchema, and the text mirror is the same JSON.
fn check_structured(version: &str, list: &Value, name: &str, response: &Value) -> Value {
    let result = &response["result"];
    assert_valid(version, "CallToolResult", result);
    assert_eq!(result.get("isError"), None, "{response}");
    let structured = result["structuredContent"].clone();
    let mirror: Value = serde_json::from_str(result["content"][0]["text"].as_str().expect("text"))
        .expect("text mirror is JSON");
    assert_eq!(
        mirror, structured,
        "text mirror differs from structuredContent"
    );
    assert_matches_schema(&tool(list, name)["outputSchema"], &structured);
    structured
}

#[test]
fn initialize_echoes_every_legacy_version() {
    for version in LEGACY {
        let mut peer = Peer::everything();
        peer.version = version.into();
        let response = peer.request(initialize(1, version));
        let mut server_info = json!({"name": "everything", "version": "0.1.0"});
        if version >= "2025-06-18" {
            server_info["title"] = "Everything (mcp-runtime example)".into();
        }
        assert_eq!(
            response,
            json!({"jsonrpc": "2.0", "id": 1, "result": {
                "protocolVersion": version,
                "capabilities": {"tools": {"listChanged": true}, "logging": {},
                    "resources": {"subscribe": true, "listChanged": true},
                    "prompts": {"listChanged": true}, "completions": {}},
                "serverInfo": server_info,
                "instructions": INSTRUCTIONS
            }})
        );
        assert_valid(version, "InitializeResult", &response["result"]);
    }
}

#[test]
fn initialize_counter_offers_the_newest_legacy_version() {
    for requested in ["1999-01-01", "2026-07-28", "not-a-date"] {
        let mut peer = Peer::everything();
        let response = peer.request(initialize(1, requested));
        assert_eq!(
            response["result"]["protocolVersion"], "2025-11-25",
            "for {requested}"
        );
        assert_valid("2025-11-25", "InitializeResult", &response["result"]);
    }
}

#[test]
fn initialize_twice_or_without_a_version_is_refused() {
    let mut peer = Peer::legacy("2025-06-18");
    let again = peer.request(initialize(2, "2025-06-18"));
    assert_eq!(
        again,
        json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32600,
            "message": "Invalid Request: 'initialize' was already received on this connection"}})
    );
    let mut fresh = Peer::everything();
    let response =
        fresh.request(json!({"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": {}}));
    assert_eq!(response["error"]["code"], -32602);
    assert_eq!(
        response["error"]["message"],
        "Invalid params for initialize: missing field `protocolVersion`"
    );
}

#[test]
fn ping_is_answered_before_and_after_initialize() {
    let mut peer = Peer::everything();
    let before = peer.request(json!({"jsonrpc": "2.0", "id": "p1", "method": "ping"}));
    assert_eq!(before, json!({"jsonrpc": "2.0", "id": "p1", "result": {}}));
    peer.request(initialize(1, "2025-11-25"));
    let after = peer.request(json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}));
    assert_eq!(after, json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
}

#[test]
fn tools_list_is_shaped_for_each_legacy_version() {
    for version in LEGACY {
        let mut peer = Peer::legacy(version);
        let list = peer.request(request(1, "tools/list", json!({}), false));
        assert_valid(version, "ListToolsResult", &list["result"]);
        let names: Vec<&str> = list["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "add",
                "bonus",
                "book_table",
                "build_report",
                "chart",
                "crawl",
                "echo",
                "fail",
                "get_weather_data",
                "locate",
                "noisy",
                "panic",
                "sample_content",
                "slow",
                "split_words",
                "stats",
                "stats_sort",
                "toggle_bonus"
            ],
            "sorted by name"
        );
        assert_eq!(list["result"].get("nextCursor"), None);
        let add = tool(&list, "add");
        assert_eq!(
            add["inputSchema"],
            json!({"type": "object", "additionalProperties": false,
                "properties": {
                    "a": {"type": "number", "description": "First addend"},
                    "b": {"type": "number", "description": "Second addend"}},
                "required": ["a", "b"]})
        );
        assert_eq!(add["description"], "Add two numbers.");
        let weather = tool(&list, "get_weather_data");
        assert_eq!(
            weather["inputSchema"]["required"],
            json!(["location"]),
            "Option is not required"
        );
        assert_eq!(
            tool(&list, "panic")["inputSchema"],
            json!({"type": "object", "additionalProperties": false})
        );
        // Fields appear only from the version that defines them.
        let has = |name: &str, field: &str| tool(&list, name).get(field).is_some();
        assert_eq!(
            has("add", "annotations"),
            version >= "2025-03-26",
            "{version}"
        );
        assert_eq!(
            has("add", "outputSchema"),
            version >= "2025-06-18",
            "{version}"
        );
        assert_eq!(
            has("get_weather_data", "title"),
            version >= "2025-06-18",
            "{version}"
        );
        assert_eq!(has("echo", "icons"), version >= "2025-11-25", "{version}");
        if version == "2025-03-26" {
            assert_eq!(weather["annotations"]["title"], "Weather Data Retriever");
        }
        if version >= "2025-06-18" {
            assert_eq!(weather["title"], "Weather Data Retriever");
            assert_eq!(
                weather["annotations"],
                json!({"readOnlyHint": true, "openWorldHint": true})
            );
            assert_eq!(
                add["annotations"],
                json!({"readOnlyHint": true, "idempotentHint": true})
            );
            // A non-object result is advertised wrapped for object-only versions.
            assert_eq!(
                tool(&list, "split_words")["outputSchema"],
                json!({"type": "object", "required": ["result"], "properties": {"result": {
                    "type": "array", "items": {"type": "string"}}}})
            );
        }
    }
}

#[test]
fn structured_results_carry_a_text_mirror() {
    let mut peer = Peer::legacy("2025-11-25");
    let list = peer.request(request(1, "tools/list", json!({}), false));
    let add = peer.request(call(2, "add", json!({"a": 2, "b": 3.5}), false));
    assert_eq!(
        add,
        json!({"jsonrpc": "2.0", "id": 2, "result": {
            "content": [{"type": "text", "text": "{\"sum\":5.5}"}],
            "structuredContent": {"sum": 5.5}}})
    );
    check_structured("2025-11-25", &list, "add", &add);
    let weather = peer.request(call(
        3,
        "get_weather_data",
        json!({"location": "Paris"}),
        false,
    ));
    let value = check_structured("2025-11-25", &list, "get_weather_data", &weather);
    assert_eq!(value["units"], "metric");
    assert_eq!(value["location"], "Paris");
    let imperial = peer.request(call(
        4,
        "get_weather_data",
        json!({"location": "Paris", "units": "imperial"}),
        false,
    ));
    assert_eq!(
        check_structured("2025-11-25", &list, "get_weather_data", &imperial)["units"],
        "imperial"
    );
    let words = peer.request(call(5, "split_words", json!({"text": "a b  c"}), false));
    assert_eq!(
        check_structured("2025-11-25", &list, "split_words", &words),
        json!({"result": ["a", "b", "c"]})
    );
}

#[test]
fn old_versions_get_text_only() {
    for version in ["2024-11-05", "2025-03-26"] {
        let mut peer = Peer::legacy(version);
        let add = peer.request(call(1, "add", json!({"a": 1, "b": 2}), false));
        assert_eq!(
            add,
            json!({"jsonrpc": "2.0", "id": 1, "result": {
                "content": [{"type": "text", "text": "{\"sum\":3.0}"}]}})
        );
        assert_valid(version, "CallToolResult", &add["result"]);
        let words = peer.request(call(2, "split_words", json!({"text": "x y"}), false));
        assert_eq!(
            words["result"]["content"][0]["text"], "[\"x\",\"y\"]",
            "not wrapped without outputSchema"
        );
    }
}

#[test]
fn text_and_unit_results_are_content_only() {
    let mut peer = Peer::legacy("2025-06-18");
    let echo = peer.request(call(
        1,
        "echo",
        json!({"text": "hi\nthere \u{1F600}"}),
        false,
    ));
    assert_eq!(
        echo,
        json!({"jsonrpc": "2.0", "id": 1, "result": {
            "content": [{"type": "text", "text": "hi\nthere \u{1F600}"}]}})
    );
}

#[test]
fn tool_failures_are_error_results() {
    let mut peer = Peer::legacy("2025-11-25");
    let fail = peer.request(call(1, "fail", json!({}), false));
    assert_eq!(
        fail,
        json!({"jsonrpc": "2.0", "id": 1, "result": {
            "content": [{"type": "text", "text": "this tool always fails"}], "isError": true}})
    );
    let reason = peer.request(call(2, "fail", json!({"reason": "boom"}), false));
    assert_eq!(reason["result"]["content"][0]["text"], "boom");
    assert_valid("2025-11-25", "CallToolResult", &reason["result"]);
    let range = peer.request(call(3, "slow", json!({"ms": 700_000}), false));
    assert_eq!(range["result"]["isError"], true);
}

#[test]
fn bad_arguments_name_the_field_and_the_expectation() {
    let mut peer = Peer::legacy("2025-11-25");
    let cases = [
        (
            json!({"a": "x", "b": 2}),
            "Invalid arguments for tool 'add': `a`: invalid type: string \"x\", expected f64.",
        ),
        (
            json!({"a": 1}),
            "Invalid arguments for tool 'add': missing field `b`.",
        ),
        (
            json!({"a": 1, "b": 2, "c": 3}),
            "Invalid arguments for tool 'add': `c`: unknown field `c`, expected `a` or `b`.",
        ),
    ];
    for (i, (arguments, message)) in cases.into_iter().enumerate() {
        let response = peer.request(call(i as u64, "add", arguments, false));
        assert_eq!(
            response,
            json!({"jsonrpc": "2.0", "id": i, "result": {
                "content": [{"type": "text", "text": message}], "isError": true}})
        );
    }
    let enum_value = peer.request(call(
        9,
        "get_weather_data",
        json!({"location": "x", "units": "kelvin"}),
        false,
    ));
    let text = enum_value["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("`units`") && text.contains("metric"),
        "{text}"
    );
    let missing = peer.request(
        json!({"jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": {"name": "add"}}),
    );
    assert_eq!(
        missing["result"]["isError"], true,
        "absent arguments read as {{}}"
    );
}

#[test]
fn malformed_calls_are_invalid_params() {
    let mut peer = Peer::legacy("2025-11-25");
    let unknown = peer.request(call(1, "nope", json!({}), false));
    assert_eq!(
        unknown,
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "Unknown tool: nope", "data": {"name": "nope"}}})
    );
    let no_name = peer.request(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"arguments": {}}}),
    );
    assert_eq!(
        no_name,
        json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32602, "message": "Invalid params for tools/call: missing field `name`"}})
    );
    let bad_args = peer.request(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "add", "arguments": [1, 2]}}));
    assert_eq!(
        bad_args,
        json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -32602, "message": "Invalid params: \"arguments\" must be a JSON object"}})
    );
    let no_params = peer.request(json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call"}));
    assert_eq!(no_params["error"]["code"], -32602);
    let name_type = peer
        .request(json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": 5}}));
    assert_eq!(name_type["error"]["code"], -32602);
    // `_meta` is an object or absent, on every transport: the one parse of
    // params that HTTP's checks use decides here too.
    for meta in [
        json!(0),
        json!("x"),
        json!([1]),
        json!(null),
        json!(["2026-07-28", {}, null]),
    ] {
        let odd = peer.request(json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call",
            "params": {"name": "add", "arguments": {"a": 1, "b": 2}, "_meta": meta}}));
        assert_eq!(
            odd,
            json!({"jsonrpc": "2.0", "id": 6, "error": {"code": -32602, "message": "Invalid params: params._meta must be a JSON object"}}),
            "{meta}"
        );
    }
    let listed = peer.request(json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list",
        "params": {"_meta": {"progressToken": 1}, "cursor": null}}));
    assert!(listed.get("result").is_some(), "{listed}");
}

#[test]
fn a_panicking_tool_is_an_error_result_and_the_server_keeps_serving() {
    let mut peer = Peer::legacy("2025-11-25");
    let panic = peer.request(call(1, "panic", json!({}), false));
    assert_eq!(
        panic,
        json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text":
            "The tool 'panic' failed with an internal error; the details are in the server's log. Retrying the same call is unlikely to help."}],
            "isError": true}})
    );
    let add = peer.request(call(2, "add", json!({"a": 1, "b": 1}), false));
    assert_eq!(add["result"]["structuredContent"]["sum"], 2.0);
}

#[test]
fn calls_run_concurrently_and_answer_in_completion_order() {
    let mut peer = Peer::legacy("2025-11-25");
    let started = Instant::now();
    peer.send(&call(1, "slow", json!({"ms": 1000}), false));
    peer.send(&call(2, "slow", json!({"ms": 1000, "steps": 4}), false));
    peer.send(&call(3, "add", json!({"a": 1, "b": 2}), false));
    let first = peer.recv();
    assert_eq!(first["id"], 3, "the fast call is not held up by slow ones");
    let mut slow_ids = vec![peer.recv()["id"].clone(), peer.recv()["id"].clone()];
    slow_ids.sort_by_key(|v| v.as_u64());
    assert_eq!(slow_ids, [json!(1), json!(2)]);
    assert!(
        started.elapsed() < Duration::from_millis(1800),
        "slow calls overlapped: {:?}",
        started.elapsed()
    );
}

#[test]
fn json_rpc_hygiene() {
    let mut peer = Peer::legacy("2025-11-25");
    let cases: [(&str, Value); 8] = [
        (
            "not json at all",
            json!({"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error: expected ident"}}),
        ),
        (
            "{\"jsonrpc\":\"2.0\",\"id\":1,",
            json!({"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error: EOF while parsing a value"}}),
        ),
        (
            "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}",
            json!({"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request: \"id\" must not be null (a notification has no \"id\" at all)"}}),
        ),
        (
            "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]",
            json!({"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request: a JSON array (a JSON-RPC batch) is not accepted; MCP takes one JSON-RPC message, a JSON object, per line"}}),
        ),
        (
            "{\"jsonrpc\":\"2.0\",\"id\":5}",
            json!({"jsonrpc": "2.0", "id": 5, "error": {"code": -32600, "message": "Invalid Request: \"method\" is missing"}}),
        ),
        (
            "{\"id\":6,\"method\":\"ping\"}",
            json!({"jsonrpc": "2.0", "id": 6, "error": {"code": -32600, "message": "Invalid Request: \"jsonrpc\" must be \"2.0\""}}),
        ),
        (
            "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"sampling/createMessage\"}",
            json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -32601, "message": "Method not found: sampling/createMessage", "data": {"method": "sampling/createMessage"}}}),
        ),
        (
            "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"server/discover\"}",
            json!({"jsonrpc": "2.0", "id": 8, "error": {"code": -32601, "message": "Method not found: server/discover", "data": {"method": "server/discover"}}}),
        ),
    ];
    for (line, expected) in cases {
        peer.send_raw(line);
        assert_eq!(peer.recv(), expected, "for {line}");
    }
    // Notifications, known or not, are never answered: the next line is the ping's.
    peer.send_raw("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/whatever\",\"params\":{}}");
    peer.send_raw("{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{\"name\":\"add\"}}");
    peer.send_raw("{\"jsonrpc\":\"2.0\",\"id\":\"last\",\"method\":\"ping\"}");
    assert_eq!(
        peer.recv(),
        json!({"jsonrpc": "2.0", "id": "last", "result": {}})
    );
    peer.expect_nothing_before_a_marker();
}

#[test]
fn requests_before_initialize_get_a_clear_error() {
    let mut peer = Peer::everything();
    let response = peer.request(request(1, "tools/list", json!({}), false));
    assert_eq!(
        response,
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message":
            "'tools/list' arrived before 'initialize' and without a \
             2026-07-28 _meta envelope: send 'initialize' first, or put \
             \"io.modelcontextprotocol/protocolVersion\" and \
             \"io.modelcontextprotocol/clientCapabilities\" in params._meta"}})
    );
    // The connection is still undecided: a handshake works afterwards.
    let init = peer.request(initialize(2, "2025-11-25"));
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
}

#[test]
fn stdin_eof_flushes_in_flight_calls_and_exits_zero() {
    let mut peer = Peer::legacy("2025-11-25");
    peer.send(&call(1, "slow", json!({"ms": 300}), false));
    peer.send(&call(2, "add", json!({"a": 1, "b": 2}), false));
    let (status, lines) = peer.close();
    assert!(status.success(), "exit status {status}");
    let ids: Vec<Value> = lines
        .iter()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["id"].clone())
        .collect();
    assert_eq!(ids, [json!(2), json!(1)], "both answered before exit");
}

// ---- 2026-07-28 ----

#[test]
fn discover_describes_the_server() {
    let mut peer = Peer::modern();
    let response = peer.request(request(1, "server/discover", json!({}), true));
    assert_eq!(
        response,
        json!({"jsonrpc": "2.0", "id": 1, "result": {
            // Before the era is decided, the legacy versions too (through
            // `initialize`), as a -32022 error here names them.
            "supportedVersions": ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"],
            // `build_report` may run as a task: the Tasks extension;
            // `stats` names an MCP App: the Apps extension.
            "capabilities": {"tools": {"listChanged": true},
                "resources": {"subscribe": true, "listChanged": true},
                "prompts": {"listChanged": true}, "completions": {},
                "extensions": {"io.modelcontextprotocol/tasks": {},
                    "io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}},
            "ttlMs": 300000,
            "cacheScope": "public",
            "instructions": INSTRUCTIONS,
            "resultType": "complete",
            "_meta": server_info_meta()}})
    );
    assert_valid("2026-07-28", "DiscoverResult", &response["result"]);
}

#[test]
fn discover_then_initialize_falls_back_to_legacy() {
    // Script A of the digest: a probing client that settles on the handshake.
    let mut peer = Peer::modern();
    peer.request(request(1, "server/discover", json!({}), true));
    peer.version = "2025-11-25".into();
    let init = peer.request(initialize(2, "2025-11-25"));
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    let list = peer.request(request(3, "tools/list", json!({}), false));
    assert_eq!(list["result"].get("resultType"), None);
    assert_valid("2025-11-25", "ListToolsResult", &list["result"]);
}

#[test]
fn discover_then_enveloped_call() {
    // Script B: a modern client.
    let mut peer = Peer::modern();
    peer.request(request(1, "server/discover", json!({}), true));
    let add = peer.request(call(2, "add", json!({"a": 2, "b": 2}), true));
    assert_eq!(
        add,
        json!({"jsonrpc": "2.0", "id": 2, "result": {
            "content": [{"type": "text", "text": "{\"sum\":4.0}"}],
            "structuredContent": {"sum": 4.0},
            "resultType": "complete",
            "_meta": server_info_meta()}})
    );
    assert_valid("2026-07-28", "CallToolResult", &add["result"]);
}

#[test]
fn initialize_after_a_modern_request_is_an_unsupported_version() {
    // Script C.
    let mut peer = Peer::modern();
    peer.request(request(1, "tools/list", json!({}), true));
    let init = peer.request(initialize(2, "2025-11-25"));
    assert_eq!(
        init,
        json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32022, "message": "Unsupported protocol version",
            "data": {"supported": ["2026-07-28"], "requested": "2025-11-25"}}})
    );
    assert_valid("2026-07-28", "UnsupportedProtocolVersionError", &init);
}

#[test]
fn an_enveloped_initialize_is_an_unknown_method_and_discover_then_narrows() {
    // The 2026-07-28 era has no `initialize`; the enveloped request decides
    // the era, so `server/discover` and `-32022` then name only its version.
    let mut peer = Peer::modern();
    let init = peer.request(request(1, "initialize", json!({}), true));
    assert_eq!(init["error"]["code"], -32601, "{init}");
    assert_valid("2026-07-28", "JSONRPCErrorResponse", &init);
    let discover = peer.request(request(2, "server/discover", json!({}), true));
    assert_eq!(
        discover["result"]["supportedVersions"],
        json!(["2026-07-28"])
    );
    assert_valid("2026-07-28", "DiscoverResult", &discover["result"]);
}

#[test]
fn the_envelope_is_validated_on_every_request() {
    let mut peer = Peer::modern();
    let unknown = peer.request(
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "1900-01-01",
        "io.modelcontextprotocol/clientCapabilities": {}}}}),
    );
    assert_eq!(
        unknown,
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32022, "message": "Unsupported protocol version",
            "data": {"supported": ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"], "requested": "1900-01-01"}}})
    );
    assert_valid("2026-07-28", "UnsupportedProtocolVersionError", &unknown);
    let no_caps = peer.request(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28"}}}),
    );
    assert_eq!(no_caps["error"]["code"], -32602);
    assert!(
        no_caps["error"]["message"]
            .as_str()
            .unwrap()
            .contains("clientCapabilities")
    );
    // Once modern, every request needs its own envelope.
    peer.request(request(3, "tools/list", json!({}), true));
    let bare = peer.request(request(4, "tools/list", json!({}), false));
    assert_eq!(bare["error"]["code"], -32602);
    assert!(
        bare["error"]["message"]
            .as_str()
            .unwrap()
            .contains("io.modelcontextprotocol/protocolVersion")
    );
    let caps_type = peer.request(
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": "all"}}}),
    );
    assert_eq!(caps_type["error"]["code"], -32602);
    let ping = peer.request(request(6, "ping", json!({}), true));
    assert_eq!(ping["error"]["code"], -32601, "ping is gone in 2026-07-28");
}

#[test]
fn modern_tools_list_carries_cache_hints_and_bare_schemas() {
    let mut peer = Peer::modern();
    let list = peer.request(request(1, "tools/list", json!({}), true));
    assert_valid("2026-07-28", "ListToolsResult", &list["result"]);
    assert_eq!(list["result"]["ttlMs"], 300000);
    assert_eq!(list["result"]["cacheScope"], "public");
    assert_eq!(list["result"]["resultType"], "complete");
    assert_eq!(list["result"]["_meta"], server_info_meta());
    assert_eq!(
        tool(&list, "split_words")["outputSchema"],
        json!({"type": "array", "items": {"type": "string"}})
    );
    assert_eq!(tool(&list, "echo")["icons"][0]["mimeType"], "image/svg+xml");
    let words = peer.request(call(2, "split_words", json!({"text": "one two"}), true));
    assert_eq!(
        check_structured("2026-07-28", &list, "split_words", &words),
        json!(["one", "two"])
    );
    let weather = peer.request(call(
        3,
        "get_weather_data",
        json!({"location": "Oslo", "units": "metric"}),
        true,
    ));
    check_structured("2026-07-28", &list, "get_weather_data", &weather);
    let bad = peer.request(call(4, "add", json!({"a": true, "b": 1}), true));
    assert_eq!(bad["result"]["isError"], true);
    assert_valid("2026-07-28", "CallToolResult", &bad["result"]);
    let unknown = peer.request(call(5, "nope", json!({}), true));
    assert_eq!(unknown["error"]["code"], -32602);
}

// ---- hardening ----

#[test]
fn a_tool_that_prints_cannot_corrupt_stdout() {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::process::{Command, Stdio};
    let mut child = Command::new(common::example_binary("everything"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for line in [
        initialize(1, "2025-11-25").to_string(),
        call(2, "noisy", json!({"text": "hello from println"}), false).to_string(),
        call(3, "add", json!({"a": 1, "b": 1}), false).to_string(),
    ] {
        writeln!(stdin, "{line}").unwrap();
    }
    drop(stdin);
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let lines: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(&l.unwrap()).expect("every stdout line is a JSON-RPC frame"))
        .collect();
    assert_eq!(lines.len(), 3);
    // Responses go out as calls finish: found by id.
    let noisy = lines.iter().find(|l| l["id"] == 2).expect("noisy answered");
    assert_eq!(noisy["result"]["content"][0]["text"], "printed 18 bytes");
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(
        stderr.contains("noisy says: hello from println"),
        "the print went to stderr: {stderr}"
    );
    assert!(child.wait().unwrap().success());
}

#[test]
fn a_first_call_that_prints_more_than_a_pipe_holds_is_answered() {
    // The thread that drains the stdout guard's pipe starts once `initialize`
    // has been answered, to keep it off the time to the first response. A
    // call that comes first, or in the same write as `initialize`, must still
    // find it running: a print past the pipe's 64 KiB would otherwise wait
    // on the runtime's own thread forever.
    let text = "x".repeat(200 << 10);
    let printed = format!("printed {} bytes", text.len());
    let mut modern = Peer::modern();
    let first = modern.request(call(1, "noisy", json!({"text": text}), true));
    assert_eq!(first["result"]["content"][0]["text"], printed.as_str());

    let mut legacy = Peer::everything();
    let together = format!(
        "{}\n{}\n",
        initialize(1, "2025-11-25"),
        call(2, "noisy", json!({"text": text}), false)
    );
    legacy.stdin_bytes(together.as_bytes());
    assert_eq!(legacy.recv()["id"], 1);
    let second = legacy.recv();
    assert_eq!(second["result"]["content"][0]["text"], printed.as_str());
}

#[test]
fn sigterm_finishes_calls_in_flight_and_exits_zero() {
    let mut peer = Peer::legacy("2025-11-25");
    peer.send(&call(1, "slow", json!({"ms": 300}), false));
    std::thread::sleep(Duration::from_millis(100));
    let status = std::process::Command::new("kill")
        .args(["-TERM", &peer.pid().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let response = peer.recv();
    assert_eq!(response["id"], 1);
    assert_eq!(response["result"]["structuredContent"]["ms"], 300);
    let (status, rest) = peer.close();
    assert!(status.success(), "{status}");
    assert!(rest.is_empty());
}

// ---- context, long-running tools, elicitation, list changes (through `everything`) ----

fn with_meta(mut message: Value, meta: Value) -> Value {
    let params = &mut message["params"];
    let mut merged = params.get("_meta").cloned().unwrap_or_else(|| json!({}));
    for (k, v) in meta.as_object().unwrap() {
        merged[k] = v.clone();
    }
    params["_meta"] = merged;
    message
}

#[test]
fn progress_and_logs_reach_the_client_in_both_eras() {
    for modern in [false, true] {
        let mut peer = if modern {
            Peer::modern()
        } else {
            Peer::legacy("2025-11-25")
        };
        if !modern {
            let set = peer.request(request(
                1,
                "logging/setLevel",
                json!({"level": "info"}),
                false,
            ));
            assert_eq!(set["result"], json!({}));
        }
        let mut message = with_meta(
            call(2, "slow", json!({"ms": 30, "steps": 3}), modern),
            json!({"progressToken": "p-1"}),
        );
        if modern {
            message = with_meta(message, json!({"io.modelcontextprotocol/logLevel": "info"}));
        }
        peer.send(&message);
        let mut progress = Vec::new();
        let mut logs = Vec::new();
        loop {
            let line = peer.recv();
            match line["method"].as_str() {
                Some("notifications/progress") => {
                    assert_valid(&peer.version, "ProgressNotification", &line);
                    assert_eq!(line["params"]["progressToken"], "p-1");
                    progress.push(line["params"]["progress"].as_f64().unwrap());
                }
                Some("notifications/message") => {
                    assert_valid(&peer.version, "LoggingMessageNotification", &line);
                    logs.push(line["params"]["data"].clone());
                }
                _ => {
                    assert_eq!(line["id"], 2);
                    assert_eq!(
                        line["result"]["structuredContent"],
                        json!({"ms": 30, "steps": 3})
                    );
                    break;
                }
            }
        }
        assert_eq!(progress, [1.0, 2.0, 3.0], "modern: {modern}");
        assert_eq!(
            logs,
            [
                json!("slept step 1 of 3"),
                json!("slept step 2 of 3"),
                json!("slept step 3 of 3")
            ]
        );
        // Without a token: no progress. Logs follow the level: the legacy
        // session's level persists; a modern request without one gets none.
        peer.send(&call(3, "slow", json!({"ms": 10, "steps": 2}), modern));
        let mut notes = Vec::new();
        let quiet = loop {
            let line = peer.recv();
            if line.get("id").is_some() {
                break line;
            }
            notes.push(line["method"].as_str().unwrap().to_owned());
        };
        assert_eq!(quiet["result"]["structuredContent"]["steps"], 2);
        let expected: &[&str] = if modern {
            &[]
        } else {
            &["notifications/message", "notifications/message"]
        };
        assert_eq!(notes, expected, "modern: {modern}");
    }
}

#[test]
fn a_cancelled_call_gets_no_response_in_both_eras() {
    for modern in [false, true] {
        let mut peer = if modern {
            Peer::modern()
        } else {
            Peer::legacy("2025-11-25")
        };
        // Ten minutes: only the cancel can end it before the exit's bound.
        // The server reads its input in order, so the call is in flight when
        // the cancel is read; no pause is needed between them.
        peer.send(&call(1, "slow", json!({"ms": 600_000}), modern));
        peer.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1, "reason": "test"}}));
        let next = peer.request(call(2, "add", json!({"a": 1, "b": 2}), modern));
        assert_eq!(next["id"], 2);
        peer.expect_nothing_before_a_marker();
        // `close` fails the test if the server does not exit: the cancelled
        // call does not hold up the exit.
        let (status, rest) = peer.close();
        assert!(status.success());
        assert!(rest.is_empty(), "nothing for the cancelled call: {rest:?}");
    }
}

#[test]
fn elicitation_in_a_legacy_session_is_a_server_request() {
    let mut peer = Peer::everything();
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "stdio-tests", "version": "1"}}});
    peer.request(init);
    peer.send(&call(1, "book_table", json!({"party": 4}), false));
    let ask = peer.recv();
    assert_valid("2025-11-25", "ElicitRequest", &ask);
    assert_eq!(ask["method"], "elicitation/create");
    assert_eq!(
        ask["params"]["message"],
        "Whose name is the table for 4 under?"
    );
    assert_eq!(
        ask["params"]["requestedSchema"]["required"],
        json!(["name"])
    );
    peer.send(&json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"name": "Grace"}}}));
    let done = peer.recv();
    assert_eq!(done["id"], 1);
    assert_eq!(
        done["result"]["structuredContent"],
        json!({"booked": true, "name": "Grace", "party": 4})
    );
    // Declining reaches the tool as a value.
    peer.send(&call(2, "book_table", json!({"party": 2}), false));
    let ask = peer.recv();
    peer.send(&json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "decline"}}));
    assert_eq!(
        peer.recv()["result"]["structuredContent"],
        json!({"booked": false, "name": null, "party": 2})
    );
}

/// `build_report` without the Tasks extension (a legacy session): a plain
/// call whose progress carries a message per section and whose question
/// midway is a server request, answered while the call waits.
#[test]
fn build_report_in_a_legacy_session_reports_each_section_and_asks_once() {
    let mut peer = Peer::everything();
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "stdio-tests", "version": "1"}}});
    peer.request(init);
    let mut report = call(
        1,
        "build_report",
        json!({"sections": 4, "step_ms": 20}),
        false,
    );
    report["params"]["_meta"] = json!({"progressToken": "r"});
    peer.send(&report);
    let mut progress = Vec::new();
    let ask = loop {
        let message = peer.recv();
        match message["method"].as_str() {
            Some("notifications/progress") => progress.push(message["params"].clone()),
            Some("elicitation/create") => break message,
            _ => panic!("unexpected {message}"),
        }
    };
    assert_valid("2025-11-25", "ElicitRequest", &ask);
    assert_eq!(
        ask["params"]["message"],
        "Include the appendix? (2 of 4 sections written)"
    );
    assert_eq!(
        ask["params"]["requestedSchema"]["properties"]["include"]["type"],
        "boolean"
    );
    peer.send(&json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"include": true}}}));
    let done = loop {
        let message = peer.recv();
        match message["method"].as_str() {
            Some("notifications/progress") => progress.push(message["params"].clone()),
            _ => break message,
        }
    };
    assert_eq!(done["id"], 1, "{done}");
    assert_eq!(
        done["result"]["structuredContent"]["appendix"], true,
        "{done}"
    );
    assert!(
        done["result"]["structuredContent"]["text"]
            .as_str()
            .unwrap()
            .ends_with("4. Section 4\nAppendix\n"),
        "{done}"
    );
    let expected: Vec<Value> = (1..=4)
        .map(|i| json!({"progressToken": "r", "progress": f64::from(i), "total": 4.0, "message": format!("section {i} of 4")}))
        .collect();
    assert_eq!(progress, expected);
}

#[test]
fn elicitation_in_the_stateless_era_is_input_required() {
    let mut peer = Peer::modern();
    let mut first = call(1, "book_table", json!({"party": 3}), true);
    first["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] =
        json!({"elicitation": {}});
    let round = peer.request(first.clone());
    assert_valid("2026-07-28", "InputRequiredResult", &round["result"]);
    assert_eq!(round["result"]["resultType"], "input_required");
    let request = &round["result"]["inputRequests"]["guest"];
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(request["params"]["mode"], "form");
    let mut retry = first.clone();
    retry["id"] = 2.into();
    retry["params"]["inputResponses"] =
        json!({"guest": {"action": "accept", "content": {"name": "Alan"}}});
    retry["params"]["requestState"] = round["result"]["requestState"].clone();
    let done = peer.request(retry.clone());
    assert_eq!(done["result"]["resultType"], "complete");
    assert_eq!(
        done["result"]["structuredContent"],
        json!({"booked": true, "name": "Alan", "party": 3})
    );
    // Other arguments with the same state: refused.
    let mut replay = retry;
    replay["id"] = 3.into();
    replay["params"]["arguments"] = json!({"party": 20});
    let refused = peer.request(replay);
    assert_eq!(refused["error"]["code"], -32602);
    // A client without the capability: -32021.
    let missing = peer.request(call(4, "book_table", json!({"party": 3}), true));
    assert_eq!(missing["error"]["code"], -32021);
    assert_eq!(
        missing["error"]["data"]["requiredCapabilities"],
        json!({"elicitation": {}})
    );
}

#[test]
fn list_changes_reach_legacy_sessions_and_modern_subscribers() {
    let mut legacy = Peer::legacy("2025-11-25");
    legacy.send(&call(1, "toggle_bonus", json!({}), false));
    let mut seen = [legacy.recv(), legacy.recv()];
    seen.sort_by_key(|m| m.get("id").is_some());
    assert_eq!(
        seen[0],
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {}})
    );
    assert_eq!(
        seen[1]["result"]["content"][0]["text"],
        "bonus is now hidden"
    );
    let list = legacy.request(request(2, "tools/list", json!({}), false));
    assert!(
        list["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["name"] != "bonus")
    );

    let mut modern = Peer::modern();
    let listen = request(
        1,
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true}}),
        true,
    );
    modern.send(&listen);
    let ack = modern.recv();
    assert_valid("2026-07-28", "SubscriptionsAcknowledgedNotification", &ack);
    modern.send(&call(2, "toggle_bonus", json!({}), true));
    let mut seen = [modern.recv(), modern.recv()];
    seen.sort_by_key(|m| m.get("id").is_some());
    assert_valid("2026-07-28", "ToolListChangedNotification", &seen[0]);
    assert_eq!(
        seen[0]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        1
    );
    let (status, rest) = modern.close();
    assert!(status.success());
    let end: Value = serde_json::from_str(&rest[0]).unwrap();
    assert_valid("2026-07-28", "SubscriptionsListenResultResponse", &end);
}

#[test]
fn the_basket_example_keeps_state_behind_handles() {
    let mut peer = Peer::spawn("basket", &[]);
    peer.request(initialize(0, "2025-11-25"));
    let created = peer.request(call(1, "create_basket", json!({}), false));
    let id = created["result"]["structuredContent"]["basket_id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(id.starts_with("basket_") && id.len() == 39, "{id}");
    let added = peer.request(call(
        2,
        "add_item",
        json!({"basket_id": id, "item": "cheese", "quantity": 2}),
        false,
    ));
    assert_eq!(added["result"]["structuredContent"]["total_cents"], 960);
    let unknown = peer.request(call(
        3,
        "view_basket",
        json!({"basket_id": "basket_0123"}),
        false,
    ));
    assert_eq!(unknown["result"]["isError"], true);
    assert!(
        unknown["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("call `create_basket`")
    );
    let done = peer.request(call(4, "checkout", json!({"basket_id": id}), false));
    assert_eq!(
        done["result"]["structuredContent"]["items"],
        json!({"cheese": 2})
    );
    let gone = peer.request(call(5, "view_basket", json!({"basket_id": id}), false));
    assert_eq!(
        gone["result"]["isError"], true,
        "checked-out baskets are gone"
    );
}

#[test]
fn hostile_input_gets_defined_answers_and_the_server_goes_on() {
    let mut peer = Peer::legacy("2025-11-25");
    // A 10 MB string argument: over the 8 MiB limit, answered and skipped.
    let huge = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{{\"name\":\"echo\",\"arguments\":{{\"text\":\"{}\"}}}}}}",
        "x".repeat(10 * 1024 * 1024)
    );
    peer.send_raw(&huge);
    let refused = peer.recv();
    assert_eq!(refused["error"]["code"], -32600);
    assert_eq!(refused["id"], 1, "the id is found in the skipped line");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("over this server's limit of 8388608 bytes")
    );
    // A 1 MB argument is fine.
    let big = peer.request(call(
        2,
        "echo",
        json!({"text": "y".repeat(1024 * 1024)}),
        false,
    ));
    assert_eq!(
        big["result"]["content"][0]["text"].as_str().unwrap().len(),
        1024 * 1024
    );
    // Deep nesting in arguments.
    let deep = format!("{}1{}", "[".repeat(5000), "]".repeat(5000));
    peer.send_raw(&format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{{\"name\":\"echo\",\"arguments\":{{\"text\":{deep}}}}}}}"
    ));
    let nested = peer.recv();
    assert_eq!(nested["id"], 3);
    assert_eq!(nested["result"]["isError"], true);
    // A trailing CR (CRLF framing) is accepted.
    peer.send_raw("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}\r");
    assert_eq!(
        peer.recv(),
        json!({"jsonrpc": "2.0", "id": 4, "result": {}})
    );
    // Duplicate in-flight ids: the second is refused, the first still answered.
    peer.send(&call(5, "slow", json!({"ms": 200}), false));
    let duplicate = peer.request(call(5, "add", json!({"a": 1, "b": 1}), false));
    assert_eq!(duplicate["error"]["code"], -32600);
    assert_eq!(peer.recv()["result"]["structuredContent"]["ms"], 200);
    let alive = peer.request(call(6, "add", json!({"a": 1, "b": 1}), false));
    assert_eq!(alive["result"]["structuredContent"]["sum"], 2.0);
}

#[test]
fn invalid_utf8_is_a_parse_error_over_stdio() {
    use std::io::Write;
    let mut peer = Peer::legacy("2025-11-25");
    peer.stdin_bytes(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"pi\xffng\"}\n");
    let bad = peer.recv();
    assert_eq!(bad["error"]["code"], -32700);
    let _ = std::io::stdout().flush();
    assert_eq!(
        peer.request(json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}))["result"],
        json!({})
    );
}

#[test]
fn the_server_timeout_and_rate_limit_answer_with_error_results() {
    let mut timed = Peer::spawn("everything", &[("CALL_TIMEOUT_MS", "100")]);
    timed.request(initialize(0, "2025-11-25"));
    let late = timed.request(call(1, "slow", json!({"ms": 2000}), false));
    assert_eq!(
        late["result"],
        json!({"content": [{"type": "text", "text": "The tool 'slow' timed out after 100ms."}], "isError": true})
    );
    let mut limited = Peer::spawn("everything", &[("RATE_LIMIT", "1")]);
    limited.request(initialize(0, "2025-11-25"));
    let mut refused = 0;
    for id in 1..=4 {
        let response = limited.request(call(id, "add", json!({"a": 1, "b": 2}), false));
        if response["result"]["isError"] == true {
            assert!(
                response["result"]["content"][0]["text"]
                    .as_str()
                    .unwrap()
                    .starts_with("Rate limit exceeded")
            );
            refused += 1;
        }
    }
    assert_eq!(refused, 2, "a burst of 2, then refusals");
}

#[test]
fn every_content_kind_reaches_new_sessions_and_degrades_for_old_ones() {
    let mut modern = Peer::modern();
    let result = modern.request(call(1, "sample_content", json!({}), true));
    assert_valid("2026-07-28", "CallToolResult", &result["result"]);
    let kinds = content_types(&result);
    assert_eq!(
        kinds,
        ["text", "image", "audio", "resource_link", "resource"]
    );
    assert_eq!(
        result["result"]["content"][0]["annotations"],
        json!({"audience": ["user"]})
    );
    assert_eq!(result["result"]["content"][3]["size"], 48213);
    let mut old = Peer::legacy("2024-11-05");
    let result = old.request(call(1, "sample_content", json!({}), false));
    assert_valid("2024-11-05", "CallToolResult", &result["result"]);
    let kinds = content_types(&result);
    assert_eq!(kinds, ["text", "image", "text", "text", "resource"]);
    assert!(
        result["result"]["content"][4]["annotations"]
            .get("lastModified")
            .is_none()
    );
}

/// `chart` of `[3, 1, 2]`: its figures, and the bar chart
/// `<svg xmlns="http://www.w3.org/2000/svg" width="30" height="100" viewBox="0 0 30 100"><rect x="0" y="0" width="9" height="100"/><rect x="10" y="67" width="9" height="33"/><rect x="20" y="33" width="9" height="67"/></svg>`
/// base64-encoded.
const CHART_SVG: &str = "PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHdpZHRoPSIzMCIgaGVpZ2h0PSIxMDAiIHZpZXdCb3g9IjAgMCAzMCAxMDAiPjxyZWN0IHg9IjAiIHk9IjAiIHdpZHRoPSI5IiBoZWlnaHQ9IjEwMCIvPjxyZWN0IHg9IjEwIiB5PSI2NyIgd2lkdGg9IjkiIGhlaWdodD0iMzMiLz48cmVjdCB4PSIyMCIgeT0iMzMiIHdpZHRoPSI5IiBoZWlnaHQ9IjY3Ii8+PC9zdmc+";

#[test]
fn structured_output_with_an_image_reaches_every_revision() {
    let figures = json!({"count": 3, "min": 1.0, "max": 3.0, "mean": 2.0});
    let content = json!([
        {"type": "text", "text": "{\"count\":3,\"min\":1.0,\"max\":3.0,\"mean\":2.0}"},
        {"type": "image", "data": CHART_SVG, "mimeType": "image/svg+xml"},
    ]);
    // `Structured<Figures>` advertises what returning `Figures` would.
    let output_schema = json!({
        "type": "object",
        "description": "The figures of the values `chart` drew.",
        "properties": {
            "count": {"description": "How many values there are.", "minimum": 0, "type": "integer"},
            "max": {"description": "The largest value.", "type": "number"},
            "mean": {"description": "Their mean.", "type": "number"},
            "min": {"description": "The smallest value.", "type": "number"}
        },
        "required": ["count", "min", "max", "mean"]
    });
    for version in LEGACY.into_iter().chain(["2026-07-28"]) {
        let modern = version == "2026-07-28";
        let mut peer = if modern {
            Peer::modern()
        } else {
            Peer::legacy(version)
        };
        let structured = !matches!(version, "2024-11-05" | "2025-03-26");
        let list = peer.request(request(1, "tools/list", json!({}), modern));
        assert_eq!(
            tool(&list, "chart").get("outputSchema"),
            structured.then_some(&output_schema),
            "{version}"
        );
        let response = peer.request(call(2, "chart", json!({"values": [3, 1, 2]}), modern));
        let mut expected = json!({"content": content});
        if structured {
            expected["structuredContent"] = figures.clone();
        }
        if modern {
            expected["resultType"] = json!("complete");
            expected["_meta"] = server_info_meta();
        }
        assert_eq!(
            response,
            json!({"jsonrpc": "2.0", "id": 2, "result": expected}),
            "{version}"
        );
        assert_valid(version, "CallToolResult", &response["result"]);
        if structured {
            assert_eq!(
                check_structured(version, &list, "chart", &response),
                figures
            );
        }
    }
}

#[test]
fn a_failed_structured_output_with_an_image_is_an_error_without_either() {
    for (version, modern) in [("2025-11-25", false), ("2026-07-28", true)] {
        let mut peer = if modern {
            Peer::modern()
        } else {
            Peer::legacy(version)
        };
        let trailer = |mut result: Value| {
            if modern {
                result["resultType"] = json!("complete");
                result["_meta"] = server_info_meta();
            }
            result
        };
        // The tool's own `Err`.
        let empty = peer.request(call(1, "chart", json!({"values": []}), modern));
        assert_eq!(
            empty,
            json!({"jsonrpc": "2.0", "id": 1, "result": trailer(json!({
                "content": [{"type": "text", "text": "pass 1 to 50 values, not 0"}],
                "isError": true}))})
        );
        assert_valid(version, "CallToolResult", &empty["result"]);
        // A mean JSON cannot carry: the runtime's error, the image dropped.
        let overflow = peer.request(call(2, "chart", json!({"values": [1e308, 1e308]}), modern));
        assert_eq!(
            overflow,
            json!({"jsonrpc": "2.0", "id": 2, "result": trailer(json!({
                "content": [{"type": "text", "text": "The tool 'chart' returned a non-finite number (inf) at `mean`; \
                    JSON cannot carry NaN or infinity. The inputs probably overflow or divide by zero: retry with other values."}],
                "isError": true}))})
        );
        assert_valid(version, "CallToolResult", &overflow["result"]);
    }
}
