//! Interop tests: the official MCP SDK clients drive the `everything` example
//! over stdio (`client.mjs`, `client.py`) and over Streamable HTTP at
//! `http://127.0.0.1:PORT/mcp` (`http_client.mjs`, `http_client.py`; the
//! server runs as `everything --http 127.0.0.1:0`). Scripts and pinned client
//! versions are in `tests/interop/`.
//!
//! Protocol versions negotiated with `everything` over stdio (observed with
//! the pins in `tests/interop/package-lock.json` and
//! `tests/interop/requirements.txt`):
//!
//! - TypeScript `@modelcontextprotocol/sdk` 1.32.2: `2025-11-25`. The v1
//!   client only speaks the legacy handshake: `initialize` offering
//!   `2025-11-25`, the server echoes it; it never sends `server/discover`.
//! - Python `mcp` 2.3.0, default `mode="auto"`: `2026-07-28`. It sends
//!   `server/discover` (enveloped at `2026-07-28`) first, adopts the
//!   `DiscoverResult` and then sends only enveloped requests, no `initialize`.
//!   It falls back to `initialize` on the same process on any JSON-RPC error
//!   (except a `-32022` listing only modern versions), on a 10 s probe
//!   timeout, or on a result without a modern version.
//! - Python `mcp` 2.3.0, `mode="legacy"`: `2025-11-25` via `initialize`.
//!
//! Over Streamable HTTP, the same:
//!
//! - TypeScript 1.32.2 (`Client` + `StreamableHTTPClientTransport`):
//!   `2025-11-25` via `initialize`; progress, an elicitation handler,
//!   cancellation by `AbortSignal` and 50 concurrent calls all work.
//! - Python 2.3.0, `mcp.Client(url)` (default `mode="auto"`): `2026-07-28` via
//!   `server/discover`; it sends `Mcp-Param-Region`/`Mcp-Param-Shard` for
//!   `locate` once it has listed the tools (a non-ASCII value in the
//!   `=?base64?...?=` sentinel), and on a call refused for missing headers it
//!   re-lists the tools and resends with them. Elicitation (two
//!   input-required rounds) and progress work too.
//! - Python 2.3.0, `mode="legacy"` (the streamable HTTP client with the
//!   `initialize` handshake): `2025-11-25`.
//!
//! The clients are installed on first use: `npm ci` in `tests/interop`, and a
//! virtualenv at `target/interop-venv` with `pip install -r
//! tests/interop/requirements.txt`. Node.js (>= 20, with npm) and Python
//! (>= 3.10, with `venv`) must be on `PATH`; the tests fail (they do not skip)
//! without them. Set `MCP_INTEROP_SERVER` to a
//! server executable to test that instead of building `everything`.
//!
//! `interop_surface.rs` runs the same clients on resources, prompts and
//! completions.

// The pinned TypeScript client, installed once (shared with `replicas`).
use crate::common::node;
use serde_json::{Value, json};
use std::fs::{self, File};
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock, mpsc};
use std::thread;
use std::time::{Duration, Instant};

/// Longest a client script may run before it is killed and the test fails.
const CLIENT_TIMEOUT: Duration = Duration::from_secs(60);

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

pub(super) fn interop_dir() -> PathBuf {
    workspace_root().join("tests").join("interop")
}

/// `target/<profile>` of the build running this test: this executable lives in
/// `target/<profile>/deps/`. Falls back to `target/{debug,release}` under the
/// workspace for an unusual layout.
fn profile_dir() -> PathBuf {
    let from_exe = std::env::current_exe().ok().and_then(|exe| {
        let deps = exe.parent()?;
        (deps.file_name()? == "deps").then(|| deps.parent().map(Path::to_path_buf))?
    });
    from_exe.unwrap_or_else(|| {
        let profile = if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        };
        workspace_root().join("target").join(profile)
    })
}

fn target_dir() -> PathBuf {
    profile_dir()
        .parent()
        .expect("target/<profile> has a parent")
        .to_path_buf()
}

/// Serialises installs across concurrently running test processes.
fn install_lock() -> File {
    let dir = target_dir();
    fs::create_dir_all(&dir).expect("create the target dir");
    let file =
        File::create(dir.join("interop-install.lock")).expect("create the install lock file");
    file.lock().expect("lock the install lock file");
    file
}

/// Run `cmd` to completion; panic with its output if it fails to start or exits non-zero.
fn run_checked(cmd: &mut Command, what: &str) {
    let output = cmd
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{what}: could not start {cmd:?}: {e}"));
    assert!(
        output.status.success(),
        "{what}: {cmd:?} failed with {}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
}

/// The `everything` server, built once per test process with the same profile
/// and target dir as this test (a no-op when it is already up to date).
pub(super) fn server() -> &'static Path {
    static SERVER: OnceLock<PathBuf> = OnceLock::new();
    SERVER.get_or_init(|| {
        if let Some(path) = std::env::var_os("MCP_INTEROP_SERVER") {
            return PathBuf::from(path);
        }
        let profile_dir = profile_dir();
        let profile = profile_dir
            .file_name()
            .and_then(|n| n.to_str())
            .expect("profile dir name")
            .to_owned();
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut cmd = Command::new(cargo);
        cmd.arg("build")
            .arg("--manifest-path")
            .arg(workspace_root().join("Cargo.toml"))
            // The whole workspace, as tests/suite/common's `example_binary` and
            // `cargo test --workspace` select it: the same features (the
            // tests crate's, http and redis among them), so nothing is
            // compiled twice.
            .args(["--workspace", "--example", "everything", "--target-dir"])
            .arg(target_dir());
        match profile.as_str() {
            "debug" => {}
            "release" => {
                cmd.arg("--release");
            }
            other => {
                cmd.args(["--profile", other]);
            }
        }
        run_checked(&mut cmd, "building the everything example");
        let bin = profile_dir
            .join("examples")
            .join(format!("everything{}", std::env::consts::EXE_SUFFIX));
        assert!(
            bin.is_file(),
            "cargo build succeeded but {} is missing",
            bin.display()
        );
        bin
    })
}

/// Whether `stamp` exists and holds exactly `expected`.
fn stamp_matches(stamp: &Path, expected: &[u8]) -> bool {
    fs::read(stamp).is_ok_and(|have| have == expected)
}

/// The interpreter of the `target/interop-venv` virtualenv, created and
/// populated from `requirements.txt` unless the stamp written after the last
/// successful install matches it.
pub(super) fn python_client() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| {
        let requirements = interop_dir().join("requirements.txt");
        let wanted = fs::read(&requirements).expect("read tests/interop/requirements.txt");
        let venv = target_dir().join("interop-venv");
        let python = if cfg!(windows) {
            venv.join("Scripts").join("python.exe")
        } else {
            venv.join("bin").join("python")
        };
        let stamp = venv.join(".interop-requirements.txt");
        if !(python.is_file() && stamp_matches(&stamp, &wanted)) {
            let _guard = install_lock();
            if !(python.is_file() && stamp_matches(&stamp, &wanted)) {
                if venv.exists() {
                    fs::remove_dir_all(&venv).expect("remove the stale interop venv");
                }
                let system_python = ["python3", "python"]
                    .into_iter()
                    .find(|p| {
                        Command::new(p)
                            .args(["-c", "import sys, venv; sys.exit(sys.version_info < (3, 10))"])
                            .stdin(Stdio::null())
                            .stdout(Stdio::null())
                            .stderr(Stdio::null())
                            .status()
                            .is_ok_and(|s| s.success())
                    })
                    .expect("no usable Python: install Python >= 3.10 with the venv module as python3 or python");
                run_checked(
                    Command::new(system_python).args(["-m", "venv"]).arg(&venv),
                    "creating the interop venv",
                );
                run_checked(
                    Command::new(&python)
                        .args(["-m", "pip", "install", "--disable-pip-version-check", "--quiet", "-r"])
                        .arg(&requirements),
                    "installing the Python SDK into the interop venv",
                );
                fs::write(&stamp, &wanted).expect("write the pip install stamp");
            }
        }
        python
    })
}

/// Run a client script against the server; return its final JSON line after
/// asserting that it exited 0 within [`CLIENT_TIMEOUT`] having run at least
/// `min_checks` checks.
pub(super) fn run_client(name: &str, mut cmd: Command, min_checks: u64) -> Value {
    let started = Instant::now();
    let mut child = cmd
        .current_dir(interop_dir())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{name}: could not start {cmd:?}: {e}"));
    let drain = |mut pipe: Box<dyn Read + Send>| {
        thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = pipe.read_to_end(&mut buf);
            String::from_utf8_lossy(&buf).into_owned()
        })
    };
    let stdout = drain(Box::new(child.stdout.take().expect("piped stdout")));
    let stderr = drain(Box::new(child.stderr.take().expect("piped stderr")));
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for the client") {
            break Some(status);
        }
        if started.elapsed() > CLIENT_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        thread::sleep(Duration::from_millis(20));
    };
    let stdout = stdout.join().expect("stdout reader");
    let stderr = stderr.join().expect("stderr reader");
    let report = || format!("--- stdout ---\n{stdout}\n--- stderr ---\n{stderr}");
    let Some(status) = status else {
        panic!(
            "{name}: client timed out after {CLIENT_TIMEOUT:?} (server hang?)\n{}",
            report()
        );
    };
    assert!(
        status.success(),
        "{name}: client failed ({status})\n{}",
        report()
    );
    let last = stdout
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_else(|| panic!("{name}: client printed nothing\n{}", report()));
    let summary: Value = serde_json::from_str(last)
        .unwrap_or_else(|e| panic!("{name}: final line is not JSON ({e}): {last}\n{}", report()));
    let checks = summary["checks"].as_u64().unwrap_or(0);
    assert!(
        checks >= min_checks,
        "{name}: only {checks} checks ran: {summary}\n{}",
        report()
    );
    println!(
        "{name}: SDK {} negotiated {} ({checks} checks passed in {:.1?})",
        summary["sdkVersion"].as_str().unwrap_or("?"),
        summary["negotiatedProtocolVersion"].as_str().unwrap_or("?"),
        started.elapsed(),
    );
    summary
}

fn node_command() -> Command {
    let dir = node::interop_dir();
    let mut cmd = Command::new("node");
    cmd.arg(dir.join("client.mjs")).arg(server());
    cmd
}

fn python_command(mode: &str) -> Command {
    let mut cmd = Command::new(python_client());
    cmd.arg(interop_dir().join("client.py"))
        .args(["--mode", mode])
        .arg(server());
    cmd
}

#[test]
fn typescript_sdk_client() {
    let summary = run_client("typescript", node_command(), 40);
    assert_eq!(summary["client"], "typescript");
    // The v1 client offers its newest version, 2025-11-25, which the server
    // supports and so must echo.
    assert_eq!(
        summary["negotiatedProtocolVersion"], "2025-11-25",
        "{summary}"
    );
}

#[test]
fn python_sdk_client_default_mode() {
    let summary = run_client("python (auto)", python_command("auto"), 40);
    assert_eq!(summary["client"], "python");
    // `server/discover` is answered, so the client stays in the modern era.
    assert_eq!(summary["era"], "modern", "{summary}");
    assert_eq!(
        summary["negotiatedProtocolVersion"], "2026-07-28",
        "{summary}"
    );
}

#[test]
fn python_sdk_client_legacy_mode() {
    let summary = run_client("python (legacy)", python_command("legacy"), 40);
    assert_eq!(summary["client"], "python");
    assert_eq!(summary["era"], "legacy", "{summary}");
    assert_eq!(
        summary["negotiatedProtocolVersion"], "2025-11-25",
        "{summary}"
    );
}

/// A running `everything --http 127.0.0.1:0` (the port the OS picked, read
/// from its log), killed when dropped.
pub(super) struct HttpServer {
    child: Child,
    pub(super) url: String,
    /// Everything the server has logged so far (at `mcpfn_runtime=debug`).
    log: Arc<Mutex<String>>,
}

impl HttpServer {
    pub(super) fn start() -> HttpServer {
        let mut child = Command::new(server())
            .args(["--http", "127.0.0.1:0"])
            .env("MCP_LOG", "mcpfn_runtime=debug")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("everything --http starts");
        let stderr = child.stderr.take().expect("piped stderr");
        let (tx, rx) = mpsc::channel();
        let log = Arc::new(Mutex::new(String::new()));
        let sink = Arc::clone(&log);
        // Keeps draining the log after the address so the server never blocks on stderr.
        thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                {
                    let mut log = sink.lock().unwrap_or_else(|e| e.into_inner());
                    log.push_str(&line);
                    log.push('\n');
                }
                if let Some(at) = line.find("address=") {
                    let addr = line[at + "address=".len()..]
                        .split_whitespace()
                        .next()
                        .unwrap_or("");
                    let _ = tx.send(addr.to_owned());
                }
            }
        });
        let addr = match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(addr) => addr,
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("everything --http did not log its address: {e}");
            }
        };
        HttpServer {
            child,
            url: format!("http://{addr}/mcp"),
            log,
        }
    }

    /// Waits up to 5 s for the server to log a line containing `needle`;
    /// returns the log so far when it never does.
    fn wait_for_log(&self, needle: &str) -> Result<(), String> {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let log = self.log.lock().unwrap_or_else(|e| e.into_inner()).clone();
            if log.contains(needle) {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(log);
            }
            thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The tools `everything` lists (sorted), as the HTTP client scripts report them.
const EVERYTHING_TOOLS: [&str; 18] = [
    "add",
    "bonus",
    "book_table",
    "build_report",
    "chart",
    "crawl",
    "echo",
    "fail",
    "get_weather_data",
    "locate",
    "noisy",
    "panic",
    "sample_content",
    "slow",
    "split_words",
    "stats",
    "stats_sort",
    "toggle_bonus",
];

fn python_http_command(mode: &str, url: &str) -> Command {
    let mut cmd = Command::new(python_client());
    cmd.arg(interop_dir().join("http_client.py"))
        .args(["--mode", mode, url]);
    cmd
}

#[test]
fn typescript_sdk_client_over_http() {
    let http = HttpServer::start();
    let mut cmd = Command::new("node");
    cmd.arg(node::interop_dir().join("http_client.mjs"))
        .arg(&http.url);
    let summary = run_client("typescript (http)", cmd, 11);
    assert_eq!(
        summary,
        json!({
            "client": "typescript-http",
            "sdkVersion": "1.32.2",
            // The v1 client only speaks the `initialize` handshake, over HTTP too.
            "negotiatedProtocolVersion": "2025-11-25",
            "checks": 11,
            "tools": EVERYTHING_TOOLS,
            // One notification per step of slow(300 ms, 3 steps), in order.
            "progress": [
                {"progress": 1, "total": 3},
                {"progress": 2, "total": 3},
                {"progress": 3, "total": 3},
            ],
            // The handler saw the question and its answer booked the table.
            "elicitations": ["Whose name is the table for 4 under?"],
            "booking": {"booked": true, "name": "Ada", "party": 4},
            "cancelled": true,
            "concurrentCorrect": 50,
        })
    );
    // The abort reached the server as `notifications/cancelled` for the
    // aborted call (the script's sixth request, id 5) and stopped it there,
    // rather than only rejecting on the client side.
    if let Err(log) = http.wait_for_log("cancelled a call id=5") {
        panic!("the server never cancelled the aborted `slow` call:\n{log}");
    }
}

#[test]
fn python_sdk_client_over_http_default_mode() {
    let http = HttpServer::start();
    let summary = run_client(
        "python (http, auto)",
        python_http_command("auto", &http.url),
        9,
    );
    assert_eq!(
        summary,
        json!({
            "client": "python-http",
            "sdkVersion": "2.3.0",
            "mode": "auto",
            // `server/discover` is answered over HTTP, so the client stays modern.
            "negotiatedProtocolVersion": "2026-07-28",
            "era": "modern",
            "tools": EVERYTHING_TOOLS,
            "located": [
                {"region": "eu-west1", "shard": 7},
                {"region": "São Paulo ☀", "shard": null},
            ],
            // Two input-required rounds (name, then deposit) answered by the
            // elicitation callback, then the booking.
            "elicitations": [
                "Whose name is the table for 10 under?",
                "A party of 10 needs a deposit. Pay it now for Grace?",
            ],
            "booking": {"booked": true, "name": "Grace", "party": 10},
            "progress": [[1.0, 3.0], [2.0, 3.0], [3.0, 3.0]],
            // The hooked connection had not listed the tools: its first
            // `locate` went without `Mcp-Param-*` headers and was refused
            // (HEADER_MISMATCH); the client re-listed and resent it with
            // them. The non-ASCII region travels in the base64 sentinel.
            "toolsCallHeaders": [
                {
                    "mcp-protocol-version": "2026-07-28",
                    "mcp-method": "tools/call",
                    "mcp-name": "locate",
                },
                {
                    "mcp-protocol-version": "2026-07-28",
                    "mcp-method": "tools/call",
                    "mcp-name": "locate",
                    "mcp-param-region": "eu-west1",
                    "mcp-param-shard": "7",
                },
                {
                    "mcp-protocol-version": "2026-07-28",
                    "mcp-method": "tools/call",
                    "mcp-name": "locate",
                    "mcp-param-region": "=?base64?U8OjbyBQYXVsbyDimIA=?=",
                },
            ],
            "checks": 9,
        })
    );
}

#[test]
fn python_sdk_client_over_http_legacy_mode() {
    let http = HttpServer::start();
    let summary = run_client(
        "python (http, legacy)",
        python_http_command("legacy", &http.url),
        3,
    );
    assert_eq!(
        summary,
        json!({
            "client": "python-http",
            "sdkVersion": "2.3.0",
            "mode": "legacy",
            "negotiatedProtocolVersion": "2025-11-25",
            "era": "legacy",
            "tools": EVERYTHING_TOOLS,
            "checks": 3,
        })
    );
}
