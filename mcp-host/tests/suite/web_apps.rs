//! MCP Apps on the page of `mcp-host web`, in Debian's chromium
//! (tests/web/apps.py): the official ext-apps example servers from npm
//! render and exchange input and result with the page, and a probe app of
//! ours (tests/apps/probe.html, served by the `app_fixture` example) that
//! tries to leave its sandbox is stopped, and cut off when it floods.

use crate::common;

use common::fake_model::{
    FakeModel, McpConfig, Recorded, Reply, TempDir, claude_events, claude_message, text_block,
    tool_use, unmarked,
};
use common::web::WebHost;
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

fn streamed(message: Value) -> Reply {
    Reply::sse(claude_events(&message))
}

fn end(text: &str) -> Reply {
    streamed(claude_message(json!([text_block(text)]), "end_turn", 1, 1))
}

fn call(tool: &str, input: Value) -> Reply {
    streamed(claude_message(
        json!([tool_use("toolu_1", tool, input)]),
        "tool_use",
        1,
        1,
    ))
}

/// The text blocks of `request`'s last message.
fn last_text(request: &Recorded) -> String {
    let messages = request.body["messages"].as_array().unwrap();
    unmarked(&messages.last().unwrap()["content"])
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|block| block["text"].as_str())
        .collect()
}

/// A loopback HTTP listener that records each request's target and
/// answers `200 ok` to any origin.
struct Beacon {
    origin: String,
    seen: Arc<Mutex<Vec<String>>>,
}

impl Beacon {
    fn start() -> Beacon {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let origin = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let kept = Arc::clone(&seen);
        std::thread::spawn(move || {
            for socket in listener.incoming() {
                let Ok(mut socket) = socket else { continue };
                let mut head = Vec::new();
                let mut byte = [0_u8; 1];
                while !head.ends_with(b"\r\n\r\n") && socket.read(&mut byte).is_ok_and(|n| n == 1) {
                    head.push(byte[0]);
                }
                let head = String::from_utf8_lossy(&head);
                let target = head.split(' ').nth(1).unwrap_or_default().to_owned();
                kept.lock().unwrap().push(target);
                let _ = socket.write_all(
                    b"HTTP/1.1 200 OK\r\nAccess-Control-Allow-Origin: *\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok",
                );
            }
        });
        Beacon { origin, seen }
    }

    fn seen(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }

    /// The JSON the probe reported as `kind` (`/kind?v=JSON`).
    fn report(&self, kind: &str) -> Value {
        let prefix = format!("/{kind}?v=");
        let seen = self.seen();
        let found = seen
            .iter()
            .find_map(|target| target.strip_prefix(&prefix))
            .unwrap_or_else(|| panic!("the probe reported no `{kind}`: {seen:?}"));
        let decoded: String = form_urlencoded::parse(format!("v={found}").as_bytes())
            .next()
            .map(|(_, v)| v.into_owned())
            .unwrap();
        serde_json::from_str(&decoded).unwrap()
    }
}

/// The app fixture serving the probe, which may reach `beacon` (declared)
/// and tries `undeclared`; the probe's file lives in the directory.
fn probe(beacon: &Beacon, undeclared: &Beacon) -> (McpConfig, TempDir) {
    let html = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/apps/probe.html"),
    )
    .unwrap()
    .replace("__BEACON__", &beacon.origin)
    .replace(
        "__UNDECLARED__",
        &format!("{}/undeclared", undeclared.origin),
    );
    let dir = TempDir::new();
    let path = dir.write("probe.html", &html);
    let config = McpConfig::new(&json!({"mcpServers": {"fixture": {
        "command": common::example("app_fixture"),
        "env": {"APP_HTML": path, "APP_CONNECT": beacon.origin},
    }}}));
    (config, dir)
}

#[test]
fn an_app_that_tries_to_leave_its_sandbox_is_stopped_and_a_flood_cut_off() {
    let beacon = Beacon::start();
    let undeclared = Beacon::start();
    let (config, _dir) = probe(&beacon, &undeclared);
    let fake = FakeModel::start(vec![
        call("show", json!({"text": "hi"})),
        end("done"),
        end("noted"),
    ]);
    let host = WebHost::start(&config, &["--approve", "all"], &fake);
    let seen = host.drive_script("apps.py", "hostile");
    assert_eq!(
        seen["cut"],
        "The app of show (fixture) was cut off: it sent more than 40 messages in 2 seconds"
    );
    assert_eq!(seen["frames"], 0);
    let requests = fake.requests();
    assert_eq!(requests.len(), 3, "{:?}", seen["user"]);
    // The tool for the app alone was never offered to the model.
    let offered: Vec<&str> = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(offered, ["model_only", "show", "slow_show"]);
    // The host's side of the handshake, as the app got it.
    let init = beacon.report("initialized");
    assert_eq!(init["protocolVersion"], "2026-01-26");
    assert_eq!(init["hostContext"]["toolInfo"]["id"], "toolu_1");
    assert_eq!(init["hostContext"]["toolInfo"]["tool"]["name"], "show");
    assert_eq!(
        init["hostCapabilities"]["sandbox"],
        json!({"csp": {"connectDomains": [beacon.origin]}, "permissions": {}})
    );
    assert_eq!(beacon.report("input"), json!({"arguments": {"text": "hi"}}));
    assert_eq!(
        beacon.report("result")["content"],
        json!([{"type": "text", "text": "shown: hi (host renders apps: true)"}])
    );
    // The app's message is the next line, after what it said for the
    // model.
    let line = last_text(&requests[2]);
    let (context, report) = line
        .split_once("\n\nreport ")
        .unwrap_or_else(|| panic!("{line}"));
    assert_eq!(
        context,
        "[Context from the app of `fixture`'s tool `show`]\nthe probe saw everything"
    );
    let report: Value = serde_json::from_str(report).unwrap();
    assert_eq!(report["parent"], "blocked: SecurityError");
    assert_eq!(report["top"], "blocked: SecurityError");
    assert_eq!(report["undeclared"], "blocked: TypeError");
    assert_eq!(report["declared"], 200);
    assert_eq!(
        report["model_only"]["message"],
        "the tool `model_only` of server `fixture` is not visible to apps (its `_meta.ui.visibility` leaves out \"app\")"
    );
    assert_eq!(report["app_only"]["content"][0]["text"], "app_only: hi");
    assert_eq!(report["unknown_method"]["code"], -32601);
    // The page shows the line the person's way: without the context.
    let shown = seen["user"][1]
        .as_str()
        .unwrap()
        .strip_prefix("report ")
        .unwrap();
    assert_eq!(serde_json::from_str::<Value>(shown).unwrap(), report);
    // The page and the program say nothing went to the undeclared origin.
    assert!(undeclared.seen().is_empty(), "{:?}", undeclared.seen());
    assert!(beacon.seen().contains(&"/declared".to_owned()));
}

#[test]
fn stop_cancels_the_apps_call_and_closing_tears_it_down() {
    let beacon = Beacon::start();
    let undeclared = Beacon::start();
    let (config, _dir) = probe(&beacon, &undeclared);
    let fake = FakeModel::start(vec![
        call("slow_show", json!({"text": "x", "ms": 60_000})),
        end("after"),
    ]);
    let host = WebHost::start(&config, &["--approve", "all"], &fake);
    let seen = host.drive_script("apps.py", "cancel");
    assert_eq!(seen["frames"], 0);
    assert_eq!(
        beacon.report("cancelled"),
        json!({"reason": "Stopped by the person"})
    );
    assert_eq!(
        beacon.report("teardown"),
        json!({"reason": "the person closed it"})
    );
}

/// The app fixture serving the console app (tests/apps/console.html),
/// trusted (its read-only tools run unasked), beside a second fixture,
/// `other`, offering nothing, whose note `other://secret` only it holds.
fn console_app() -> (McpConfig, TempDir) {
    let html = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/apps/console.html"),
    )
    .unwrap();
    let dir = TempDir::new();
    let path = dir.write("console.html", &html);
    let config = McpConfig::new(&json!({"mcpServers": {
        "fixture": {
            "command": common::example("app_fixture"),
            "env": {"APP_HTML": path},
            "trusted": true,
        },
        "other": {
            "command": common::example("app_fixture"),
            "env": {"APP_HTML": path, "APP_NOTE_URI": "other://secret", "APP_NOTE": "theirs"},
            "tools": {"allow": []},
        },
    }}));
    (config, dir)
}

#[test]
fn an_apps_call_is_asked_on_the_page_as_the_models_are() {
    let (config, _dir) = console_app();
    let fake = FakeModel::start(vec![call("show", json!({"text": "hi"})), end("done")]);
    let host = WebHost::start(&config, &["--approve", "ask"], &fake);
    let seen = host.drive_script("apps.py", "approve");
    assert_eq!(
        seen["buttons"],
        json!([
            "Allow once",
            "Always allow this tool",
            "Always allow this server",
            "Deny"
        ])
    );
    // Allowed, it ran; denied, it did not (the third run is its second).
    let answers: Vec<Value> = seen["answers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|answer| {
            let json = answer
                .as_str()
                .unwrap()
                .strip_prefix("tools/call ")
                .unwrap();
            serde_json::from_str(json).unwrap()
        })
        .collect();
    let ran = |runs: &str| json!([{"type": "text", "text": format!("record ran {runs} time(s): from the app")}]);
    assert_eq!(answers[0]["result"]["content"], ran("1"));
    assert_eq!(
        answers[1],
        json!({"error": {"code": -32000, "message": "the call of `record` of server `fixture` was declined by the user"}})
    );
    assert_eq!(answers[2]["result"]["content"], ran("2"));
    assert_eq!(
        seen["asks"],
        json!([
            "Allowed once",
            "Denied",
            "Allowed once",
            // Asked again, then the app closed: the question went with it.
            "No longer asked: the app's request ended (the app closed, or the page went away)"
        ])
    );
    // The model's one call needed no one: read-only, of a trusted server.
    assert_eq!(fake.requests().len(), 2);
}

#[test]
fn an_app_reads_its_own_servers_resources_and_takes_the_window() {
    let (config, _dir) = console_app();
    let fake = FakeModel::start(vec![call("show", json!({"text": "hi"})), end("done")]);
    let host = WebHost::start(&config, &["--approve", "all"], &fake);
    let seen = host.drive_script("apps.py", "console");
    let answers: Vec<(&str, Value)> = seen["answers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|answer| {
            let (method, json) = answer.as_str().unwrap().split_once(' ').unwrap();
            (method, serde_json::from_str(json).unwrap_or(json!(json)))
        })
        .collect();
    // Its own server's resource, read through the host.
    assert_eq!(answers[0].0, "resources/read");
    assert_eq!(
        answers[0].1["result"]["contents"],
        json!([{"uri": "fixture://note", "mimeType": "text/plain", "text": "a note of the fixture"}])
    );
    // Another server's is not its own server's to give.
    assert_eq!(
        answers[1].1,
        json!({"error": {"code": -32000, "message": "reading `other://secret` of server `fixture`: the server answered an error: Resource not found (code -32602); data: {\"uri\":\"other://secret\"}"}})
    );
    // Past the client's bound on a message, as every read of the host.
    assert_eq!(
        answers[2].1,
        json!({"error": {"code": -32000, "message": "reading `fixture://big` of server `fixture`: server `fixture`: resource `fixture://big` was not read: server `fixture` sent a message of 17826048 bytes, larger than the limit of 16777216 bytes; it was discarded"}})
    );
    assert_eq!(
        &answers[3..],
        [
            (
                "ui/request-display-mode",
                json!({"result": {"mode": "fullscreen"}})
            ),
            // No picture-in-picture here: the mode stays.
            (
                "ui/request-display-mode",
                json!({"result": {"mode": "fullscreen"}})
            ),
        ]
    );
    // Over the whole window.
    assert_eq!(seen["viewport"], json!([1280, 720]));
    assert_eq!(seen["fullscreen_box"], json!([0, 0, 1280, 720]));
    let modes = json!(["inline", "fullscreen"]);
    assert_eq!(
        seen["contexts"],
        json!([
            {"theme": "light", "displayMode": "inline", "availableDisplayModes": modes},
            {"theme": "light", "displayMode": "fullscreen", "availableDisplayModes": modes},
            {"theme": "light", "displayMode": "inline", "availableDisplayModes": modes},
            {"theme": "dark", "displayMode": "inline", "availableDisplayModes": modes},
        ])
    );
}

/// An official example server, run with node over stdio.
fn official(name: &str, package: &str) -> McpConfig {
    let script = common::apps_servers()
        .join("node_modules/@modelcontextprotocol")
        .join(package)
        .join("dist/index.js");
    McpConfig::new(&json!({"mcpServers": {name: {"command": "node", "args": [script, "--stdio"]}}}))
}

#[test]
fn the_official_basic_app_renders_and_talks_to_the_host() {
    let config = official("basic", "server-basic-vanillajs");
    let fake = FakeModel::start(vec![
        call("get-time", json!({})),
        end("done"),
        end("got it"),
    ]);
    let host = WebHost::start(&config, &["--approve", "all"], &fake);
    let seen = host.drive_script("apps.py", "basic");
    let requests = fake.requests();
    assert_eq!(requests.len(), 3);
    // The time the app shows is the call's result.
    let messages = requests[1].body["messages"].as_array().unwrap();
    let result = unmarked(&messages.last().unwrap()["content"]);
    assert_eq!(seen["first"], result[0]["content"], "{result}");
    assert_ne!(seen["second"], seen["first"]);
    assert_eq!(
        seen["user"],
        json!(["what time is it", "This is message text."])
    );
    assert_eq!(last_text(&requests[2]), "This is message text.");
    assert_eq!(seen["link_buttons"], json!(["Open link", "Don't open"]));
    assert_eq!(seen["pages"], 1);
    assert_eq!(seen["sandbox"], "allow-scripts allow-same-origin");
    assert_eq!(seen["inner_sandbox"], "allow-scripts allow-forms");
}

#[test]
fn the_official_budget_allocator_renders_its_result() {
    let config = official("budget", "server-budget-allocator");
    let fake = FakeModel::start(vec![call("get-budget-data", json!({})), end("done")]);
    let host = WebHost::start(&config, &["--approve", "all"], &fake);
    let seen = host.drive_script("apps.py", "budget");
    assert!(
        seen["status"].as_str().unwrap().contains("$100,000"),
        "{seen}"
    );
}

/// `POST path body` with the session cookie; the status and the body.
fn post(host: &WebHost, cookie: &str, path: &str, body: &Value) -> (u16, Value) {
    let body = body.to_string();
    let (status, response) = host.raw(&format!(
        "POST {path} HTTP/1.1\r\nHost: {}\r\nCookie: {cookie}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        host.address,
        body.len()
    ));
    let json = response.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    (status, serde_json::from_str(json).unwrap_or(Value::Null))
}

/// `GET url` (an absolute `http://` URL) with `Host: host`; the status,
/// the head and the body.
fn get(url: &str, host: &str) -> (u16, String, String) {
    let rest = url.strip_prefix("http://").unwrap();
    let (address, path) = rest.split_at(rest.find('/').unwrap());
    let mut socket = std::net::TcpStream::connect(address).unwrap();
    write!(
        socket,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    socket.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, head.to_ascii_lowercase(), body.to_owned())
}

#[test]
fn the_apps_api_and_the_sandbox_serve_open_apps_only() {
    let beacon = Beacon::start();
    let undeclared = Beacon::start();
    let (config, dir) = probe(&beacon, &undeclared);
    let fake = FakeModel::start(vec![]);
    let host = WebHost::start(&config, &["--approve", "all"], &fake);
    let cookie = host.cookie();
    // The servers start after the URL line.
    let mut tries = 0;
    let opened = loop {
        let (status, body) = post(
            &host,
            &cookie,
            "/api/apps/open",
            &json!({"call": "c1", "server": "fixture", "tool": "show"}),
        );
        if status != 503 || tries == 100 {
            assert_eq!(status, 200, "{body}");
            break body;
        }
        tries += 1;
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    let app = opened["app"].as_str().unwrap().to_owned();
    assert_eq!(app.len(), 64);
    assert_eq!(opened["tool"]["name"], "show");
    assert_eq!(opened["uri"], "ui://fixture/app.html");
    assert_eq!(opened["refused"], json!([]));
    let proxy_origin = opened["proxyOrigin"].as_str().unwrap().to_owned();
    assert_ne!(proxy_origin, format!("http://{}", host.address));
    // A tool without an app, or for the model only, opens nothing.
    let (status, body) = post(
        &host,
        &cookie,
        "/api/apps/open",
        &json!({"call": "c2", "server": "fixture", "tool": "model_only"}),
    );
    assert_eq!((status, body), (200, json!({"app": null})));
    // The proxy page: framed by the page alone.
    let proxy_host = proxy_origin.strip_prefix("http://").unwrap();
    let (status, head, body) = get(opened["proxy"].as_str().unwrap(), proxy_host);
    assert_eq!(status, 200, "{head}");
    assert!(
        head.contains(&format!("content-security-policy: default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; frame-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors http://{}\r\n", host.address)),
        "{head}"
    );
    assert!(
        body.contains(&format!(
            "<meta name=\"mcp-host-page\" content=\"http://{}\">",
            host.address
        )),
        "{body}"
    );
    // The app's document, with its policy as a header.
    let view = format!("{proxy_origin}/view/{app}");
    let (status, head, body) = get(&view, proxy_host);
    assert_eq!(status, 200, "{head}");
    let policy = format!(
        "content-security-policy: default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; media-src 'self' data:; connect-src {}; frame-src 'none'; object-src 'none'; base-uri 'self'; form-action 'none'\r\n",
        beacon.origin
    );
    assert!(head.contains(&policy), "{head}");
    assert!(
        head.contains(&format!(
            "content-security-policy: frame-ancestors http://{} {proxy_origin}\r\n",
            host.address
        )),
        "{head}"
    );
    assert!(
        body.contains(&beacon.origin) && body.starts_with("<!DOCTYPE html>"),
        "{body}"
    );
    assert_eq!(get(&view, "evil.example").0, 403);
    assert_eq!(
        get(
            &format!("{proxy_origin}/view/{}", "0".repeat(64)),
            proxy_host
        )
        .0,
        404
    );
    // The app's calls: its server's tools visible to apps only.
    let (status, body) = post(
        &host,
        &cookie,
        "/api/apps/call",
        &json!({"app": app, "name": "app_only", "arguments": {"text": "x"}}),
    );
    assert_eq!(
        (status, &body["result"]["content"][0]["text"]),
        (200, &json!("app_only: x"))
    );
    let (status, body) = post(
        &host,
        &cookie,
        "/api/apps/call",
        &json!({"app": app, "name": "model_only"}),
    );
    assert_eq!(status, 403);
    assert_eq!(
        body["error"],
        "the tool `model_only` of server `fixture` is not visible to apps (its `_meta.ui.visibility` leaves out \"app\")"
    );
    let (status, body) = post(
        &host,
        &cookie,
        "/api/apps/call",
        &json!({"app": "nope", "name": "app_only"}),
    );
    assert_eq!(
        (status, body),
        (404, json!({"error": "no app `nope` is open"}))
    );
    // An app past the rate is cut off, here too, and closed: its two calls
    // and 38 updates are the 40 of the window.
    let mut taken = 0;
    let refused = loop {
        let (status, body) = post(
            &host,
            &cookie,
            "/api/apps/context",
            &json!({"app": app, "content": [{"type": "text", "text": "x"}]}),
        );
        if status != 200 || taken == 100 {
            break (status, body);
        }
        taken += 1;
    };
    assert_eq!(taken, 38);
    assert_eq!(
        refused,
        (
            429,
            json!({"error": "the app of `fixture`'s tool `show`: cut off: it sent more than 40 messages in 2 seconds"})
        )
    );
    assert_eq!(
        post(&host, &cookie, "/api/apps/context", &json!({"app": app})).0,
        404
    );
    assert_eq!(get(&view, proxy_host).0, 404);
    drop(dir);
}
