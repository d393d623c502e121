//! The host side: MCP clients under the same load against `everything`, in
//! one run. mcp-host's `McpClient` (`client-load`), rmcp's client
//! (`bench/rmcp`'s `rmcp-client`; `--no-rmcp` leaves it out), the official TypeScript
//! SDK client (`bench/clients/ts_client.mjs`) and the official Python SDK
//! client (`bench/clients/py_client.py`) each make `--calls` (5,000) `add`
//! calls with `--inflight` (64) in flight on one connection, every answer
//! checked, over stdio (the client spawns `everything`) and over Streamable
//! HTTP (a fresh `everything --http 127.0.0.1:0` per run), in each protocol
//! era the client speaks; `everything` runs with `RATE_LIMIT=off` (its
//! default limit would refuse most of the calls). `--reps` (3) interleaved repetitions, the order of
//! the clients rotated each time; each row is the median of its runs.
//!
//! ```text
//! cargo run --release -p bench --bin clients -- [--calls N] [--inflight N]
//!     [--reps N] [--no-build] [--no-rmcp]
//! ```
//!
//! It builds `everything` (with `http`), `client-load` and `rmcp-client`
//! (release), installs
//! the pinned SDKs when missing (`npm ci` in tests/interop; the virtualenv
//! `target/interop-venv` from tests/interop/requirements.txt, as the interop
//! tests do) and prints a markdown table: calls/s, p50 and p99 latency, the
//! client process's peak RSS, and the ratio of our calls/s (same transport,
//! same protocol revision) to the row's.

use serde_json::Value;
use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// Longest one client run may take before it is killed.
const RUN_TIMEOUT: Duration = Duration::from_secs(300);

/// One client in one configuration: a row of the table.
#[derive(Debug)]
struct Row {
    transport: &'static str,
    client: &'static str,
    mode: &'static str,
    runs: Vec<Value>,
}

fn main() {
    let mut calls = 5_000usize;
    let mut inflight = 64usize;
    let mut reps = 3usize;
    let mut build = true;
    let mut rmcp = true;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut number = || {
            args.next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{arg} needs a number"))
        };
        match arg.as_str() {
            "--calls" => calls = number(),
            "--inflight" => inflight = number(),
            "--reps" => reps = number(),
            "--no-build" => build = false,
            "--no-rmcp" => rmcp = false,
            other => panic!("unknown argument {other}"),
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    if build {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        for args in [
            &[
                "build",
                "--release",
                "-p",
                "examples",
                "--example",
                "everything",
                "--features",
                "http",
            ][..],
            &["build", "--release", "-p", "bench", "--bin", "client-load"][..],
        ] {
            let ok = Command::new(&cargo)
                .args(args)
                .current_dir(&root)
                .status()
                .is_ok_and(|s| s.success());
            assert!(ok, "cargo {} failed", args.join(" "));
        }
        if rmcp {
            // A workspace of its own (bench/rmcp), built into this target
            // directory as the HTTP benchmark builds its server.
            let ok = Command::new(&cargo)
                .args(["build", "--release", "--manifest-path"])
                .arg(root.join("bench/rmcp/Cargo.toml"))
                .arg("--target-dir")
                .arg(&target)
                .args(["--bin", "rmcp-client"])
                .status()
                .is_ok_and(|s| s.success());
            assert!(ok, "building bench/rmcp's rmcp-client failed");
        }
    }
    let everything = target.join("release/examples/everything");
    let ours = target.join("release/client-load");
    let rmcp_client = target.join("release/rmcp-client");
    let sdk = ts_sdk(&root);
    let python = python_sdk(&root, &target);
    let ts_script = root.join("bench/clients/ts_client.mjs");
    let py_script = root.join("bench/clients/py_client.py");

    let mut rows = Vec::new();
    for transport in ["stdio", "http"] {
        let peers = [
            ("mcp-host", "auto"),
            ("mcp-host", "legacy"),
            ("rmcp 3.11", "auto"),
            ("rmcp 3.11", "legacy"),
            ("TypeScript SDK 1.32.2", "legacy"),
            ("Python SDK 2.3.0", "auto"),
            ("Python SDK 2.3.0", "legacy"),
        ];
        for (client, mode) in peers
            .into_iter()
            .filter(|(client, _)| rmcp || !client.starts_with("rmcp"))
        {
            rows.push(Row {
                transport,
                client,
                mode,
                runs: Vec::new(),
            });
        }
    }
    let load_before = load_average();
    let count = rows.len();
    for rep in 0..reps {
        for k in 0..count {
            let row = &mut rows[(k + rep) % count];
            let http = (row.transport == "http").then(|| HttpServer::start(&everything));
            let server = match &http {
                Some(server) => ("--http", server.url()),
                None => ("--stdio", everything.to_string_lossy().into_owned()),
            };
            let mut cmd;
            if row.client == "mcp-host" {
                cmd = Command::new(&ours);
                cmd.args([server.0, &server.1, "--mode", row.mode]);
                cmd.args(["--calls", &calls.to_string()]);
                cmd.args(["--inflight", &inflight.to_string()]);
            } else if row.client.starts_with("rmcp") {
                cmd = Command::new(&rmcp_client);
                cmd.args([server.0, &server.1, row.mode]);
                cmd.args([calls.to_string(), inflight.to_string()]);
            } else if row.client.starts_with("TypeScript") {
                cmd = Command::new("node");
                cmd.arg(&ts_script).arg(&sdk).args([server.0, &server.1]);
                cmd.args([calls.to_string(), inflight.to_string()]);
            } else {
                cmd = Command::new(&python);
                cmd.arg(&py_script).args([server.0, &server.1, row.mode]);
                cmd.args([calls.to_string(), inflight.to_string()]);
            }
            // The stdio server is the client's child: it gets this through
            // the client's environment, which every client passes on whole.
            cmd.env("RATE_LIMIT", "off");
            let result = run(cmd);
            eprintln!(
                "rep {rep}: {} {} {}: {result}",
                row.transport, row.client, row.mode
            );
            row.runs.push(result);
        }
    }
    print!("{}", report(&rows, calls, inflight, reps));
    println!(
        "\n1-minute load average {load_before} before the runs, {} after.",
        load_average()
    );
}

/// The 1-minute load average (`/proc/loadavg`): the machine is shared.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_owned))
        .unwrap_or_else(|| "unknown".into())
}

/// Runs one client; its JSON line, killed past [`RUN_TIMEOUT`].
fn run(mut cmd: Command) -> Value {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("a client starts");
    let stdout = child.stdout.take().expect("piped stdout");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    let line = rx.recv_timeout(RUN_TIMEOUT);
    let _ = child.kill();
    let status = child.wait();
    let line = line.unwrap_or_else(|_| panic!("a client hung: {cmd:?}"));
    serde_json::from_str(&line)
        .unwrap_or_else(|e| panic!("{cmd:?} ({status:?}) printed {line:?}: {e}"))
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(0.0)
}

fn stat(row: &Row, key: &str) -> f64 {
    median(row.runs.iter().filter_map(|r| r[key].as_f64()).collect())
}

fn report(rows: &[Row], calls: usize, inflight: usize, reps: usize) -> String {
    let mut out = format!(
        "{calls} `add` calls, {inflight} in flight, one connection; median of {reps} interleaved runs.\n\n\
         | transport | client | mode | protocol | calls/s | p50 ms | p99 ms | client peak RSS MiB | mcp-host ÷ this (calls/s) |\n\
         |---|---|---|---|---:|---:|---:|---:|---:|\n"
    );
    for row in rows {
        let version = row
            .runs
            .first()
            .map_or("", |r| r["version"].as_str().unwrap_or(""));
        let ours = rows.iter().find(|o| {
            o.client == "mcp-host"
                && o.transport == row.transport
                && o.runs.first().and_then(|r| r["version"].as_str()) == Some(version)
        });
        let ratio = ours.map_or("–".to_owned(), |o| {
            format!("{:.2}×", stat(o, "calls_per_s") / stat(row, "calls_per_s"))
        });
        out.push_str(&format!(
            "| {} | {} | {} | {} | {:.0} | {:.2} | {:.2} | {:.1} | {} |\n",
            row.transport,
            row.client,
            row.mode,
            version,
            stat(row, "calls_per_s"),
            stat(row, "p50_us") / 1000.0,
            stat(row, "p99_us") / 1000.0,
            stat(row, "rss_kib") / 1024.0,
            ratio
        ));
    }
    out
}

/// A running `everything --http 127.0.0.1:0`, killed when dropped.
struct HttpServer {
    child: Child,
    addr: String,
}

impl HttpServer {
    /// Starts it on a port free a moment ago (the server logs nothing by
    /// default, so the port is chosen here) and waits until it accepts.
    fn start(everything: &Path) -> HttpServer {
        let addr = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .to_string();
        let child = Command::new(everything)
            .args(["--http", &addr])
            .env("RATE_LIMIT", "off")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("everything starts");
        let server = HttpServer { child, addr };
        for _ in 0..300 {
            if std::net::TcpStream::connect(&server.addr).is_ok() {
                return server;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("everything --http {} never accepted", server.addr);
    }

    fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `tests/interop` with the pinned TypeScript SDK installed (`npm ci` when
/// the stamp the interop tests write does not match the lock file).
fn ts_sdk(root: &Path) -> PathBuf {
    let dir = root.join("tests/interop");
    let lock =
        std::fs::read(dir.join("package-lock.json")).expect("tests/interop/package-lock.json");
    let stamp = dir.join("node_modules/.interop-installed");
    if std::fs::read(&stamp).ok().as_deref() != Some(&lock[..]) {
        let ok = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(&dir)
            .status()
            .is_ok_and(|s| s.success());
        assert!(
            ok,
            "npm ci in tests/interop failed (Node.js >= 20 with npm)"
        );
        std::fs::write(&stamp, &lock).expect("the npm stamp");
    }
    dir
}

/// The Python of `target/interop-venv` with the pinned Python SDK, made as
/// the interop tests make it when missing.
fn python_sdk(root: &Path, target: &Path) -> PathBuf {
    let requirements = root.join("tests/interop/requirements.txt");
    let wanted = std::fs::read(&requirements).expect("tests/interop/requirements.txt");
    let venv = target.join("interop-venv");
    let python = venv.join("bin/python");
    let stamp = venv.join(".interop-requirements.txt");
    if !python.is_file() || std::fs::read(&stamp).ok().as_deref() != Some(&wanted[..]) {
        let ok = Command::new("python3")
            .args(["-m", "venv"])
            .arg(&venv)
            .status()
            .is_ok_and(|s| s.success())
            && Command::new(&python)
                .args([
                    "-m",
                    "pip",
                    "install",
                    "--disable-pip-version-check",
                    "--quiet",
                    "-r",
                ])
                .arg(&requirements)
                .status()
                .is_ok_and(|s| s.success());
        assert!(
            ok,
            "making target/interop-venv failed (Python >= 3.10 with venv)"
        );
        std::fs::write(&stamp, &wanted).expect("the venv stamp");
    }
    python
}
