//! The guard of `mcp-host web` over plain HTTP (no browser): the exact
//! bytes a DNS-rebinding page, another site's script or a second user of
//! the token would send, and what each gets back.

use crate::common;

use common::fake_model::{FakeModel, McpConfig};
use common::web::WebHost;

fn host() -> WebHost {
    let config = McpConfig::new(&serde_json::json!({"mcpServers": {}}));
    WebHost::start(&config, &["--approve", "all"], &FakeModel::start(vec![]))
}

/// The `error` of a refusal's JSON body.
fn error(response: &str) -> String {
    let body = response.split("\r\n\r\n").nth(1).unwrap_or_default();
    let value: serde_json::Value =
        serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {response}"));
    value["error"].as_str().unwrap().to_owned()
}

fn get(host: &WebHost, path: &str, headers: &str) -> (u16, String) {
    host.raw(&format!(
        "GET {path} HTTP/1.1\r\nHost: {}\r\n{headers}Connection: close\r\n\r\n",
        host.address
    ))
}

#[test]
fn the_url_line_is_loopback_with_a_token() {
    let host = host();
    let (address, token) = host
        .url
        .strip_prefix("http://")
        .and_then(|rest| rest.split_once("/?token="))
        .unwrap();
    assert!(address.starts_with("127.0.0.1:"), "{}", host.url);
    assert_eq!(token.len(), 64, "{}", host.url);
    assert!(token.bytes().all(|b| b.is_ascii_hexdigit()), "{}", host.url);
}

#[test]
fn the_token_is_exchanged_once_for_an_http_only_strict_cookie() {
    let host = host();
    let (status, response) = get(&host, &format!("/?token={}", host.token()), "");
    assert_eq!(status, 303, "{response}");
    assert!(response.contains("\r\nlocation: /\r\n"), "{response}");
    let port = host.address.rsplit(':').next().unwrap();
    let cookie = response
        .lines()
        .find_map(|l| l.strip_prefix("set-cookie: "))
        .unwrap();
    let (pair, attributes) = cookie.split_once("; ").unwrap();
    assert_eq!(attributes, "HttpOnly; SameSite=Strict; Path=/");
    let (name, value) = pair.split_once('=').unwrap();
    assert_eq!(name, format!("mcp-host-{port}"));
    assert_eq!(value.len(), 64);
    assert_ne!(value, host.token());
    // The page, with the cookie.
    let (status, page) = get(&host, "/", &format!("Cookie: {pair}\r\n"));
    assert_eq!(status, 200, "{page}");
    assert!(
        page.contains("<label for=\"message\">Message</label>"),
        "{page}"
    );
    // The token again, without the cookie: refused.
    let (status, again) = get(&host, &format!("/?token={}", host.token()), "");
    assert_eq!(status, 403, "{again}");
    assert_eq!(
        error(&again),
        "the token was already used: it is good once (restart mcp-host web for a new one)"
    );
}

#[test]
fn without_the_cookie_nothing_is_served() {
    let host = host();
    for path in ["/", "/app.js", "/api/events"] {
        let (status, response) = get(&host, path, "");
        assert_eq!(status, 401, "{path}: {response}");
        assert_eq!(
            error(&response),
            "no session: open the URL mcp-host web printed (with its token) first"
        );
    }
    let (status, response) = get(&host, "/", "Cookie: mcp-host-1=forged\r\n");
    assert_eq!(status, 401, "{response}");
    let port = host.address.rsplit(':').next().unwrap();
    let (status, response) = get(&host, "/", &format!("Cookie: mcp-host-{port}=forged\r\n"));
    assert_eq!(status, 403, "{response}");
    assert_eq!(error(&response), "not this page's session");
    // A wrong token is not an exchange, and the right one still works.
    let (status, response) = get(&host, &format!("/?token={}", "0".repeat(64)), "");
    assert_eq!((status, error(&response).as_str()), (403, "wrong token"));
    host.cookie();
}

#[test]
fn another_host_name_is_refused_even_with_the_cookie() {
    let host = host();
    let cookie = host.cookie();
    let port = host.address.rsplit(':').next().unwrap();
    for name in [format!("attacker.example:{port}"), "127.0.0.1:1".to_owned()] {
        let (status, response) = host.raw(&format!(
            "GET / HTTP/1.1\r\nHost: {name}\r\nCookie: {cookie}\r\nConnection: close\r\n\r\n"
        ));
        assert_eq!(status, 403, "{response}");
        assert_eq!(
            error(&response),
            format!(
                "Host `{name}` is not this server ({}): a page of another name is not served (DNS rebinding)",
                host.address
            )
        );
    }
    // localhost with the port is this server.
    let (status, response) = host.raw(&format!(
        "GET / HTTP/1.1\r\nHost: localhost:{port}\r\nCookie: {cookie}\r\nConnection: close\r\n\r\n"
    ));
    assert_eq!(status, 200, "{response}");
}

#[test]
fn a_foreign_origin_is_refused() {
    let host = host();
    let cookie = host.cookie();
    let body = r#"{"text":"hi"}"#;
    let post = |origin: &str| {
        host.raw(&format!(
            "POST /api/send HTTP/1.1\r\nHost: {}\r\nCookie: {cookie}\r\nOrigin: {origin}\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            host.address,
            body.len()
        ))
    };
    let (status, response) = post("http://attacker.example");
    assert_eq!(status, 403, "{response}");
    assert_eq!(
        error(&response),
        format!(
            "Origin `http://attacker.example` is not this page's (http://{}): another site's request is refused",
            host.address
        )
    );
    let (status, response) = post("null");
    assert_eq!(status, 403, "{response}");
    // Its own origin: taken.
    let (status, response) = post(&format!("http://{}", host.address));
    assert_eq!(status, 202, "{response}");
}

#[test]
fn an_oversized_or_non_json_body_is_refused() {
    let host = host();
    let cookie = host.cookie();
    let post = |kind: &str, body: &str, length: usize| {
        host.raw(&format!(
            "POST /api/send HTTP/1.1\r\nHost: {}\r\nCookie: {cookie}\r\n\
             Content-Type: {kind}\r\nContent-Length: {length}\r\nConnection: close\r\n\r\n{body}",
            host.address
        ))
    };
    let (status, response) = post("application/json", "", 2 << 20);
    assert_eq!(status, 413, "{response}");
    assert_eq!(error(&response), "the request body is over 1048576 bytes");
    // Sent chunked, with no length to refuse up front: cut at the bound
    // (the last chunk crosses it; the end is never sent).
    let chunk = "x".repeat(64 << 10);
    let mut chunked = String::new();
    for _ in 0..17 {
        chunked.push_str(&format!("{:x}\r\n{chunk}\r\n", chunk.len()));
    }
    let (status, response) = host.raw(&format!(
        "POST /api/send HTTP/1.1\r\nHost: {}\r\nCookie: {cookie}\r\n\
         Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n{chunked}",
        host.address
    ));
    assert_eq!(status, 413, "{response}");
    // A form post (what another site's page can send without asking).
    let (status, response) = post("text/plain", "text=hi", 7);
    assert_eq!(status, 415, "{response}");
    assert_eq!(
        error(&response),
        "a POST's body is JSON (Content-Type: application/json)"
    );
}

#[test]
fn the_event_stream_starts_with_a_reset_and_the_log() {
    let host = host();
    let cookie = host.cookie();
    let mut socket = std::net::TcpStream::connect(&host.address).unwrap();
    socket
        .set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .unwrap();
    use std::io::{Read, Write};
    write!(
        socket,
        "GET /api/events HTTP/1.1\r\nHost: {}\r\nCookie: {cookie}\r\n\r\n",
        host.address
    )
    .unwrap();
    // Read until the agent's `ready` is there (the servers started).
    let mut seen = String::new();
    let mut chunk = [0_u8; 4096];
    while !seen.contains("{\"event\":\"ready\"}") {
        let n = socket.read(&mut chunk).expect("the stream goes on");
        assert!(n > 0, "the stream ended: {seen}");
        seen.push_str(&String::from_utf8_lossy(&chunk[..n]));
    }
    let (head, body) = seen.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200 OK\r\n"), "{head}");
    assert!(
        head.contains("\r\ncontent-type: text/event-stream\r\n"),
        "{head}"
    );
    assert!(head.contains("\r\ncache-control: no-store\r\n"), "{head}");
    // Chunked: the frames, without the chunk sizes.
    let frames: Vec<&str> = body
        .split("\r\n")
        .filter(|part| part.starts_with("data: ") || part.starts_with("retry: "))
        .collect();
    assert_eq!(
        frames,
        [
            "retry: 1000\n\n",
            "data: {\"dropped\":0,\"event\":\"reset\"}\n\n",
            "data: {\"event\":\"ready\"}\n\n"
        ]
    );
    // A late or unknown answer is refused, by name.
    let body = r#"{"ask":7,"answer":"once"}"#;
    let (status, response) = host.raw(&format!(
        "POST /api/approve HTTP/1.1\r\nHost: {}\r\nCookie: {cookie}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        host.address,
        body.len()
    ));
    assert_eq!(status, 409, "{response}");
    assert_eq!(
        error(&response),
        "question 7 is not asked (answered, or its line ended)"
    );
    let body = r#"{"ask":7,"answer":"yes please"}"#;
    let (status, response) = host.raw(&format!(
        "POST /api/approve HTTP/1.1\r\nHost: {}\r\nCookie: {cookie}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        host.address,
        body.len()
    ));
    assert_eq!(status, 400, "{response}");
    assert_eq!(
        error(&response),
        "`yes please` is not an answer this question takes"
    );
}
