//! The `mcp-host` program's own cost in a conversation: host CPU per turn
//! and peak RSS over `--lines` (50) user lines, each answered by one tool
//! call whose result is `--bytes` (10,240) bytes of text, against
//! `host-baseline` (a minimal hand-written tool-use loop) in the same run.
//!
//! ```text
//! cargo run --release -p bench --bin host -- [--reps N] [--lines N]
//!     [--bytes N] [--no-build] [--host PATH] [--write]
//! ```
//!
//! - The model: a scripted fake Anthropic Messages API served by this
//!   process on loopback (hyper, one current-thread runtime on a thread of
//!   its own). To a request whose last message is the user's line it
//!   answers `stop_reason: tool_use` with a text block and one `tool_use` of
//!   the `read_text` tool (`{"bytes": N}`); to one that ends with the
//!   `tool_result` it answers `end_turn` with a text block; both with
//!   `usage`. It checks each request (headers, the tool offered, every
//!   `tool_result` carrying exactly N bytes of text, not an error) and
//!   records its size and line.
//! - The tool: `host-tool` (`bench/src/bin/host-tool.rs`), a stdio MCP
//!   server on mcp-runtime with the one tool `read_text(bytes)`.
//! - The subjects, fed the same lines, one at a time (the next line is
//!   written once the answer to the last one is read):
//!   `mcp-host --config CFG --json --approve all` (`target/release/mcp-host`,
//!   built with `cargo build --release -p mcpfn-host`) and
//!   `host-baseline --config CFG` (`bench/src/bin/host-baseline.rs`), both
//!   with `ANTHROPIC_BASE_URL` at the fake. Every stdout line is checked
//!   (`end_turn`, 2 turns, one tool call that succeeded, the fake's text).
//! - Measured on the subject process only (not its MCP server, not the
//!   fake): the on-CPU time of its threads (`/proc/<pid>/task/*/schedstat`,
//!   exact to the ns) after every answer, for the CPU per line and how it
//!   grows with the history; utime+stime from `/proc/<pid>/stat` (the whole
//!   process, exited threads included, but in 10 ms ticks: a whole
//!   conversation is a few of them, so it is a cross-check only) and
//!   `VmHWM` from `/proc/<pid>/status`, read after the first answer and
//!   after the last one, before stdin is closed.
//!
//! One warm-up run of each, then `--reps` (21) interleaved repetitions
//! (mcp-host, baseline, then baseline, mcp-host, …); each cell is the
//! median. `--write` puts the report into `BENCHMARKS.md` between
//! `<!-- bench:host:begin -->` and `<!-- bench:host:end -->` (appended when
//! missing). `--host PATH` measures a prebuilt `mcp-host` (not built).

#[path = "../fake_api.rs"]
mod fake_api;
#[path = "../procfs.rs"]
mod procfs;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

/// Marks the generated part of `BENCHMARKS.md`.
const BEGIN: &str = "<!-- bench:host:begin -->";
/// Ends the generated part of `BENCHMARKS.md`.
const END: &str = "<!-- bench:host:end -->";
/// The key both subjects send; the fake refuses any other.
const API_KEY: &str = "bench-key";
/// Longest the answer to one line may take before the run is abandoned.
const LINE_TIMEOUT: Duration = Duration::from_secs(60);
/// The fake's text when the conversation's line ends.
const FINAL_TEXT: &str = "The page is read.";

/// Command-line options.
#[derive(Debug)]
struct Options {
    reps: usize,
    lines: usize,
    bytes: usize,
    build: bool,
    write: bool,
    host: Option<PathBuf>,
}

/// One request as the fake saw it.
#[derive(Clone, Debug)]
struct Seen {
    /// The user line it belongs to (1-based): the user messages with text.
    line: usize,
    /// Its body's size.
    bytes: usize,
}

/// The fake Messages API's state, shared with the driver.
#[derive(Debug, Default)]
struct Fake {
    /// The size of every `read_text` result.
    bytes: usize,
    seen: Mutex<Vec<Seen>>,
    /// What was wrong with requests, reported after the run.
    problems: Mutex<Vec<String>>,
    next_id: AtomicU64,
}

impl Fake {
    /// Forgets the previous run.
    fn take(&self) -> (Vec<Seen>, Vec<String>) {
        let seen = std::mem::take(&mut *self.seen.lock().unwrap_or_else(|e| e.into_inner()));
        let problems =
            std::mem::take(&mut *self.problems.lock().unwrap_or_else(|e| e.into_inner()));
        (seen, problems)
    }

    fn problem(&self, text: String) {
        self.problems
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(text);
    }
}

/// An Anthropic error response.
fn api_error(status: StatusCode, kind: &str, message: &str) -> Response<Full<Bytes>> {
    let body = json!({"type": "error", "error": {"type": kind, "message": message}});
    let mut response = Response::new(Full::new(Bytes::from(body.to_string())));
    *response.status_mut() = status;
    response
}

/// The text of a `tool_result`'s content: a string or text blocks.
fn result_text_len(content: &Value) -> Option<usize> {
    match content {
        Value::String(text) => Some(text.len()),
        Value::Array(blocks) => blocks
            .iter()
            .map(|b| (b["type"] == "text").then(|| b["text"].as_str().map(str::len))?)
            .sum(),
        _ => None,
    }
}

/// Whether `message` is a user message with the user's own text.
fn is_user_line(message: &Value) -> bool {
    message["role"] == "user"
        && match &message["content"] {
            Value::String(_) => true,
            Value::Array(blocks) => blocks.iter().any(|b| b["type"] == "text"),
            _ => false,
        }
}

/// Answers one request of a subject.
async fn answer(request: Request<Incoming>, fake: Arc<Fake>) -> Response<Full<Bytes>> {
    if request.method() != Method::POST || request.uri().path() != "/v1/messages" {
        fake.problem(format!("{} {}", request.method(), request.uri()));
        return api_error(StatusCode::NOT_FOUND, "not_found_error", "no such endpoint");
    }
    let headers = request.headers();
    if headers.get("x-api-key").and_then(|v| v.to_str().ok()) != Some(API_KEY) {
        return api_error(
            StatusCode::UNAUTHORIZED,
            "authentication_error",
            "invalid x-api-key",
        );
    }
    if headers
        .get("anthropic-version")
        .and_then(|v| v.to_str().ok())
        != Some("2023-06-01")
    {
        fake.problem("no anthropic-version: 2023-06-01".into());
    }
    let Ok(body) = request.into_body().collect().await else {
        return api_error(StatusCode::BAD_REQUEST, "invalid_request_error", "body");
    };
    let body = body.to_bytes();
    let Ok(request) = serde_json::from_slice::<Value>(&body) else {
        fake.problem("a body that is not JSON".into());
        return api_error(StatusCode::BAD_REQUEST, "invalid_request_error", "not JSON");
    };
    let messages = request["messages"]
        .as_array()
        .map_or(&[][..], Vec::as_slice);
    let line = messages.iter().filter(|m| is_user_line(m)).count();
    let Some(tool) = request["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["name"].as_str())
        .find(|name| name.ends_with("read_text"))
    else {
        fake.problem(format!("line {line}: read_text not offered"));
        return api_error(StatusCode::BAD_REQUEST, "invalid_request_error", "no tool");
    };
    let last = messages.last().map_or(&Value::Null, |m| &m["content"]);
    let results: Vec<&Value> = last
        .as_array()
        .into_iter()
        .flatten()
        .filter(|b| b["type"] == "tool_result")
        .collect();
    for result in &results {
        let len = result_text_len(&result["content"]);
        if len != Some(fake.bytes) || result["is_error"] == true {
            fake.problem(format!(
                "line {line}: a tool_result of {len:?} bytes (is_error {})",
                result["is_error"]
            ));
        }
    }
    fake.seen
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(Seen {
            line,
            bytes: body.len(),
        });
    let id = fake.next_id.fetch_add(1, Ordering::Relaxed);
    // About 4 bytes a token, as for English text.
    let input_tokens = body.len() / 4;
    let response = if results.is_empty() {
        json!({
            "id": format!("msg_{id}"), "type": "message", "role": "assistant",
            "model": request["model"],
            "content": [
                {"type": "text", "text": "I will read the page."},
                {"type": "tool_use", "id": format!("toolu_{id}"), "name": tool,
                 "input": {"bytes": fake.bytes}},
            ],
            "stop_reason": "tool_use", "stop_sequence": null,
            "usage": {"input_tokens": input_tokens, "output_tokens": 40},
        })
    } else {
        json!({
            "id": format!("msg_{id}"), "type": "message", "role": "assistant",
            "model": request["model"],
            "content": [{"type": "text", "text": FINAL_TEXT}],
            "stop_reason": "end_turn", "stop_sequence": null,
            "usage": {"input_tokens": input_tokens, "output_tokens": 8},
        })
    };
    let mut response = Response::new(Full::new(Bytes::from(response.to_string())));
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    response
}

/// What one run of a subject measured.
#[derive(Debug)]
struct Run {
    /// utime+stime at the end, in clock ticks.
    ticks: u64,
    /// Peak RSS at the end.
    hwm_kib: u64,
    /// Peak RSS after the first answer.
    first_hwm_kib: u64,
    /// Minor page faults after the first answer and after the last.
    faults: (u64, u64),
    /// On-CPU ns of the live threads after each answer (cumulative).
    cpu_after: Vec<u64>,
    /// Wall time from writing each line to reading its answer.
    walls: Vec<Duration>,
    /// The fake's requests.
    seen: Vec<Seen>,
}

impl Run {
    /// On-CPU ns of the live threads after the last answer.
    fn cpu_end(&self) -> u64 {
        self.cpu_after.last().copied().unwrap_or(0)
    }

    /// Mean on-CPU µs per line over lines `from..=to` (1-based), from the
    /// thread times taken after each answer.
    fn cpu_per_line_us(&self, from: usize, to: usize) -> f64 {
        let before = self.cpu_after[from - 2];
        let after = self.cpu_after[to - 1];
        after.saturating_sub(before) as f64 / 1e3 / (to + 1 - from) as f64
    }

    /// Bytes POSTed for line `line` (both of its requests).
    fn line_bytes(&self, line: usize) -> usize {
        self.seen
            .iter()
            .filter(|s| s.line == line)
            .map(|s| s.bytes)
            .sum()
    }
}

/// Minor page faults of the whole process so far (`minflt`, field 10 of
/// `/proc/<pid>/stat`): memory the kernel had to hand the process afresh.
fn minor_faults(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|text| {
            // Fields after the command name's ')': state is field 3, so
            // minflt (10) is at index 7.
            let (_, rest) = text.rsplit_once(')')?;
            rest.split_whitespace().nth(7)?.parse().ok()
        })
        .unwrap_or(0)
}

/// Runs one subject through the conversation.
fn run_once(
    program: &Path,
    args: &[&str],
    url: &str,
    fake: &Fake,
    lines: usize,
) -> Result<Run, String> {
    let _ = fake.take();
    let mut child = Command::new(program)
        .args(args)
        .env("ANTHROPIC_BASE_URL", url)
        .env("ANTHROPIC_API_KEY", API_KEY)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("{}: {e}", program.display()))?;
    let pid = child.id();
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let mut stderr = child.stderr.take().ok_or("no stderr")?;
    // Kept for the error message; drained so the subject never blocks on it.
    let logs = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut cpu_after = Vec::with_capacity(lines);
    let mut walls = Vec::with_capacity(lines);
    let mut failure = None;
    let mut measured = None;
    let mut first_hwm_kib = 0;
    let mut faults = (0, 0);
    for i in 1..=lines {
        let started = Instant::now();
        if let Err(e) = writeln!(stdin, "Please read page {i} and tell me when you are done.")
            .and_then(|()| stdin.flush())
        {
            failure = Some(format!("line {i}: writing stdin: {e}"));
            break;
        }
        let answer = match rx.recv_timeout(LINE_TIMEOUT) {
            Ok(Ok(answer)) => answer,
            other => {
                failure = Some(format!("line {i}: no answer ({other:?})"));
                break;
            }
        };
        walls.push(started.elapsed());
        cpu_after.push(procfs::cpu_ns(pid).unwrap_or(0));
        let answer: Value = serde_json::from_str(&answer).unwrap_or(Value::Null);
        let ok = answer["stop_reason"] == "end_turn"
            && answer["turns"] == 2
            && answer["text"] == FINAL_TEXT
            && answer["tool_calls"].as_array().is_some_and(|calls| {
                calls.len() == 1 && calls[0]["is_error"] == false && calls[0]["server"] == "pages"
            });
        if !ok {
            failure = Some(format!("line {i}: unexpected answer {answer}"));
            break;
        }
        if i == 1 {
            first_hwm_kib = procfs::status_kib(pid, "VmHWM").map_err(|e| e.to_string())?;
            faults.0 = minor_faults(pid);
        }
        if i == lines {
            faults.1 = minor_faults(pid);
            measured = Some((
                procfs::cpu_ticks(pid).map_err(|e| e.to_string())?,
                procfs::status_kib(pid, "VmHWM").map_err(|e| e.to_string())?,
            ));
        }
    }
    drop(stdin);
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    let logs = logs.join().unwrap_or_default();
    let (seen, problems) = fake.take();
    if status.is_none_or(|s| !s.success()) && failure.is_none() {
        failure = Some(format!("exit status {status:?} after stdin closed"));
    }
    if !problems.is_empty() && failure.is_none() {
        failure = Some(format!("the fake API saw: {}", problems.join("; ")));
    }
    if let Some(failure) = failure {
        let tail: String = logs
            .chars()
            .rev()
            .take(4000)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        return Err(format!(
            "{}: {failure}\n--- its stderr (end) ---\n{tail}",
            program.display()
        ));
    }
    let (ticks, hwm_kib) = measured.ok_or("not measured")?;
    Ok(Run {
        ticks,
        hwm_kib,
        first_hwm_kib,
        faults,
        cpu_after,
        walls,
        seen,
    })
}

fn parse_options() -> Options {
    let mut options = Options {
        reps: 21,
        lines: 50,
        bytes: 10_240,
        build: true,
        write: false,
        host: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut number = || {
            args.next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{arg} needs a number"))
        };
        match arg.as_str() {
            "--reps" => options.reps = number(),
            "--lines" => options.lines = number(),
            "--bytes" => options.bytes = number(),
            "--no-build" => options.build = false,
            "--write" => options.write = true,
            "--host" => {
                options.host = Some(
                    args.next()
                        .map(PathBuf::from)
                        .unwrap_or_else(|| panic!("--host needs a path")),
                );
            }
            _ => {
                eprintln!(
                    "usage: host [--reps N] [--lines N] [--bytes N] [--no-build] [--host PATH] [--write]"
                );
                std::process::exit(2);
            }
        }
    }
    // Lines 2–11 and the last 10 are reported; the median needs one run.
    assert!(options.lines >= 21, "--lines must be at least 21");
    assert!(options.reps >= 1, "--reps must be at least 1");
    options
}

fn main() {
    let options = parse_options();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    if options.build {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut builds = vec![
            &[
                "build",
                "--release",
                "-p",
                "bench",
                "--bin",
                "host-tool",
                "--bin",
                "host-baseline",
            ][..],
        ];
        if options.host.is_none() {
            builds.push(
                &[
                    "build",
                    "--release",
                    "-p",
                    "mcpfn-host",
                    "--bin",
                    "mcp-host",
                ][..],
            );
        }
        for args in builds {
            let ok = Command::new(&cargo)
                .args(args)
                .current_dir(&root)
                .status()
                .is_ok_and(|s| s.success());
            assert!(ok, "cargo {} failed", args.join(" "));
        }
    }
    let host = options
        .host
        .clone()
        .unwrap_or_else(|| target.join("release/mcp-host"));
    let baseline = target.join("release/host-baseline");
    let tool = target.join("release/host-tool");
    let config = std::env::temp_dir().join(format!("bench-host-{}.json", std::process::id()));
    let config_text = json!({"mcpServers": {"pages": {"command": tool, "args": []}}});
    std::fs::write(&config, config_text.to_string()).expect("the config file");
    let config_arg = config.to_string_lossy().into_owned();
    let host_args = ["--config", &config_arg, "--json", "--approve", "all"];
    let baseline_args = ["--config", &config_arg];

    let fake = Arc::new(Fake {
        bytes: options.bytes,
        ..Fake::default()
    });
    let url = fake_api::serve(Arc::clone(&fake), answer).expect("the fake API");
    let load_before = procfs::load_average();
    let compilers = procfs::foreign_compilers(std::process::id());
    let started = Instant::now();
    let subjects: [(&Path, &[&str]); 2] = [(&host, &host_args), (&baseline, &baseline_args)];
    let mut runs: [Vec<Run>; 2] = [Vec::new(), Vec::new()];
    let result = (|| {
        for (program, args) in subjects {
            run_once(program, args, &url, &fake, options.lines)?;
        }
        for rep in 0..options.reps {
            for k in 0..2 {
                let which = if rep % 2 == 0 { k } else { 1 - k };
                let (program, args) = subjects[which];
                let run = run_once(program, args, &url, &fake, options.lines)?;
                eprintln!(
                    "rep {rep}: {}: {} ticks, VmHWM {} KiB",
                    program.display(),
                    run.ticks,
                    run.hwm_kib
                );
                runs[which].push(run);
            }
        }
        Ok::<_, String>(())
    })();
    let _ = std::fs::remove_file(&config);
    if let Err(e) = result {
        eprintln!("host: {e}");
        std::process::exit(1);
    }
    let elapsed = started.elapsed();
    let compilers = compilers.max(procfs::foreign_compilers(std::process::id()));
    let size = |path: &Path| std::fs::metadata(path).map_or(0, |m| m.len());
    let sizes = [size(&host), size(&baseline)];
    let text = report(
        &options,
        &runs,
        (load_before, compilers),
        elapsed,
        (&root, sizes),
    );
    print!("{text}");
    if options.write {
        let path = root.join("BENCHMARKS.md");
        write_report(&path, &text).expect("BENCHMARKS.md written");
        eprintln!("wrote {}", path.display());
    }
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(f64::NAN)
}

/// The commit the measured programs were built from, and whether the
/// program's or the benchmark's sources had uncommitted changes.
fn source(root: &Path) -> String {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(root)
            .output()
            .ok()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
            .unwrap_or_default()
    };
    let commit = git(&["rev-parse", "--short", "HEAD"]);
    let dirty = git(&[
        "status",
        "--porcelain",
        "--",
        "mcp-host",
        "mcp-runtime",
        "bench",
    ]);
    if dirty.is_empty() {
        format!("commit {commit} (no uncommitted changes to mcp-host, mcp-runtime or bench)")
    } else {
        format!("commit {commit} with uncommitted changes")
    }
}

fn report(
    options: &Options,
    runs: &[Vec<Run>; 2],
    (load_before, compilers): (f64, usize),
    elapsed: Duration,
    (root, sizes): (&Path, [u64; 2]),
) -> String {
    let lines = options.lines;
    let tps = procfs::ticks_per_second() as f64;
    let per = |which: usize, f: &dyn Fn(&Run) -> f64| median(runs[which].iter().map(f).collect());
    let last_from = lines - 9;
    let rows: Vec<(String, &str, [f64; 2], u32)> = vec![
        (
            format!("host CPU per line (its threads' on-CPU time at the end ÷ {lines})"),
            "µs",
            [0, 1].map(|w| per(w, &|r| r.cpu_end() as f64 / 1e3 / lines as f64)),
            0,
        ),
        (
            format!("host CPU per model request (÷ {} requests)", 2 * lines),
            "µs",
            [0, 1].map(|w| per(w, &|r| r.cpu_end() as f64 / 1e3 / (2 * lines) as f64)),
            0,
        ),
        (
            "utime+stime at the end (/proc/PID/stat, 10 ms ticks)".into(),
            "ms",
            [0, 1].map(|w| per(w, &|r| r.ticks as f64 / tps * 1e3)),
            0,
        ),
        (
            "start (server spawned, handshake, tools listed) + line 1".into(),
            "µs",
            [0, 1].map(|w| per(w, &|r| r.cpu_after[0] as f64 / 1e3)),
            0,
        ),
        (
            "CPU per line, lines 2–11".into(),
            "µs",
            [0, 1].map(|w| per(w, &|r| r.cpu_per_line_us(2, 11))),
            0,
        ),
        (
            format!("CPU per line, lines {last_from}–{lines}"),
            "µs",
            [0, 1].map(|w| per(w, &|r| r.cpu_per_line_us(last_from, lines))),
            0,
        ),
        (
            "peak RSS (VmHWM) after line 1".into(),
            "MiB",
            [0, 1].map(|w| per(w, &|r| r.first_hwm_kib as f64 / 1024.0)),
            1,
        ),
        (
            "peak RSS (VmHWM) after the last line".into(),
            "MiB",
            [0, 1].map(|w| per(w, &|r| r.hwm_kib as f64 / 1024.0)),
            1,
        ),
        (
            format!("minor page faults per line, lines 2–{lines}"),
            "faults",
            [0, 1].map(|w| {
                per(w, &|r| {
                    (r.faults.1 - r.faults.0) as f64 / (lines - 1) as f64
                })
            }),
            0,
        ),
        (
            "wall time per line, median".into(),
            "ms",
            [0, 1].map(|w| {
                per(w, &|r| {
                    median(r.walls.iter().map(|d| d.as_secs_f64() * 1e3).collect())
                })
            }),
            2,
        ),
        (
            "bytes POSTed for line 1 (its 2 requests)".into(),
            "KB",
            [0, 1].map(|w| per(w, &|r| r.line_bytes(1) as f64 / 1e3)),
            1,
        ),
        (
            format!("bytes POSTed for line {}", lines / 2),
            "KB",
            [0, 1].map(|w| per(w, &|r| r.line_bytes(lines / 2) as f64 / 1e3)),
            1,
        ),
        (
            format!("bytes POSTed for line {lines}"),
            "KB",
            [0, 1].map(|w| per(w, &|r| r.line_bytes(lines) as f64 / 1e3)),
            1,
        ),
        (
            "bytes POSTed in all".into(),
            "MB",
            [0, 1].map(|w| {
                per(w, &|r| {
                    r.seen.iter().map(|s| s.bytes).sum::<usize>() as f64 / 1e6
                })
            }),
            2,
        ),
    ];
    let mut text = String::new();
    let _ = writeln!(text, "{BEGIN}");
    let _ = writeln!(
        text,
        "<!-- Generated by `cargo run --release -p bench --bin host`; edit outside the markers. -->\n"
    );
    let mut command = String::from("cargo run --release -p bench --bin host --");
    if options.reps != 21 {
        let _ = write!(command, " --reps {}", options.reps);
    }
    if options.lines != 50 {
        let _ = write!(command, " --lines {}", options.lines);
    }
    if options.bytes != 10_240 {
        let _ = write!(command, " --bytes {}", options.bytes);
    }
    command.push_str(" --write");
    let _ = writeln!(text, "```sh\n{command}\n```\n");
    let _ = writeln!(
        text,
        "- Machine: {}; 1-minute load average {load_before:.2} before the runs, {:.2} after; \
         {compilers} other `rustc` processes at the start or the end; {:.0} s for all runs.",
        procfs::machine(),
        procfs::load_average(),
        elapsed.as_secs_f64()
    );
    let _ = writeln!(
        text,
        "- Source: {}; the binaries (release profile, stripped): mcp-host {:.2} MiB, host-baseline {:.2} MiB.",
        source(root),
        sizes[0] as f64 / 1048576.0,
        sizes[1] as f64 / 1048576.0
    );
    let _ = writeln!(
        text,
        "- {lines} user lines, each answered with one `read_text` call returning {} bytes of text, so 2 model requests per line; \
         one warm-up run of each, then {} interleaved repetitions; each cell is the median. Every answer and every request was checked.",
        options.bytes, options.reps
    );
    let _ = writeln!(
        text,
        "\n| metric | unit | mcp-host | baseline | mcp-host ÷ baseline |\n|---|---|---:|---:|---:|"
    );
    for (name, unit, [ours, base], digits) in &rows {
        let digits = *digits as usize;
        // A run is 1–3 ticks: their ratio says nothing.
        let ratio = if unit == &"ms" && name.contains("ticks") {
            "–".to_owned()
        } else {
            format!("{:.2}", ours / base)
        };
        let _ = writeln!(
            text,
            "| {name} | {unit} | {ours:.digits$} | {base:.digits$} | {ratio} |"
        );
    }
    let growth = |w: usize| {
        per(w, &|r| {
            r.cpu_per_line_us(last_from, lines) / r.cpu_per_line_us(2, 11)
        })
    };
    let _ = writeln!(
        text,
        "\nGrowth: a line's CPU at lines {last_from}–{lines} over lines 2–11: {:.1}× for mcp-host, {:.1}× for the baseline; \
         the bytes of line {lines} over line 1: {:.1}× (the history is resent whole with every request).",
        growth(0),
        growth(1),
        per(0, &|r| r.line_bytes(lines) as f64 / r.line_bytes(1) as f64)
    );
    let _ = writeln!(
        text,
        "\n<details><summary>Every repetition</summary>\n\n| metric | subject | values |\n|---|---|---|"
    );
    for (which, name) in [(0, "mcp-host"), (1, "baseline")] {
        let list = |f: &dyn Fn(&Run) -> f64| {
            runs[which]
                .iter()
                .map(|r| format!("{:.0}", f(r)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = writeln!(
            text,
            "| CPU per line, all of it (µs) | {name} | {} |",
            list(&|r| r.cpu_end() as f64 / 1e3 / lines as f64)
        );
        let _ = writeln!(
            text,
            "| utime+stime at the end (ticks of 1/{tps} s) | {name} | {} |",
            list(&|r| r.ticks as f64)
        );
        let _ = writeln!(
            text,
            "| CPU per line, lines 2–11 (µs) | {name} | {} |",
            list(&|r| r.cpu_per_line_us(2, 11))
        );
        let _ = writeln!(
            text,
            "| CPU per line, lines {last_from}–{lines} (µs) | {name} | {} |",
            list(&|r| r.cpu_per_line_us(last_from, lines))
        );
        let _ = writeln!(
            text,
            "| VmHWM (KiB) | {name} | {} |",
            list(&|r| r.hwm_kib as f64)
        );
    }
    let _ = writeln!(text, "\n</details>");
    let _ = writeln!(text, "{END}");
    text
}

/// Replaces the part of `path` between the markers with `generated`
/// (appended when the markers are missing).
fn write_report(path: &Path, generated: &str) -> std::io::Result<()> {
    let old = std::fs::read_to_string(path).unwrap_or_default();
    let new = match (old.find(BEGIN), old.find(END)) {
        (Some(b), Some(e)) if b < e => format!(
            "{}{}{}",
            &old[..b],
            generated.trim_end(),
            &old[e + END.len()..]
        ),
        _ => format!("{}\n\n{}\n", old.trim_end(), generated.trim_end()),
    };
    std::fs::write(path, new)
}
