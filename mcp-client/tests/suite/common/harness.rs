//! The harness both crates' suites share (mcp-host's includes this file):
//! a bound on every test, the workspace's examples built once and started
//! over stdio or on a loopback port, and small readers of results.

#![allow(dead_code, unreachable_pub)]

use serde_json::Value;
use std::cell::Cell;
use std::future::Future;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// How long any one test may take, not counting the build of the examples
/// it runs (see [`bounded`]).
pub const TEST_TIMEOUT: Duration = Duration::from_secs(60);

/// Runs `test` on a multi-threaded runtime, failing it past [`TEST_TIMEOUT`].
pub fn run<F: Future<Output = ()>>(test: F) {
    init_log();
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
        .block_on(bounded(test));
}

thread_local! {
    /// Time this thread spent in [`example`]: compiling an example, or
    /// waiting for another test's build of one.
    static BUILDING: Cell<Duration> = const { Cell::new(Duration::ZERO) };
}

/// Awaits `test`, failing it ("the test hung") once it has run
/// [`TEST_TIMEOUT`] beyond the time its thread spent building examples.
///
/// The first test of a process to need an example compiles it (minutes on a
/// loaded machine after a change), and every test that needs one meanwhile
/// waits for that build: cargo's work, not the test's, so it does not count.
/// Await this on the thread that polls the test (`block_on`'s), where the
/// test's own calls to [`example`] run.
pub async fn bounded<F: Future<Output = ()>>(test: F) {
    let started = Instant::now();
    let building_before = BUILDING.get();
    let deadline = || started + TEST_TIMEOUT + (BUILDING.get() - building_before);
    tokio::pin!(test);
    loop {
        let at = deadline();
        tokio::select! {
            biased;
            () = &mut test => return,
            () = tokio::time::sleep_until(at.into()) => {
                // A build that ran within the last poll of `test` moved it.
                assert!(Instant::now() < deadline(), "the test hung");
            }
        }
    }
}

fn init_log() {
    static ONCE: OnceLock<()> = OnceLock::new();
    ONCE.get_or_init(|| {
        let _ = tracing_subscriber::fmt()
            .with_writer(std::io::stderr)
            .with_max_level(tracing::Level::INFO)
            .try_init();
    });
}

/// The workspace's root directory.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The `everything` example, built once per test process with the tests'
/// profile.
///
/// The build selects the whole workspace, as the `tests` crate's harness
/// and `scripts/test` do: cargo then resolves one feature set for
/// `examples` (with `http`, through the `tests` crate's dev-dependency) and
/// reuses what the suite built, instead of compiling (and overwriting) a
/// second variant of the binary.
pub fn everything() -> PathBuf {
    example("everything")
}

/// The example `name` (`everything`, `conformance`), built once per test
/// process as [`everything`] says.
pub fn example(name: &str) -> PathBuf {
    static BUILT: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let profile = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    let waited = Instant::now();
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
        assert!(
            cmd.status().expect("cargo runs").success(),
            "building {name} failed"
        );
        built.push(name.to_owned());
    }
    drop(built);
    BUILDING.set(BUILDING.get() + waited.elapsed());
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"));
    target.join(profile).join("examples").join(name)
}

/// A call's arguments from a `json!` object.
pub fn args(value: Value) -> Option<mcpfn_protocol::model::JsonObject> {
    value.as_object().cloned()
}

/// The text blocks of a result, concatenated.
pub fn text(result: &mcpfn_protocol::model::CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|b| match b {
            mcpfn_protocol::model::ContentBlock::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect()
}

/// A running `everything --http 127.0.0.1:0` and its log.
pub struct HttpServer {
    pub child: Child,
    pub addr: String,
    pub log: Arc<Mutex<String>>,
}

impl HttpServer {
    pub fn start() -> HttpServer {
        HttpServer::start_example("everything")
    }

    /// The example `name` (`everything`, `conformance`) on a loopback port.
    pub fn start_example(name: &str) -> HttpServer {
        let mut child = Command::new(example(name))
            .args(["--http", "127.0.0.1:0"])
            .env("MCP_LOG", "mcpfn_runtime=debug")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the example starts");
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
        HttpServer { child, addr, log }
    }

    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    pub fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    /// Waits until the log contains `text`.
    pub async fn wait_for_log(&self, text: &str) {
        for _ in 0..200 {
            if self.log().contains(text) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("the server never logged {text:?}: {}", self.log());
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
