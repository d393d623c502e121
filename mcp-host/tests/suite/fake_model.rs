//! The scripted model API of tests/suite/common/fake_model.rs, checked with raw
//! HTTP/1.1 bytes over a std socket: what it records, what it answers, its
//! delay, and its answer once the script is used up.

use crate::common;

use common::fake_model::{FakeModel, Reply, claude_message, closed_port_url, openai_completion};
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// One request over a new connection (`Connection: close`); the status,
/// the response headers (names lowercased) and the body as JSON.
fn send(
    base_url: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, Vec<(String, String)>, Value) {
    let addr = base_url.strip_prefix("http://").unwrap();
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut request = format!("{method} {path} HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str(&format!("content-length: {}\r\n\r\n{body}", body.len()));
    stream.write_all(request.as_bytes()).unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).unwrap();
    let response = String::from_utf8(response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers = lines
        .map(|l| {
            let (n, v) = l.split_once(':').unwrap();
            (n.trim().to_ascii_lowercase(), v.trim().to_owned())
        })
        .collect();
    (status, headers, serde_json::from_str(body).unwrap())
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

#[test]
fn serves_the_script_in_order_and_records_each_request() {
    let fake = FakeModel::start(vec![
        Reply::ok(json!({"first": true})),
        Reply::status(429, json!({"second": true})).header("retry-after", "1"),
    ]);
    assert!(fake.base_url.starts_with("http://127.0.0.1:"));
    assert!(!fake.base_url.ends_with('/'));

    let body = r#"{"model":"m","messages":[{"role":"user","content":"北京"}]}"#;
    let (status, headers, answer) = send(
        &fake.base_url,
        "POST",
        "/v1/messages",
        &[("X-Api-Key", "k1"), ("content-type", "application/json")],
        body,
    );
    assert_eq!(status, 200);
    assert_eq!(header(&headers, "content-type"), Some("application/json"));
    assert_eq!(answer, json!({"first": true}));

    let (status, headers, answer) = send(&fake.base_url, "GET", "/other?x=1", &[], "");
    assert_eq!(status, 429);
    assert_eq!(header(&headers, "retry-after"), Some("1"));
    assert_eq!(answer, json!({"second": true}));

    let requests = fake.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].method, "POST");
    assert_eq!(requests[0].path, "/v1/messages");
    // Names are lowercased; lookups take any case.
    assert!(
        requests[0]
            .headers
            .contains(&("x-api-key".into(), "k1".into()))
    );
    assert_eq!(requests[0].header("X-API-KEY"), Some("k1"));
    assert_eq!(requests[0].header("anthropic-version"), None);
    assert_eq!(requests[0].raw_body, body);
    assert_eq!(
        requests[0].body,
        json!({"model": "m", "messages": [{"role": "user", "content": "北京"}]})
    );
    assert_eq!(requests[1].method, "GET");
    assert_eq!(requests[1].path, "/other?x=1");
    assert_eq!(requests[1].body, Value::Null);
    assert_eq!(fake.unused(), 0);
}

#[test]
fn answers_500_once_the_script_is_exhausted_and_still_records() {
    let fake = FakeModel::start(vec![]);
    for _ in 0..2 {
        let (status, _, answer) = send(&fake.base_url, "POST", "/chat/completions", &[], "{}");
        assert_eq!(status, 500);
        assert_eq!(
            answer,
            json!({"error": {"message": "fake model: script exhausted"}})
        );
    }
    assert_eq!(fake.requests().len(), 2);
    assert_eq!(fake.requests()[0].body, json!({}));
}

#[test]
fn a_body_that_is_not_json_is_recorded_as_its_text() {
    let fake = FakeModel::start(vec![Reply::ok(json!(1))]);
    send(&fake.base_url, "POST", "/", &[], "not json");
    assert_eq!(fake.requests()[0].body, json!("not json"));
}

#[test]
fn a_delayed_reply_waits_before_answering() {
    let fake = FakeModel::start(vec![
        Reply::ok(json!("late")).after(Duration::from_millis(400)),
        Reply::ok(json!("now")),
    ]);
    let started = Instant::now();
    let (_, _, answer) = send(&fake.base_url, "POST", "/", &[], "{}");
    let took = started.elapsed();
    assert_eq!(answer, json!("late"));
    assert!(took >= Duration::from_millis(400), "{took:?}");
    assert!(took < Duration::from_secs(3), "{took:?}");
    let started = Instant::now();
    send(&fake.base_url, "POST", "/", &[], "{}");
    assert!(started.elapsed() < Duration::from_millis(400));
}

#[test]
fn header_replaces_one_of_the_same_name() {
    let reply = Reply::ok(json!({}))
        .header("Content-Type", "text/plain")
        .header("retry-after", "2");
    assert_eq!(
        reply.headers,
        vec![
            ("Content-Type".to_owned(), "text/plain".to_owned()),
            ("retry-after".to_owned(), "2".to_owned())
        ]
    );
}

#[test]
fn keep_alive_connections_get_the_next_reply_each() {
    // One connection, two requests: the script advances per request, not
    // per connection (the host's client keeps its connection open).
    let fake = FakeModel::start(vec![Reply::ok(json!("a")), Reply::ok(json!("b"))]);
    let addr = fake.base_url.strip_prefix("http://").unwrap().to_owned();
    let mut stream = TcpStream::connect(&addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut buf = [0u8; 4096];
    for expected in ["\"a\"", "\"b\""] {
        write!(
            stream,
            "POST / HTTP/1.1\r\nhost: {addr}\r\ncontent-length: 2\r\n\r\n{{}}"
        )
        .unwrap();
        let mut got = String::new();
        while !got.ends_with(expected) {
            let n = stream.read(&mut buf).unwrap();
            assert!(n > 0, "closed early: {got}");
            got.push_str(std::str::from_utf8(&buf[..n]).unwrap());
        }
    }
    assert_eq!(fake.requests().len(), 2);
}

#[test]
fn dropping_the_fake_closes_its_port() {
    let fake = FakeModel::start(vec![]);
    let addr = fake.base_url.strip_prefix("http://").unwrap().to_owned();
    drop(fake);
    assert!(TcpStream::connect(&addr).is_err());
    let closed = closed_port_url();
    assert!(TcpStream::connect(closed.strip_prefix("http://").unwrap()).is_err());
}

#[test]
fn the_response_builders_have_the_apis_shapes() {
    let message = claude_message(json!([{"type": "text", "text": "hi"}]), "end_turn", 3, 4);
    assert!(message["id"].as_str().unwrap().starts_with("msg_"));
    let mut without_id = message.clone();
    without_id.as_object_mut().unwrap().remove("id");
    assert_eq!(
        without_id,
        json!({"type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
            "content": [{"type": "text", "text": "hi"}], "stop_reason": "end_turn",
            "stop_sequence": null, "usage": {"input_tokens": 3, "output_tokens": 4}})
    );

    let completion = openai_completion(json!({"role": "assistant", "content": "hi"}), "stop", 5, 6);
    assert!(completion["id"].as_str().unwrap().starts_with("chatcmpl-"));
    assert!(completion["created"].as_u64().unwrap() > 1_600_000_000);
    assert_eq!(completion["object"], "chat.completion");
    assert_eq!(completion["model"], "gpt-4.1");
    assert_eq!(
        completion["choices"],
        json!([{"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}])
    );
    assert_eq!(
        completion["usage"],
        json!({"prompt_tokens": 5, "completion_tokens": 6, "total_tokens": 11})
    );
}
