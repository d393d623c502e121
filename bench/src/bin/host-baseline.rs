//! The baseline of the host benchmark (`host`): a minimal hand-written
//! tool-use loop doing what `mcp-host --config PATH --json --approve all`
//! does for a conversation, and nothing more.
//!
//! ```text
//! ANTHROPIC_BASE_URL=http://127.0.0.1:PORT ANTHROPIC_API_KEY=… host-baseline --config PATH
//! ```
//!
//! It starts the first stdio server of the config (`{"mcpServers": {NAME:
//! {"command", "args"}}}`), speaks newline JSON-RPC to it by hand
//! (`initialize` at 2025-11-25, `notifications/initialized`, `tools/list`,
//! then `tools/call`), keeps the history as `serde_json::Value`s and POSTs
//! each Messages request with hyper's HTTP/1.1 client over one keep-alive
//! connection (current-thread tokio runtime; the MCP pipes are plain
//! blocking std I/O). Per stdin line it appends the user message, loops
//! while the model asks for tools (the assistant content appended as it
//! came, one user message of `tool_result` blocks, a single text result as
//! a plain string as `mcp-host` sends it) and prints the same JSON line as
//! `mcp-host --json`. No retries, no approvals, no timeouts, no name
//! mapping, one server: the floor a host's own work can be compared with.

use http_body_util::{BodyExt, Full};
use hyper::Request;
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{ChildStdin, ChildStdout, Command, Stdio};

/// What `mcp-host` sends by default.
const MODEL: &str = "claude-sonnet-4-6";
/// What `mcp-host` sends by default.
const MAX_TOKENS: u32 = 1024;

type Error = Box<dyn std::error::Error>;

/// The MCP server's pipes and the next request id.
struct Mcp {
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Mcp {
    /// Sends a request and returns its `result`, skipping notifications.
    fn request(&mut self, method: &str, params: Value) -> Result<Value, Error> {
        self.next_id += 1;
        let id = self.next_id;
        let mut line = serde_json::to_vec(
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
        )?;
        line.push(b'\n');
        self.stdin.write_all(&line)?;
        self.stdin.flush()?;
        let mut text = String::new();
        loop {
            text.clear();
            if self.stdout.read_line(&mut text)? == 0 {
                return Err("the MCP server closed its stdout".into());
            }
            let mut message: Value = serde_json::from_str(&text)?;
            if message["id"].as_u64() == Some(id) {
                if let Some(error) = message.get("error") {
                    return Err(format!("{method}: {error}").into());
                }
                return Ok(message["result"].take());
            }
        }
    }

    fn notify(&mut self, method: &str) -> Result<(), Error> {
        let mut line = serde_json::to_vec(&json!({"jsonrpc": "2.0", "method": method}))?;
        line.push(b'\n');
        self.stdin.write_all(&line)?;
        Ok(self.stdin.flush()?)
    }
}

fn main() -> Result<(), Error> {
    let mut args = std::env::args().skip(1);
    let config = match (args.next().as_deref(), args.next()) {
        (Some("--config"), Some(path)) => path,
        _ => return Err("usage: host-baseline --config PATH".into()),
    };
    let config: Value = serde_json::from_slice(&std::fs::read(config)?)?;
    let (server_name, server) = config["mcpServers"]
        .as_object()
        .and_then(|servers| servers.iter().next())
        .ok_or("no server in the config")?;
    let mut child = Command::new(server["command"].as_str().ok_or("no command")?)
        .args(
            server["args"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str),
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()?;
    let mut mcp = Mcp {
        stdin: child.stdin.take().ok_or("no stdin")?,
        stdout: BufReader::new(child.stdout.take().ok_or("no stdout")?),
        next_id: 0,
    };
    mcp.request(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "host-baseline", "version": "1"}}),
    )?;
    mcp.notify("notifications/initialized")?;
    let listed = mcp.request("tools/list", json!({}))?;
    let tools: Vec<Value> = listed["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| {
            json!({"name": t["name"], "description": t["description"],
                   "input_schema": t["inputSchema"]})
        })
        .collect();
    // The request's fixed head: everything but the history.
    let head = format!(
        "{{\"model\":\"{MODEL}\",\"max_tokens\":{MAX_TOKENS},\"tools\":{},\"messages\":",
        serde_json::to_string(&tools)?
    );

    let base = std::env::var("ANTHROPIC_BASE_URL")?;
    let rest = base
        .strip_prefix("http://")
        .ok_or("ANTHROPIC_BASE_URL must be http://")?;
    let (authority, prefix) = rest.split_once('/').unwrap_or((rest, ""));
    let prefix = prefix.trim_end_matches('/');
    let uri = if prefix.is_empty() {
        "/v1/messages".to_owned()
    } else {
        format!("/{prefix}/v1/messages")
    };
    let key = std::env::var("ANTHROPIC_API_KEY").unwrap_or_default();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let mut sender = runtime.block_on(async {
        let stream = tokio::net::TcpStream::connect(authority).await?;
        stream.set_nodelay(true)?;
        let (sender, connection) =
            hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
        // Driven whenever `block_on` runs, i.e. during each request.
        tokio::spawn(connection);
        Ok::<_, Error>(sender)
    })?;

    let mut messages: Vec<Value> = Vec::new();
    let stdout = std::io::stdout();
    for line in std::io::stdin().lock().lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        messages.push(json!({"role": "user", "content": line}));
        let mut turns = 0u64;
        let (mut input_tokens, mut output_tokens) = (0u64, 0u64);
        let mut calls = Vec::new();
        let (text, stop_reason) = loop {
            let mut body = head.clone().into_bytes();
            serde_json::to_writer(&mut body, &messages)?;
            body.push(b'}');
            let request = Request::post(&uri)
                .header("host", authority)
                .header("x-api-key", &key)
                .header("anthropic-version", "2023-06-01")
                .header("content-type", "application/json")
                .body(Full::new(Bytes::from(body)))?;
            let (status, bytes) = runtime.block_on(async {
                let response = sender.send_request(request).await?;
                let status = response.status();
                let bytes = response.into_body().collect().await?.to_bytes();
                Ok::<_, Error>((status, bytes))
            })?;
            if !status.is_success() {
                return Err(format!("the API answered {status}").into());
            }
            let mut response: Value = serde_json::from_slice(&bytes)?;
            turns += 1;
            input_tokens += response["usage"]["input_tokens"].as_u64().unwrap_or(0);
            output_tokens += response["usage"]["output_tokens"].as_u64().unwrap_or(0);
            let stop_reason = response["stop_reason"].as_str().unwrap_or("").to_owned();
            let content = response["content"].take();
            if stop_reason != "tool_use" {
                let text: String = content
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|b| b["type"] == "text")
                    .filter_map(|b| b["text"].as_str())
                    .collect();
                messages.push(json!({"role": "assistant", "content": content}));
                break (text, stop_reason);
            }
            let mut results = Vec::new();
            for block in content.as_array().into_iter().flatten() {
                if block["type"] != "tool_use" {
                    continue;
                }
                let name = block["name"].as_str().unwrap_or("");
                let result = mcp.request(
                    "tools/call",
                    json!({"name": name, "arguments": block["input"]}),
                )?;
                let is_error = result["isError"].as_bool().unwrap_or(false);
                calls.push(json!({"name": name, "server": server_name, "is_error": is_error}));
                let blocks = result["content"].as_array().cloned().unwrap_or_default();
                let content = match &blocks[..] {
                    [only] if only["type"] == "text" => only["text"].clone(),
                    _ => Value::Array(blocks),
                };
                let mut result_block = json!({"type": "tool_result",
                    "tool_use_id": block["id"], "content": content});
                if is_error {
                    result_block["is_error"] = Value::Bool(true);
                }
                results.push(result_block);
            }
            messages.push(json!({"role": "assistant", "content": content}));
            messages.push(json!({"role": "user", "content": results}));
        };
        let mut out = serde_json::to_vec(&json!({
            "text": text, "stop_reason": stop_reason, "turns": turns,
            "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
            "tool_calls": calls,
        }))?;
        out.push(b'\n');
        let mut stdout = stdout.lock();
        stdout.write_all(&out)?;
        stdout.flush()?;
    }
    drop(mcp);
    child.wait()?;
    Ok(())
}
