//! The `mcp-host` program against real MCP servers, with a scripted model on
//! loopback (tests/common/fake_model.rs): the config forms and their errors,
//! `everything` over stdio and Streamable HTTP (with the config's headers on
//! every request), the official Python SDK server, name prefixing and
//! mapping, `--tool-timeout`, a server that exits mid-conversation, and
//! `trusted` under `--approve read-only`; the TypeScript SDK's server for a
//! legacy HTTP session's headers, the OpenAI provider for the Python one. Each test checks what the host sent
//! the model (the recorded requests) and what it printed (`--json`).

mod common;

use common::fake_model::{
    FakeModel, HostRun, McpConfig, Recorded, Reply, TempDir, claude_message, closed_port_url,
    everything_entry, host_binary, openai_completion, openai_text, openai_tool_calls, run_host,
    text_block, tool_use,
};
use common::{HttpServer, everything, python_sdk, ts_sdk};
use serde_json::{Value, json};
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

/// The offered tool called `name`.
fn offered_tool(request: &Recorded, name: &str) -> Value {
    request.body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("{name} not offered: {:?}", offered(request)))
        .clone()
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
    let config = McpConfig::everything("e", &[("MCP_LOG", "mcp_runtime=debug")]);
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
    let run = host(&config, &model, "all", &[], "crash\nthen\n");
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
/// and 1,000 tools a page; or 5 small tools a page; or 10 tools of 100 KB
/// each), one that lists 100,000 tools in one page, one whose 900 tools
/// would take hundreds of MiB once parsed, and one that repeats its cursor
/// are each left out at once, with one line naming the server and the cap,
/// in bounded memory; `everything` beside them works.
#[test]
fn endless_huge_or_looping_tool_lists_leave_their_server_out_quickly() {
    let cases: [ListCase; 6] = [
        ("endless", &[], "its tool list passed 1,000 tools"),
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
        ("many", &[], "its tool list passed 1,000 tools"),
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
