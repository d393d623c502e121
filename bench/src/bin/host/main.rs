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

mod fake;
#[path = "../../fake_api.rs"]
mod fake_api;
#[path = "../../procfs.rs"]
mod procfs;
mod report;

use fake::*;
use report::*;

use serde_json::{Value, json};
use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, mpsc};
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
