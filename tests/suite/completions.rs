//! `completion/complete` of resource template variables (`ref/resource`):
//! `everything`'s `greeting` template, whose `language` and `name`
//! variables complete through `#[complete(f)]`, the name from the
//! language already given, over stdio in a legacy session and over
//! Streamable HTTP in the 2026-07-28 era, answered byte for byte; and, in
//! process over the memory transport, that a server whose only completers
//! are a template's announces and serves completions, and one with none
//! does neither.

use crate::common;

use common::http::{self, Server as HttpServer};
use common::{Peer, assert_valid, request};
use mcpfn_runtime::testing::memory;
use mcpfn_runtime::{CompletionContext, ResourceBuilder, Server};
use serde_json::{Value, json};

const LEGACY: &str = "2025-11-25";
const GREETING: &str = "everything://greeting/{language}/{name}";

/// The params of completing `variable` of `template`, typed so far as
/// `value`, with `given` already chosen.
fn complete(template: &str, variable: &str, value: &str, given: Value) -> Value {
    json!({"ref": {"type": "ref/resource", "uri": template},
        "argument": {"name": variable, "value": value},
        "context": {"arguments": given}})
}

fn values(values: &[&str]) -> Value {
    json!({"completion": {"values": values, "total": values.len(), "hasMore": false}})
}

#[test]
fn template_variables_complete_from_the_variables_given_over_stdio() {
    let mut peer = Peer::legacy(LEGACY);
    let list = peer.request(request(1, "resources/templates/list", json!({}), false));
    assert_eq!(
        list["result"]["resourceTemplates"][1],
        json!({"uriTemplate": GREETING, "name": "greeting", "mimeType": "text/plain",
            "description": "A greeting in a language, for a name; both variables complete, the\nname from the language already chosen."})
    );
    let mut ask = |id: u64, params: Value| {
        let response = peer.request(request(id, "completion/complete", params, false));
        if response.get("result").is_some() {
            assert_valid(LEGACY, "CompleteResult", &response["result"]);
        }
        response
    };
    assert_eq!(
        ask(2, complete(GREETING, "language", "g", json!({}))),
        json!({"jsonrpc": "2.0", "id": 2, "result": values(&["German"])})
    );
    // The name completes from the language already chosen, and from all
    // of them when none is.
    assert_eq!(
        ask(
            3,
            complete(GREETING, "name", "B", json!({"language": "French"}))
        )["result"],
        values(&["Bastien"])
    );
    assert_eq!(
        ask(4, complete(GREETING, "name", "B", json!({})))["result"],
        values(&["Bastien", "Bernd", "Bob", "Bruno"])
    );
    // A variable without a completer, and a fixed resource's URI: none.
    assert_eq!(
        ask(
            5,
            complete("everything://filler/{bytes}", "bytes", "1", json!({}))
        )["result"],
        values(&[])
    );
    assert_eq!(
        ask(6, complete("everything://about", "x", "", json!({})))["result"],
        values(&[])
    );
    // An unknown template is named; a long one is not echoed.
    assert_eq!(
        ask(7, complete("everything://nothing/{x}", "x", "", json!({}))),
        json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -32602,
            "message": "Invalid params: no resource template is 'everything://nothing/{x}' (see resources/templates/list)",
            "data": {"uri": "everything://nothing/{x}"}}})
    );
    let long = format!("everything://{}", "x".repeat(9000));
    assert_eq!(
        ask(8, complete(&long, "x", "", json!({}))),
        json!({"jsonrpc": "2.0", "id": 8, "error": {"code": -32602,
            "message": "Invalid params: the resource template is 9013 bytes; none of this server's is that long"}})
    );
    // What the completions lead to reads.
    let read = peer.request(request(
        9,
        "resources/read",
        json!({"uri": "everything://greeting/French/Bastien"}),
        false,
    ));
    assert_eq!(
        read["result"],
        json!({"contents": [{"uri": "everything://greeting/French/Bastien",
            "mimeType": "text/plain", "text": "Bonjour, Bastien!"}]})
    );
}

#[test]
fn template_variables_complete_over_http_in_the_2026_era() {
    let server = HttpServer::start(&[]);
    let mut message = http::request(1, "completion/complete");
    let meta = message["params"]["_meta"].clone();
    message["params"] = complete(GREETING, "name", "A", json!({"language": "English"}));
    message["params"]["_meta"] = meta;
    let response = server.modern(&message, &[]).json();
    assert_valid(http::MODERN, "CompleteResult", &response["result"]);
    let mut result = response["result"].clone();
    let meta = result.as_object_mut().unwrap().remove("_meta").unwrap();
    assert_eq!(
        meta["io.modelcontextprotocol/serverInfo"]["name"],
        "everything"
    );
    assert_eq!(
        result,
        json!({"resultType": "complete",
            "completion": {"values": ["Alice", "Arthur"], "total": 2, "hasMore": false}})
    );
}

/// A server of one template, `test://{a}/{b}`, whose `b` completes with
/// the `a` given when `completes`, over the memory transport: what it
/// announces in `initialize` and what it answers to `completion/complete`.
async fn template_only(completes: bool) -> (Value, Value) {
    let mut template = ResourceBuilder::new("test://{a}/{b}", "t", |read| {
        Box::pin(async move { Ok(vec![read.text("x")]) })
    });
    if completes {
        template = template.complete("b", |context: CompletionContext| {
            Box::pin(async move {
                let a = context.argument("a").unwrap_or("-");
                vec![format!("{a}{}", context.value())]
            })
        });
    }
    let server = Server::new("t", "1").resources([template.build().unwrap()]);
    let (mut client, server_end) = memory();
    let (read, write) = tokio::io::split(server_end);
    tokio::spawn(server.serve(read, write));
    let mut ask = async |message: Value| {
        client.send(&message.to_string()).await.unwrap();
        let line = client.recv().await.unwrap().expect("a response");
        serde_json::from_str::<Value>(&line).unwrap()
    };
    let init = ask(common::initialize(0, LEGACY)).await;
    let asked = ask(request(
        1,
        "completion/complete",
        complete("test://{a}/{b}", "b", "y", json!({"a": "x"})),
        false,
    ))
    .await;
    (init["result"]["capabilities"].clone(), asked)
}

#[tokio::test]
async fn a_server_completes_when_only_a_template_has_completers() {
    let (capabilities, asked) = template_only(true).await;
    assert_eq!(capabilities["completions"], json!({}), "{capabilities}");
    assert_eq!(capabilities.get("prompts"), None, "{capabilities}");
    assert_eq!(
        asked,
        json!({"jsonrpc": "2.0", "id": 1, "result": values(&["xy"])})
    );
    let (capabilities, asked) = template_only(false).await;
    assert_eq!(capabilities.get("completions"), None, "{capabilities}");
    assert_eq!(asked["error"]["code"], -32601, "{asked}");
}
