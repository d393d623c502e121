//! The `mcp-host` program against real MCP servers, with a scripted model on
//! loopback (tests/suite/common/fake_model.rs): the config forms and their errors,
//! `everything` over stdio and Streamable HTTP (with the config's headers on
//! every request), the official Python SDK server, name prefixing and
//! mapping, names that meet after mapping (seed 002's flow among them),
//! `--tool-timeout`, a server that exits mid-conversation, and
//! `trusted` under `--approve read-only`; the TypeScript SDK's server for a
//! legacy HTTP session's headers, the OpenAI provider for the Python one. Each test checks what the host sent
//! the model (the recorded requests) and what it printed (`--json`).

use crate::common;

use common::fake_model::{
    FakeModel, HostRun, McpConfig, Recorded, Reply, TempDir, claude_message, closed_port_url,
    everything_entry, host_binary, openai_completion, openai_text, openai_tool_calls, run_host,
    text_block, tool_use, unmarked,
};
use common::{HttpServer, everything, python_sdk, ts_sdk};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A model response asking for `calls` (`tool_use` blocks).
fn asks(calls: Vec<Value>) -> Reply {
    Reply::ok(claude_message(Value::Array(calls), "tool_use", 10, 5))
}

/// A model response that ends the line with `text`.
fn says(text: &str) -> Reply {
    Reply::ok(claude_message(json!([text_block(text)]), "end_turn", 10, 5))
}

/// Runs the host on `config` against `model` with `--json --approve
/// approve` and `extra` arguments, feeding `stdin`.
fn host(
    config: &McpConfig,
    model: &FakeModel,
    approve: &str,
    extra: &[&str],
    stdin: &str,
) -> HostRun {
    let mut args = vec!["--config", config.arg(), "--json", "--approve", approve];
    args.extend_from_slice(extra);
    run_host(
        &args,
        &[
            ("ANTHROPIC_BASE_URL", model.base_url.as_str()),
            ("ANTHROPIC_API_KEY", "test-key"),
        ],
        stdin,
    )
}

/// Asserts a run exited 0 and returns its `--json` lines.
fn lines(run: &HostRun) -> Vec<Value> {
    assert!(
        run.status.success(),
        "mcp-host failed ({}):\nstdout:\n{}\nstderr:\n{}",
        run.status,
        run.stdout,
        run.stderr
    );
    run.json_lines()
}

/// The names of the tools a request offered.
fn offered(request: &Recorded) -> Vec<String> {
    request.body["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools in {}", request.body))
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

/// The offered tool called `name` (without the prompt-caching breakpoint
/// the last one carries).
fn offered_tool(request: &Recorded, name: &str) -> Value {
    request.body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .map(unmarked)
        .unwrap_or_else(|| panic!("{name} not offered: {:?}", offered(request)))
}

/// One `tool_result` block of a request's last message.
#[derive(Debug)]
struct ToolResult {
    id: String,
    is_error: bool,
    text: String,
}

/// The `tool_result` blocks of a request's last message (the user message
/// that answers the previous response's `tool_use` blocks), in order.
fn results(request: &Recorded) -> Vec<ToolResult> {
    let last = request.body["messages"]
        .as_array()
        .and_then(|m| m.last())
        .unwrap_or_else(|| panic!("no messages in {}", request.body));
    assert_eq!(last["role"], "user", "{last}");
    last["content"]
        .as_array()
        .unwrap_or_else(|| panic!("no content blocks in {last}"))
        .iter()
        .filter(|b| b["type"] == "tool_result")
        .map(|b| ToolResult {
            id: b["tool_use_id"].as_str().unwrap().to_owned(),
            is_error: b["is_error"].as_bool().unwrap_or(false),
            // A single text result may be a plain string.
            text: match &b["content"] {
                Value::String(s) => s.clone(),
                Value::Array(blocks) => blocks.iter().filter_map(|c| c["text"].as_str()).collect(),
                other => panic!("tool_result content {other}"),
            },
        })
        .collect()
}

/// `(name, server, is_error)` of each entry of a `--json` line's `tool_calls`.
fn tool_calls(line: &Value) -> Vec<(String, String, bool)> {
    line["tool_calls"]
        .as_array()
        .unwrap_or_else(|| panic!("no tool_calls in {line}"))
        .iter()
        .map(|c| {
            (
                c["name"].as_str().unwrap().to_owned(),
                c["server"].as_str().unwrap().to_owned(),
                c["is_error"].as_bool().unwrap(),
            )
        })
        .collect()
}

fn call(name: &str, server: &str, is_error: bool) -> (String, String, bool) {
    (name.to_owned(), server.to_owned(), is_error)
}

/// `tests/interop/NAME` of this crate.
fn interop(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/interop")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// A stdio entry running tests/interop/fake.py in `mode`, with `FAKE_DIR`.
fn fake(mode: &str, dir: Option<&TempDir>) -> Value {
    let mut env = json!({"FAKE": mode});
    if let Some(dir) = dir {
        env["FAKE_DIR"] = json!(dir.path.to_str().unwrap());
    }
    json!({"command": "python3", "args": [interop("fake.py")], "env": env})
}

#[test]
fn an_unusable_config_exits_2_with_one_line_naming_the_problem() {
    let dir = TempDir::new();
    let missing = dir.path.join("no-such-mcp.json");
    let cases: Vec<(&str, Option<&str>, &str)> = vec![
        ("missing file", None, "no-such-mcp.json"),
        ("not JSON", Some("{\"mcpServers\": {"), "JSON"),
        ("no servers object", Some(r#"{"tools": {}}"#), "mcpServers"),
        (
            "servers not an object",
            Some(r#"{"mcpServers": []}"#),
            "mcpServers",
        ),
        (
            "entry not an object",
            Some(r#"{"mcpServers": {"weird": "npx server"}}"#),
            "weird",
        ),
        (
            "neither command nor url",
            Some(r#"{"mcpServers": {"empty": {"args": ["x"]}}}"#),
            "empty",
        ),
        (
            "VS Code entry not an object",
            Some(r#"{"servers": {"numbered": 5}}"#),
            "numbered",
        ),
        (
            "unknown VS Code type",
            Some(r#"{"servers": {"bird": {"type": "carrier-pigeon", "command": "x"}}}"#),
            "carrier-pigeon",
        ),
    ];
    // A model that must never be asked: the config is read before any
    // request.
    let model = FakeModel::start(Vec::new());
    let base_url = model.base_url.as_str();
    // Concurrently: each run only reads a file and exits.
    std::thread::scope(|scope| {
        for (i, (case, text, named)) in cases.iter().enumerate() {
            let path = match text {
                Some(text) => dir.write(&format!("{i}.json"), text),
                None => missing.clone(),
            };
            scope.spawn(move || {
                let run = run_host(
                    &["--config", path.to_str().unwrap(), "--json"],
                    &[
                        ("ANTHROPIC_BASE_URL", base_url),
                        ("ANTHROPIC_API_KEY", "test-key"),
                    ],
                    "hello\n",
                );
                assert_eq!(run.status.code(), Some(2), "{case}: {run:?}");
                assert_eq!(run.stdout, "", "{case}: nothing on stdout");
                let stderr: Vec<&str> = run.stderr.lines().filter(|l| !l.is_empty()).collect();
                assert_eq!(stderr.len(), 1, "{case}: one stderr line: {:?}", run.stderr);
                assert!(
                    stderr[0].contains(named),
                    "{case}: {:?} does not name {named:?}",
                    stderr[0]
                );
            });
        }
    });
    assert!(model.requests().is_empty(), "{:?}", model.requests());
}

/// Claude Desktop form: servers that cannot be used (a command that does
/// not exist, one that exits at once, one that answers initialize with a
/// revision nobody speaks, a URL nothing listens on) are reported and left
/// out; the other server's tools are offered (unprefixed) and work.
#[test]
fn a_server_that_cannot_start_is_reported_and_the_others_work() {
    let config = McpConfig::new(&json!({"mcpServers": {
        "broken": {"command": "/nonexistent/mcp-server-h19c", "args": ["--stdio"]},
        "quits": {"command": "sh", "args": ["-c", "exit 3"]},
        "ancient": fake("old-version", None),
        "gone": {"url": format!("{}/mcp", closed_port_url()), "headers": {"X-Unused": "1"}},
        "e": everything_entry(&[]),
    }}));
    let model = FakeModel::start(vec![
        asks(vec![tool_use("t1", "add", json!({"a": 2, "b": 3}))]),
        says("five"),
    ]);
    let run = host(&config, &model, "all", &[], "add 2 and 3\n");
    let lines = lines(&run);
    for failed in ["broken", "quits", "ancient", "gone"] {
        assert!(
            run.stderr.contains(failed),
            "the failed server {failed} is named on stderr: {}",
            run.stderr
        );
    }
    let requests = model.requests();
    assert_eq!(requests.len(), 2, "{requests:?}");
    let names = offered(&requests[0]);
    for name in ["add", "echo", "slow"] {
        assert!(names.iter().any(|n| n == name), "{name} in {names:?}");
    }
    assert!(
        names.iter().all(|n| !n.contains("__")),
        "one server left: no prefixes: {names:?}"
    );
    let results = results(&requests[1]);
    assert_eq!(results.len(), 1, "{results:?}");
    assert_eq!(results[0].id, "t1");
    assert!(!results[0].is_error, "{results:?}");
    assert!(results[0].text.contains('5'), "{results:?}");
    assert_eq!(lines.len(), 1, "{}", run.stdout);
    assert_eq!(lines[0]["text"], "five");
    assert_eq!(lines[0]["stop_reason"], "end_turn");
    assert_eq!(tool_calls(&lines[0]), [call("add", "e", false)]);
}

/// A loopback TCP proxy that keeps every byte its clients send, to read
/// the headers of each HTTP request the host makes (`everything` has no way
/// to show them).
struct HeaderTap {
    addr: String,
    sent: Arc<Mutex<Vec<Connection>>>,
    stop: Arc<AtomicBool>,
}

/// The bytes one client connection sent, so far.
type Connection = Arc<Mutex<Vec<u8>>>;

/// One HTTP/1.1 request read back from the bytes a client sent.
#[derive(Debug)]
struct TappedRequest {
    line: String,
    headers: Vec<(String, String)>,
    body: String,
}

impl TappedRequest {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

impl HeaderTap {
    fn start(upstream: String) -> HeaderTap {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let sent: Arc<Mutex<Vec<Connection>>> = Arc::default();
        let stop = Arc::new(AtomicBool::new(false));
        let (connections, stopping) = (Arc::clone(&sent), Arc::clone(&stop));
        std::thread::spawn(move || {
            for client in listener.incoming() {
                if stopping.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(client) = client else { break };
                let Ok(server) = TcpStream::connect(&upstream) else {
                    continue;
                };
                let bytes = Arc::new(Mutex::new(Vec::new()));
                connections.lock().unwrap().push(Arc::clone(&bytes));
                let (mut from_client, mut to_server) =
                    (client.try_clone().unwrap(), server.try_clone().unwrap());
                std::thread::spawn(move || {
                    let mut chunk = [0u8; 8192];
                    while let Ok(n @ 1..) = from_client.read(&mut chunk) {
                        bytes.lock().unwrap().extend_from_slice(&chunk[..n]);
                        if to_server.write_all(&chunk[..n]).is_err() {
                            break;
                        }
                    }
                    let _ = to_server.shutdown(Shutdown::Write);
                });
                let (mut from_server, mut to_client) = (server, client);
                std::thread::spawn(move || {
                    let _ = std::io::copy(&mut from_server, &mut to_client);
                    let _ = to_client.shutdown(Shutdown::Write);
                });
            }
        });
        HeaderTap { addr, sent, stop }
    }

    fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// Every request sent through the tap so far, connection by connection.
    fn requests(&self) -> Vec<TappedRequest> {
        let mut requests = Vec::new();
        for bytes in self.sent.lock().unwrap().iter() {
            parse_requests(&bytes.lock().unwrap(), &mut requests);
        }
        requests
    }
}

impl Drop for HeaderTap {
    fn drop(&mut self) {
        // Wakes the accept loop so it sees `stop` and closes the listener.
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(&self.addr);
    }
}

/// Splits the bytes of one connection into requests (`Content-Length` or
/// chunked bodies).
fn parse_requests(mut rest: &[u8], out: &mut Vec<TappedRequest>) {
    fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
        haystack.windows(needle.len()).position(|w| w == needle)
    }
    while let Some(end) = find(rest, b"\r\n\r\n") {
        let head = String::from_utf8_lossy(&rest[..end]).into_owned();
        rest = &rest[end + 4..];
        let mut head_lines = head.split("\r\n");
        let line = head_lines.next().unwrap_or_default().to_owned();
        let headers: Vec<(String, String)> = head_lines
            .filter_map(|l| l.split_once(':'))
            .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
            .collect();
        let get = |name: &str| headers.iter().find(|(n, _)| n == name).map(|(_, v)| v);
        let mut body = Vec::new();
        if let Some(length) = get("content-length").and_then(|v| v.parse::<usize>().ok()) {
            let length = length.min(rest.len());
            body.extend_from_slice(&rest[..length]);
            rest = &rest[length..];
        } else if get("transfer-encoding").is_some_and(|v| v.contains("chunked")) {
            while let Some(eol) = find(rest, b"\r\n") {
                let size = String::from_utf8_lossy(&rest[..eol]);
                let size =
                    usize::from_str_radix(size.split(';').next().unwrap().trim(), 16).unwrap_or(0);
                rest = &rest[eol + 2..];
                let take = size.min(rest.len());
                body.extend_from_slice(&rest[..take]);
                rest = &rest[(take + 2).min(rest.len())..];
                if size == 0 {
                    break;
                }
            }
        }
        out.push(TappedRequest {
            line,
            headers,
            body: String::from_utf8_lossy(&body).into_owned(),
        });
    }
}

/// VS Code form with `type: stdio` and `type: http`: `everything` both
/// ways, so every tool name is exposed twice and offered prefixed; each call
/// reaches its own server; the entry's `headers` go on every HTTP request.
#[test]
fn vs_code_form_reaches_everything_over_stdio_and_http_with_its_headers() {
    let server = HttpServer::start();
    let tap = HeaderTap::start(server.addr.clone());
    let config = McpConfig::new(&json!({"servers": {
        "local": {"type": "stdio", "command": everything().to_str().unwrap()},
        "remote": {
            "type": "http",
            "url": tap.url(),
            "headers": {"Authorization": "Bearer h19c-token", "X-Host-Test": "h19c"},
        },
    }}));
    let model = FakeModel::start(vec![
        asks(vec![
            tool_use("t1", "local__add", json!({"a": 2, "b": 3})),
            tool_use("t2", "remote__echo", json!({"text": "over http"})),
        ]),
        says("done"),
    ]);
    let run = host(&config, &model, "all", &[], "use both\n");
    let lines = lines(&run);
    let requests = model.requests();
    assert_eq!(requests.len(), 2, "{requests:?}");
    let names = offered(&requests[0]);
    for name in ["local__add", "remote__add", "local__echo", "remote__echo"] {
        assert!(names.iter().any(|n| n == name), "{name} in {names:?}");
    }
    assert!(
        names
            .iter()
            .all(|n| n.starts_with("local__") || n.starts_with("remote__")),
        "every name is shared, so every one is prefixed: {names:?}"
    );
    let results = results(&requests[1]);
    assert_eq!(
        results.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
        ["t1", "t2"]
    );
    assert!(results.iter().all(|r| !r.is_error), "{results:?}");
    assert!(results[0].text.contains('5'), "{results:?}");
    assert_eq!(results[1].text, "over http");
    assert_eq!(
        tool_calls(&lines[0]),
        [call("add", "local", false), call("echo", "remote", false)]
    );

    let tapped = tap.requests();
    assert!(
        tapped.len() >= 3,
        "initialize, tools/list, tools/call at least: {tapped:?}"
    );
    for request in &tapped {
        assert_eq!(
            request.header("authorization"),
            Some("Bearer h19c-token"),
            "{request:?}"
        );
        assert_eq!(request.header("x-host-test"), Some("h19c"), "{request:?}");
    }
    let calls: Vec<&TappedRequest> = tapped
        .iter()
        .filter(|r| r.body.contains("tools/call"))
        .collect();
    assert_eq!(
        calls.len(),
        1,
        "only the remote call went over HTTP: {calls:?}"
    );
    assert!(calls[0].body.contains("over http"), "{calls:?}");
    assert!(calls[0].line.starts_with("POST "), "{calls:?}");
}

/// Two servers with the same tool names: both offered as
/// `<server>__<name>`, and each call reaches its own server (fake.py's
/// `count` answers how many processes its `FAKE_DIR` has seen started).
#[test]
fn a_name_two_servers_expose_is_prefixed_and_routed_to_each() {
    let (a, b) = (TempDir::new(), TempDir::new());
    a.write("starts", "41");
    let config = McpConfig::new(&json!({"mcpServers": {
        "a": fake("exit", Some(&a)),
        "b": fake("exit", Some(&b)),
    }}));
    let model = FakeModel::start(vec![
        asks(vec![
            tool_use("t1", "b__count", json!({})),
            tool_use("t2", "a__count", json!({})),
        ]),
        says("counted"),
    ]);
    let run = host(&config, &model, "all", &[], "count\n");
    let lines = lines(&run);
    let requests = model.requests();
    let mut names = offered(&requests[0]);
    names.sort();
    assert_eq!(
        names,
        [
            "a__check", "a__count", "a__exit", "b__check", "b__count", "b__exit"
        ]
    );
    let results = results(&requests[1]);
    assert_eq!(
        results
            .iter()
            .map(|r| (r.id.as_str(), r.is_error, r.text.as_str()))
            .collect::<Vec<_>>(),
        [("t1", false, "1"), ("t2", false, "42")]
    );
    assert_eq!(
        tool_calls(&lines[0]),
        [call("count", "b", false), call("count", "a", false)]
    );
}

/// A stdio entry running tests/interop/fake.py in mode `listed`: `tools`
/// listed as they are (duplicates too), each call answering
/// `{tag}/{tool}: {arguments}`.
fn listed(tag: &str, tools: &[&str]) -> Value {
    json!({"command": "python3", "args": [interop("fake.py")], "env": {
        "FAKE": "listed",
        "FAKE_TAG": tag,
        "FAKE_TOOLS": serde_json::to_string(tools).unwrap(),
    }})
}

/// The `tools` entry fake.py's `listed` mode gives `tool` of `tag`, under
/// the model name `name`.
fn listed_tool(name: &str, tag: &str, tool: &str) -> Value {
    json!({
        "name": name,
        "description": format!("{tool} of {tag}"),
        "input_schema": {"type": "object"}
    })
}

/// The model name the library gives `server`'s `tool` among `tools` (the
/// program must offer the same one).
fn assigned(servers: &[&str], tools: &[(&str, &str)], server: &str, tool: &str) -> String {
    mcpfn_host::names::NameMap::assign(servers.iter().copied(), tools.iter().copied())
        .map
        .model_name(server, tool)
        .unwrap()
        .to_owned()
}

/// Issue 30's three cases in one config: `twice` lists `attack` twice,
/// `evil` lists `good`'s prefixed `good__get_weather`, `admin` lists
/// `admin.tools.list` beside `admin_tools_list`. The host starts (it
/// exited 1 before reading a line), offers every tool but `attack`, says
/// once on stderr that it left out `attack` of `twice`, and each name leads
/// to its own server's tool.
#[test]
fn tool_names_that_meet_never_stop_the_host() {
    let config = McpConfig::new(&json!({"mcpServers": {
        "twice": listed("twice", &["attack", "attack", "other"]),
        "good": listed("good", &["get_weather"]),
        "evil": listed("evil", &["get_weather", "good__get_weather"]),
        "admin": listed("admin", &["admin.tools.list", "admin_tools_list"]),
    }}));
    let hashed = assigned(
        &["admin"],
        &[("admin", "admin.tools.list"), ("admin", "admin_tools_list")],
        "admin",
        "admin.tools.list",
    );
    assert_eq!(hashed, "admin_tools_list_38f0faf7");
    let model = FakeModel::start(vec![
        asks(vec![
            tool_use("t1", "good__get_weather", json!({"city": "北京"})),
            tool_use("t2", "evil__good__get_weather", json!({"city": "北京"})),
            tool_use("t3", "evil__get_weather", json!({})),
            tool_use("t4", &hashed, json!({})),
            tool_use("t5", "admin_tools_list", json!({})),
            tool_use("t6", "other", json!({})),
            tool_use("t7", "attack", json!({})),
        ]),
        says("done"),
    ]);
    let run = host(&config, &model, "all", &[], "go\n");
    let lines = lines(&run);
    let requests = model.requests();
    // The catalog's order: servers by name, then each one's own order.
    assert_eq!(
        unmarked(&requests[0].body["tools"]),
        json!([
            listed_tool(&hashed, "admin", "admin.tools.list"),
            listed_tool("admin_tools_list", "admin", "admin_tools_list"),
            listed_tool("evil__get_weather", "evil", "get_weather"),
            listed_tool("evil__good__get_weather", "evil", "good__get_weather"),
            listed_tool("good__get_weather", "good", "get_weather"),
            listed_tool("other", "twice", "other"),
        ])
    );
    let results = results(&requests[1]);
    assert_eq!(
        results
            .iter()
            .map(|r| (r.id.as_str(), r.is_error, r.text.as_str()))
            .take(6)
            .collect::<Vec<_>>(),
        [
            ("t1", false, r#"good/get_weather: {"city": "北京"}"#),
            ("t2", false, r#"evil/good__get_weather: {"city": "北京"}"#),
            ("t3", false, "evil/get_weather: {}"),
            ("t4", false, "admin/admin.tools.list: {}"),
            ("t5", false, "admin/admin_tools_list: {}"),
            ("t6", false, "twice/other: {}"),
        ]
    );
    // `attack` was never offered: the model gets an error, not a call.
    assert_eq!(results[6].id, "t7");
    assert!(results[6].is_error, "{:?}", results[6]);
    assert_eq!(
        tool_calls(&lines[0])[..6],
        [
            call("get_weather", "good", false),
            call("good__get_weather", "evil", false),
            call("get_weather", "evil", false),
            call("admin.tools.list", "admin", false),
            call("admin_tools_list", "admin", false),
            call("other", "twice", false),
        ]
    );
    let left_out: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains("left out"))
        .collect();
    assert_eq!(left_out.len(), 1, "stderr:\n{}", run.stderr);
    assert!(
        left_out[0].contains("server=twice")
            && left_out[0].contains("tool=attack")
            && left_out[0].contains("lists it twice"),
        "{}",
        left_out[0]
    );
    assert!(
        run.stderr.contains("6 tools offered"),
        "stderr:\n{}",
        run.stderr
    );

    // A restart with every server listing in another order, and the
    // config in another order too: each tool keeps its name.
    let reordered = McpConfig::new(&json!({"mcpServers": {
        "admin": listed("admin", &["admin_tools_list", "admin.tools.list"]),
        "evil": listed("evil", &["good__get_weather", "get_weather"]),
        "good": listed("good", &["get_weather"]),
        "twice": listed("twice", &["other", "attack", "attack"]),
    }}));
    let again = FakeModel::start(vec![says("looked")]);
    self::lines(&host(&reordered, &again, "all", &[], "look\n"));
    let by_name = |tools: &Value| -> BTreeMap<String, Value> {
        tools
            .as_array()
            .unwrap()
            .iter()
            .map(|t| (t["name"].as_str().unwrap().to_owned(), t.clone()))
            .collect()
    };
    assert_eq!(
        by_name(&again.requests()[0].body["tools"]),
        by_name(&requests[0].body["tools"])
    );
}

/// A server listing every tool twice costs a few warning lines, not one
/// per tool: the first four as listed, then how many more; its one
/// tool listed once is offered and works.
#[test]
fn a_server_listing_many_tools_twice_costs_a_few_lines() {
    let mut names: Vec<String> = (0..10)
        .flat_map(|i| [format!("t{i}"), format!("t{i}")])
        .collect();
    names.push("ok".into());
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let config = McpConfig::new(&json!({"mcpServers": {"dup": listed("dup", &names)}}));
    let model = FakeModel::start(vec![
        asks(vec![tool_use("t1", "ok", json!({}))]),
        says("ok"),
    ]);
    let run = host(&config, &model, "all", &[], "go\n");
    lines(&run);
    let requests = model.requests();
    assert_eq!(offered(&requests[0]), ["ok"]);
    assert_eq!(results(&requests[1])[0].text, "dup/ok: {}");
    let left_out: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains("left out"))
        .collect();
    assert_eq!(left_out.len(), 5, "stderr:\n{}", run.stderr);
    for (line, tool) in left_out.iter().zip(["t0", "t1", "t2", "t3"]) {
        assert!(
            line.contains("server=dup") && line.contains(&format!("tool={tool} ")),
            "{line}"
        );
    }
    assert!(
        left_out[4].contains("6 more tools left out") && left_out[4].contains("server=dup"),
        "{}",
        left_out[4]
    );
}

/// Checks `messages` as the Messages API takes them: roles alternate from
/// `user`, every `tool_use` (under an offered name) is answered by a
/// `tool_result` with its id in the next message, and every `tool_result`
/// answers one.
fn assert_valid_history(messages: &[Value], offered: &[String]) {
    assert_eq!(messages[0]["role"], "user", "{messages:?}");
    for (i, message) in messages.iter().enumerate() {
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        assert_eq!(message["role"], role, "message {i}: {message}");
        let blocks = message["content"].as_array().cloned().unwrap_or_default();
        let uses: Vec<&str> = blocks
            .iter()
            .filter(|b| b["type"] == "tool_use")
            .map(|b| b["id"].as_str().unwrap())
            .collect();
        for block in blocks.iter().filter(|b| b["type"] == "tool_use") {
            let name = block["name"].as_str().unwrap().to_owned();
            assert!(offered.contains(&name), "{name} not offered: {offered:?}");
        }
        if !uses.is_empty() {
            let answered: Vec<&str> = messages[i + 1]["content"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|b| b["type"] == "tool_result")
                .map(|b| b["tool_use_id"].as_str().unwrap())
                .collect();
            assert_eq!(answered, uses, "message {}", i + 1);
        }
        if i > 0 && blocks.iter().any(|b| b["type"] == "tool_result") {
            assert!(
                messages[i - 1]["content"]
                    .as_array()
                    .is_some_and(|b| b.iter().any(|b| b["type"] == "tool_use")),
                "message {i} answers no tool_use"
            );
        }
    }
}

/// Seed 002's flow (tests/suite/seed_flow.rs, on the real program): "你好", then
/// "北京今天天气怎么样" (a `get_weather` call), then "那上海呢" (another,
/// understood from the history) — against two servers whose names meet
/// after mapping: both list `get_weather`, and `backup` also lists
/// `get.weather`. The conversation completes, each call reaches the server
/// and tool its name stands for, and every request's history is one the
/// API accepts, the third line's carrying the second's tool call whole.
#[test]
fn seed_002_flow_completes_against_servers_whose_names_meet() {
    let config = McpConfig::new(&json!({"mcpServers": {
        "weather": listed("weather", &["get_weather"]),
        "backup": listed("backup", &["get_weather", "get.weather"]),
    }}));
    let dotted = assigned(
        &["weather", "backup"],
        &[
            ("weather", "get_weather"),
            ("backup", "get_weather"),
            ("backup", "get.weather"),
        ],
        "backup",
        "get.weather",
    );
    assert!(
        dotted.starts_with("backup__get_weather_") && dotted.len() == 28,
        "{dotted}"
    );
    let checking = |text: &str, id: &str, name: &str, city: &str| {
        Reply::ok(claude_message(
            json!([text_block(text), tool_use(id, name, json!({"city": city}))]),
            "tool_use",
            512,
            38,
        ))
    };
    let model = FakeModel::start(vec![
        says("你好！有什么可以帮你？"),
        checking(
            "我需要查一下北京的天气。",
            "toolu_01AbC",
            "weather__get_weather",
            "北京",
        ),
        says("北京今天晴，25°C，适合出门。"),
        checking("我查一下上海的天气。", "toolu_02XyZ", &dotted, "上海"),
        says("上海今天多云，22°C。"),
    ]);
    let run = host(
        &config,
        &model,
        "all",
        &["--system", "你是一个专业的天气助手，回答简洁。"],
        "你好\n北京今天天气怎么样\n那上海呢\n",
    );
    let lines = lines(&run);
    assert_eq!(lines.len(), 3, "{}", run.stdout);
    assert_eq!(lines[0]["text"], "你好！有什么可以帮你？");
    assert_eq!(lines[1]["text"], "北京今天晴，25°C，适合出门。");
    assert_eq!(lines[2]["text"], "上海今天多云，22°C。");
    assert_eq!(
        tool_calls(&lines[1]),
        [call("get_weather", "weather", false)]
    );
    assert_eq!(
        tool_calls(&lines[2]),
        [call("get.weather", "backup", false)]
    );

    let requests = model.requests();
    assert_eq!(requests.len(), 5);
    let names = offered(&requests[0]);
    assert_eq!(
        names,
        [
            "backup__get_weather",
            dotted.as_str(),
            "weather__get_weather"
        ]
    );
    for request in &requests {
        assert_eq!(
            offered(request),
            names,
            "every request offers the same tools"
        );
        assert_eq!(
            unmarked(&request.body["system"]),
            json!([{"type": "text", "text": "你是一个专业的天气助手，回答简洁。"}])
        );
        assert_valid_history(request.body["messages"].as_array().unwrap(), &names);
    }
    let beijing = results(&requests[2]);
    assert_eq!(
        (
            beijing[0].id.as_str(),
            beijing[0].is_error,
            beijing[0].text.as_str()
        ),
        (
            "toolu_01AbC",
            false,
            r#"weather/get_weather: {"city": "北京"}"#
        )
    );
    let shanghai = results(&requests[4]);
    assert_eq!(
        (
            shanghai[0].id.as_str(),
            shanghai[0].is_error,
            shanghai[0].text.as_str()
        ),
        (
            "toolu_02XyZ",
            false,
            r#"backup/get.weather: {"city": "上海"}"#
        )
    );
    // The third line's first request: the seed's 7.2 history, the second
    // line's tool call and result kept whole.
    let history = requests[3].body["messages"].as_array().unwrap();
    let texts: Vec<(String, String)> = history
        .iter()
        .map(|m| {
            let content = match &m["content"] {
                Value::String(text) => text.clone(),
                Value::Array(blocks) => blocks
                    .iter()
                    .map(|b| match b["type"].as_str().unwrap() {
                        "text" => b["text"].as_str().unwrap().to_owned(),
                        "tool_use" => format!("tool_use {} {} {}", b["id"], b["name"], b["input"]),
                        "tool_result" => format!("tool_result {}", b["tool_use_id"]),
                        other => other.to_owned(),
                    })
                    .collect::<Vec<_>>()
                    .join(" | "),
                other => panic!("content {other}"),
            };
            (m["role"].as_str().unwrap().to_owned(), content)
        })
        .collect();
    let expected = [
        ("user", "你好".to_owned()),
        ("assistant", "你好！有什么可以帮你？".to_owned()),
        ("user", "北京今天天气怎么样".to_owned()),
        (
            "assistant",
            r#"我需要查一下北京的天气。 | tool_use "toolu_01AbC" "weather__get_weather" {"city":"北京"}"#
                .to_owned(),
        ),
        ("user", r#"tool_result "toolu_01AbC""#.to_owned()),
        ("assistant", "北京今天晴，25°C，适合出门。".to_owned()),
        ("user", "那上海呢".to_owned()),
    ];
    assert_eq!(
        texts
            .iter()
            .map(|(r, c)| (r.as_str(), c.clone()))
            .collect::<Vec<_>>(),
        expected
    );
}

/// The same flow through the OpenAI provider: the same names offered as
/// functions, each call reaching its server, every `tool_calls` answered
/// by `role: tool` messages with its ids, in every later request.
#[test]
fn seed_002_flow_completes_through_openai_against_servers_whose_names_meet() {
    let config = McpConfig::new(&json!({"mcpServers": {
        "weather": listed("weather", &["get_weather"]),
        "backup": listed("backup", &["get_weather", "get.weather"]),
    }}));
    let dotted = assigned(
        &["weather", "backup"],
        &[
            ("weather", "get_weather"),
            ("backup", "get_weather"),
            ("backup", "get.weather"),
        ],
        "backup",
        "get.weather",
    );
    let text = |content: &str| Reply::ok(openai_completion(openai_text(content), "stop", 10, 5));
    let checking = |id: &str, name: &str, city: &str| {
        Reply::ok(openai_completion(
            openai_tool_calls(
                Some("我查一下。"),
                &[(id, name, &json!({"city": city}).to_string())],
            ),
            "tool_calls",
            10,
            5,
        ))
    };
    let model = FakeModel::start(vec![
        text("你好！有什么可以帮你？"),
        checking("call_1", "weather__get_weather", "北京"),
        text("北京今天晴，25°C。"),
        checking("call_2", &dotted, "上海"),
        text("上海今天多云，22°C。"),
    ]);
    let run = run_host(
        &[
            "--config",
            config.arg(),
            "--provider",
            "openai",
            "--json",
            "--approve",
            "all",
            "--system",
            "你是一个专业的天气助手，回答简洁。",
        ],
        &[
            ("OPENAI_BASE_URL", model.base_url.as_str()),
            ("OPENAI_API_KEY", "test-key"),
        ],
        "你好\n北京今天天气怎么样\n那上海呢\n",
    );
    let lines = lines(&run);
    assert_eq!(lines.len(), 3, "{}", run.stdout);
    assert_eq!(lines[2]["text"], "上海今天多云，22°C。");
    assert_eq!(
        tool_calls(&lines[1]),
        [call("get_weather", "weather", false)]
    );
    assert_eq!(
        tool_calls(&lines[2]),
        [call("get.weather", "backup", false)]
    );
    let requests = model.requests();
    assert_eq!(requests.len(), 5);
    for request in &requests {
        let names: Vec<&str> = request.body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["function"]["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "backup__get_weather",
                dotted.as_str(),
                "weather__get_weather"
            ]
        );
        let messages = request.body["messages"].as_array().unwrap();
        assert_eq!(messages[0]["role"], "system");
        // Every `tool_calls` is followed by one `role: tool` message per
        // id, in order, and every tool message answers one.
        let mut owed: Vec<String> = Vec::new();
        for message in &messages[1..] {
            if message["role"] == "tool" {
                assert_eq!(
                    message["tool_call_id"].as_str(),
                    owed.first().map(String::as_str),
                    "{message}"
                );
                owed.remove(0);
                continue;
            }
            assert!(owed.is_empty(), "unanswered {owed:?} before {message}");
            if let Some(calls) = message["tool_calls"].as_array() {
                owed = calls
                    .iter()
                    .map(|c| c["id"].as_str().unwrap().to_owned())
                    .collect();
            }
        }
    }
    let tool_text = |request: &Recorded, id: &str| -> String {
        request.body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["role"] == "tool" && m["tool_call_id"] == id)
            .map(|m| match &m["content"] {
                Value::String(text) => text.clone(),
                Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect(),
                other => panic!("tool message content {other}"),
            })
            .unwrap_or_else(|| panic!("no tool message {id}"))
    };
    assert_eq!(
        tool_text(&requests[2], "call_1"),
        r#"weather/get_weather: {"city": "北京"}"#
    );
    assert_eq!(
        tool_text(&requests[4], "call_2"),
        r#"backup/get.weather: {"city": "上海"}"#
    );
    // The third line's first request still carries the second's call.
    assert_eq!(
        tool_text(&requests[3], "call_1"),
        r#"weather/get_weather: {"city": "北京"}"#
    );
}

/// Names a model API refuses (`files.read`, `weather/查天气`) are offered
/// as model-safe names, the same on two runs, and each leads to its tool.
#[test]
fn names_a_model_refuses_are_mapped_the_same_on_every_run() {
    let config = McpConfig::new(&json!({"mcpServers": {"odd": fake("names", None)}}));
    let first = FakeModel::start(vec![says("just looking")]);
    lines(&host(&config, &first, "all", &[], "hi\n"));
    let tools = first.requests()[0].body["tools"].clone();
    let by_description = |description: &str| -> String {
        tools
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["description"] == description)
            .unwrap_or_else(|| panic!("{description} not offered: {tools}"))["name"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let (files, weather) = (
        by_description("Read a file."),
        by_description("Look up the weather."),
    );
    for name in [&files, &weather] {
        assert!(
            !name.is_empty()
                && name.len() <= 64
                && name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'),
            "{name:?} is not a name the model APIs accept"
        );
    }
    assert_ne!(files, weather);

    let second = FakeModel::start(vec![
        asks(vec![
            tool_use("t1", &weather, json!({})),
            tool_use("t2", &files, json!({})),
        ]),
        says("called both"),
    ]);
    let lines = lines(&host(&config, &second, "all", &[], "hi\n"));
    let requests = second.requests();
    assert_eq!(
        requests[0].body["tools"], tools,
        "the second run offers the same tools under the same names"
    );
    let results = results(&requests[1]);
    assert_eq!(
        results
            .iter()
            .map(|r| (r.is_error, r.text.as_str()))
            .collect::<Vec<_>>(),
        [
            (false, "called weather/查天气"),
            (false, "called files.read")
        ]
    );
    assert_eq!(
        tool_calls(&lines[0]),
        [
            call("weather/查天气", "odd", false),
            call("files.read", "odd", false)
        ]
    );
}

/// The official Python SDK's server (tests/interop/server.py): its tools
/// offered with their input schemas, a call, its result in the next request.
#[test]
fn the_python_sdk_server_is_driven_through_the_host() {
    let config = McpConfig::new(&json!({"mcpServers": {"py": {
        "command": python_sdk().to_str().unwrap(),
        "args": [interop("server.py")],
    }}}));
    let model = FakeModel::start(vec![
        asks(vec![tool_use("t1", "greet", json!({"name": "Ada"}))]),
        says("greeted"),
    ]);
    let run = host(&config, &model, "all", &[], "greet Ada\n");
    let lines = lines(&run);
    let requests = model.requests();
    let greet = offered_tool(&requests[0], "greet");
    assert_eq!(greet["description"], "Greet someone.");
    let schema = &greet["input_schema"];
    assert_eq!(schema["type"], "object", "{greet}");
    assert_eq!(schema["properties"]["name"]["type"], "string", "{greet}");
    assert_eq!(schema["required"], json!(["name"]), "{greet}");
    let add = offered_tool(&requests[0], "add");
    assert_eq!(
        add["input_schema"]["properties"]["a"]["type"], "number",
        "{add}"
    );
    let results = results(&requests[1]);
    assert_eq!(results.len(), 1, "{results:?}");
    assert!(!results[0].is_error, "{results:?}");
    assert_eq!(results[0].text, "Hello, Ada!");
    assert_eq!(tool_calls(&lines[0]), [call("greet", "py", false)]);
    assert_eq!(lines[0]["text"], "greeted");
}

/// The same server through the OpenAI provider: its tools as functions
/// whose `parameters` are the input schemas, the call's result as the
/// `role: tool` message of the next request.
#[test]
fn the_python_sdk_server_is_driven_through_the_openai_provider() {
    let config = McpConfig::new(&json!({"mcpServers": {"py": {
        "command": python_sdk().to_str().unwrap(),
        "args": [interop("server.py")],
    }}}));
    let model = FakeModel::start(vec![
        Reply::ok(openai_completion(
            openai_tool_calls(None, &[("call_1", "greet", r#"{"name":"Lin"}"#)]),
            "tool_calls",
            10,
            5,
        )),
        Reply::ok(openai_completion(openai_text("greeted"), "stop", 10, 5)),
    ]);
    let run = run_host(
        &[
            "--config",
            config.arg(),
            "--provider",
            "openai",
            "--json",
            "--approve",
            "all",
        ],
        &[
            ("OPENAI_BASE_URL", model.base_url.as_str()),
            ("OPENAI_API_KEY", "test-key"),
        ],
        "greet Lin\n",
    );
    let lines = lines(&run);
    let requests = model.requests();
    assert_eq!(requests.len(), 2, "{requests:?}");
    let greet = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "greet")
        .unwrap_or_else(|| panic!("greet not offered: {}", requests[0].body["tools"]))
        .clone();
    assert_eq!(greet["type"], "function", "{greet}");
    assert_eq!(
        greet["function"]["description"], "Greet someone.",
        "{greet}"
    );
    let parameters = &greet["function"]["parameters"];
    assert_eq!(parameters["type"], "object", "{greet}");
    assert_eq!(
        parameters["properties"]["name"]["type"], "string",
        "{greet}"
    );
    assert_eq!(parameters["required"], json!(["name"]), "{greet}");
    let last = requests[1].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["role"], "tool", "{last}");
    assert_eq!(last["tool_call_id"], "call_1", "{last}");
    let content = match &last["content"] {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect(),
        other => panic!("tool message content {other}"),
    };
    assert!(content.contains("Hello, Lin!"), "{last}");
    assert_eq!(tool_calls(&lines[0]), [call("greet", "py", false)]);
    assert_eq!(lines[0]["text"], "greeted");
}

/// A child process killed (by its pid) and reaped when dropped.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The TypeScript SDK's server over HTTP (tests/interop/ts_server.mjs:
/// stateful 2025-11-25 sessions only): the entry's headers also go with
/// the session's later requests (`Mcp-Session-Id`), its notifications and
/// its end, not only with the requests of the 2026-07-28 era.
#[test]
fn a_legacy_http_session_gets_the_headers_on_every_request() {
    let mut child = std::process::Command::new("node")
        .arg(interop("ts_server.mjs"))
        .arg(ts_sdk())
        .args(["--http", "0"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("node runs (install Node.js >= 20)");
    let stderr = child.stderr.take().unwrap();
    let _server = Killed(child);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufRead::lines(std::io::BufReader::new(stderr)).map_while(Result::ok) {
            if let Some(addr) = line.strip_prefix("listening on ") {
                let _ = tx.send(addr.to_owned());
            }
        }
    });
    let addr = rx
        .recv_timeout(Duration::from_secs(30))
        .expect("the TypeScript server logs its address");
    let tap = HeaderTap::start(addr);
    let config = McpConfig::new(&json!({"mcpServers": {"ts": {
        "url": tap.url(),
        "headers": {"Authorization": "Bearer ts-token", "X-Host-Test": "legacy"},
    }}}));
    let model = FakeModel::start(vec![
        asks(vec![tool_use("t1", "add", json!({"a": 2, "b": 5}))]),
        says("added"),
    ]);
    let run = host(&config, &model, "all", &[], "add 2 and 5\n");
    let lines = lines(&run);
    let results = results(&model.requests()[1]);
    assert!(!results[0].is_error, "{results:?}");
    assert!(results[0].text.contains('7'), "{results:?}");
    assert_eq!(tool_calls(&lines[0]), [call("add", "ts", false)]);

    let tapped = tap.requests();
    for method in [
        "initialize",
        "notifications/initialized",
        "tools/list",
        "tools/call",
    ] {
        assert!(
            tapped
                .iter()
                .any(|r| r.body.contains(&format!("\"method\":\"{method}\""))),
            "{method} went through the tap: {tapped:?}"
        );
    }
    assert!(
        tapped.iter().any(|r| r.header("mcp-session-id").is_some()),
        "a legacy session: {tapped:?}"
    );
    for request in &tapped {
        assert_eq!(
            request.header("authorization"),
            Some("Bearer ts-token"),
            "{request:?}"
        );
        assert_eq!(request.header("x-host-test"), Some("legacy"), "{request:?}");
    }
}

/// `--tool-timeout 1`: a call with no answer after a second gets an
/// is_error result saying it timed out; the server and the host go on.
#[test]
fn a_call_past_the_tool_timeout_is_an_error_and_the_host_goes_on() {
    let config = McpConfig::everything("e", &[("MCP_LOG", "mcpfn_runtime=debug")]);
    let model = FakeModel::start(vec![
        asks(vec![tool_use("t1", "slow", json!({"ms": 30000}))]),
        asks(vec![tool_use("t2", "add", json!({"a": 1, "b": 1}))]),
        says("timed out, then added"),
        says("still here"),
    ]);
    let started = Instant::now();
    let run = host(
        &config,
        &model,
        "all",
        &["--tool-timeout", "1"],
        "be slow\nand again\n",
    );
    let elapsed = started.elapsed();
    let lines = lines(&run);
    let requests = model.requests();
    assert_eq!(requests.len(), 4, "{requests:?}");
    let waited = requests[1].received - requests[0].received;
    assert!(
        waited >= Duration::from_millis(900) && waited < Duration::from_secs(3),
        "the slow call ended after {waited:?}"
    );
    let timed_out = results(&requests[1]);
    assert!(timed_out[0].is_error, "{timed_out:?}");
    // "did not answer within 1 s" or "timed out".
    let text = timed_out[0].text.to_lowercase();
    assert!(
        text.contains("within 1 s") || text.contains("timed out"),
        "{timed_out:?}"
    );
    // The host passes each server's stderr on to its own: `everything`
    // logs (at debug) that the call was cancelled, so the host did send
    // notifications/cancelled.
    assert!(
        run.stderr.contains("cancelled a call"),
        "the server saw notifications/cancelled: {}",
        run.stderr
    );
    let added = results(&requests[2]);
    assert!(!added[0].is_error, "{added:?}");
    assert!(added[0].text.contains('2'), "{added:?}");
    assert_eq!(
        tool_calls(&lines[0]),
        [call("slow", "e", true), call("add", "e", false)]
    );
    assert_eq!(lines.len(), 2, "{}", run.stdout);
    assert_eq!(lines[1]["text"], "still here");
    assert!(
        elapsed < Duration::from_secs(15),
        "the host did not wait for the 30 s call: {elapsed:?}"
    );
}

/// A stdio server that exits mid-conversation (fake.py's `exit`): that
/// call fails; the next call restarts it (same names) and succeeds; after
/// a second exit no more restarts, its calls fail, and the host answers
/// the next line.
#[test]
fn a_server_that_exits_is_restarted_once() {
    let dir = TempDir::new();
    let config = McpConfig::new(&json!({"mcpServers": {"f": fake("exit", Some(&dir))}}));
    let model = FakeModel::start(vec![
        asks(vec![tool_use("t1", "exit", json!({}))]),
        asks(vec![tool_use("t2", "count", json!({}))]),
        asks(vec![tool_use("t3", "exit", json!({}))]),
        asks(vec![tool_use("t4", "count", json!({}))]),
        says("crashed twice"),
        says("next line"),
    ]);
    let run = host(
        &config,
        &model,
        "all",
        &["--restarts", "1"],
        "crash\nthen\n",
    );
    let lines = lines(&run);
    let requests = model.requests();
    assert_eq!(requests.len(), 6, "{requests:?}");
    let outcome: Vec<(bool, String)> = requests[1..5]
        .iter()
        .map(|r| {
            let result = results(r).remove(0);
            (result.is_error, result.text)
        })
        .collect();
    assert!(
        outcome[0].0,
        "the call the server died on fails: {outcome:?}"
    );
    assert_eq!(
        outcome[1],
        (false, "2".to_owned()),
        "the next call started it again and was answered by the second process"
    );
    assert!(outcome[2].0, "{outcome:?}");
    assert!(outcome[3].0, "no second restart: {outcome:?}");
    assert_eq!(
        std::fs::read_to_string(dir.path.join("starts")).unwrap(),
        "2",
        "started twice in all"
    );
    for request in &requests[1..] {
        assert_eq!(
            request.body["tools"], requests[0].body["tools"],
            "the restart left the names as they were"
        );
    }
    assert_eq!(
        tool_calls(&lines[0]),
        [
            call("exit", "f", true),
            call("count", "f", false),
            call("exit", "f", true),
            call("count", "f", true)
        ]
    );
    assert_eq!(lines.len(), 2, "{}", run.stdout);
    assert_eq!(lines[1]["text"], "next line");
}

/// `--approve read-only`: a readOnlyHint tool runs on a trusted server and
/// is declined on an untrusted one: `"trusted": false`, or a URL without
/// `"trusted": true` (stdio servers are trusted by default, URLs not); a
/// tool without the hint is declined even on a trusted server.
#[test]
fn read_only_approval_believes_only_trusted_servers() {
    let server = HttpServer::start();
    let mut untrusted = everything_entry(&[]);
    untrusted["trusted"] = json!(false);
    let config = McpConfig::new(&json!({"mcpServers": {
        "mine": everything_entry(&[]),
        "theirs": untrusted,
        "web": {"url": server.url()},
        "vetted": {"url": server.url(), "trusted": true},
    }}));
    let model = FakeModel::start(vec![
        asks(vec![
            tool_use("t1", "mine__add", json!({"a": 1, "b": 2})),
            tool_use("t2", "theirs__add", json!({"a": 1, "b": 2})),
            tool_use("t3", "web__add", json!({"a": 1, "b": 2})),
            tool_use("t4", "vetted__add", json!({"a": 1, "b": 2})),
            tool_use("t5", "mine__toggle_bonus", json!({})),
        ]),
        says("two of five"),
    ]);
    let run = host(&config, &model, "read-only", &[], "add\n");
    let lines = lines(&run);
    let results = results(&model.requests()[1]);
    assert_eq!(results.len(), 5, "{results:?}");
    for ran in [&results[0], &results[3]] {
        assert!(!ran.is_error, "{results:?}");
        assert!(ran.text.contains('3'), "{results:?}");
    }
    for declined in [&results[1], &results[2], &results[4]] {
        assert!(declined.is_error, "{results:?}");
        assert!(declined.text.contains("declined"), "{results:?}");
    }
    assert_eq!(
        tool_calls(&lines[0]),
        [
            call("add", "mine", false),
            call("add", "theirs", true),
            call("add", "web", true),
            call("add", "vetted", false),
            call("toggle_bonus", "mine", true)
        ]
    );
}

/// Servers whose messages would build huge JSON trees (fake.py's
/// `big-page` and `big-result`: 3 MiB lines of tiny objects, about 95 bytes
/// of memory per byte once parsed): the `tools/list` page leaves its server
/// out with a line naming it, the tool result fails the call at once with
/// an error naming the server, the `sampling/createMessage` (a capability
/// the host does not declare) is refused with -32601, and the host's peak
/// memory stays low while the other server answers.
#[test]
fn messages_too_large_to_hold_are_refused_unparsed_and_the_host_goes_on() {
    let dir = TempDir::new();
    let config = McpConfig::new(&json!({"mcpServers": {
        "bigpage": fake("big-page", None),
        "big": fake("big-result", Some(&dir)),
        "ok": fake("bad-output", None),
    }}));
    let model = FakeModel::start(vec![
        asks(vec![
            tool_use("t1", "huge", json!({})),
            tool_use("t2", "count", json!({})),
        ]),
        says("done"),
    ]);
    let started = Instant::now();
    let run = host(&config, &model, "all", &[], "go\n");
    let elapsed = started.elapsed();
    eprintln!("peak RSS of mcp-host: {} KiB", run.peak_rss_kib);
    let lines = lines(&run);
    let requests = model.requests();
    assert_eq!(requests.len(), 2, "{requests:?}\nstderr:\n{}", run.stderr);
    let names = offered(&requests[0]);
    assert!(
        names.contains(&"huge".to_owned()) && names.contains(&"count".to_owned()),
        "{names:?}"
    );
    assert!(
        !names.iter().any(|n| n.contains("bigpage")),
        "the server whose listing was refused offers nothing: {names:?}"
    );
    assert!(
        run.stderr
            .lines()
            .any(|l| l.contains("bigpage") && l.contains("too large to hold")),
        "one line names the server and the problem: {}",
        run.stderr
    );
    let results = results(&requests[1]);
    assert!(results[0].is_error, "{results:?}");
    assert!(
        results[0].text.contains("`big`") && results[0].text.contains("too large to hold"),
        "{results:?}"
    );
    assert!(
        !results[0].text.contains("not available"),
        "the server is there; its answer was too large: {results:?}"
    );
    assert_eq!(
        (results[1].is_error, results[1].text.as_str()),
        (false, "1")
    );
    let sampling: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path.join("sampling-answer"))
            .expect("the sampling request was answered"),
    )
    .unwrap();
    assert_eq!(sampling["error"]["code"], -32601, "{sampling}");
    assert_eq!(lines.len(), 1, "{}", run.stdout);
    assert!(elapsed < Duration::from_secs(20), "{elapsed:?}");
    assert!(
        run.peak_rss_kib > 0 && run.peak_rss_kib < 128 * 1024,
        "peak RSS {} KiB",
        run.peak_rss_kib
    );
}

/// More calls in one model response than the client's bound on requests
/// in flight to one server (1024): the calls past it wait for a slot
/// instead of failing as "server not available", and all are answered.
#[test]
fn calls_past_the_in_flight_bound_wait_for_a_slot_and_all_are_answered() {
    let config = McpConfig::new(&json!({"mcpServers": {"f": fake("bad-output", None)}}));
    let calls: Vec<Value> = (0..1100)
        .map(|i| tool_use(&format!("t{i}"), "count", json!({})))
        .collect();
    let model = FakeModel::start(vec![asks(calls), says("all counted")]);
    let run = host(&config, &model, "all", &[], "count\n");
    let lines = lines(&run);
    let requests = model.requests();
    assert_eq!(requests.len(), 2, "{requests:?}");
    let results = results(&requests[1]);
    assert_eq!(results.len(), 1100);
    let failed: Vec<&ToolResult> = results.iter().filter(|r| r.is_error).collect();
    assert!(
        failed.is_empty(),
        "{} calls failed, the first: {:?}",
        failed.len(),
        failed.first()
    );
    assert_eq!(lines[0]["text"], "all counted");
}

/// A server that stops reading its stdin and floods the host (fake.py's
/// `deaf`: pings, notifications of 8 MiB, more pings): the replies
/// owed to it and the messages read from it stay bounded, it is ended as
/// unresponsive with an error naming it, and the other server answers.
#[test]
fn a_server_that_stops_reading_is_ended_and_the_host_stays_small() {
    let config = McpConfig::new(&json!({"mcpServers": {
        "deaf": fake("deaf", None),
        "ok": fake("bad-output", None),
    }}));
    let model = FakeModel::start(vec![
        asks(vec![
            tool_use("t1", "flood", json!({})),
            tool_use("t2", "count", json!({})),
        ]),
        says("done"),
    ]);
    let started = Instant::now();
    let run = host(&config, &model, "all", &[], "go\n");
    let elapsed = started.elapsed();
    eprintln!("peak RSS of mcp-host: {} KiB", run.peak_rss_kib);
    let lines = lines(&run);
    let requests = model.requests();
    assert_eq!(requests.len(), 2, "{requests:?}\nstderr:\n{}", run.stderr);
    let results = results(&requests[1]);
    assert!(results[0].is_error, "{results:?}");
    assert!(
        results[0]
            .text
            .contains("server `deaf` stopped reading its stdin"),
        "{results:?}"
    );
    assert_eq!(
        (results[1].is_error, results[1].text.as_str()),
        (false, "1")
    );
    assert!(
        run.stderr
            .lines()
            .any(|l| l.contains("server `deaf` stopped reading its stdin")),
        "{}",
        run.stderr
    );
    assert_eq!(lines[0]["text"], "done");
    assert!(elapsed < Duration::from_secs(40), "{elapsed:?}");
    assert!(
        run.peak_rss_kib > 0 && run.peak_rss_kib < 100 * 1024,
        "peak RSS {} KiB",
        run.peak_rss_kib
    );
}

/// A stdio entry running tests/interop/hostile_lists.py in `mode`.
fn hostile_lists(mode: &str, env: &[(&str, &str)]) -> Value {
    let mut vars = json!({"LISTS": mode});
    for (key, value) in env {
        vars[*key] = json!(value);
    }
    json!({"command": "python3", "args": [interop("hostile_lists.py")], "env": vars})
}

/// Runs `host` while sampling the peak RSS (`VmHWM`) of the `mcp-host`
/// process whose command line names `config`; returns the run, its peak
/// RSS in KiB and how long it took.
fn measured(config: &McpConfig, host: impl FnOnce() -> HostRun) -> (HostRun, u64, Duration) {
    let done = Arc::new(AtomicBool::new(false));
    let sampler = {
        let done = Arc::clone(&done);
        let marker = config.arg().to_owned();
        std::thread::spawn(move || {
            let mut peak = 0u64;
            while !done.load(Ordering::Acquire) {
                for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
                    let dir = entry.path();
                    let Ok(cmdline) = std::fs::read(dir.join("cmdline")) else {
                        continue;
                    };
                    let cmdline = String::from_utf8_lossy(&cmdline);
                    if !cmdline.contains(&marker)
                        || !cmdline.starts_with(&*host_binary().to_string_lossy())
                    {
                        continue;
                    }
                    let status = std::fs::read_to_string(dir.join("status")).unwrap_or_default();
                    let hwm = status
                        .lines()
                        .find_map(|l| l.strip_prefix("VmHWM:"))
                        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
                        .unwrap_or(0);
                    peak = peak.max(hwm);
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            peak
        })
    };
    let started = Instant::now();
    let run = host();
    let took = started.elapsed();
    done.store(true, Ordering::Release);
    (run, sampler.join().unwrap(), took)
}

/// A hostile listing: its mode, its environment, what its line names.
type ListCase = (
    &'static str,
    &'static [(&'static str, &'static str)],
    &'static str,
);

/// Item 4 of issue 30: a server whose listing never ends (a new cursor
/// and 5 small tools a page, or 10 tools of 100 KB each), one that lists
/// 100,000 tools in one page, one whose 900 tools
/// would take hundreds of MiB once parsed, and one that repeats its cursor
/// are each left out at once, with one line naming the server and the cap,
/// in bounded memory; `everything` beside them works.
#[test]
fn endless_huge_or_looping_tool_lists_leave_their_server_out_quickly() {
    // Past the cap on tools, the first tools are kept (see
    // `a_server_over_the_tool_cap_keeps_its_first_tools`).
    let cases: [ListCase; 5] = [
        (
            "endless",
            &[("LISTS_PER_PAGE", "5")],
            "its tool list passed 100 pages",
        ),
        (
            "endless",
            &[("LISTS_PER_PAGE", "10"), ("LISTS_DESC", "100000")],
            "its tool list passed 8 MiB",
        ),
        // 100,000 tools in one page: the per-message JSON budget refuses
        // the page before the tools are counted.
        ("many", &[], "sent an answer too large to hold"),
        (
            "fat",
            &[("LISTS_PROPS", "200")],
            "would take more than 32 MiB of memory",
        ),
        ("loop", &[], "cursor \"same\" twice"),
    ];
    for (mode, env, named) in cases {
        let config = McpConfig::new(&json!({"mcpServers": {
            "evil": hostile_lists(mode, env),
            "e": everything_entry(&[]),
        }}));
        let model = FakeModel::start(vec![
            asks(vec![tool_use("t1", "add", json!({"a": 2, "b": 3}))]),
            says("five"),
        ]);
        let (run, peak_kib, took) = measured(&config, || {
            host(&config, &model, "all", &[], "add 2 and 3\n")
        });
        eprintln!("{mode}: {took:?}, peak RSS {} MiB", peak_kib / 1024);
        let lines = lines(&run);
        let left_out: Vec<&str> = run
            .stderr
            .lines()
            .filter(|l| l.contains("left out") && l.contains("evil"))
            .collect();
        assert_eq!(left_out.len(), 1, "{mode}: one line: {}", run.stderr);
        assert!(left_out[0].contains(named), "{mode}: {}", left_out[0]);
        assert!(took < Duration::from_secs(20), "{mode}: took {took:?}");
        assert!(
            peak_kib < 256 * 1024,
            "{mode}: peak RSS {} MiB",
            peak_kib / 1024
        );
        let requests = model.requests();
        assert_eq!(requests.len(), 2, "{mode}: {requests:?}");
        let names = offered(&requests[0]);
        assert!(names.iter().any(|n| n == "add"), "{mode}: {names:?}");
        assert!(
            names.iter().all(|n| {
                let numbered =
                    n.starts_with('t') && n[1..].starts_with(|c: char| c.is_ascii_digit());
                !numbered && n != "again"
            }),
            "{mode}: nothing of evil offered: {names:?}"
        );
        let results = results(&requests[1]);
        assert!(
            !results[0].is_error && results[0].text.contains('5'),
            "{mode}: {results:?}"
        );
        assert_eq!(tool_calls(&lines[0]), [call("add", "e", false)]);
    }
}

/// A server listing more tools than the cap keeps its first ones in list
/// order, with one warning naming how many were left out: `--max-tools 7`
/// for a listing of 4 tools a page that never ends (its third page is not
/// asked for), and an entry's own `"maxTools": 5` over the flag for one
/// page of 12.
#[test]
fn a_server_over_the_tool_cap_keeps_its_first_tools() {
    let mut many = hostile_lists("many", &[("LISTS_TOOLS", "12")]);
    many["maxTools"] = json!(5);
    let config = McpConfig::new(&json!({"mcpServers": {
        "many": many,
        "pages": hostile_lists("endless", &[("LISTS_PER_PAGE", "4")]),
    }}));
    let model = FakeModel::start(vec![
        asks(vec![tool_use("t1", "t4", json!({}))]),
        says("called"),
    ]);
    let run = host(&config, &model, "all", &["--max-tools", "7"], "call t4\n");
    let lines = lines(&run);
    let cut: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains("the cap on tools per server"))
        .collect();
    assert_eq!(cut.len(), 2, "{}", run.stderr);
    assert!(
        cut.iter().any(|l| l.contains(
            "server `many`: it lists more tools than the cap on tools per server (5): the first 5 are kept, 7 left out"
        ) && !l.contains("pages not fetched")),
        "{cut:?}"
    );
    assert!(
        cut.iter().any(|l| l.contains(
            "server `pages`: it lists more tools than the cap on tools per server (7): the first 7 are kept, 1 left out and any on the pages not fetched"
        )),
        "{cut:?}"
    );
    let requests = model.requests();
    let mut names = offered(&requests[0]);
    names.sort();
    assert_eq!(
        names,
        [
            "t0", "t0_0", "t0_1", "t0_2", "t0_3", "t1", "t1_0", "t1_1", "t1_2", "t2", "t3", "t4"
        ]
    );
    assert_eq!(tool_calls(&lines[0]), [call("t4", "many", false)]);
}

/// Item 5 of issue 30: a tool whose `outputSchema` holds about 6 KiB of
/// Unicode regular expressions (hundreds of MiB once compiled) is listed
/// at once (nothing is compiled then); when its result arrives the schema
/// is skipped with one warning naming the server and the tool, and the
/// result reaches the model unvalidated.
#[test]
fn a_regex_bomb_output_schema_is_skipped_and_its_tool_still_works() {
    let config = McpConfig::new(&json!({"mcpServers": {
        "evil": hostile_lists("regex", &[]),
        "e": everything_entry(&[]),
    }}));
    let model = FakeModel::start(vec![
        asks(vec![
            tool_use("t1", "shape", json!({})),
            tool_use("t2", "add", json!({"a": 2, "b": 3})),
        ]),
        says("done"),
    ]);
    let (run, peak_kib, took) =
        measured(&config, || host(&config, &model, "all", &[], "shape it\n"));
    eprintln!("regex: {took:?}, peak RSS {} MiB", peak_kib / 1024);
    let lines = lines(&run);
    let skipped: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains("outputSchema skipped"))
        .collect();
    assert_eq!(skipped.len(), 1, "{}", run.stderr);
    assert!(
        skipped[0].contains("evil")
            && skipped[0].contains("shape")
            && skipped[0].contains("unvalidated"),
        "{}",
        skipped[0]
    );
    assert!(took < Duration::from_secs(20), "took {took:?}");
    assert!(peak_kib < 256 * 1024, "peak RSS {} MiB", peak_kib / 1024);
    let requests = model.requests();
    assert_eq!(requests.len(), 2, "{requests:?}");
    let results = results(&requests[1]);
    assert_eq!(results.len(), 2, "{results:?}");
    assert!(
        !results[0].is_error && results[0].text.contains("called shape"),
        "{results:?}"
    );
    assert!(
        !results[1].is_error && results[1].text.contains('5'),
        "{results:?}"
    );
    assert_eq!(
        tool_calls(&lines[0]),
        [call("shape", "evil", false), call("add", "e", false)]
    );
}
