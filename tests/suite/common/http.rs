//! Streamable HTTP test client: a spawned example serving `--http`, and a
//! minimal HTTP/1.1 client on std's `TcpStream` (one connection per request,
//! `Connection: close`) whose JSON-RPC bodies are validated against the
//! official schema of their revision.

use super::{assert_valid, example_binary};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The revision of the stateless era.
pub const MODERN: &str = "2026-07-28";

/// A running `everything --http` and what it has logged.
pub struct Server {
    pub child: Child,
    pub addr: String,
    pub log: Arc<Mutex<String>>,
}

impl Server {
    pub fn start(env: &[(&str, &str)]) -> Server {
        Server::start_example("everything", env)
    }

    /// The example `name` serving `--http 127.0.0.1:0`.
    pub fn start_example(name: &str, env: &[(&str, &str)]) -> Server {
        Server::spawn(Command::new(example_binary(name)), env)
    }

    /// `everything` with its open-file limit set to `soft:hard` by
    /// `prlimit` (which then runs it, so the child's id is the server's).
    pub fn start_with_open_files(soft: u64, hard: u64, env: &[(&str, &str)]) -> Server {
        let mut command = Command::new("prlimit");
        command
            .arg(format!("--nofile={soft}:{hard}"))
            .arg(example_binary("everything"));
        Server::spawn(command, env)
    }

    /// `command` with `--http 127.0.0.1:0`, its log collected.
    fn spawn(mut command: Command, env: &[(&str, &str)]) -> Server {
        command
            .args(["--http", "127.0.0.1:0"])
            .env("MCP_LOG", "mcpfn_runtime=debug")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        for (key, value) in env {
            command.env(key, value);
        }
        let mut child = command.spawn().expect("everything starts");
        let stderr = child.stderr.take().unwrap();
        let log = Arc::new(Mutex::new(String::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let sink = Arc::clone(&log);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(at) = line.find("address=") {
                    let addr = line[at + 8..].split_whitespace().next().unwrap_or("");
                    let _ = tx.send(addr.to_owned());
                }
                let mut log = sink.lock().unwrap();
                log.push_str(&line);
                log.push('\n');
            }
        });
        let addr = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("the server logs its address");
        Server { child, addr, log }
    }

    /// A line of the server's `/proc/PID/status`, in its unit (`VmRSS` in kB).
    pub fn status_kib(&self, field: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        status
            .lines()
            .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .unwrap_or_else(|| panic!("no {field} in {status}"))
    }

    /// The descriptors the server has open.
    pub fn open_fds(&self) -> usize {
        std::fs::read_dir(format!("/proc/{}/fd", self.child.id()))
            .unwrap()
            .count()
    }

    pub fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    /// Waits until the log holds `needle` `times` times (60 s at most);
    /// returns the log.
    #[track_caller]
    pub fn wait_for_log(&self, needle: &str, times: usize) -> String {
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        loop {
            let log = self.log();
            if log.matches(needle).count() >= times {
                return log;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "no {needle:?} (x{times}) in the log within 60 s:\n{log}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Sends raw request bytes; returns the parsed response.
    pub fn raw(&self, request: &[u8]) -> Response {
        raw_to(&self.addr, request)
    }

    /// A POST to `/mcp` with `headers` (the usual Content-Type and Accept
    /// unless given) and `body`.
    pub fn post(&self, headers: &[(&str, &str)], body: &str) -> Response {
        post_to(&self.addr, headers, body)
    }

    /// A 2026-07-28 POST of `message` with the routing headers it needs, plus `extra`.
    pub fn modern(&self, message: &Value, extra: &[(&str, &str)]) -> Response {
        modern_to(&self.addr, message, extra)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A 2026-07-28 `tools/call` of `tool` POSTed to `addr` with its routing
/// headers: `message` is the whole JSON-RPC request.
pub fn call_bytes(addr: &str, tool: &str, message: &str) -> Vec<u8> {
    let headers = [
        ("MCP-Protocol-Version", MODERN),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", tool),
    ];
    request_bytes(addr, "POST", &headers, message)
}

pub fn request_bytes(addr: &str, method: &str, headers: &[(&str, &str)], body: &str) -> Vec<u8> {
    request_bytes_at(addr, method, "/mcp", headers, body)
}

/// [`request_bytes`] to `path` (which may carry a query string).
pub fn request_bytes_at(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Vec<u8> {
    let mut text = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    let has = |name: &str| headers.iter().any(|(k, _)| k.eq_ignore_ascii_case(name));
    if !has("content-type") {
        text.push_str("Content-Type: application/json\r\n");
    }
    if !has("accept") {
        text.push_str("Accept: application/json, text/event-stream\r\n");
    }
    for (name, value) in headers {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    text.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    text.into_bytes()
}

/// A response: status, headers (lowercased names) and body (de-chunked).
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The JSON body, validated as a JSON-RPC message.
    pub fn json(&self) -> Value {
        assert_eq!(
            self.header("content-type"),
            Some("application/json"),
            "{self:?}"
        );
        let message: Value = serde_json::from_str(&self.body).expect("JSON body");
        assert_valid(MODERN, "JSONRPCMessage", &message);
        message
    }

    /// The SSE events' data, each validated as a JSON-RPC message.
    pub fn events(&self) -> Vec<Value> {
        assert_eq!(
            self.header("content-type"),
            Some("text/event-stream"),
            "{self:?}"
        );
        self.body
            .split("\n\n")
            .filter_map(|event| event.lines().find_map(|l| l.strip_prefix("data: ")))
            .map(|data| {
                let message: Value = serde_json::from_str(data).expect("JSON event");
                assert_valid(MODERN, "JSONRPCMessage", &message);
                message
            })
            .collect()
    }

    /// Asserts an error response with this status and code.
    pub fn expect_error(&self, status: u16, code: i64) -> Value {
        assert_eq!(self.status, status, "{self:?}");
        let message = self.json();
        assert_eq!(message["error"]["code"], code, "{message}");
        message
    }
}

/// A reader that says once, on `seen`, when the bytes read through it
/// first hold `needle`: a test waits for a response to reach a point (a
/// first progress event: the call runs) while another thread reads it.
pub struct Tap<R> {
    inner: R,
    needle: &'static str,
    read: Vec<u8>,
    seen: Option<std::sync::mpsc::Sender<()>>,
    ended: bool,
}

impl<R: Read> Tap<R> {
    pub fn new(inner: R, needle: &'static str, seen: std::sync::mpsc::Sender<()>) -> Tap<R> {
        Tap {
            inner,
            needle,
            read: Vec::new(),
            seen: Some(seen),
            ended: false,
        }
    }

    /// Whether a read found the end (not a timeout or another error).
    pub fn ended(&self) -> bool {
        self.ended
    }
}

impl<R: Read> Read for Tap<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.ended |= n == 0 && !buf.is_empty();
        if self.seen.is_some() {
            self.read.extend_from_slice(&buf[..n]);
            let needle = self.needle.as_bytes();
            if self.read.windows(needle.len()).any(|w| w == needle) {
                let _ = self.seen.take().unwrap().send(());
                self.read = Vec::new();
            }
        }
        Ok(n)
    }
}

pub fn read_response(stream: &mut impl Read) -> Response {
    let mut bytes = Vec::new();
    let _ = stream.read_to_end(&mut bytes);
    let text = String::from_utf8(bytes).expect("UTF-8 response");
    let (head, rest) = text.split_once("\r\n\r\n").expect("a complete head");
    let mut lines = head.lines();
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let chunked = headers
        .iter()
        .any(|(k, v)| k == "transfer-encoding" && v.contains("chunked"));
    let body = if chunked {
        dechunk(rest)
    } else {
        rest.to_owned()
    };
    Response {
        status,
        headers,
        body,
    }
}

pub fn dechunk(mut rest: &str) -> String {
    let mut body = String::new();
    while let Some((size, after)) = rest.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if size == 0 {
            break;
        }
        body.push_str(&after[..size]);
        rest = &after[size + 2..];
    }
    body
}

/// The 2026-07-28 envelope with these client capabilities.
pub fn meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "http-tests", "version": "1"}
    })
}

pub fn call(id: u64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": name, "arguments": arguments, "_meta": meta(json!({}))}})
}

pub fn request(id: u64, method: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": {"_meta": meta(json!({}))}})
}

/// Sends raw request bytes to `addr`; returns the parsed response.
pub fn raw_to(addr: &str, request: &[u8]) -> Response {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    stream.write_all(request).unwrap();
    read_response(&mut stream)
}

/// A POST to `/mcp` at `addr` with `headers` (the usual Content-Type and
/// Accept unless given) and `body`.
pub fn post_to(addr: &str, headers: &[(&str, &str)], body: &str) -> Response {
    raw_to(addr, &request_bytes(addr, "POST", headers, body))
}

/// A 2026-07-28 POST of `message` to `addr` with the routing headers it
/// needs (`Mcp-Method`; `Mcp-Name` for `tools/call` and `tasks/*`), plus
/// `extra`.
pub fn modern_to(addr: &str, message: &Value, extra: &[(&str, &str)]) -> Response {
    let method = message["method"].as_str().unwrap().to_owned();
    let mut headers = vec![
        ("MCP-Protocol-Version", MODERN.to_owned()),
        ("Mcp-Method", method.clone()),
    ];
    // `Mcp-Name`: the tool's name, the task's id (Tasks extension), or the
    // resource's URI.
    let name = match method.as_str() {
        "resources/read" => message["params"]["uri"].as_str(),
        "tools/call" | "prompts/get" => message["params"]["name"].as_str(),
        "tasks/get" | "tasks/update" | "tasks/cancel" => message["params"]["taskId"].as_str(),
        _ => None,
    };
    if let Some(name) = name {
        headers.push(("Mcp-Name", name.to_owned()));
    }
    let mut all: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    all.extend_from_slice(extra);
    post_to(addr, &all, &message.to_string())
}
