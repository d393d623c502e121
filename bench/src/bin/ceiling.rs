//! The ceiling: a minimal hand-written MCP stdio server that answers `add`.
//!
//! It is what the benchmark compares `everything` against: std and
//! `serde_json` only, no async runtime, one thread. It reads newline-delimited
//! JSON-RPC from stdin, parses each line into a `serde_json::Value`, and writes
//! each response with one `write` and one `flush` on stdout.
//!
//! It answers `initialize` (echoing a supported `protocolVersion`), `ping`,
//! `tools/list` and `tools/call` for `add` (and its copies `add_0`…),
//! `resources/read` of `everything://filler/{bytes}`, `prompts/get` of
//! `translate` (as `everything` words it), and ignores notifications. Its results have the same shape and bytes as
//! `everything`'s:
//! `{"content":[{"type":"text","text":"{\"sum\":3.5}"}],"structuredContent":{"sum":3.5}}`.
//!
//! Environment:
//! - `TOOLS=N` lists N extra copies of `add`, named `add_0`…`add_{N-1}`.
//! - `CEILING_TOOLS_FILE=path`: a JSON array of tool definitions to list (it
//!   must contain `add`); the benchmark fills it with `everything`'s own
//!   definitions so both servers list the same tools. Without it only a
//!   built-in `add` definition is listed.
//!
//! Like `everything`, it builds its tool definitions at startup and
//! serializes the `tools` array once, on the first `tools/list`, then reuses
//! the bytes.

use serde_json::Value;
use std::collections::HashSet;
use std::io::{self, BufRead, BufReader, Write};

/// The definition of `add`, as `everything` lists it.
const ADD_TOOL: &str = r#"{"name":"add","description":"Add two numbers.","inputSchema":{"type":"object","additionalProperties":false,"properties":{"a":{"type":"number","description":"First addend"},"b":{"type":"number","description":"Second addend"}},"required":["a","b"]},"outputSchema":{"type":"object","properties":{"sum":{"type":"number","description":"a + b"}},"required":["sum"],"description":"The result of `add`."},"annotations":{"readOnlyHint":true,"idempotentHint":true}}"#;

/// Protocol versions this server accepts in `initialize`; the last is offered
/// when the client asks for another one.
const VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/// The server's tools and its cached `tools/list` bytes.
struct State {
    /// Tool definitions, sorted by name.
    tools: Vec<Value>,
    /// Names that `tools/call` answers (all copies of `add`).
    callable: HashSet<String>,
    /// The serialized `tools` array, made on the first `tools/list`.
    list: Option<Vec<u8>>,
}

fn main() -> io::Result<()> {
    let mut state = load_state()?;
    let mut input = BufReader::with_capacity(64 * 1024, io::stdin().lock());
    let mut output = io::stdout().lock();
    let mut line = Vec::with_capacity(4096);
    let mut response = Vec::with_capacity(4096);
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            return Ok(());
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        response.clear();
        handle(&line, &mut state, &mut response);
        if !response.is_empty() {
            output.write_all(&response)?;
            output.flush()?;
        }
    }
}

/// Builds the tool table from `CEILING_TOOLS_FILE` and `TOOLS`.
fn load_state() -> io::Result<State> {
    let mut tools: Vec<Value> = match std::env::var_os("CEILING_TOOLS_FILE") {
        Some(path) => serde_json::from_slice(&std::fs::read(path)?).map_err(io::Error::other)?,
        None => vec![serde_json::from_str(ADD_TOOL).map_err(io::Error::other)?],
    };
    let add = tools
        .iter()
        .find(|tool| tool["name"] == "add")
        .cloned()
        .ok_or_else(|| io::Error::other("the tool list has no `add`"))?;
    let copies: usize = std::env::var("TOOLS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let mut callable = HashSet::with_capacity(copies + 1);
    callable.insert("add".to_owned());
    for i in 0..copies {
        let name = format!("add_{i}");
        let mut copy = add.clone();
        copy["name"] = Value::String(name.clone());
        tools.push(copy);
        callable.insert(name);
    }
    tools.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    Ok(State {
        tools,
        callable,
        list: None,
    })
}

/// Answers one message into `out` (left empty for notifications).
fn handle(line: &[u8], state: &mut State, out: &mut Vec<u8>) {
    let Ok(message) = serde_json::from_slice::<Value>(line) else {
        error(out, None, -32700, "Parse error");
        return;
    };
    let Some(method) = message.get("method").and_then(Value::as_str) else {
        // A response or garbage without a method: nothing to answer.
        return;
    };
    let id = match message.get("id") {
        None => return, // a notification
        Some(Value::Null) => {
            error(out, None, -32600, "Invalid request: id must not be null");
            return;
        }
        Some(id) => id,
    };
    let params = message.get("params");
    match method {
        "initialize" => initialize(out, id, params),
        "ping" => result(out, id, b"{}"),
        "tools/list" => {
            let list = state
                .list
                .get_or_insert_with(|| serde_json::to_vec(&state.tools).unwrap_or_default());
            begin_result(out, id);
            out.extend_from_slice(b"{\"tools\":");
            out.extend_from_slice(list);
            out.extend_from_slice(b"}}\n");
        }
        "tools/call" => call(out, id, params, &state.callable),
        "resources/read" => read(out, id, params),
        "prompts/get" => prompt(out, id, params),
        _ => error(out, Some(id), -32601, "Method not found"),
    }
}

/// Answers `initialize`.
fn initialize(out: &mut Vec<u8>, id: &Value, params: Option<&Value>) {
    let requested = params
        .and_then(|p| p.get("protocolVersion"))
        .and_then(Value::as_str);
    let version = match requested {
        Some(v) if VERSIONS.contains(&v) => v,
        _ => VERSIONS[VERSIONS.len() - 1],
    };
    begin_result(out, id);
    out.extend_from_slice(b"{\"protocolVersion\":\"");
    out.extend_from_slice(version.as_bytes());
    out.extend_from_slice(
        br#"","capabilities":{"tools":{"listChanged":false}},"serverInfo":{"name":"ceiling","version":"0.1.0","title":"Ceiling (hand-written serde_json loop)"},"instructions":"A minimal stdio loop that answers add, for benchmarking."}}"#,
    );
    out.push(b'\n');
}

/// Answers `tools/call` for the copies of `add`.
fn call(out: &mut Vec<u8>, id: &Value, params: Option<&Value>, callable: &HashSet<String>) {
    let name = params.and_then(|p| p.get("name")).and_then(Value::as_str);
    let Some(name) = name.filter(|name| callable.contains(*name)) else {
        error(out, Some(id), -32602, "Unknown tool");
        return;
    };
    let arguments = params
        .and_then(|p| p.get("arguments"))
        .and_then(Value::as_object);
    let sum = arguments.and_then(|args| {
        let a = args.get("a")?.as_f64()?;
        let b = args.get("b")?.as_f64()?;
        (args.len() == 2).then_some(a + b)
    });
    let Some(sum) = sum else {
        let text =
            format!("Invalid arguments for tool {name}: expected {{\"a\": number, \"b\": number}}");
        begin_result(out, id);
        out.extend_from_slice(b"{\"content\":[{\"type\":\"text\",\"text\":");
        out.extend_from_slice(&serde_json::to_vec(&text).unwrap_or_default());
        out.extend_from_slice(b"}],\"isError\":true}}\n");
        return;
    };
    let number = serde_json::to_vec(&sum).unwrap_or_default();
    begin_result(out, id);
    out.extend_from_slice(br#"{"content":[{"type":"text","text":"{\"sum\":"#);
    out.extend_from_slice(&number);
    out.extend_from_slice(br#"}"}],"structuredContent":{"sum":"#);
    out.extend_from_slice(&number);
    out.extend_from_slice(b"}}}\n");
}

/// Answers `resources/read` of `everything://filler/{bytes}`: a text of
/// that many `x`, as `everything` serves it (the `resources` benchmark).
fn read(out: &mut Vec<u8>, id: &Value, params: Option<&Value>) {
    let uri = params.and_then(|p| p.get("uri")).and_then(Value::as_str);
    let Some(bytes) = uri
        .and_then(|uri| uri.strip_prefix("everything://filler/"))
        .and_then(|n| n.parse::<usize>().ok())
    else {
        error(out, Some(id), -32002, "Resource not found");
        return;
    };
    begin_result(out, id);
    out.extend_from_slice(b"{\"contents\":[{\"uri\":\"everything://filler/");
    out.extend_from_slice(bytes.to_string().as_bytes());
    out.extend_from_slice(b"\",\"mimeType\":\"text/plain\",\"text\":\"");
    out.resize(out.len() + bytes, b'x');
    out.extend_from_slice(b"\"}]}}\n");
}

/// Answers `prompts/get` of `translate`: `everything`'s two messages for
/// the `language`, `text` and optional `tone` given (the `prompt-rate`
/// benchmark).
fn prompt(out: &mut Vec<u8>, id: &Value, params: Option<&Value>) {
    let name = params.and_then(|p| p.get("name")).and_then(Value::as_str);
    let arguments = params
        .and_then(|p| p.get("arguments"))
        .and_then(Value::as_object);
    let argument = |name: &str| arguments.and_then(|a| a.get(name)).and_then(Value::as_str);
    let (Some("translate"), Some(language), Some(text)) =
        (name, argument("language"), argument("text"))
    else {
        error(out, Some(id), -32602, "Invalid params");
        return;
    };
    let tone = argument("tone").map_or_else(String::new, |tone| format!(", in a {tone} tone"));
    let ask = format!(
        "Translate the text below into {language}{tone}. Answer with the translation only."
    );
    begin_result(out, id);
    out.extend_from_slice(
        br#"{"description":"Translate a text, keeping its tone","messages":[{"role":"user","content":{"type":"text","text":"#,
    );
    out.extend_from_slice(&serde_json::to_vec(&ask).unwrap_or_default());
    out.extend_from_slice(br#"}},{"role":"user","content":{"type":"text","text":"#);
    out.extend_from_slice(&serde_json::to_vec(text).unwrap_or_default());
    out.extend_from_slice(
        b"}}]}}
",
    );
}

/// Writes `{"jsonrpc":"2.0","id":<id>,"result":` into `out`.
fn begin_result(out: &mut Vec<u8>, id: &Value) {
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    out.extend_from_slice(&serde_json::to_vec(id).unwrap_or_default());
    out.extend_from_slice(b",\"result\":");
}

/// Writes a whole result response.
fn result(out: &mut Vec<u8>, id: &Value, result: &[u8]) {
    begin_result(out, id);
    out.extend_from_slice(result);
    out.extend_from_slice(b"}\n");
}

/// Writes an error response; without an id when it could not be read.
fn error(out: &mut Vec<u8>, id: Option<&Value>, code: i32, message: &str) {
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",");
    if let Some(id) = id {
        out.extend_from_slice(b"\"id\":");
        out.extend_from_slice(&serde_json::to_vec(id).unwrap_or_default());
        out.push(b',');
    }
    out.extend_from_slice(format!("\"error\":{{\"code\":{code},\"message\":").as_bytes());
    out.extend_from_slice(&serde_json::to_vec(message).unwrap_or_default());
    out.extend_from_slice(b"}}\n");
}
