//! The runtime through its in-memory transport: the same main loop as stdio,
//! with servers configured per test (pagination, limits, registration errors).

use mcpfn_runtime::testing::{MemoryTransport, memory};
use mcpfn_runtime::{Server, Tool, ToolBuilder, ToolOutcome};
use serde_json::{Value, json};
use tokio::task::JoinHandle;

fn named(name: &str) -> Tool {
    ToolBuilder::new(name, |call| {
        Box::pin(async move { ToolOutcome::text(call.name().to_owned()) })
    })
    .description(format!("tool {name}"))
    .build()
}

fn start(server: Server) -> (MemoryTransport, JoinHandle<std::io::Result<()>>) {
    let (client, server_end) = memory();
    let (read, write) = tokio::io::split(server_end);
    (client, tokio::spawn(server.serve(read, write)))
}

async fn ask(client: &mut MemoryTransport, message: Value) -> Value {
    client.send(&message.to_string()).await.unwrap();
    let line = client.recv().await.unwrap().expect("a response");
    serde_json::from_str(&line).unwrap()
}

fn list(id: u64, cursor: Option<&str>, modern: bool) -> Value {
    let mut params = json!({});
    if let Some(cursor) = cursor {
        params["cursor"] = cursor.into();
    }
    if modern {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}
        });
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": params})
}

async fn walk(client: &mut MemoryTransport, modern: bool) -> (Vec<String>, usize) {
    let mut cursor: Option<String> = None;
    let mut names = Vec::new();
    let mut pages = 0;
    loop {
        let page = ask(client, list(pages as u64 + 10, cursor.as_deref(), modern)).await;
        let result = &page["result"];
        names.extend(
            result["tools"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["name"].as_str().unwrap().to_owned()),
        );
        pages += 1;
        if modern {
            assert_eq!(
                result["cacheScope"], "public",
                "every page shares one cacheScope"
            );
        }
        match result.get("nextCursor").and_then(Value::as_str) {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    (names, pages)
}

async fn check_pagination(modern: bool) {
    let tools = ["e", "c", "a", "d", "b"].map(named);
    let (mut client, _server) = start(Server::new("paged", "1").page_size(2).tools(tools));
    if !modern {
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
        ask(&mut client, init).await;
    }
    let (first, pages) = walk(&mut client, modern).await;
    assert_eq!(pages, 3);
    assert_eq!(first, ["a", "b", "c", "d", "e"]);
    let (second, _) = walk(&mut client, modern).await;
    assert_eq!(first, second, "same order twice");
    let bogus = ask(&mut client, list(99, Some("bogus"), modern)).await;
    assert_eq!(bogus["error"]["code"], -32602);
    assert_eq!(
        bogus["error"]["message"],
        "Invalid cursor: use a nextCursor value from an earlier tools/list result, or no cursor"
    );
}

#[tokio::test]
async fn pagination_walks_every_tool_in_a_stable_order() {
    check_pagination(true).await;
    check_pagination(false).await;
}

#[tokio::test]
async fn a_cursor_without_pagination_is_invalid() {
    let (mut client, _server) = start(Server::new("flat", "1").tool(named("a")));
    let response = ask(&mut client, list(1, Some("0000000000000000"), true)).await;
    assert_eq!(response["error"]["code"], -32602);
}

#[tokio::test]
async fn oversized_and_invalid_lines_are_answered_and_the_next_one_served() {
    let (mut client, server) = start(
        Server::new("small", "1")
            .max_message_size(1024)
            .tool(named("a")),
    );
    let big = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{{\"pad\":\"{}\"}}}}",
        "x".repeat(4096)
    );
    client.send(&big).await.unwrap();
    let line: Value = serde_json::from_str(&client.recv().await.unwrap().unwrap()).unwrap();
    let message = format!(
        "Invalid Request: the message is {} bytes, over this server's limit of 1024 bytes; it was discarded",
        big.len()
    );
    assert_eq!(
        line,
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32600, "message": message}})
    );
    let ping = ask(
        &mut client,
        json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}),
    )
    .await;
    assert_eq!(ping["result"], json!({}));
    // Invalid UTF-8 inside a string is a parse error, not a crash.
    client
        .send_bytes(b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"p\xffing\"}")
        .await
        .unwrap();
    let bad: Value = serde_json::from_str(&client.recv().await.unwrap().unwrap()).unwrap();
    assert_eq!(bad["error"]["code"], -32700, "{bad}");
    // Deep nesting never overflows the stack: unknown members and params are
    // skipped without recursion, and arguments hit the parser's depth limit.
    drop(server);
    let value_tool = ToolBuilder::new("value", |call| {
        Box::pin(async move {
            match call.arguments::<Value>() {
                Ok(value) => ToolOutcome::text(value.to_string()),
                Err(invalid) => invalid,
            }
        })
    })
    .build();
    let (mut client2, _s) = start(Server::new("deep", "1").tool(value_tool));
    let nesting = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let deep_member =
        format!("{{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\",\"x\":{nesting}}}");
    client2.send(&deep_member).await.unwrap();
    let nested: Value = serde_json::from_str(&client2.recv().await.unwrap().unwrap()).unwrap();
    assert_eq!(nested, json!({"jsonrpc": "2.0", "id": 4, "result": {}}));
    let deep_params = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\",\"params\":{{\"x\":{nesting}}}}}"
    );
    client2.send(&deep_params).await.unwrap();
    let answered: Value = serde_json::from_str(&client2.recv().await.unwrap().unwrap()).unwrap();
    assert_eq!(answered, json!({"jsonrpc": "2.0", "id": 5, "result": {}}));
    let init = json!({"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    ask(&mut client2, init).await;
    let deep_args = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{{\"name\":\"value\",\"arguments\":{{\"x\":{nesting}}}}}}}"
    );
    client2.send(&deep_args).await.unwrap();
    let refused: Value = serde_json::from_str(&client2.recv().await.unwrap().unwrap()).unwrap();
    assert_eq!(refused["result"]["isError"], true);
    assert_eq!(
        refused["result"]["content"][0]["text"],
        format!(
            "Invalid arguments for tool 'value': `x{}[0…`: nested more than 128 levels deep.",
            "[0]".repeat(19)
        )
    );
    let ping = ask(
        &mut client2,
        json!({"jsonrpc": "2.0", "id": 6, "method": "ping"}),
    )
    .await;
    assert_eq!(ping["result"], json!({}));
}

#[tokio::test]
async fn duplicate_tool_names_fail_at_startup() {
    let (_client, server) = start(Server::new("dup", "1").tools([named("same"), named("same")]));
    let err = server.await.unwrap().unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
    assert_eq!(err.to_string(), "two tools are named \"same\"");
}

#[tokio::test]
async fn invalid_names_from_builders_fail_at_startup() {
    let (_client, server) = start(Server::new("bad", "1").tool(named("has space")));
    let err = server.await.unwrap().unwrap_err();
    assert!(
        err.to_string()
            .contains("tool names are 1 to 128 characters"),
        "{err}"
    );
}

#[tokio::test]
async fn end_of_input_ends_serving_cleanly() {
    let (mut client, server) = start(Server::new("eof", "1").tool(named("a")));
    client.close().await.unwrap();
    server.await.unwrap().unwrap();
    assert_eq!(
        client.recv().await.unwrap(),
        None,
        "output closed after input ended"
    );
}

#[tokio::test]
async fn hand_built_structured_results_are_framed_safely() {
    let pretty = ToolBuilder::new("pretty", |_| {
        Box::pin(async {
            ToolOutcome::Structured(serde_json::to_string_pretty(&json!({"a": [1, 2]})).unwrap())
        })
    })
    .build();
    let broken = ToolBuilder::new("broken", |_| {
        Box::pin(async { ToolOutcome::Structured("{not json".into()) })
    })
    .build();
    let (mut client, _server) = start(Server::new("s", "1").tools([pretty, broken]));
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    ask(&mut client, init).await;
    let call = |id: u64, name: &str| json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name}});
    let one_line = ask(&mut client, call(1, "pretty")).await;
    assert_eq!(
        one_line["result"]["structuredContent"],
        json!({"a": [1, 2]})
    );
    assert_eq!(one_line["result"]["content"][0]["text"], "{\"a\":[1,2]}");
    let refused = ask(&mut client, call(2, "broken")).await;
    assert_eq!(refused["result"]["isError"], true);
    assert!(
        refused["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("The tool 'broken' produced a structured result that is not JSON")
    );
}
