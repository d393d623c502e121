//! MCP Apps (`io.modelcontextprotocol/ui`) on the server: `everything`'s
//! `stats` app over stdio in both eras (the tools' `_meta.ui`, the
//! extension in the capabilities, the app-only tool's calls), the model
//! API dumps without the app-only tool, and a tool that asks the client
//! whether it renders apps.

use crate::common::{self, Peer, example_binary};
use mcpfn_runtime::testing::memory;
use mcpfn_runtime::{Server, ToolBuilder, ToolOutcome, ToolUi, Visibility};
use serde_json::{Value, json};
use std::process::Command;
use std::time::Duration;

/// The `_meta` of the tools named `names` in a `tools/list` result.
fn metas(result: &Value, names: &[&str]) -> Vec<Value> {
    names
        .iter()
        .map(|name| {
            let tool = result["tools"]
                .as_array()
                .unwrap()
                .iter()
                .find(|tool| tool["name"] == *name)
                .unwrap_or_else(|| panic!("{name} is listed: {result}"));
            tool["_meta"].clone()
        })
        .collect()
}

fn expected_metas() -> Vec<Value> {
    vec![
        json!({"ui": {"resourceUri": "ui://everything/stats.html"}}),
        json!({"ui": {"resourceUri": "ui://everything/stats.html", "visibility": ["app"]}}),
    ]
}

#[test]
fn tools_name_their_app_in_both_eras() {
    let mut legacy = Peer::legacy("2025-11-25");
    let list = legacy.request(common::request(1, "tools/list", json!({}), false));
    assert_eq!(
        metas(&list["result"], &["stats", "stats_sort"]),
        expected_metas()
    );

    let mut modern = Peer::modern();
    let list = modern.request(common::request(1, "tools/list", json!({}), true));
    assert_eq!(
        metas(&list["result"], &["stats", "stats_sort"]),
        expected_metas()
    );
}

#[test]
fn the_extension_is_declared_where_capabilities_carry_extensions() {
    let mut modern = Peer::modern();
    let discover = modern.request(common::request(1, "server/discover", json!({}), true));
    assert_eq!(
        discover["result"]["capabilities"]["extensions"]["io.modelcontextprotocol/ui"],
        json!({"mimeTypes": ["text/html;profile=mcp-app"]}),
        "{discover}"
    );
    // 2025-11-25 capabilities have no `extensions`: hosts find the apps by
    // the tools' `_meta.ui` there.
    let mut legacy = Peer::everything();
    let init = legacy.request(common::initialize(0, "2025-11-25"));
    assert_eq!(
        init["result"]["capabilities"].get("extensions"),
        None,
        "{init}"
    );
}

#[test]
fn the_app_calls_its_tools_as_any_client_does() {
    for modern in [false, true] {
        let mut peer = if modern {
            Peer::modern()
        } else {
            Peer::legacy("2025-11-25")
        };
        let numbers = json!({"numbers": [3, -1.5, 10]});
        let stats = peer.request(common::call(1, "stats", numbers.clone(), modern));
        assert_eq!(
            stats["result"]["structuredContent"],
            json!({"count": 3, "sum": 11.5, "mean": 11.5 / 3.0, "min": -1.5, "max": 10.0}),
            "{stats}"
        );
        let arguments = json!({"numbers": [3, -1.5, 10], "descending": true});
        let sorted = peer.request(common::call(2, "stats_sort", arguments, modern));
        assert_eq!(
            sorted["result"]["structuredContent"],
            json!({"numbers": [10.0, 3.0, -1.5]}),
            "{sorted}"
        );
        let empty = peer.request(common::call(3, "stats", json!({"numbers": []}), modern));
        assert_eq!(
            empty["result"]["structuredContent"],
            json!({"count": 0, "sum": 0.0, "mean": null, "min": null, "max": null}),
            "{empty}"
        );
    }
}

/// `everything --dump-tools=FORMAT`, parsed.
fn dump(format: &str) -> Value {
    let output = Command::new(example_binary("everything"))
        .arg(format!("--dump-tools={format}"))
        .output()
        .expect("everything runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn model_api_dumps_leave_out_the_app_only_tool() {
    for (format, pointer) in [
        ("anthropic", "/name"),
        ("openai", "/function/name"),
        ("openai-strict", "/function/name"),
    ] {
        let dumped = dump(format);
        let names: Vec<&str> = dumped
            .as_array()
            .unwrap()
            .iter()
            .map(|tool| tool.pointer(pointer).and_then(Value::as_str).unwrap())
            .collect();
        assert!(names.contains(&"stats"), "{format}: {names:?}");
        assert!(!names.contains(&"stats_sort"), "{format}: {names:?}");
    }
    // The MCP dump is what `tools/list` says: both, with their `_meta.ui`.
    let mcp = dump("mcp");
    assert_eq!(metas(&mcp, &["stats", "stats_sort"]), expected_metas());
}

/// A tool that says whether the client renders apps, with the app it names.
fn renders_apps_tool() -> mcpfn_runtime::Tool {
    ToolBuilder::new("renders", |call| {
        let renders = call.context().client_renders_apps();
        Box::pin(async move { ToolOutcome::text(renders.to_string()) })
    })
    .ui(ToolUi::resource("ui://t/app.html").visibility([Visibility::Model, Visibility::App]))
    .build()
}

async fn recv(client: &mut mcpfn_runtime::testing::MemoryTransport) -> Value {
    let line = tokio::time::timeout(Duration::from_secs(10), client.recv())
        .await
        .expect("a line within 10 s")
        .unwrap()
        .expect("the server is still there");
    serde_json::from_str(&line).unwrap()
}

#[tokio::test]
async fn a_tool_knows_whether_the_client_renders_apps_in_both_eras() {
    let host = json!({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}});
    for capabilities in [host, json!({})] {
        let expected = (capabilities != json!({})).to_string();
        // Legacy: the capabilities of `initialize`.
        let (mut client, server_end) = memory();
        let (read, write) = tokio::io::split(server_end);
        let server = Server::new("apps", "1").tools(vec![renders_apps_tool()]);
        let serving = tokio::spawn(server.serve(read, write));
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": capabilities,
            "clientInfo": {"name": "host", "version": "1"}}});
        client.send(&init.to_string()).await.unwrap();
        recv(&mut client).await;
        client
            .send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .await
            .unwrap();
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "renders", "arguments": {}}});
        client.send(&call.to_string()).await.unwrap();
        let answer = recv(&mut client).await;
        assert_eq!(answer["result"]["content"][0]["text"], expected, "{answer}");
        client.close().await.unwrap();
        serving.await.unwrap().unwrap();

        // 2026-07-28: the capabilities of the request's envelope.
        let (mut client, server_end) = memory();
        let (read, write) = tokio::io::split(server_end);
        let server = Server::new("apps", "1").tools(vec![renders_apps_tool()]);
        let serving = tokio::spawn(server.serve(read, write));
        let mut envelope = common::envelope();
        envelope["io.modelcontextprotocol/clientCapabilities"] = capabilities.clone();
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "renders", "arguments": {}, "_meta": envelope}});
        client.send(&call.to_string()).await.unwrap();
        let answer = recv(&mut client).await;
        assert_eq!(answer["result"]["content"][0]["text"], expected, "{answer}");
        client.close().await.unwrap();
        serving.await.unwrap().unwrap();
    }
}

/// The app's HTML, as `everything` serves it.
const STATS_HTML: &str = include_str!("../../examples/apps/stats.html");

#[test]
fn the_app_is_listed_and_read_with_its_mime_type_and_ui_in_both_eras() {
    let listed = json!({
        "uri": "ui://everything/stats.html",
        "name": "stats_app",
        "title": "Stats",
        "description": "The numbers `stats` was called with as bars, and their statistics; its Sort button calls `stats_sort`.",
        "mimeType": "text/html;profile=mcp-app",
        "_meta": {"ui": {"prefersBorder": true}},
    });
    let read = json!([{
        "uri": "ui://everything/stats.html",
        "mimeType": "text/html;profile=mcp-app",
        "text": STATS_HTML,
        "_meta": {"ui": {"prefersBorder": true}},
    }]);
    for modern in [false, true] {
        let mut peer = if modern {
            Peer::modern()
        } else {
            Peer::legacy("2025-11-25")
        };
        let list = peer.request(common::request(1, "resources/list", json!({}), modern));
        let app = list["result"]["resources"]
            .as_array()
            .unwrap()
            .iter()
            .find(|resource| resource["uri"] == "ui://everything/stats.html");
        assert_eq!(app, Some(&listed), "{list}");
        let params = json!({"uri": "ui://everything/stats.html"});
        let answer = peer.request(common::request(2, "resources/read", params, modern));
        assert_eq!(answer["result"]["contents"], read, "modern: {modern}");
    }
    // 2025-03-26 resources and contents have no `_meta`.
    let mut old = Peer::legacy("2025-03-26");
    let params = json!({"uri": "ui://everything/stats.html"});
    let answer = old.request(common::request(2, "resources/read", params, false));
    assert_eq!(
        answer["result"]["contents"],
        json!([{"uri": "ui://everything/stats.html", "mimeType": "text/html;profile=mcp-app", "text": STATS_HTML}])
    );
}

/// The app declares no CSP origins, so a host lets it reach none: it must
/// load and fetch nothing, and speak to the host only through the bridge.
#[test]
fn the_app_is_self_contained_and_speaks_the_bridge() {
    for external in [
        "http:",
        "https:",
        "//",
        "fetch(",
        "XMLHttpRequest",
        "WebSocket",
        "<link",
    ] {
        let used = STATS_HTML
            .lines()
            .filter(|line| !line.trim_start().starts_with("//"))
            .any(|line| line.contains(external) && !line.contains("<!--"));
        assert!(!used, "the app uses {external}");
    }
    for bridge in [
        "\"ui/initialize\"",
        "\"ui/notifications/initialized\"",
        "\"ui/notifications/tool-input\"",
        "\"ui/notifications/tool-result\"",
        "\"tools/call\"",
        "name: \"stats_sort\"",
        "protocolVersion: \"2026-01-26\"",
    ] {
        assert!(
            STATS_HTML.contains(bridge),
            "the app sends or handles {bridge}"
        );
    }
}

/// The app's script run by a host's side of the bridge (`tests/apps/host.mjs`,
/// on Node.js), with `everything` over stdio behind it: what a host that
/// renders MCP Apps does with `stats`.
struct Host {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    lines: std::sync::mpsc::Receiver<String>,
}

impl Host {
    fn start() -> Host {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut child = Command::new("node")
            .arg(root.join("apps/host.mjs"))
            .arg(root.join("../examples/apps/stats.html"))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("node runs (install Node.js >= 20)");
        let stdin = child.stdin.take().unwrap();
        let lines = common::stdout_lines(&mut child);
        Host {
            child,
            stdin,
            lines,
        }
    }

    /// The lines the script printed until the app was idle.
    fn until_idle(&mut self) -> Vec<Value> {
        let mut printed = Vec::new();
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(10))
                .expect("the host script answers");
            let value: Value = serde_json::from_str(&line).unwrap();
            if value.get("idle").is_some() {
                return printed;
            }
            printed.push(value);
        }
    }

    /// Runs `command`; the messages the app posted in answer (each to its
    /// parent, for any origin: the sandbox hides the host's).
    fn command(&mut self, command: Value) -> Vec<Value> {
        use std::io::Write;
        writeln!(self.stdin, "{command}").unwrap();
        self.posted()
    }

    /// The messages the app posted since the last command.
    fn posted(&mut self) -> Vec<Value> {
        self.until_idle()
            .into_iter()
            .map(|line| {
                assert_eq!(line["origin"], "*", "{line}");
                line["sent"].clone()
            })
            .collect()
    }

    /// Each element's text, state and bars (their titles).
    fn dom(&mut self) -> Value {
        use std::io::Write;
        writeln!(self.stdin, "{}", json!({"dom": true})).unwrap();
        let mut printed = self.until_idle();
        assert_eq!(printed.len(), 1, "{printed:?}");
        printed.remove(0)["dom"].take()
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_host_renders_the_app_with_the_servers_answers() {
    let mut server = Peer::legacy("2025-11-25");
    let mut host = Host::start();
    // The handshake: `ui/initialize` first, then `initialized`.
    let first = host.posted();
    assert_eq!(
        first,
        [
            json!({"jsonrpc": "2.0", "id": 1, "method": "ui/initialize", "params": {
            "protocolVersion": "2026-01-26",
            "appInfo": {"name": "everything-stats", "version": "1.0.0"},
            "appCapabilities": {"availableDisplayModes": ["inline"]}}})
        ]
    );
    let initialized = host.command(json!({"deliver": {"jsonrpc": "2.0", "id": 1, "result": {
        "protocolVersion": "2026-01-26", "hostCapabilities": {"serverTools": {}},
        "hostInfo": {"name": "test-host", "version": "1"}, "hostContext": {"theme": "dark"}}}}));
    assert_eq!(
        initialized,
        [
            json!({"jsonrpc": "2.0", "method": "ui/notifications/initialized", "params": {}}),
            json!({"jsonrpc": "2.0", "method": "ui/notifications/size-changed",
                "params": {"width": 400, "height": 240}}),
        ]
    );

    // The model calls `stats`; the host hands the app its input and result.
    let arguments = json!({"numbers": [3, -1.5, 10]});
    let called = server.request(common::call(1, "stats", arguments.clone(), false));
    let input = json!({"jsonrpc": "2.0", "method": "ui/notifications/tool-input",
        "params": {"arguments": arguments}});
    assert_eq!(host.command(json!({"deliver": input})), Vec::<Value>::new());
    let result = json!({"jsonrpc": "2.0", "method": "ui/notifications/tool-result",
        "params": called["result"]});
    assert_eq!(
        host.command(json!({"deliver": result})),
        Vec::<Value>::new()
    );
    let dom = host.dom();
    assert_eq!(dom["input"]["text"], r#"{"numbers":[3,-1.5,10]}"#);
    assert_eq!(dom["bars"]["bars"], json!(["3", "-1.5", "10"]));
    let shown: Vec<&Value> = ["count", "sum", "mean", "min", "max"]
        .iter()
        .map(|id| &dom[*id]["text"])
        .collect();
    assert_eq!(shown, ["3", "11.5", "3.8333333333333335", "-1.5", "10"]);
    assert_eq!(dom["sort"]["disabled"], false);

    // Sort: the app calls the app-only `stats_sort`; the host forwards the
    // call to the server and the answer back.
    let asked = host.command(json!({"click": "sort"}));
    assert_eq!(
        asked,
        [
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "stats_sort", "arguments": {"numbers": [3, -1.5, 10], "descending": true}}})
        ]
    );
    let forwarded = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": asked[0]["params"]});
    let sorted = server.request(forwarded);
    let answer = json!({"jsonrpc": "2.0", "id": 2, "result": sorted["result"]});
    assert_eq!(
        host.command(json!({"deliver": answer})),
        Vec::<Value>::new()
    );
    let dom = host.dom();
    assert_eq!(dom["bars"]["bars"], json!(["10", "3", "-1.5"]));
    assert_eq!(dom["status"]["text"], "sorted by stats_sort");

    // Teardown is a request: the app answers it.
    let teardown = json!({"jsonrpc": "2.0", "id": "bye", "method": "ui/resource-teardown",
        "params": {"reason": "closed"}});
    assert_eq!(
        host.command(json!({"deliver": teardown})),
        [json!({"jsonrpc": "2.0", "id": "bye", "result": {}})]
    );
}
