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
    let shown = seen["user"][1].as_str().unwrap().strip_prefix("report ").unwrap();
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
