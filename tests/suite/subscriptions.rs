//! Resource subscriptions and list changes over real transports, on the
//! `conformance` example (its `test_trigger_*` fixtures tell the changes):
//!
//! - stdio, 2025-11-25: `resources/subscribe` and `resources/unsubscribe`
//!   answer `{}`, the session gets `notifications/resources/updated` for
//!   what it subscribed to and nothing else, the resource list changes; a
//!   flood of subscriptions is refused past the cap with a named error.
//! - stdio, 2026-07-28: a `subscriptions/listen` stream naming resources
//!   is acknowledged with what the server honours, gets their updates and
//!   the list changes tagged with its id, and nothing once cancelled.
//! - Streamable HTTP, both eras: a legacy session's updates arrive on its
//!   GET stream (subscribed on a POST); a listen stream's on its POST's
//!   SSE stream.
//!
//! Across replicas (an update told on one replica reaching subscribers of
//! others through Redis) is in `replicas.rs`.

use crate::common;

use common::{Peer, assert_valid, call, initialize, request};
use serde_json::{Value, json};

const LEGACY: &str = "2025-11-25";
const MODERN: &str = "2026-07-28";
const WATCHED: &str = "test://watched-resource";
const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// A 2025-11-25 session on the `conformance` example over stdio.
fn legacy_session(env: &[(&str, &str)]) -> Peer {
    let mut peer = Peer::spawn("conformance", env);
    peer.version = LEGACY.into();
    let response = peer.request(initialize(0, LEGACY));
    assert_eq!(
        response["result"]["capabilities"]["resources"],
        json!({"subscribe": true, "listChanged": true}),
        "{response}"
    );
    peer.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    peer
}

/// Sends `message`, and returns its response and every other message that
/// came before it or before the answer to a marker sent after it (so what
/// the request caused has been written).
fn exchange(peer: &mut Peer, message: &Value) -> (Value, Vec<Value>) {
    peer.send(message);
    let mut others = Vec::new();
    let response = loop {
        let next = peer.recv();
        if next.get("id") == message.get("id") && next.get("method").is_none() {
            break next;
        }
        others.push(next);
    };
    let marker = if peer.version == MODERN {
        request(990_000, "server/discover", json!({}), true)
    } else {
        json!({"jsonrpc": "2.0", "id": 990_000, "method": "ping"})
    };
    peer.send(&marker);
    loop {
        let next = peer.recv();
        if next["id"] == 990_000 && next.get("method").is_none() {
            break;
        }
        others.push(next);
    }
    (response, others)
}

fn subscribe(id: u64, method: &str, uri: &str) -> Value {
    request(id, method, json!({"uri": uri}), false)
}

fn trigger(id: u64, arguments: Value, modern: bool) -> Value {
    call(id, "test_trigger_resource_update", arguments, modern)
}

fn updated(uri: &str) -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": uri}})
}

#[test]
fn a_legacy_session_gets_the_updates_it_subscribed_to_until_it_unsubscribes() {
    let mut peer = legacy_session(&[]);
    for (id, uri) in [(1, WATCHED), (2, "file:///notes.txt")] {
        let answer = peer.request(subscribe(id, "resources/subscribe", uri));
        assert_eq!(answer, json!({"jsonrpc": "2.0", "id": id, "result": {}}));
    }
    let (result, told) = exchange(&mut peer, &trigger(3, json!({}), false));
    assert_eq!(
        result["result"],
        json!({"content": [{"type": "text", "text": "told test://watched-resource changed"}]})
    );
    assert_eq!(told, [updated(WATCHED)]);
    assert_valid(LEGACY, "ResourceUpdatedNotification", &told[0]);

    // A resource nobody subscribed to: nothing.
    let (_, told) = exchange(
        &mut peer,
        &trigger(4, json!({"uri": "test://other"}), false),
    );
    assert_eq!(told, Vec::<Value>::new());

    // The resource list, announced with `listChanged`.
    let (_, told) = exchange(&mut peer, &trigger(5, json!({"list": true}), false));
    assert_eq!(
        told,
        [json!({"jsonrpc": "2.0", "method": "notifications/resources/list_changed", "params": {}})]
    );

    let answer = peer.request(subscribe(6, "resources/unsubscribe", WATCHED));
    assert_eq!(answer, json!({"jsonrpc": "2.0", "id": 6, "result": {}}));
    let (_, told) = exchange(&mut peer, &trigger(7, json!({}), false));
    assert_eq!(told, Vec::<Value>::new(), "unsubscribed");
    let (_, told) = exchange(
        &mut peer,
        &trigger(8, json!({"uri": "file:///notes.txt"}), false),
    );
    assert_eq!(told, [updated("file:///notes.txt")], "the other stays");
    // Unsubscribing from what was never subscribed to is no error.
    let answer = peer.request(subscribe(9, "resources/unsubscribe", "test://never"));
    assert_eq!(answer["result"], json!({}));
}

#[test]
fn a_flood_of_subscriptions_is_refused_past_the_cap() {
    let mut peer = legacy_session(&[]);
    // The default cap, 1,000, pipelined in one write.
    let flood: String = (0..1_001)
        .map(|n| {
            subscribe(n + 1, "resources/subscribe", &format!("test://r/{n}")).to_string() + "\n"
        })
        .collect();
    peer.stdin_bytes(flood.as_bytes());
    let mut refused = Vec::new();
    for _ in 0..1_001 {
        let answer = peer.recv_unvalidated();
        if answer.get("error").is_some() {
            refused.push(answer);
        } else {
            assert_eq!(answer["result"], json!({}), "{answer}");
        }
    }
    assert_eq!(
        refused,
        [
            json!({"jsonrpc": "2.0", "id": 1_001, "error": {"code": -32602,
            "message": "Invalid params: this session is subscribed to 1000 resources, the most this server allows; unsubscribe from one first"}})
        ]
    );
    // Subscribing again to one held is no change, so it is accepted; a
    // URI past the length bound is refused whatever the count.
    let again = peer.request(subscribe(2_000, "resources/subscribe", "test://r/0"));
    assert_eq!(again["result"], json!({}));
    let long = format!("test://{}", "x".repeat(8 << 10));
    let refused = peer.request(subscribe(2_001, "resources/subscribe", &long));
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert_eq!(
        refused["error"]["message"],
        "Invalid params: a resource URI of 8199 bytes is longer than this server takes (8192 bytes)"
    );
    // A lower cap, from the server's settings.
    let mut small = legacy_session(&[("MAX_RESOURCE_SUBSCRIPTIONS", "2")]);
    for id in 1..=2 {
        let answer = small.request(subscribe(
            id,
            "resources/subscribe",
            &format!("test://{id}"),
        ));
        assert_eq!(answer["result"], json!({}));
    }
    let full = small.request(subscribe(3, "resources/subscribe", "test://3"));
    assert_eq!(
        full["error"]["message"],
        "Invalid params: this session is subscribed to 2 resources, the most this server allows; unsubscribe from one first"
    );
}

/// A 2026-07-28 `subscriptions/listen` request with `filter`.
fn listen(id: Value, filter: Value) -> Value {
    let mut message = request(
        0,
        "subscriptions/listen",
        json!({"notifications": filter}),
        true,
    );
    message["id"] = id;
    message
}

#[test]
fn a_listen_stream_gets_the_updates_it_named_tagged_with_its_id() {
    let mut peer = Peer::spawn("conformance", &[]);
    peer.version = MODERN.into();
    let filter = json!({
        "resourceSubscriptions": [WATCHED, "test://b", WATCHED],
        "resourcesListChanged": true,
        // The server has prompts: honoured (what a server does not
        // announce is left out: the runtime's `listen` unit tests).
        "promptsListChanged": true,
    });
    peer.send(&listen(json!("listen-1"), filter));
    let ack = peer.recv();
    assert_eq!(
        ack,
        json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged", "params": {
            "_meta": {SUBSCRIPTION_ID: "listen-1"},
            "notifications": {"resourcesListChanged": true, "promptsListChanged": true,
                "resourceSubscriptions": ["test://b", WATCHED]}}})
    );
    let tag = json!({SUBSCRIPTION_ID: "listen-1"});
    let (result, told) = exchange(&mut peer, &trigger(2, json!({}), true));
    assert_eq!(result["result"]["resultType"], "complete", "{result}");
    assert_eq!(
        told,
        [
            json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
            "params": {"_meta": tag, "uri": WATCHED}})
        ]
    );
    let (_, told) = exchange(&mut peer, &trigger(3, json!({"uri": "test://c"}), true));
    assert_eq!(told, Vec::<Value>::new(), "not named");
    let (_, told) = exchange(&mut peer, &trigger(4, json!({"list": true}), true));
    assert_eq!(
        told,
        [
            json!({"jsonrpc": "2.0", "method": "notifications/resources/list_changed",
            "params": {"_meta": tag}})
        ]
    );
    // Tool list changes were not asked for on this stream; a second stream
    // asks for them only.
    peer.send(&listen(json!(7), json!({"toolsListChanged": true})));
    let ack = peer.recv();
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true})
    );
    let (_, told) = exchange(
        &mut peer,
        &call(5, "test_trigger_tool_change", json!({}), true),
    );
    assert_eq!(
        told,
        [
            json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
            "params": {"_meta": {SUBSCRIPTION_ID: 7}}})
        ]
    );
    // Cancelled, the first stream carries nothing more.
    peer.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": "listen-1", "_meta": common::envelope()}}),
    );
    let (_, told) = exchange(&mut peer, &trigger(6, json!({}), true));
    assert_eq!(told, Vec::<Value>::new(), "cancelled");
    // `resources/subscribe` is not a 2026-07-28 method.
    let gone = peer.request(request(
        8,
        "resources/subscribe",
        json!({"uri": WATCHED}),
        true,
    ));
    assert_eq!(gone["error"]["code"], -32601, "{gone}");
}

#[test]
fn a_listen_stream_naming_too_many_resources_is_refused() {
    let mut peer = Peer::spawn("conformance", &[("MAX_RESOURCE_SUBSCRIPTIONS", "2")]);
    peer.version = MODERN.into();
    let refused = peer.request(listen(
        json!(1),
        json!({"resourceSubscriptions": ["test://a", "test://b", "test://c"]}),
    ));
    assert_eq!(
        refused,
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602,
            "message": "Invalid params: this server takes at most 2 resources per subscriptions/listen stream, and 3 were named; listen for fewer"}})
    );
}

pub(crate) mod http {
    use super::*;
    use crate::common::http::{Server, request_bytes};
    use std::io::{BufRead, BufReader, Write};
    use std::net::TcpStream;
    use std::time::Duration;

    /// An SSE stream being read: the messages of its `data:` lines.
    pub(crate) struct Events(BufReader<TcpStream>);

    impl Events {
        /// Sends `request` (an HTTP request's bytes) on a new connection to
        /// `addr` and reads the head of its response: a 200 SSE stream.
        pub(crate) fn open(addr: &str, request: &[u8]) -> Events {
            let mut stream = TcpStream::connect(addr).unwrap();
            stream
                .set_read_timeout(Some(Duration::from_secs(20)))
                .unwrap();
            stream.write_all(request).unwrap();
            let mut reader = BufReader::new(stream);
            let mut head = String::new();
            while !head.ends_with("\r\n\r\n") {
                assert!(reader.read_line(&mut head).unwrap() > 0, "{head}");
            }
            assert!(head.starts_with("HTTP/1.1 200"), "{head}");
            assert!(
                head.to_ascii_lowercase().contains("text/event-stream"),
                "{head}"
            );
            Events(reader)
        }

        /// The next message on the stream.
        pub(crate) fn next(&mut self) -> Value {
            let mut line = String::new();
            loop {
                line.clear();
                assert!(self.0.read_line(&mut line).unwrap() > 0, "the stream ended");
                if let Some(data) = line.trim_end().strip_prefix("data: ") {
                    return serde_json::from_str(data).unwrap();
                }
            }
        }
    }

    /// The bytes of a POST of `body` with `headers`.
    pub(crate) fn post(addr: &str, headers: &[(&str, &str)], body: &Value) -> Vec<u8> {
        request_bytes(addr, "POST", headers, &body.to_string())
    }

    /// A 2026-07-28 `subscriptions/listen` stream opened at `addr`.
    pub(crate) fn open_listen(addr: &str, id: u64, filter: Value) -> Events {
        let headers = [
            ("MCP-Protocol-Version", MODERN),
            ("Mcp-Method", "subscriptions/listen"),
        ];
        let mut events = Events::open(addr, &post(addr, &headers, &listen(json!(id), filter)));
        let ack = events.next();
        assert_eq!(
            ack["method"], "notifications/subscriptions/acknowledged",
            "{ack}"
        );
        events
    }

    /// A 2025-11-25 session at `addr`: its id.
    pub(crate) fn open_session(addr: &str) -> String {
        let response = crate::common::http::post_to(addr, &[], &initialize(1, LEGACY).to_string());
        assert_eq!(response.status, 200, "{response:?}");
        let id = response
            .header("mcp-session-id")
            .expect("a session id")
            .to_owned();
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let accepted = crate::common::http::post_to(
            addr,
            &[("Mcp-Session-Id", &id), ("MCP-Protocol-Version", LEGACY)],
            &initialized.to_string(),
        );
        assert_eq!(accepted.status, 202, "{accepted:?}");
        id
    }

    /// The session's GET stream at `addr`.
    pub(crate) fn open_push(addr: &str, session: &str) -> Events {
        let get = format!(
            "GET /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\nMcp-Session-Id: {session}\r\nMCP-Protocol-Version: {LEGACY}\r\n\r\n"
        );
        Events::open(addr, get.as_bytes())
    }

    /// A legacy request on `session` at `addr`, answered with JSON or SSE.
    pub(crate) fn legacy_post(addr: &str, session: &str, message: &Value) -> Value {
        let response = crate::common::http::post_to(
            addr,
            &[
                ("Mcp-Session-Id", session),
                ("MCP-Protocol-Version", LEGACY),
            ],
            &message.to_string(),
        );
        assert_eq!(response.status, 200, "{response:?}");
        // JSON, or the data of the stream's last event.
        let data = response
            .body
            .split("\n\n")
            .filter_map(|event| event.lines().find_map(|l| l.strip_prefix("data: ")))
            .last()
            .unwrap_or(&response.body);
        let message: Value = serde_json::from_str(data).unwrap();
        assert_valid(LEGACY, "JSONRPCMessage", &message);
        message
    }

    #[test]
    fn updates_reach_the_legacy_get_stream_and_the_listen_stream() {
        let server = Server::start_example("conformance", &[]);
        let session = open_session(&server.addr);
        let answer = legacy_post(
            &server.addr,
            &session,
            &subscribe(2, "resources/subscribe", WATCHED),
        );
        assert_eq!(answer, json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
        let mut push = open_push(&server.addr, &session);
        let mut stream = open_listen(&server.addr, 5, json!({"resourceSubscriptions": [WATCHED]}));
        // Told on another request, of the other era.
        let told = server.modern(&trigger(3, json!({}), true), &[]);
        assert_eq!(told.status, 200, "{told:?}");
        let legacy = push.next();
        assert_valid(LEGACY, "JSONRPCNotification", &legacy);
        assert_eq!(legacy, updated(WATCHED));
        let modern = stream.next();
        assert_valid(MODERN, "ResourceUpdatedNotification", &modern);
        assert_eq!(
            modern,
            json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
                "params": {"_meta": {SUBSCRIPTION_ID: 5}, "uri": WATCHED}})
        );
        // Unsubscribed on a POST, the GET stream gets no more; the next
        // message it carries is the resource list change.
        let answer = legacy_post(
            &server.addr,
            &session,
            &subscribe(4, "resources/unsubscribe", WATCHED),
        );
        assert_eq!(answer["result"], json!({}));
        let told = legacy_post(&server.addr, &session, &trigger(6, json!({}), false));
        assert_eq!(
            told["result"]["content"][0]["text"],
            "told test://watched-resource changed"
        );
        let told = legacy_post(
            &server.addr,
            &session,
            &trigger(7, json!({"list": true}), false),
        );
        assert_eq!(
            told["result"]["content"][0]["text"],
            "told the resource list changed"
        );
        assert_eq!(
            push.next(),
            json!({"jsonrpc": "2.0", "method": "notifications/resources/list_changed", "params": {}})
        );
    }
}

/// A background task's `Server::notifier`, with no tool involved: the
/// server in this process over an in-memory byte stream (the stdio path).
#[tokio::test]
async fn a_background_task_tells_a_change_through_the_servers_notifier() {
    let (mut client, server_end) = mcpfn_runtime::testing::memory();
    let (read, write) = tokio::io::split(server_end);
    let server = mcpfn_runtime::Server::new("watcher", "1.0.0");
    let notifier = server.notifier();
    let served = tokio::spawn(server.serve(read, write));
    client
        .send(&initialize(0, LEGACY).to_string())
        .await
        .unwrap();
    let line = client.recv().await.unwrap().unwrap();
    assert!(line.contains(r#""id":0"#), "{line}");
    client
        .send(&subscribe(1, "resources/subscribe", "db://rows/7").to_string())
        .await
        .unwrap();
    let answer: Value = serde_json::from_str(&client.recv().await.unwrap().unwrap()).unwrap();
    assert_eq!(answer, json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
    notifier.resource_updated("db://rows/8");
    notifier.resource_updated("db://rows/7");
    let told: Value = serde_json::from_str(&client.recv().await.unwrap().unwrap()).unwrap();
    assert_eq!(told, updated("db://rows/7"), "only what it subscribed to");
    client.close().await.unwrap();
    served.await.unwrap().unwrap();
}
