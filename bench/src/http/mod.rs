//! The HTTP part of the benchmark: `add` over Streamable HTTP (2026-07-28,
//! JSON responses, HTTP/1.1 keep-alive, 64 connections) against
//! `everything --http ADDR`, the HTTP ceiling (`bench/http`, a minimal
//! hand-written hyper server) and rmcp's stateless Streamable HTTP server
//! (`bench/rmcp`), all built in the same run.
//!
//! Each measured run starts a fresh server process on a free loopback port,
//! drives it with the load generator (`bench/http/src/bin/http-load.rs`, a
//! hyper client in its own process), reads the server's CPU time around the
//! measured calls and its peak RSS after them, and stops it with SIGTERM.
//! Servers take turns within a repetition, in an order that rotates.
//!
//! `everything` joins only when it serves HTTP: the driver (bench/src/main.rs)
//! builds it with the examples crate's `http` feature (off by default:
//! `cargo build --release -p examples --example everything --features http`),
//! starts `everything --http 127.0.0.1:PORT` and waits for the port to
//! accept connections; a build without the transport (e.g. one given with
//! `--everything PATH`) exits or serves stdio, so the port never opens and
//! the report says `everything` was skipped.

mod figures;
mod server;

use figures::{Metric, push, spread, table};
pub(crate) use server::{Server, free_port, post_once, stdio_reference, terminate};

use crate::procfs;
use crate::session::Target;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::Duration;

/// Marks the generated HTTP part of `BENCHMARKS.md`.
pub(crate) const BEGIN: &str = "<!-- bench:http:begin -->";
/// Ends the generated HTTP part of `BENCHMARKS.md`.
pub(crate) const END: &str = "<!-- bench:http:end -->";

/// The protocol version of every HTTP call.
const VERSION: &str = "2026-07-28";
/// How long a server may take to accept connections after its spawn.
const LISTEN_TIMEOUT: Duration = Duration::from_secs(5);

/// What the HTTP part runs.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    /// Interleaved repetitions.
    pub(crate) reps: usize,
    /// Measured `add` calls per run.
    pub(crate) calls: usize,
    /// Unmeasured calls before them, in the same connections.
    pub(crate) warm_up: usize,
    /// Keep-alive connections, one call in flight each.
    pub(crate) connections: usize,
}

/// The programs the HTTP part runs, all in the release target directory.
#[derive(Debug)]
pub(crate) struct Programs {
    /// `everything` (it gets `--http ADDR`).
    pub(crate) everything: PathBuf,
    /// The hyper ceiling.
    pub(crate) ceiling: PathBuf,
    /// rmcp's server.
    pub(crate) rmcp: PathBuf,
    /// The load generator.
    pub(crate) load: PathBuf,
}

impl Programs {
    /// The programs as built into `release` (`<target>/release`).
    pub(crate) fn in_release(release: &Path, everything: Option<PathBuf>) -> Programs {
        Programs {
            everything: everything.unwrap_or_else(|| release.join("examples").join("everything")),
            ceiling: release.join("http-ceiling"),
            rmcp: release.join("rmcp-server"),
            load: release.join("http-load"),
        }
    }
}

/// Builds the ceiling, the load generator and rmcp's server (release) into
/// the target directory `target`. rmcp's crate is a workspace of its own
/// (`bench/rmcp`, with its own `Cargo.lock`) so that building or testing the
/// workspace never compiles it.
pub(crate) fn build(cargo: &std::ffi::OsStr, root: &Path, target: &Path) -> io::Result<()> {
    let rmcp_manifest = root.join("bench").join("rmcp").join("Cargo.toml");
    let builds: [Vec<&std::ffi::OsStr>; 2] = [
        [
            "build",
            "--release",
            "-p",
            "bench-http",
            "--bin",
            "http-ceiling",
            "--bin",
            "http-load",
        ]
        .map(std::ffi::OsStr::new)
        .to_vec(),
        vec![
            "build".as_ref(),
            "--release".as_ref(),
            "--manifest-path".as_ref(),
            rmcp_manifest.as_os_str(),
            "--target-dir".as_ref(),
            target.as_os_str(),
        ],
    ];
    for args in builds {
        let status = Command::new(cargo).args(&args).current_dir(root).status()?;
        if !status.success() {
            return Err(io::Error::other(format!(
                "cargo {} failed",
                args.iter()
                    .map(|a| a.to_string_lossy())
                    .collect::<Vec<_>>()
                    .join(" ")
            )));
        }
    }
    Ok(())
}

/// The version of rmcp in `bench/rmcp/Cargo.lock`.
fn rmcp_version(root: &Path) -> String {
    std::fs::read_to_string(root.join("bench").join("rmcp").join("Cargo.lock"))
        .ok()
        .and_then(|lock| {
            const KEY: &str = "name = \"rmcp\"\nversion = \"";
            let at = lock.find(KEY)? + KEY.len();
            let len = lock[at..].find('"')?;
            Some(lock[at..at + len].to_owned())
        })
        .unwrap_or_else(|| "(version unknown)".to_owned())
}

/// Samples per metric for one server.
type Samples = BTreeMap<Metric, Vec<f64>>;

/// The HTTP part, as the markdown text between [`BEGIN`] and [`END`].
pub(crate) fn measure(
    options: &Options,
    root: &Path,
    programs: &Programs,
    scratch: &Path,
    command: &str,
) -> io::Result<String> {
    let everything_stdio = Target {
        label: "everything",
        program: programs.everything.clone(),
        env: vec![("RATE_LIMIT".to_owned(), "off".to_owned())],
        stderr_log: scratch.join("everything-http.stderr"),
    };
    let (reference, server_info) = stdio_reference(&everything_stdio, 7)?;
    let everything = Server {
        label: "everything",
        program: programs.everything.clone(),
        args: vec!["--http".to_owned()],
        env: vec![("RATE_LIMIT".to_owned(), "off".to_owned())],
        stderr_log: scratch.join("everything-http.stderr"),
    };
    let ceiling = Server {
        label: "http-ceiling",
        program: programs.ceiling.clone(),
        args: Vec::new(),
        env: vec![("CEILING_SERVER_INFO".to_owned(), server_info.to_string())],
        stderr_log: scratch.join("http-ceiling.stderr"),
    };
    let rmcp = Server {
        label: "rmcp",
        program: programs.rmcp.clone(),
        args: Vec::new(),
        env: Vec::new(),
        stderr_log: scratch.join("rmcp.stderr"),
    };

    // The ceiling must send everything's bytes; check that first.
    let mut notes = Vec::new();
    {
        let mut running = ceiling
            .start()?
            .map_err(|why| io::Error::other(format!("http-ceiling {why}")))?;
        let (status, body) = post_once(running.addr, 7)?;
        running.stop()?;
        if status != 200 || body != reference {
            return Err(io::Error::other(format!(
                "http-ceiling's answer differs from everything's over stdio:\n  {status} {}\n  {}",
                String::from_utf8_lossy(&body),
                String::from_utf8_lossy(&reference)
            )));
        }
    }
    // Does this everything serve HTTP?
    let with_everything = match everything.start()? {
        Err(why) => {
            eprintln!("everything --http {why}: measuring the ceiling and rmcp only");
            notes.push(format!(
                "- **`everything` skipped**: `everything --http 127.0.0.1:PORT` {why} (a build without the HTTP \
                 transport ignores the flag and serves stdio), so only the ceiling and rmcp were measured and the \
                 `everything` columns are empty."
            ));
            false
        }
        Ok(mut running) => {
            let (status, body) = post_once(running.addr, 7)?;
            running.stop()?;
            if status != 200 {
                return Err(io::Error::other(format!(
                    "everything --http answered {status}: {}",
                    String::from_utf8_lossy(&body)
                )));
            }
            notes.push(if body == reference {
                "- `everything --http`'s answer to the first call is byte-identical to its stdio answer and to the ceiling's."
                    .to_owned()
            } else {
                format!(
                    "- `everything --http`'s answer differs from its stdio answer (the load generator checks the sum of every answer): `{}`.",
                    String::from_utf8_lossy(&body)
                )
            });
            true
        }
    };

    let mut servers = vec![&ceiling, &rmcp];
    if with_everything {
        servers.insert(0, &everything);
    }
    let mut samples: Vec<Samples> = servers.iter().map(|_| Samples::new()).collect();
    let load_before = procfs::load_average();
    eprintln!("HTTP warm-up…");
    for server in &servers {
        let warm = Options {
            calls: (options.calls / 10).max(1),
            ..options.clone()
        };
        run_once(server, &warm, &programs.load, &mut Samples::new())?;
    }
    for rep in 0..options.reps {
        eprintln!("HTTP repetition {}/{}…", rep + 1, options.reps);
        for k in 0..servers.len() {
            let i = (k + rep) % servers.len();
            run_once(servers[i], options, &programs.load, &mut samples[i])?;
        }
    }
    let load_after = procfs::load_average();

    let column = |label: &str| {
        servers
            .iter()
            .position(|s| s.label == label)
            .map(|i| &samples[i])
    };
    let empty = Samples::new();
    let e = column("everything").unwrap_or(&empty);
    let c = column("http-ceiling").unwrap_or(&empty);
    let r = column("rmcp").unwrap_or(&empty);

    let mut text = String::new();
    let _ = writeln!(text, "{BEGIN}");
    let _ = writeln!(
        text,
        "<!-- Generated by `cargo run --release -p bench`; edit outside the markers. -->\n"
    );
    let _ = writeln!(
        text,
        "### HTTP results\n\nCommand:\n\n```sh\n{command}\n```\n"
    );
    let _ = writeln!(
        text,
        "- Machine: {}; 1-minute load average {load_before:.2} before the HTTP servers were measured, {load_after:.2} after. \
         The load generator runs on the same machine (one tokio thread), so it competes with the server for the cores.",
        procfs::machine()
    );
    let _ = writeln!(
        text,
        "- Servers: `everything --http ADDR`; **http-ceiling** (`bench/http/src/bin/http-ceiling.rs`: hyper 1.x HTTP/1.1, \
         one tokio thread like `everything`, `serde_json`, no framework; checks the routing headers against the body and answers \
         with the bytes `everything` sends); **rmcp** {} (`bench/rmcp`: `StreamableHttpService`, stateless, JSON responses, \
         `#[tool] add` returning `Json<{{sum}}>`, served by hyper HTTP/1.1 on tokio's multi-thread runtime as in rmcp's examples). \
         All three are built with the workspace's release profile in this run.",
        rmcp_version(root)
    );
    let _ = writeln!(
        text,
        "- Load: `bench/http/src/bin/http-load.rs`, hyper's HTTP/1.1 client with {} keep-alive connections, one call in flight on each; \
         every call a 2026-07-28 `tools/call add` POST to `/mcp` with `Content-Type`, `Accept: application/json, text/event-stream`, \
         `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and the `_meta` envelope. Per run: a fresh server process, {} unmeasured \
         calls, then {} measured ones; server CPU is read from `/proc` around the measured calls, RSS after them. \
         {} interleaved repetitions (the order rotates) after one warm-up round; each cell is the median.",
        options.connections, options.warm_up, options.calls, options.reps
    );
    let _ = writeln!(
        text,
        "- Every response was checked: status 200, `application/json`, the call's id and the right sum (byte check on each, full parse of every 16th); \
         the ceiling's answer to a first call is byte-identical to `everything`'s over stdio."
    );
    for note in &notes {
        let _ = writeln!(text, "{note}");
    }
    let _ = writeln!(text);
    let (table, unmet) = table(e, c, r, with_everything);
    let _ = writeln!(text, "{table}");
    let _ = writeln!(
        text,
        "Targets (goal: within 1.5× of the hyper ceiling and ahead of rmcp on every metric) not met: {}.\n",
        if !with_everything {
            "not evaluated (`everything` was not measured)".to_owned()
        } else if unmet.is_empty() {
            "none".to_owned()
        } else {
            unmet.join("; ")
        }
    );
    let _ = writeln!(
        text,
        "<details><summary>Per-repetition values (HTTP)</summary>\n\n{}\n</details>",
        spread(&servers, &samples)
    );
    let _ = writeln!(text, "{END}");
    Ok(text)
}

/// One run against a fresh server process; adds its samples.
fn run_once(
    server: &Server,
    options: &Options,
    load: &Path,
    samples: &mut Samples,
) -> io::Result<()> {
    let mut running = server
        .start()?
        .map_err(|why| io::Error::other(format!("{} {why}", server.label)))?;
    let pid = running.child.id();
    let mut generator = Command::new(load)
        .arg(format!("http://{}/mcp", running.addr))
        .args(["--connections", &options.connections.to_string()])
        .args(["--warm-up", &options.warm_up.to_string()])
        .args(["--calls", &options.calls.to_string()])
        .arg("--wait")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| io::Error::new(e.kind(), format!("spawning {}: {e}", load.display())))?;
    let result = drive(&mut generator, server.label, || {
        Ok((procfs::cpu_ns(pid)?, procfs::cpu_ticks(pid)?))
    });
    if result.is_err() {
        let _ = generator.kill();
    }
    let _ = generator.wait();
    let (report, (cpu0, ticks0), (cpu1, ticks1)) = result?;
    let (cpu_ns, cpu_ticks) = (cpu1.saturating_sub(cpu0), ticks1.saturating_sub(ticks0));
    let rss = procfs::status_kib(pid, "VmHWM")?;
    running.stop()?;
    let calls = report["calls"].as_f64().unwrap_or(f64::NAN);
    let elapsed = report["elapsed_s"].as_f64().unwrap_or(f64::NAN);
    let tick_us = 1e6 / procfs::ticks_per_second() as f64;
    push(samples, Metric::Throughput, calls / elapsed);
    push(
        samples,
        Metric::P50,
        report["p50_us"].as_f64().unwrap_or(f64::NAN),
    );
    push(
        samples,
        Metric::P99,
        report["p99_us"].as_f64().unwrap_or(f64::NAN),
    );
    push(samples, Metric::Cpu, cpu_ns as f64 / 1e3 / calls);
    push(
        samples,
        Metric::CpuTicks,
        cpu_ticks as f64 * tick_us / calls,
    );
    push(samples, Metric::PeakRss, rss as f64 / 1024.0);
    Ok(())
}

/// Waits for the generator's warm-up, starts its measured calls, and reads
/// its report; `reading` (the servers' CPU time) is taken right before and
/// right after the measured calls.
pub(crate) fn drive<T>(
    generator: &mut Child,
    label: &str,
    mut reading: impl FnMut() -> io::Result<T>,
) -> io::Result<(Value, T, T)> {
    let failed = |what: &str| io::Error::other(format!("{label}: the load generator {what}"));
    let mut stdout: BufReader<ChildStdout> = BufReader::new(
        generator
            .stdout
            .take()
            .ok_or_else(|| failed("has no stdout"))?,
    );
    let mut line = String::new();
    stdout.read_line(&mut line)?;
    if line.trim() != "ready" {
        return Err(failed("failed during the warm-up"));
    }
    let before = reading()?;
    generator
        .stdin
        .as_mut()
        .ok_or_else(|| failed("has no stdin"))?
        .write_all(b"go\n")?;
    line.clear();
    stdout.read_line(&mut line)?;
    let after = reading()?;
    let report: Value =
        serde_json::from_str(&line).map_err(|_| failed("failed during the measured calls"))?;
    Ok((report, before, after))
}
