//! Shared test harness: a spawned example server over real pipes, and
//! validation of every response against the official MCP schemas.

#![allow(dead_code, unreachable_pub)]

pub mod auth;
pub mod http;
pub mod node;
pub mod services;

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// How long any single response may take before a test fails.
pub const REPLY_TIMEOUT: Duration = Duration::from_secs(20);

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The path of an example binary, built once per test process with the same
/// profile as the tests (a no-op when `cargo test` already built it).
///
/// The examples crate turns on no feature by default (a stdio server); the
/// tests crate asks for `http`, `redis`, `auth` and `otel` through its
/// dev-dependency on it (tests/Cargo.toml). The build selects the whole
/// workspace, as `scripts/test` (`cargo test --workspace`) does, so cargo
/// resolves the same features for every crate and reuses what that run
/// built instead of compiling the dependency graph a second time.
pub fn example_binary(name: &str) -> PathBuf {
    static BUILT: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let profile = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    if !built.iter().any(|b| b == name) {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut cmd = Command::new(cargo);
        cmd.current_dir(workspace_root()).args([
            "build",
            "--quiet",
            "--workspace",
            "--example",
            name,
        ]);
        if profile == "release" {
            cmd.arg("--release");
        }
        let status = cmd.status().expect("cargo runs");
        assert!(status.success(), "building example {name} failed");
        built.push(name.to_owned());
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"));
    target.join(profile).join("examples").join(name)
}

/// A `kB` field of `/proc/<pid>/status` (`VmRSS`, `VmHWM`), in KiB.
pub fn status_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("proc status");
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|rest| rest.trim().strip_suffix("kB"))
        .and_then(|kib| kib.trim().parse().ok())
        .unwrap_or_else(|| panic!("no {field} in /proc/{pid}/status"))
}

/// The lines of a spawned child's piped stdout, read on a thread of their
/// own so a test can wait for each with a timeout.
pub fn stdout_lines(child: &mut Child) -> Receiver<String> {
    let stdout = child.stdout.take().expect("piped stdout");
    let (tx, lines) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    lines
}

/// A server process talking JSON lines over its stdin/stdout.
pub struct Peer {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// The protocol revision whose schema validates responses.
    pub version: String,
}

impl Peer {
    /// Spawns the `everything` example.
    pub fn everything() -> Peer {
        Peer::spawn("everything", &[])
    }

    /// Spawns an example with extra environment variables.
    pub fn spawn(example: &str, env: &[(&str, &str)]) -> Peer {
        Peer::spawn_binary(&example_binary(example), env)
    }

    /// Spawns the server at `binary` with extra environment variables.
    pub fn spawn_binary(binary: &Path, env: &[(&str, &str)]) -> Peer {
        let mut child = Command::new(binary)
            .envs(env.iter().copied())
            .env("RUST_BACKTRACE", "0")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("example starts");
        let lines = stdout_lines(&mut child);
        Peer {
            stdin: child.stdin.take(),
            child,
            lines,
            version: "2025-11-25".into(),
        }
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Writes one raw line.
    pub fn send_raw(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line.as_bytes()).expect("write");
        stdin.write_all(b"\n").expect("write");
        stdin.flush().expect("flush");
    }

    /// Writes raw bytes (valid UTF-8 or not).
    pub fn stdin_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write");
        stdin.flush().expect("flush");
    }

    /// Writes one message.
    pub fn send(&mut self, message: &Value) {
        self.send_raw(&message.to_string());
    }

    /// The next line, parsed; every line must be a schema-valid JSON-RPC message.
    pub fn recv(&mut self) -> Value {
        let line = match self.lines.recv_timeout(REPLY_TIMEOUT) {
            Ok(line) => line,
            Err(RecvTimeoutError::Timeout) => panic!("no response within {REPLY_TIMEOUT:?}"),
            Err(RecvTimeoutError::Disconnected) => panic!("the server closed stdout"),
        };
        let message: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"));
        assert_valid(&self.version, "JSONRPCMessage", &message);
        message
    }

    /// The next line, parsed, without schema validation (for bulk checks).
    pub fn recv_unvalidated(&mut self) -> Value {
        let line = self
            .lines
            .recv_timeout(REPLY_TIMEOUT)
            .unwrap_or_else(|e| panic!("no response within {REPLY_TIMEOUT:?}: {e}"));
        serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"))
    }

    /// Asserts that nothing comes before the answer to a marker request
    /// sent now (`ping`; `server/discover` in the 2026-07-28 era): what the
    /// lines before it caused has been written by then, however slow the
    /// machine, where a quiet window passes whenever it is slower.
    pub fn expect_nothing_before_a_marker(&mut self) {
        static MARKERS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let id = format!(
            "marker-{}",
            MARKERS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        );
        let marker = if self.version == "2026-07-28" {
            json!({"jsonrpc": "2.0", "id": id, "method": "server/discover",
                "params": {"_meta": envelope()}})
        } else {
            json!({"jsonrpc": "2.0", "id": id, "method": "ping"})
        };
        self.send(&marker);
        let next = self.recv_unvalidated();
        assert_eq!(
            next["id"], id,
            "expected nothing before the marker, got: {next}"
        );
    }

    /// Sends a request and returns its response (the next line).
    pub fn request(&mut self, message: Value) -> Value {
        self.send(&message);
        let response = self.recv();
        assert_eq!(response["id"], message["id"], "response to a different id");
        response
    }

    /// A legacy session at `version`, handshake done.
    pub fn legacy(version: &str) -> Peer {
        let mut peer = Peer::everything();
        peer.version = version.to_owned();
        let response = peer.request(initialize(0, version));
        assert_eq!(response["result"]["protocolVersion"], version);
        peer.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        peer
    }

    /// A peer validated against the 2026-07-28 schema.
    pub fn modern() -> Peer {
        let mut peer = Peer::everything();
        peer.version = "2026-07-28".into();
        peer
    }

    /// Closes stdin and waits for the process to exit.
    pub fn close(mut self) -> (ExitStatus, Vec<String>) {
        drop(self.stdin.take());
        let deadline = Instant::now() + REPLY_TIMEOUT;
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                break status;
            }
            assert!(
                Instant::now() < deadline,
                "the server did not exit after stdin closed"
            );
            std::thread::sleep(Duration::from_millis(10));
        };
        // The reader thread forwards what is left and ends at end of output.
        let mut rest = Vec::new();
        while let Ok(line) = self.lines.recv_timeout(REPLY_TIMEOUT) {
            rest.push(line);
        }
        (status, rest)
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An `initialize` request.
pub fn initialize(id: u64, version: &str) -> Value {
    json!({
        "jsonrpc": "2.0", "id": id, "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "stdio-tests", "version": "1.0.0"}
        }
    })
}

/// The 2026-07-28 `_meta` envelope.
pub fn envelope() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "stdio-tests", "version": "1.0.0"}
    })
}

/// A request; `params._meta` gets the envelope when `modern`.
pub fn request(id: u64, method: &str, params: Value, modern: bool) -> Value {
    let mut params = params;
    if modern {
        params["_meta"] = envelope();
    }
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A `tools/call` request.
pub fn call(id: u64, name: &str, arguments: Value, modern: bool) -> Value {
    request(
        id,
        "tools/call",
        json!({"name": name, "arguments": arguments}),
        modern,
    )
}

/// The file of the schema that validates `version`. 2024-11-05 and 2025-03-26
/// have no copy here; the 2025-06-18 schema, a superset for what a tools
/// server sends, stands in for them.
fn schema_file(version: &str) -> &'static str {
    match version {
        "2026-07-28" => "draft.schema.json",
        "2025-11-25" => "2025-11-25.schema.json",
        _ => "2025-06-18.schema.json",
    }
}

fn schema_document(version: &str) -> &'static Value {
    static DOCS: OnceLock<Mutex<Vec<(String, &'static Value)>>> = OnceLock::new();
    let file = schema_file(version);
    let docs = DOCS.get_or_init(Default::default);
    let mut docs = docs.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, doc)) = docs.iter().find(|(f, _)| f == file) {
        return doc;
    }
    let path = workspace_root().join("tests/schemas").join(file);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let doc: &'static Value =
        Box::leak(Box::new(serde_json::from_str(&text).expect("schema JSON")));
    docs.push((file.to_owned(), doc));
    doc
}

/// Asserts `instance` is valid against definition `def` of `version`'s schema.
pub fn assert_valid(version: &str, def: &str, instance: &Value) {
    let doc = schema_document(version);
    let defs_key = if doc.get("$defs").is_some() {
        "$defs"
    } else {
        "definitions"
    };
    let mut schema = doc.clone();
    schema["$ref"] = format!("#/{defs_key}/{def}").into();
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "not a valid {def} ({version}): {errors:?}\n{instance:#}"
    );
}

/// Asserts `instance` is valid against a tool's own schema.
pub fn assert_matches_schema(schema: &Value, instance: &Value) {
    let validator = jsonschema::validator_for(schema).expect("tool schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|e| e.to_string())
        .collect();
    assert!(
        errors.is_empty(),
        "{instance} does not match {schema}: {errors:?}"
    );
}
