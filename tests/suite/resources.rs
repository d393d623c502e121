//! `resources/list`, `resources/templates/list` and `resources/read` over
//! the real transports, in both eras: the `conformance` example's fixture
//! resources over stdio (a child process) and Streamable HTTP, answered
//! byte for byte; hostile reads (traversal through a template variable, a
//! URI of any length); and, in-process over the memory transport, what a
//! server configured per test does with huge contents, failing fns and
//! paging.

use crate::common::http::{MODERN, Server as HttpServer};
use crate::common::{Peer, request};
use mcpfn_runtime::testing::{MemoryTransport, memory};
use mcpfn_runtime::{
    Context, ResourceBuilder, ResourceContents, ResourceError, Server, resource, resources,
};
use serde_json::{Value, json};

const LEGACY: &str = "2025-11-25";

const TEXT: &str = "This is the content of the static text resource.";
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/// The resources of a list but the skills' files (`skill://`), which the
/// example serves too (tests/suite/skills.rs checks those).
fn without_skills(resources: &Value) -> Value {
    let fixtures = resources.as_array().map(|all| {
        all.iter()
            .filter(|r| !r["uri"].as_str().is_some_and(|u| u.starts_with("skill://")))
            .cloned()
            .collect()
    });
    Value::Array(fixtures.unwrap_or_default())
}

fn listed() -> Value {
    json!([
        {"uri": "test://static-text", "name": "Static Text Resource",
         "description": "A static text resource (`resources-read-text`).", "mimeType": "text/plain"},
        {"uri": "test://static-binary", "name": "Static Binary Resource",
         "description": "A static binary resource, a 1x1 PNG (`resources-read-binary`).", "mimeType": "image/png"},
    ])
}

fn templates() -> Value {
    json!([{"uriTemplate": "test://template/{id}/data", "name": "Resource Template",
        "description": "A resource template with parameter substitution (`resources-templates-read`).",
        "mimeType": "application/json"}])
}

fn read(id: u64, uri: &str, modern: bool) -> Value {
    request(id, "resources/read", json!({"uri": uri}), modern)
}

/// A legacy session with the conformance fixtures.
fn legacy() -> Peer {
    let mut peer = Peer::spawn("conformance", &[]);
    peer.version = LEGACY.into();
    let init = crate::common::initialize(0, LEGACY);
    let response = peer.request(init);
    assert_eq!(
        response["result"]["capabilities"]["resources"],
        json!({"subscribe": true, "listChanged": true}),
        "{response}"
    );
    peer.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    peer
}

#[test]
fn legacy_lists_and_reads_over_stdio() {
    let mut peer = legacy();
    let mut list = peer.request(request(1, "resources/list", json!({}), false));
    list["result"]["resources"] = without_skills(&list["result"]["resources"]);
    assert_eq!(
        list,
        json!({"jsonrpc": "2.0", "id": 1, "result": {"resources": listed()}})
    );
    let list = peer.request(request(2, "resources/templates/list", json!({}), false));
    assert_eq!(
        list,
        json!({"jsonrpc": "2.0", "id": 2, "result": {"resourceTemplates": templates()}})
    );
    assert_eq!(
        peer.request(read(3, "test://static-text", false))["result"],
        json!({"contents": [{"uri": "test://static-text", "mimeType": "text/plain", "text": TEXT}]})
    );
    assert_eq!(
        peer.request(read(4, "test://static-binary", false))["result"],
        json!({"contents": [{"uri": "test://static-binary", "mimeType": "image/png", "blob": PNG}]})
    );
    assert_eq!(
        peer.request(read(5, "test://template/123/data", false))["result"],
        json!({"contents": [{"uri": "test://template/123/data", "mimeType": "application/json",
            "text": r#"{"data":"Data for ID: 123","id":"123","templateTest":true}"#}]})
    );
    // Unknown: 2025-11-25's -32002, with the URI.
    assert_eq!(
        peer.request(read(6, "test://nothing", false)),
        json!({"jsonrpc": "2.0", "id": 6, "error": {"code": -32002,
            "message": "Resource not found", "data": {"uri": "test://nothing"}}})
    );
}

#[test]
fn modern_lists_and_reads_carry_cache_hints_and_sep_2164_errors() {
    let mut peer = Peer::spawn("conformance", &[]);
    peer.version = MODERN.into();
    let list = peer.request(request(1, "resources/list", json!({}), true));
    let result = &list["result"];
    assert_eq!(without_skills(&result["resources"]), listed());
    assert_eq!(
        (
            &result["ttlMs"],
            &result["cacheScope"],
            &result["resultType"]
        ),
        (&json!(300_000), &json!("public"), &json!("complete"))
    );
    let list = peer.request(request(2, "resources/templates/list", json!({}), true));
    assert_eq!(list["result"]["resourceTemplates"], templates());
    assert_eq!(list["result"]["cacheScope"], "public");
    let text = peer.request(read(3, "test://static-text", true));
    assert_eq!(
        text["result"]["contents"],
        json!([{"uri": "test://static-text", "mimeType": "text/plain", "text": TEXT}])
    );
    assert_eq!(text["result"]["ttlMs"], 300_000);
    assert_eq!(text["result"]["cacheScope"], "public");
    let uri = "test://nonexistent-resource-for-conformance-testing";
    assert_eq!(
        peer.request(read(4, uri, true)),
        json!({"jsonrpc": "2.0", "id": 4, "error": {"code": -32602,
            "message": "Resource not found", "data": {"uri": uri}}})
    );
}

#[test]
fn template_variables_cannot_leave_their_segment() {
    let mut peer = legacy();
    for (id, uri) in [
        (1, "test://template/..%2F..%2Fetc%2Fpasswd/data"),
        (2, "test://template/a%2fb/data"),
        (3, "test://template/a%5Cb/data"),
    ] {
        assert_eq!(
            peer.request(read(id, uri, false)),
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32602,
                "message": "Invalid params for resources/read: the value of `id` is refused: it holds a slash, which would leave its segment",
                "data": {"uri": uri}}}),
            "{uri}"
        );
    }
    let dotdot = peer.request(read(4, "test://template/../data", false));
    assert_eq!(dotdot["error"]["code"], -32602, "{dotdot}");
    assert!(
        dotdot["error"]["message"]
            .as_str()
            .unwrap()
            .ends_with("it is a `.` or `..` segment"),
        "{dotdot}"
    );
    let nul = peer.request(read(5, "test://template/a%00/data", false));
    assert!(
        nul["error"]["message"]
            .as_str()
            .unwrap()
            .ends_with("it holds NUL"),
        "{nul}"
    );
    // A raw `/` does not match `{id}` at all: not found.
    let slash = peer.request(read(6, "test://template/a/b/data", false));
    assert_eq!(slash["error"]["code"], -32002, "{slash}");
}

#[test]
fn uris_of_any_length_are_answered_and_a_long_one_is_not_echoed() {
    let mut peer = legacy();
    let long = format!("test://template/{}/data", "a".repeat(9000));
    let response = peer.request(read(1, &long, false));
    assert_eq!(
        response["error"],
        json!({"code": -32602, "message": "Invalid params for resources/read: the URI is 9021 bytes; this server reads URIs of at most 8192 bytes"})
    );
    // Just under the limit: matched, and read.
    let id = "7".repeat(8000);
    let uri = format!("test://template/{id}/data");
    let response = peer.request(read(2, &uri, false));
    let text = response["result"]["contents"][0]["text"].as_str().unwrap();
    assert!(text.contains(&id), "{response}");
    // Missing and mistyped `uri`.
    let missing = peer.request(request(3, "resources/read", json!({}), false));
    assert_eq!(
        missing["error"],
        json!({"code": -32602, "message": "Invalid params for resources/read: missing field `uri`"})
    );
    let mistyped = peer.request(request(4, "resources/read", json!({"uri": 7}), false));
    assert_eq!(mistyped["error"]["code"], -32602, "{mistyped}");
}

#[test]
fn modern_reads_over_http_need_mcp_name_to_match_the_uri() {
    let server = HttpServer::start_example("conformance", &[]);
    let message = read(1, "test://template/9/data", true);
    // `modern` sends `Mcp-Name: <params.uri>`.
    let body = server.modern(&message, &[]).json();
    assert_eq!(
        body["result"]["contents"][0]["text"],
        r#"{"data":"Data for ID: 9","id":"9","templateTest":true}"#
    );
    assert_eq!(body["result"]["resultType"], "complete");
    let headers = |name: Option<&'static str>| {
        let mut headers = vec![
            ("MCP-Protocol-Version", MODERN),
            ("Mcp-Method", "resources/read"),
        ];
        headers.extend(name.map(|name| ("Mcp-Name", name)));
        headers
    };
    let wrong = server.post(&headers(Some("test://static-text")), &message.to_string());
    let error = wrong.expect_error(400, -32020);
    assert_eq!(
        error["error"]["message"],
        "Header mismatch: Mcp-Name is \"test://static-text\" but params.uri is \"test://template/9/data\""
    );
    let missing = server.post(&headers(None), &message.to_string());
    missing.expect_error(400, -32020);
    let list = server.modern(&request(2, "resources/list", json!({}), true), &[]);
    assert_eq!(
        without_skills(&list.json()["result"]["resources"]),
        listed()
    );
}

// ------------------------------------------------------------- in-process

fn start(server: Server) -> MemoryTransport {
    let (client, server_end) = memory();
    let (read, write) = tokio::io::split(server_end);
    tokio::spawn(server.serve(read, write));
    client
}

async fn ask(client: &mut MemoryTransport, message: Value) -> Value {
    client.send(&message.to_string()).await.unwrap();
    let line = client.recv().await.unwrap().expect("a response");
    serde_json::from_str(&line).unwrap()
}

/// A number in a query variable, optional.
#[resource("test://items{?limit}", mime_type = "text/plain")]
async fn items(limit: Option<u32>) -> String {
    format!("limit={limit:?}")
}

/// Bytes, sent base64.
#[resource("test://bytes/{count}", mime_type = "application/octet-stream")]
async fn bytes(count: usize) -> Vec<u8> {
    vec![0xff; count]
}

/// A fn that fails, and one that panics.
#[resource("test://fails/{how}")]
async fn fails(how: String, _ctx: Context) -> Result<String, std::io::Error> {
    if how == "panic" {
        panic!("on purpose");
    }
    Err(std::io::Error::other("the disk is gone"))
}

#[tokio::test]
async fn variables_convert_and_failures_name_the_uri() {
    let server = Server::new("t", "1")
        .max_message_size(64 * 1024)
        .resources(resources![items, bytes, fails]);
    let mut client = start(server);
    let read = |id: u64, uri: &str| request(id, "resources/read", json!({"uri": uri}), true);
    let given = ask(&mut client, read(1, "test://items?limit=5")).await;
    assert_eq!(given["result"]["contents"][0]["text"], "limit=Some(5)");
    let absent = ask(&mut client, read(2, "test://items")).await;
    assert_eq!(absent["result"]["contents"][0]["text"], "limit=None");
    let bad = ask(&mut client, read(3, "test://items?limit=many")).await;
    assert_eq!(
        bad["error"],
        json!({"code": -32602, "message": "Invalid params for resources/read: the value of `limit` is not valid: invalid digit found in string",
            "data": {"uri": "test://items?limit=many"}})
    );
    let blob = ask(&mut client, read(4, "test://bytes/3")).await;
    assert_eq!(
        blob["result"]["contents"],
        json!([{"uri": "test://bytes/3", "mimeType": "application/octet-stream", "blob": "////"}])
    );
    // Over the message limit: an error naming the size, not the frame.
    let huge = ask(&mut client, read(5, "test://bytes/100000")).await;
    let message = huge["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("The contents of test://bytes/100000 are 133")
            && message.ends_with("bytes, over this server's message limit of 65536 bytes"),
        "{huge}"
    );
    let failed = ask(&mut client, read(6, "test://fails/io")).await;
    assert_eq!(
        failed["error"],
        json!({"code": -32603, "message": "Reading test://fails/io failed: the disk is gone",
            "data": {"uri": "test://fails/io"}})
    );
    let panicked = ask(&mut client, read(7, "test://fails/panic")).await;
    assert_eq!(panicked["error"]["code"], -32603, "{panicked}");
    // The server keeps serving.
    let again = ask(&mut client, read(8, "test://items?limit=1")).await;
    assert_eq!(again["result"]["contents"][0]["text"], "limit=Some(1)");
}

#[tokio::test]
async fn lists_page_and_a_server_without_resources_has_no_methods() {
    let fixed = (0..5).map(|n| {
        ResourceBuilder::new(format!("test://{n}"), format!("r{n}"), |read| {
            Box::pin(async move { Ok::<_, ResourceError>(vec![read.text("x")]) })
        })
        .build()
        .unwrap()
    });
    let server = Server::new("t", "1").page_size(2).resources(fixed);
    let mut client = start(server);
    let mut cursor: Option<String> = None;
    let mut uris = Vec::new();
    for id in 1..=3 {
        let mut params = json!({});
        if let Some(cursor) = &cursor {
            params["cursor"] = cursor.clone().into();
        }
        let page = ask(&mut client, request(id, "resources/list", params, true)).await;
        for resource in page["result"]["resources"].as_array().unwrap() {
            uris.push(resource["uri"].as_str().unwrap().to_owned());
        }
        cursor = page["result"]["nextCursor"].as_str().map(str::to_owned);
    }
    assert_eq!(
        uris,
        ["test://0", "test://1", "test://2", "test://3", "test://4"]
    );
    assert!(cursor.is_none());
    let bogus = ask(
        &mut client,
        request(9, "resources/list", json!({"cursor": "bogus"}), true),
    )
    .await;
    assert_eq!(bogus["error"]["code"], -32602);

    let mut bare = start(Server::new("t", "1"));
    let none = ask(&mut bare, request(1, "resources/list", json!({}), true)).await;
    assert_eq!(
        none["error"],
        json!({"code": -32601, "message": "Method not found: resources/list",
            "data": {"method": "resources/list"}})
    );
    let discover = ask(&mut bare, request(2, "server/discover", json!({}), true)).await;
    assert!(
        discover["result"]["capabilities"]
            .get("resources")
            .is_none(),
        "{discover}"
    );
}

#[test]
fn a_hand_built_resource_returns_several_contents() {
    let both = ResourceBuilder::new("test://pair", "pair", |read| {
        Box::pin(async move {
            Ok(vec![
                read.text("one"),
                ResourceContents::Text {
                    uri: "test://pair#2".into(),
                    mime_type: None,
                    text: "two".into(),
                    meta: None,
                },
            ])
        })
    })
    .build()
    .unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let mut client = start(Server::new("t", "1").resources([both]));
        let response = ask(
            &mut client,
            request(1, "resources/read", json!({"uri": "test://pair"}), true),
        )
        .await;
        assert_eq!(
            response["result"]["contents"],
            json!([{"uri": "test://pair", "text": "one"}, {"uri": "test://pair#2", "text": "two"}])
        );
    });
}

/// Waits `ms` milliseconds, then answers: its first poll (on the
/// connection's loop, as a fn without `Context` is) is pending.
#[resource("test://slow/{ms}", mime_type = "text/plain")]
async fn slow(ms: u64) -> String {
    tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
    format!("slept {ms}")
}

/// Panics on its first poll, which runs on the connection's loop.
#[resource("test://boom/{what}")]
async fn boom(what: String) -> String {
    panic!("on purpose: {what}")
}

#[tokio::test]
async fn a_read_that_waits_goes_on_on_its_own_task_and_a_panic_on_the_loop_is_an_error() {
    let server = Server::new("t", "1").resources(resources![items, slow, boom]);
    let mut client = start(server);
    let read = |id: u64, uri: &str| request(id, "resources/read", json!({"uri": uri}), true);
    // The slow read does not hold the loop: the next one is answered first.
    client
        .send(&read(1, "test://slow/200").to_string())
        .await
        .unwrap();
    let quick = ask(&mut client, read(2, "test://items?limit=2")).await;
    assert_eq!(quick["id"], 2, "{quick}");
    assert_eq!(quick["result"]["contents"][0]["text"], "limit=Some(2)");
    let line = client
        .recv()
        .await
        .unwrap()
        .expect("the slow read's answer");
    let slow: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(slow["id"], 1, "{slow}");
    assert_eq!(slow["result"]["contents"][0]["text"], "slept 200");
    // A panic in the first poll is caught there: an error naming the URI,
    // and the connection goes on.
    let panicked = ask(&mut client, read(3, "test://boom/x")).await;
    assert_eq!(
        panicked["error"],
        json!({"code": -32603, "message": "Reading test://boom/x failed with an internal error; the details are in the server's log",
            "data": {"uri": "test://boom/x"}})
    );
    let again = ask(&mut client, read(4, "test://items?limit=4")).await;
    assert_eq!(again["result"]["contents"][0]["text"], "limit=Some(4)");
}
