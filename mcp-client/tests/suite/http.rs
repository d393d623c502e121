//! The client over real sockets: `everything --http 127.0.0.1:0` in both
//! protocol eras, and a deliberately broken HTTP server.

#![cfg(feature = "http")]

use crate::common;

use common::{HttpServer, Recorder, everything, parsed, raw, run};
use mcpfn_client::{
    ClientError, Dispatcher, DispatcherConfig, Handler, HttpConfig, HttpTransport, NoHandler,
    RequestOptions,
};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const MODERN: &str = "2026-07-28";
const LEGACY: &str = "2025-11-25";
const SECOND: Duration = Duration::from_secs(10);

fn client(url: &str, handler: Arc<dyn Handler>) -> (Arc<HttpTransport>, Dispatcher) {
    let (transport, inbox) = HttpTransport::connect(HttpConfig::new("everything", url)).unwrap();
    let transport = Arc::new(transport);
    let dispatcher = Dispatcher::new(
        Box::new(Arc::clone(&transport)),
        inbox,
        handler,
        DispatcherConfig::new("everything"),
    );
    (transport, dispatcher)
}

/// The 2026-07-28 `_meta` envelope.
fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "mcp-host-tests", "version": "1"}
    })
}

/// A 2026-07-28 request with its routing headers.
async fn modern(
    client: &Dispatcher,
    method: &str,
    name: Option<&str>,
    mut params: Value,
    timeout: Duration,
) -> Result<Value, ClientError> {
    params["_meta"] = meta();
    let mut options = RequestOptions::timeout(timeout)
        .header("MCP-Protocol-Version", MODERN)
        .header("Mcp-Method", method);
    if let Some(name) = name {
        options = options.header("Mcp-Name", name);
    }
    // On 2026-07-28 HTTP, closing the stream is the cancellation.
    options.cancel_notification = false;
    client
        .request(method, Some(&raw(params)), options)
        .await
        .map(|r| parsed(&r))
}

#[test]
fn a_2026_call_is_answered_with_json() {
    // Built before the test's clock starts: a first build takes minutes.
    everything();
    run(async {
        let server = HttpServer::start();
        let (transport, client) = client(&server.url(), Arc::new(NoHandler));
        let discover = modern(&client, "server/discover", None, json!({}), SECOND)
            .await
            .unwrap();
        assert_eq!(discover["supportedVersions"][0], MODERN, "{discover}");
        let sum = modern(
            &client,
            "tools/call",
            Some("add"),
            json!({"name": "add", "arguments": {"a": 1, "b": 2}}),
            SECOND,
        )
        .await
        .unwrap();
        assert_eq!(sum["structuredContent"], json!({"sum": 3.0}), "{sum}");
        assert_eq!(transport.session_id(), None);
        // Concurrent calls over the pooled connections.
        let calls = (0..20).map(|i| {
            let client = &client;
            async move {
                modern(
                    client,
                    "tools/call",
                    Some("add"),
                    json!({"name": "add", "arguments": {"a": i, "b": 1}}),
                    SECOND,
                )
                .await
                .unwrap()
            }
        });
        let results = join_all(calls.collect()).await;
        for (i, r) in results.iter().enumerate() {
            assert_eq!(r["structuredContent"]["sum"], json!(i as f64 + 1.0));
        }
    });
}

async fn join_all<F: std::future::Future>(futures: Vec<F>) -> Vec<F::Output> {
    let handles: Vec<_> = futures.into_iter().map(Box::pin).collect();
    let mut out = Vec::new();
    // Sequential awaits of already-started futures would not overlap, so
    // poll them together.
    let mut slots: Vec<Option<F::Output>> = handles.iter().map(|_| None).collect();
    let mut handles: Vec<_> = handles.into_iter().map(Some).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (slot, handle) in slots.iter_mut().zip(handles.iter_mut()) {
            if let Some(f) = handle {
                match f.as_mut().poll(cx) {
                    std::task::Poll::Ready(v) => {
                        *slot = Some(v);
                        *handle = None;
                    }
                    std::task::Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            std::task::Poll::Pending
        } else {
            std::task::Poll::Ready(())
        }
    })
    .await;
    out.extend(slots.into_iter().map(Option::unwrap));
    out
}

#[test]
fn a_2026_call_with_progress_streams_events_then_its_result() {
    // Built before the test's clock starts: a first build takes minutes.
    everything();
    run(async {
        let server = HttpServer::start();
        let recorder = Arc::new(Recorder::default());
        let (_, client) = client(&server.url(), recorder.clone());
        let mut params = json!({"name": "slow", "arguments": {"ms": 100, "steps": 2}});
        params["_meta"] = meta();
        params["_meta"]["progressToken"] = "p".into();
        let options = RequestOptions::timeout(SECOND)
            .header("MCP-Protocol-Version", MODERN)
            .header("Mcp-Method", "tools/call")
            .header("Mcp-Name", "slow");
        let result = client
            .request("tools/call", Some(&raw(params)), options)
            .await
            .unwrap();
        let result = parsed(&result);
        assert!(result["content"].is_array(), "{result}");
        let progress = recorder.wait_for("notifications/progress").await;
        assert_eq!(progress["progressToken"], "p");
    });
}

#[test]
fn a_2026_timeout_closes_the_stream_which_cancels_the_call() {
    // Built before the test's clock starts: a first build takes minutes.
    everything();
    run(async {
        let server = HttpServer::start();
        let (_, client) = client(&server.url(), Arc::new(NoHandler));
        let err = modern(
            &client,
            "tools/call",
            Some("slow"),
            json!({"name": "slow", "arguments": {"ms": 20000}}),
            Duration::from_millis(300),
        )
        .await
        .unwrap_err();
        assert!(matches!(err, ClientError::Timeout { .. }), "{err}");
        server.wait_for_log("cancelled its calls").await;
    });
}

#[test]
fn an_http_error_carries_the_servers_json_rpc_error() {
    // Built before the test's clock starts: a first build takes minutes.
    everything();
    run(async {
        let server = HttpServer::start();
        let (_, client) = client(&server.url(), Arc::new(NoHandler));
        let mut params = json!({});
        params["_meta"] = meta();
        params["_meta"]["io.modelcontextprotocol/protocolVersion"] = "1900-01-01".into();
        let options = RequestOptions::timeout(SECOND)
            .header("MCP-Protocol-Version", "1900-01-01")
            .header("Mcp-Method", "tools/list");
        let err = client
            .request("tools/list", Some(&raw(params)), options)
            .await
            .unwrap_err();
        assert!(
            matches!(err, ClientError::Rpc(ref e) if e.code == -32022),
            "{err:?}"
        );
        // Nothing listens on port 9 of loopback (discard is not served here).
        let (_, nobody) = client_on("http://127.0.0.1:9/mcp");
        let err = modern(&nobody, "tools/list", None, json!({}), SECOND)
            .await
            .unwrap_err();
        assert!(matches!(err, ClientError::Disconnected { .. }), "{err:?}");
        assert!(err.to_string().to_lowercase().contains("refused"), "{err}");
    });
}

fn client_on(url: &str) -> (Arc<HttpTransport>, Dispatcher) {
    client(url, Arc::new(NoHandler))
}

#[test]
fn a_legacy_session_streams_server_requests_and_list_changes_then_is_deleted() {
    // Built before the test's clock starts: a first build takes minutes.
    everything();
    run(async {
        let server = HttpServer::start();
        let recorder = Arc::new(Recorder::default());
        let (transport, client) = client(&server.url(), recorder.clone());
        let init = json!({"protocolVersion": LEGACY, "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "mcp-host-tests", "version": "1"}});
        let options = RequestOptions {
            cancel_notification: false,
            ..RequestOptions::timeout(SECOND)
        };
        let result = client
            .request("initialize", Some(&raw(init)), options)
            .await
            .unwrap();
        assert_eq!(parsed(&result)["protocolVersion"], LEGACY);
        let session = transport.session_id().expect("a session id");
        client
            .set_headers(&[("MCP-Protocol-Version".into(), LEGACY.into())])
            .unwrap();
        client
            .notify("notifications/initialized", None, &[])
            .await
            .unwrap();
        client.listen().await.unwrap();

        let call = |name: &str, arguments: Value| {
            let params = raw(json!({"name": name, "arguments": arguments}));
            let client = &client;
            async move {
                client
                    .request("tools/call", Some(&params), RequestOptions::timeout(SECOND))
                    .await
                    .map(|r| parsed(&r))
            }
        };
        let sum = call("add", json!({"a": 1, "b": 2})).await.unwrap();
        assert_eq!(sum["structuredContent"], json!({"sum": 3.0}));
        // The elicitation comes on the call's event stream; the answer is POSTed.
        let booked = call("book_table", json!({"party": 2})).await.unwrap();
        assert_eq!(
            booked["structuredContent"],
            json!({"booked": true, "name": "Ada", "party": 2}),
            "{booked}"
        );
        // A list change comes on the GET stream.
        tokio::time::sleep(Duration::from_millis(200)).await;
        call("toggle_bonus", json!({})).await.unwrap();
        recorder.wait_for("notifications/tools/list_changed").await;

        client.close().await;
        let err = call("add", json!({"a": 1, "b": 2})).await.unwrap_err();
        assert_eq!(err, ClientError::Closed);
        // The server forgot the session: a POST naming it gets 404.
        let status = raw_post(&server.addr, &session).await;
        assert!(status.starts_with("HTTP/1.1 404"), "{status}");
    });
}

/// A POST of `tools/list` in `session`; returns the status line.
async fn raw_post(addr: &str, session: &str) -> String {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: {session}\r\nMCP-Protocol-Version: {LEGACY}\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response).await;
    String::from_utf8_lossy(&response)
        .lines()
        .next()
        .unwrap_or("")
        .to_owned()
}

// ---- a broken HTTP server ----

/// Serves `responses` in order, one per connection, each after reading a
/// whole request; records the requests' heads.
async fn canned(responses: Vec<String>) -> (String, Arc<std::sync::Mutex<Vec<String>>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let heads = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = Arc::clone(&heads);
    tokio::spawn(async move {
        for response in responses {
            let Ok((mut stream, _)) = listener.accept().await else {
                return;
            };
            let mut buf = Vec::new();
            let mut chunk = [0u8; 4096];
            loop {
                let n = stream.read(&mut chunk).await.unwrap_or(0);
                if n == 0 {
                    break;
                }
                buf.extend_from_slice(&chunk[..n]);
                let text = String::from_utf8_lossy(&buf).into_owned();
                if let Some((head, body)) = text.split_once("\r\n\r\n") {
                    let length = head
                        .lines()
                        .find_map(|l| {
                            l.to_ascii_lowercase()
                                .strip_prefix("content-length:")
                                .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                        })
                        .unwrap_or(0);
                    if body.len() >= length {
                        seen.lock().unwrap().push(head.to_owned());
                        break;
                    }
                }
            }
            if response == SILENT {
                // Held open elsewhere, so the next connection is served.
                tokio::spawn(async move {
                    tokio::time::sleep(Duration::from_secs(20)).await;
                    drop(stream);
                });
                continue;
            }
            let _ = stream.write_all(response.as_bytes()).await;
            let _ = stream.shutdown().await;
        }
    });
    (format!("http://{addr}/mcp"), heads)
}

/// A canned "response" that is no response: the server reads the request
/// and says nothing.
const SILENT: &str = "";

fn reply(status: &str, headers: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status}\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

#[test]
fn a_broken_http_server_gives_clear_errors() {
    // Built before the test's clock starts: a first build takes minutes.
    everything();
    run(async {
        let json = "Content-Type: application/json\r\n";
        let sse = "Content-Type: text/event-stream\r\n";
        let (url, heads) = canned(vec![
            reply("200 OK", json, "<html>oops</html>"),
            reply("500 Internal Server Error", "Content-Type: text/plain\r\n", "database down"),
            reply("200 OK", sse, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n"),
            reply("200 OK", "Content-Type: text/html\r\n", "hi"),
            reply("200 OK", &format!("{json}Mcp-Session-Id: abc\r\n"), r#"{"jsonrpc":"2.0","id":5,"result":{}}"#),
            reply("404 Not Found", "", ""),
        ])
        .await;
        let (transport, client) = client_on(&url);
        let list = || client.request("tools/list", None, RequestOptions::timeout(SECOND));
        let err = list().await.unwrap_err();
        assert!(matches!(err, ClientError::Malformed { .. }), "{err:?}");
        let err = list().await.unwrap_err();
        assert_eq!(
            err,
            ClientError::Http {
                status: 500,
                body: "database down".into()
            }
        );
        assert_eq!(
            err.to_string(),
            "the server answered HTTP 500: database down"
        );
        let err = list().await.unwrap_err();
        assert!(
            matches!(err, ClientError::Disconnected { ref reason, .. } if reason == "the event stream ended before the answer"),
            "{err:?}"
        );
        let err = list().await.unwrap_err();
        assert!(
            err.to_string().contains("content type `text/html`"),
            "{err}"
        );
        // A session is minted; the next request, naming it (and the
        // connection's headers), gets 404.
        list().await.unwrap();
        client
            .set_headers(&[("MCP-Protocol-Version".into(), "2025-11-25".into())])
            .unwrap();
        assert_eq!(transport.session_id().as_deref(), Some("abc"));
        let err = list().await.unwrap_err();
        assert_eq!(err, ClientError::SessionExpired);
        for _ in 0..100 {
            if client.is_closed() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(client.closed_reason(), Some(ClientError::SessionExpired));
        let heads = heads.lock().unwrap();
        assert!(
            heads[5]
                .to_ascii_lowercase()
                .contains("mcp-protocol-version: 2025-11-25"),
            "{}",
            heads[5]
        );
        assert!(
            !heads[4]
                .to_ascii_lowercase()
                .contains("mcp-protocol-version"),
            "{}",
            heads[4]
        );
        assert!(
            heads[5]
                .to_ascii_lowercase()
                .contains("mcp-session-id: abc"),
            "{}",
            heads[5]
        );
        assert!(
            heads[0].contains("Accept: application/json, text/event-stream")
                || heads[0]
                    .to_ascii_lowercase()
                    .contains("accept: application/json, text/event-stream"),
            "{}",
            heads[0]
        );
    });
}

#[cfg(feature = "https")]
#[test]
fn an_https_url_goes_through_tls() {
    // Built before the test's clock starts: a first build takes minutes.
    everything();
    run(async {
        // A plain-HTTP server, answering before it is asked: the TLS
        // handshake fails, and says so.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            if let Ok((mut stream, _)) = listener.accept().await {
                let _ = stream.write_all(reply("200 OK", "", "").as_bytes()).await;
                tokio::time::sleep(Duration::from_secs(5)).await;
            }
        });
        let (_, client) = client_on(&format!("https://{addr}/mcp"));
        let err = client
            .request("tools/list", None, RequestOptions::timeout(SECOND))
            .await
            .unwrap_err();
        assert!(matches!(err, ClientError::Disconnected { .. }), "{err:?}");
        let text = err.to_string();
        assert!(
            text.contains("InvalidContentType")
                || text.to_lowercase().contains("tls")
                || text.contains("corrupt"),
            "{text}"
        );
    });
}

#[test]
fn a_silent_or_oversized_http_answer_is_bounded() {
    run(async {
        let big = format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{"x":"{}"}}}}"#,
            "a".repeat(5000)
        );
        let events = format!("data: {big}\n\n");
        let cases = [
            (SILENT.to_owned(), Duration::from_millis(300), None),
            (
                reply("200 OK", "Content-Type: application/json\r\n", &big),
                SECOND,
                Some(ClientError::TooLarge {
                    server: "tiny".into(),
                    limit: 1000,
                    size: Some(big.len()),
                }),
            ),
            (
                reply("200 OK", "Content-Type: text/event-stream\r\n", &events),
                SECOND,
                Some(ClientError::TooLarge {
                    server: "tiny".into(),
                    limit: 1000,
                    size: None,
                }),
            ),
        ];
        for (response, timeout, expected) in cases {
            let (url, _) = canned(vec![response]).await;
            let mut config = HttpConfig::new("tiny", url);
            config.max_message_bytes = 1000;
            let (transport, inbox) = HttpTransport::connect(config).unwrap();
            let client = Dispatcher::new(
                Box::new(transport),
                inbox,
                Arc::new(NoHandler),
                DispatcherConfig::new("tiny"),
            );
            let started = std::time::Instant::now();
            let err = client
                .request("tools/list", None, RequestOptions::timeout(timeout))
                .await
                .unwrap_err();
            match expected {
                Some(expected) => assert_eq!(err, expected),
                None => assert!(matches!(err, ClientError::Timeout { .. }), "{err:?}"),
            }
            assert!(started.elapsed() < Duration::from_secs(2));
        }
    });
}

#[test]
fn an_http_answer_too_large_to_hold_fails_at_once_as_json_and_as_an_event() {
    run(async {
        // 3 MiB of tiny objects: about 95 bytes of memory per byte once
        // parsed, far past the default budget of 32 MiB.
        let tiny = format!("[{}{{\"a\":1}}]", "{\"a\":1},".repeat(3 * 1024 * 1024 / 8));
        let bomb = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"content":{tiny}}}}}"#);
        let events = format!("data: {bomb}\n\n");
        for response in [
            reply("200 OK", "Content-Type: application/json\r\n", &bomb),
            reply("200 OK", "Content-Type: text/event-stream\r\n", &events),
        ] {
            let (url, _) = canned(vec![response]).await;
            let (transport, inbox) = HttpTransport::connect(HttpConfig::new("bomb", url)).unwrap();
            let client = Dispatcher::new(
                Box::new(transport),
                inbox,
                Arc::new(NoHandler),
                DispatcherConfig::new("bomb"),
            );
            // An hour's timeout: the error is the answer's, not the clock's.
            let err = client
                .request(
                    "tools/list",
                    None,
                    RequestOptions::timeout(Duration::from_secs(3600)),
                )
                .await
                .unwrap_err();
            assert!(
                matches!(err, ClientError::AnswerTooLarge { ref server, .. } if server == "bomb"),
                "{err:?}"
            );
            let text = err.to_string();
            assert!(
                text.starts_with("server `bomb` sent an answer too large to hold: ")
                    && text.contains("32 MiB"),
                "{text}"
            );
        }
    });
}
