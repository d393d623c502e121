//! A scripted stand-in for the Anthropic and OpenAI HTTP APIs on a loopback
//! port, and a runner for the `mcp-host` binary.
//!
//! [`FakeModel`] answers each request with the next [`Reply`] of its script,
//! whatever the method or path, and records every request it receives, so a
//! test states what the model says and then checks, byte for byte, what the
//! host sent. It runs on its own thread with its own tokio runtime: a sync
//! test (driving the binary through [`run_host`]) and an async one (driving
//! the library) use it the same way.

use bytes::Bytes;
use http_body_util::{BodyExt, Either, Full};
use hyper::body::Incoming;
use hyper::{Request, Response};
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::future::Future;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One scripted answer.
#[derive(Clone, Debug)]
pub struct Reply {
    /// The HTTP status.
    pub status: u16,
    /// Response headers, in order (`content-type: application/json` first).
    pub headers: Vec<(String, String)>,
    /// The JSON body.
    pub body: Value,
    /// How long to wait, once the request is read, before answering.
    pub delay: Duration,
    /// Bytes sent instead of `body` (a body too large, or not JSON).
    pub raw: Option<Bytes>,
    /// Sent with `transfer-encoding: chunked`, no `content-length`.
    pub chunked: bool,
    /// The headers sent at once, then the body chunked one byte per this
    /// interval (the first after one interval).
    pub trickle: Option<Duration>,
}

impl Reply {
    /// `200` with `body` as `application/json`.
    pub fn ok(body: Value) -> Reply {
        Reply::status(200, body)
    }

    /// `status` with `body` as `application/json`.
    pub fn status(status: u16, body: Value) -> Reply {
        Reply {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body,
            delay: Duration::ZERO,
            raw: None,
            chunked: false,
            trickle: None,
        }
    }

    /// `status` with `bytes` as its `application/json` body, verbatim.
    pub fn raw(status: u16, bytes: impl Into<Bytes>) -> Reply {
        Reply {
            raw: Some(bytes.into()),
            ..Reply::status(status, Value::Null)
        }
    }

    /// The reply sent chunked, with no `content-length`: the host learns
    /// its size only by reading it.
    pub fn chunked(mut self) -> Reply {
        self.chunked = true;
        self
    }

    /// The reply's headers sent at once, then its body one byte per
    /// `interval` (an hour: headers, then nothing).
    pub fn trickled(mut self, interval: Duration) -> Reply {
        self.trickle = Some(interval);
        self
    }

    /// The reply with header `name: value` (replacing one of that name).
    pub fn header(mut self, name: &str, value: &str) -> Reply {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    /// The reply sent `delay` after the request was read.
    pub fn after(mut self, delay: Duration) -> Reply {
        self.delay = delay;
        self
    }

    /// An Anthropic error reply: `{"type":"error","error":{"type":kind,"message":message}}`.
    pub fn claude_error(status: u16, kind: &str, message: &str) -> Reply {
        Reply::status(
            status,
            json!({"type": "error", "error": {"type": kind, "message": message}}),
        )
    }

    /// An OpenAI error reply: `{"error":{"message":message,"type":kind,"code":null}}`.
    pub fn openai_error(status: u16, kind: &str, message: &str) -> Reply {
        Reply::status(
            status,
            json!({"error": {"message": message, "type": kind, "code": null}}),
        )
    }
}

/// A request the fake received.
#[derive(Clone, Debug)]
pub struct Recorded {
    /// `POST`, …
    pub method: String,
    /// The path and query, e.g. `/v1/messages`.
    pub path: String,
    /// Every header, names lowercased, in the order received.
    pub headers: Vec<(String, String)>,
    /// The body as JSON; `Value::Null` when empty, a JSON string holding the
    /// text when it is not JSON.
    pub body: Value,
    /// The body's bytes as text (lossy), for byte-level checks.
    pub raw_body: String,
    /// When the request's body had been read.
    pub received: Instant,
}

impl Recorded {
    /// The first value of header `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A reply made from the request itself, ahead of the script: `None`
/// leaves the request to the script.
pub type Responder = Box<dyn Fn(&Recorded) -> Option<Reply> + Send>;

/// What the server threads share.
#[derive(Default)]
struct Script {
    replies: VecDeque<Reply>,
    recorded: Vec<Recorded>,
    responder: Option<Responder>,
}

impl std::fmt::Debug for Script {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Script")
            .field("replies", &self.replies)
            .field("recorded", &self.recorded.len())
            .finish_non_exhaustive()
    }
}

/// A scripted model API on `127.0.0.1`; stops when dropped.
#[derive(Debug)]
pub struct FakeModel {
    /// `http://127.0.0.1:PORT`, no trailing slash.
    pub base_url: String,
    script: Arc<Mutex<Script>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl FakeModel {
    /// Serves `replies` in order, one per request (any method/path; every
    /// request is recorded); when the script is exhausted answers 500
    /// `{"error":{"message":"fake model: script exhausted"}}`. Runs on its
    /// own thread with its own tokio runtime so sync and async tests can
    /// both use it; stops when dropped.
    pub fn start(replies: Vec<Reply>) -> FakeModel {
        FakeModel::start_with(replies, None)
    }

    /// [`start`](Self::start), with `responder` asked first for each
    /// request (a window that refuses requests over a size, a usage
    /// counted from the request's bytes); a request it answers `None` gets
    /// the script's next reply.
    pub fn responding(
        replies: Vec<Reply>,
        responder: impl Fn(&Recorded) -> Option<Reply> + Send + 'static,
    ) -> FakeModel {
        FakeModel::start_with(replies, Some(Box::new(responder)))
    }

    fn start_with(replies: Vec<Reply>, responder: Option<Responder>) -> FakeModel {
        // Bound here, before the thread starts, so `base_url` is known and
        // connectable as soon as `start` returns.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
        listener.set_nonblocking(true).unwrap();
        let base_url = format!("http://{}", listener.local_addr().unwrap());
        let script = Arc::new(Mutex::new(Script {
            replies: replies.into(),
            recorded: Vec::new(),
            responder,
        }));
        let (stop, stopped) = tokio::sync::oneshot::channel();
        let shared = Arc::clone(&script);
        let thread = std::thread::Builder::new()
            .name("fake-model".into())
            .spawn(move || serve(listener, shared, stopped))
            .unwrap();
        FakeModel {
            base_url,
            script,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// The requests received so far, in order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.script.lock().unwrap().recorded.clone()
    }

    /// How many scripted replies have not been used.
    pub fn unused(&self) -> usize {
        self.script.lock().unwrap().replies.len()
    }
}

impl Drop for FakeModel {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The fake's accept loop; returns (dropping every connection) when `stop`
/// fires or its sender is dropped.
fn serve(
    listener: std::net::TcpListener,
    script: Arc<Mutex<Script>>,
    stop: tokio::sync::oneshot::Receiver<()>,
) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(listener).unwrap();
        let mut stop = stop;
        loop {
            tokio::select! {
                _ = &mut stop => break,
                accepted = listener.accept() => {
                    let Ok((stream, _)) = accepted else { continue };
                    let script = Arc::clone(&script);
                    tokio::spawn(async move {
                        let io = hyper_util::rt::TokioIo::new(stream);
                        let service = hyper::service::service_fn(move |request| {
                            answer(request, Arc::clone(&script))
                        });
                        let _ = hyper::server::conn::http1::Builder::new()
                            .keep_alive(true)
                            .serve_connection(io, service)
                            .await;
                    });
                }
            }
        }
    });
    // Dropping the runtime drops every connection task still running.
    drop(runtime);
}

/// Reads one request, records it and takes the next reply under one lock
/// (so request `i` always gets reply `i`), then answers after its delay.
async fn answer(
    request: Request<Incoming>,
    script: Arc<Mutex<Script>>,
) -> Result<Response<Either<Full<Bytes>, Either<Unsized, Trickle>>>, std::convert::Infallible> {
    let (parts, body) = request.into_parts();
    let bytes = body
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    let raw_body = String::from_utf8_lossy(&bytes).into_owned();
    let body = if bytes.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&bytes).unwrap_or_else(|_| Value::String(raw_body.clone()))
    };
    let recorded = Recorded {
        method: parts.method.as_str().to_owned(),
        path: parts
            .uri
            .path_and_query()
            .map_or_else(|| parts.uri.path().to_owned(), |p| p.as_str().to_owned()),
        headers: parts
            .headers
            .iter()
            .map(|(n, v)| {
                (
                    n.as_str().to_ascii_lowercase(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect(),
        body,
        raw_body,
        received: Instant::now(),
    };
    let reply = {
        let mut script = script.lock().unwrap();
        let made = script.responder.as_ref().and_then(|f| f(&recorded));
        script.recorded.push(recorded);
        made.or_else(|| script.replies.pop_front())
    }
    .unwrap_or_else(|| {
        Reply::status(
            500,
            json!({"error": {"message": "fake model: script exhausted"}}),
        )
    });
    if !reply.delay.is_zero() {
        tokio::time::sleep(reply.delay).await;
    }
    let mut response = Response::builder().status(reply.status);
    for (name, value) in &reply.headers {
        response = response.header(name.as_str(), value.as_str());
    }
    let body = match reply.raw {
        Some(raw) => raw,
        None => Bytes::from(serde_json::to_vec(&reply.body).unwrap()),
    };
    let body = if let Some(interval) = reply.trickle {
        Either::Right(Either::Right(Trickle {
            rest: body,
            interval,
            next: Box::pin(tokio::time::sleep(interval)),
        }))
    } else if reply.chunked {
        Either::Right(Either::Left(Unsized(Full::new(body))))
    } else {
        Either::Left(Full::new(body))
    };
    Ok(response.body(body).unwrap())
}

/// A body sent one byte per `interval`, chunked.
#[derive(Debug)]
pub struct Trickle {
    rest: Bytes,
    interval: Duration,
    next: std::pin::Pin<Box<tokio::time::Sleep>>,
}

impl hyper::body::Body for Trickle {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<Bytes>, Self::Error>>> {
        if self.rest.is_empty() {
            return std::task::Poll::Ready(None);
        }
        std::task::ready!(self.next.as_mut().poll(cx));
        let deadline = tokio::time::Instant::now() + self.interval;
        self.next.as_mut().reset(deadline);
        let byte = self.rest.split_to(1);
        std::task::Poll::Ready(Some(Ok(hyper::body::Frame::data(byte))))
    }
}

/// A body that does not tell its size, so hyper sends it chunked.
#[derive(Debug)]
pub struct Unsized(Full<Bytes>);

impl hyper::body::Body for Unsized {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<Bytes>, Self::Error>>> {
        std::pin::Pin::new(&mut self.0).poll_frame(cx)
    }
}

/// A counter for ids unique within the test process.
fn next_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// A complete Anthropic Messages response:
/// `{"id":"msg_…","type":"message","role":"assistant","model":"claude-sonnet-4-6","content":content,"stop_reason":stop,"stop_sequence":null,"usage":{"input_tokens":i,"output_tokens":o}}`.
pub fn claude_message(
    content: Value,
    stop_reason: &str,
    input_tokens: u64,
    output_tokens: u64,
) -> Value {
    json!({
        "id": format!("msg_fake{:08}", next_id()),
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-6",
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": null,
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens}
    })
}

/// A complete OpenAI chat.completion:
/// `{"id":"chatcmpl-…","object":"chat.completion","created":…,"model":"gpt-4.1","choices":[{"index":0,"message":message,"finish_reason":finish}],"usage":{"prompt_tokens":p,"completion_tokens":c,"total_tokens":p+c}}`.
pub fn openai_completion(
    message: Value,
    finish_reason: &str,
    prompt_tokens: u64,
    completion_tokens: u64,
) -> Value {
    let created = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    json!({
        "id": format!("chatcmpl-fake{:08}", next_id()),
        "object": "chat.completion",
        "created": created,
        "model": "gpt-4.1",
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens
        }
    })
}

/// An Anthropic `tool_use` block.
pub fn tool_use(id: &str, name: &str, input: Value) -> Value {
    json!({"type": "tool_use", "id": id, "name": name, "input": input})
}

/// An Anthropic `text` block.
pub fn text_block(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

/// An OpenAI assistant message with `tool_calls` (each `(id, name,
/// arguments as the JSON string the API sends)`) and `content`.
pub fn openai_tool_calls(content: Option<&str>, calls: &[(&str, &str, &str)]) -> Value {
    json!({
        "role": "assistant",
        "content": content,
        "tool_calls": calls.iter().map(|(id, name, arguments)| json!({
            "id": id,
            "type": "function",
            "function": {"name": name, "arguments": arguments}
        })).collect::<Vec<_>>()
    })
}

/// An OpenAI assistant message with only text.
pub fn openai_text(content: &str) -> Value {
    json!({"role": "assistant", "content": content})
}

/// `value` without its `cache_control` keys: the prompt-caching
/// breakpoints an Anthropic request carries are metadata, not part of the
/// prompt (where they go is checked by `prompt_cache::`).
pub fn unmarked(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(key, _)| *key != "cache_control")
                .map(|(key, value)| (key.clone(), unmarked(value)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(unmarked).collect()),
        other => other.clone(),
    }
}

/// A URL on a loopback port nothing listens on (bound, then closed), for a
/// network failure.
pub fn closed_port_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    format!("http://{addr}")
}

/// A directory under the system temp dir, removed when dropped.
#[derive(Debug)]
pub struct TempDir {
    /// Its path.
    pub path: PathBuf,
}

impl TempDir {
    /// A new empty directory, unique to this process and call.
    pub fn new() -> TempDir {
        let path = std::env::temp_dir().join(format!(
            "mcp-host-test-{}-{}",
            std::process::id(),
            next_id()
        ));
        std::fs::create_dir_all(&path).unwrap();
        TempDir { path }
    }

    /// Writes `contents` to `name` inside; returns its path.
    pub fn write(&self, name: &str, contents: &str) -> PathBuf {
        let path = self.path.join(name);
        std::fs::write(&path, contents).unwrap();
        path
    }
}

impl Default for TempDir {
    fn default() -> TempDir {
        TempDir::new()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// An `mcp.json` in its own temp dir; the file goes when this is dropped.
#[derive(Debug)]
pub struct McpConfig {
    /// The directory holding it.
    pub dir: TempDir,
    /// The file's path.
    pub path: PathBuf,
}

impl McpConfig {
    /// `config` written as `mcp.json` in a new temp dir.
    pub fn new(config: &Value) -> McpConfig {
        let dir = TempDir::new();
        let path = dir.write("mcp.json", &serde_json::to_string_pretty(config).unwrap());
        McpConfig { dir, path }
    }

    /// One stdio server named `name`: the `everything` example, with `env`.
    pub fn everything(name: &str, env: &[(&str, &str)]) -> McpConfig {
        McpConfig::new(&json!({"mcpServers": {name: everything_entry(env)}}))
    }

    /// The path as a `&str`, for an argument.
    pub fn arg(&self) -> &str {
        self.path.to_str().expect("a UTF-8 temp path")
    }
}

/// The Claude Desktop entry of a stdio `everything` server with `env`.
pub fn everything_entry(env: &[(&str, &str)]) -> Value {
    let env: serde_json::Map<String, Value> = env
        .iter()
        .map(|(k, v)| ((*k).to_owned(), Value::String((*v).to_owned())))
        .collect();
    json!({
        "command": super::everything().to_str().expect("a UTF-8 path"),
        "args": [],
        "env": env
    })
}

/// What one run of the binary did.
#[derive(Debug)]
pub struct HostRun {
    /// How it exited (killed: not success).
    pub status: ExitStatus,
    /// Everything it wrote to stdout.
    pub stdout: String,
    /// Everything it wrote to stderr.
    pub stderr: String,
    /// Its peak resident memory (`VmHWM`), as last read before it exited,
    /// in KiB (0 where `/proc` cannot tell).
    pub peak_rss_kib: u64,
}

impl HostRun {
    /// Each non-empty stdout line parsed as JSON (panics, showing the
    /// output, on a line that is not JSON).
    pub fn json_lines(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                serde_json::from_str(l).unwrap_or_else(|e| {
                    panic!(
                        "stdout line {l:?} is not JSON ({e}); stdout:\n{}\nstderr:\n{}",
                        self.stdout, self.stderr
                    )
                })
            })
            .collect()
    }
}

/// How long [`run_host`] lets the binary run before killing it.
pub const HOST_TIMEOUT: Duration = Duration::from_secs(60);

/// The `mcp-host` binary cargo built for this test target.
pub fn host_binary() -> &'static Path {
    // `option_env!`: the helpers here compile in every test target of the
    // crate, including those built before (or without) the binary; only a
    // test that runs it needs it.
    match option_env!("CARGO_BIN_EXE_mcp-host") {
        Some(path) => Path::new(path),
        None => panic!("cargo did not build the mcp-host binary for this test target"),
    }
}

/// Runs the mcp-host binary (`env!("CARGO_BIN_EXE_mcp-host")`) with `args`,
/// extra `env` (e.g. `ANTHROPIC_BASE_URL`), feeding `stdin` then closing it,
/// with no controlling terminal (setsid), a 60 s kill timeout; returns
/// status, stdout lines, stderr.
///
/// The provider variables (`ANTHROPIC_*`, `OPENAI_*`) of the test's own
/// environment are removed first, so that a developer's real key or base URL
/// can never send a test to the internet; `env` sets the ones a test needs.
pub fn run_host(args: &[&str], env: &[(&str, &str)], stdin: &str) -> HostRun {
    run_host_with(args, env, stdin, |_| {})
}

/// [`run_host`], with `prepare` applied to the command before it starts.
pub fn run_host_with(
    args: &[&str],
    env: &[(&str, &str)],
    stdin: &str,
    prepare: impl FnOnce(&mut Command),
) -> HostRun {
    // `setsid -w`: the binary runs in a new session, so /dev/tty cannot be
    // opened (the `--approve ask` fallback) whether or not the test itself
    // has a terminal. The child is not a process group leader, so setsid
    // execs in place instead of forking: the pid is mcp-host's own.
    let mut command = Command::new("setsid");
    command.arg("-w").arg(host_binary()).args(args);
    for (name, _) in std::env::vars_os() {
        let text = name.to_string_lossy();
        if text.starts_with("ANTHROPIC_") || text.starts_with("OPENAI_") {
            command.env_remove(&name);
        }
    }
    // No test reads the user's approvals (`approvals.json` in the config
    // directory): a directory that does not exist, unless `env` names one.
    let config_home =
        std::env::temp_dir().join(format!("mcp-host-test-{}-no-config", std::process::id()));
    command
        .env("XDG_CONFIG_HOME", config_home)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    prepare(&mut command);
    let mut child = command.spawn().expect("setsid and mcp-host start");
    let mut input = child.stdin.take().unwrap();
    let stdin = stdin.to_owned();
    // Written on a thread: a host that does not read all of stdin before
    // writing a lot must not deadlock the test.
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(stdin.as_bytes());
    });
    let reader = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let stdout = reader(Box::new(child.stdout.take().unwrap()));
    let stderr = reader(Box::new(child.stderr.take().unwrap()));
    let started = Instant::now();
    let mut peak_rss_kib = 0;
    let status = loop {
        // Read before try_wait: once it exits, /proc forgets it.
        if let Some(kib) = vm_hwm_kib(child.id()) {
            peak_rss_kib = kib;
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > HOST_TIMEOUT {
            let _ = child.kill();
            break child.wait().unwrap();
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let _ = writer.join();
    HostRun {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
        peak_rss_kib,
    }
}

/// The `VmHWM` line of `/proc/<pid>/status`, in KiB.
fn vm_hwm_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// `text` cut into pieces of at most `chars` characters (never inside a
/// character, as the APIs' deltas are JSON strings).
fn pieces(text: &str, chars: usize) -> Vec<String> {
    let all: Vec<char> = text.chars().collect();
    all.chunks(chars).map(|c| c.iter().collect()).collect()
}

/// A whole Anthropic message (as [`claude_message`] makes) streamed as the
/// Messages API documents it: `message_start` with empty content, each
/// block started empty and filled by `text_delta`s (3 characters each) or
/// `input_json_delta`s (5 characters of the input's JSON each), blocks of
/// other kinds started whole, a `ping`, `message_delta` with the stop
/// reason and the output tokens, `message_stop`.
pub fn claude_events(message: &Value) -> String {
    let mut events = Vec::new();
    let mut start = message.clone();
    start["content"] = json!([]);
    start["stop_reason"] = Value::Null;
    start["usage"]["output_tokens"] = json!(1);
    events.push(json!({"type": "message_start", "message": start}));
    events.push(json!({"type": "ping"}));
    for (index, block) in message["content"].as_array().unwrap().iter().enumerate() {
        let mut empty = block.clone();
        let deltas: Vec<Value> = match block["type"].as_str() {
            Some("text") => {
                empty["text"] = json!("");
                pieces(block["text"].as_str().unwrap(), 3)
                    .into_iter()
                    .map(|text| json!({"type": "text_delta", "text": text}))
                    .collect()
            }
            Some("tool_use") => {
                empty["input"] = json!({});
                pieces(&block["input"].to_string(), 5)
                    .into_iter()
                    .map(|piece| json!({"type": "input_json_delta", "partial_json": piece}))
                    .collect()
            }
            _ => Vec::new(),
        };
        events.push(json!({"type": "content_block_start", "index": index, "content_block": empty}));
        for delta in deltas {
            events.push(json!({"type": "content_block_delta", "index": index, "delta": delta}));
        }
        events.push(json!({"type": "content_block_stop", "index": index}));
    }
    events.push(json!({
        "type": "message_delta",
        "delta": {"stop_reason": message["stop_reason"], "stop_sequence": null},
        "usage": {"output_tokens": message["usage"]["output_tokens"]}
    }));
    events.push(json!({"type": "message_stop"}));
    events
        .iter()
        .map(|event| {
            format!(
                "event: {}\ndata: {event}\n\n",
                event["type"].as_str().unwrap()
            )
        })
        .collect()
}

/// A whole OpenAI chat.completion (as [`openai_completion`] makes)
/// streamed as Chat Completions documents it with
/// `stream_options.include_usage`: a chunk with the role, `content` pieces
/// of 3 characters, per call a chunk with its `id`, `type` and name, then
/// pieces of 5 characters of its `arguments`, a chunk with the
/// `finish_reason`, a chunk of no choices with the `usage`, `[DONE]`.
pub fn openai_chunks(completion: &Value) -> String {
    let message = &completion["choices"][0]["message"];
    let chunk = |delta: Value, finish: Value| {
        json!({"id": completion["id"], "object": "chat.completion.chunk", "created": completion["created"],
               "model": completion["model"],
               "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}]})
    };
    let mut chunks = vec![chunk(
        json!({"role": "assistant", "content": if message["content"].is_string() { json!("") } else { Value::Null }, "refusal": null}),
        Value::Null,
    )];
    if let Some(content) = message["content"].as_str() {
        for piece in pieces(content, 3) {
            chunks.push(chunk(json!({"content": piece}), Value::Null));
        }
    }
    for (index, call) in message["tool_calls"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        chunks.push(chunk(
            json!({"tool_calls": [{"index": index, "id": call["id"], "type": call["type"],
                   "function": {"name": call["function"]["name"], "arguments": ""}}]}),
            Value::Null,
        ));
        for piece in pieces(call["function"]["arguments"].as_str().unwrap(), 5) {
            chunks.push(chunk(
                json!({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}),
                Value::Null,
            ));
        }
    }
    chunks.push(chunk(
        json!({}),
        completion["choices"][0]["finish_reason"].clone(),
    ));
    chunks.push(
        json!({"id": completion["id"], "object": "chat.completion.chunk",
                       "created": completion["created"], "model": completion["model"],
                       "choices": [], "usage": completion["usage"]}),
    );
    let mut text: String = chunks.iter().map(|c| format!("data: {c}\n\n")).collect();
    text.push_str("data: [DONE]\n\n");
    text
}

impl Reply {
    /// `200` with `events` as `text/event-stream`, sent chunked.
    pub fn sse(events: String) -> Reply {
        Reply::raw(200, events)
            .header("content-type", "text/event-stream")
            .chunked()
    }
}
