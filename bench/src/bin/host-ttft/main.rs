//! Time to first token: how soon the `mcp-host` program shows the first
//! text of an answer with `--stream` (the responses streamed, each text
//! delta written to stdout as it comes) against without (the whole answer
//! once the response is complete), and the host CPU each line costs on
//! either path.
//!
//! ```text
//! cargo run --release -p bench --bin host-ttft -- [--reps N] [--lines N]
//!     [--deltas N] [--event-ms MS] [--no-build] [--host PATH] [--web] [--write]
//! ```
//!
//! - The model: a fake Anthropic Messages API on loopback (hyper, on a
//!   thread of its own) that answers every line with `--deltas` (40) text
//!   deltas of one word each. Streamed, it sends the documented events
//!   (`message_start`, `content_block_start`, the `text_delta`s,
//!   `content_block_stop`, `message_delta`, `message_stop`), each event
//!   `--event-ms` (25) after the one before, as a model writing its answer
//!   does: the delay is per SSE event, never per byte. Not streamed, it
//!   sends the whole message once as long has passed as the whole stream
//!   takes, as the API does when it answers only once it is done.
//! - The subject: `mcp-host --config CFG --quiet` with an `mcp.json` of no
//!   servers (this is the model path alone), with `--stream` or without,
//!   stdout and stdin pipes (so `--stream` is said, not the terminal
//!   default), one line at a time (the next once the answer is whole).
//! - Measured: from writing a line to stdin to the first byte of its
//!   answer on stdout (the first text a person would see), to the whole
//!   answer (its text and the blank line after it), and the on-CPU time of
//!   the host's threads over the line (`/proc/<pid>/task/*/schedstat`).
//!   Every answer is checked to be the fake's text, whole.
//!
//! One warm-up run of each, then `--reps` (7) interleaved repetitions of
//! `--lines` (20) lines each; each figure is the median over every line of
//! every repetition. `--write` puts the report into `BENCHMARKS.md` between
//! `<!-- bench:host-ttft:begin -->` and `<!-- bench:host-ttft:end -->`
//! (appended when missing).
//!
//! `--web` measures `mcp-host web` instead, against the same program at a
//! terminal with `--stream` (the page's answers are always streamed): the
//! page driven over plain HTTP as a browser drives it (`web_driver.rs`),
//! its first text the first `text` event on its event stream. Its report
//! goes between `<!-- bench:host-web:begin -->` and
//! `<!-- bench:host-web:end -->`.

#[path = "../../fake_api.rs"]
mod fake_api;
// The thread CPU times, the machine and the load only.
mod fake;
#[allow(dead_code)]
#[path = "../../procfs.rs"]
mod procfs;
mod report;

use fake::*;
use report::*;
#[path = "../../web_driver.rs"]
mod web_driver;

use serde_json::json;
use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

/// Marks the generated part of `BENCHMARKS.md`.
const BEGIN: &str = "<!-- bench:host-ttft:begin -->";
/// Ends the generated part of `BENCHMARKS.md`.
const END: &str = "<!-- bench:host-ttft:end -->";
/// Marks the generated part of `BENCHMARKS.md` with `--web`.
const BEGIN_WEB: &str = "<!-- bench:host-web:begin -->";
/// Ends the generated part of `BENCHMARKS.md` with `--web`.
const END_WEB: &str = "<!-- bench:host-web:end -->";
/// The key the subject sends.
const API_KEY: &str = "bench-key";
/// Longest one line may take before the run is abandoned.
const LINE_TIMEOUT: Duration = Duration::from_secs(60);

/// Command-line options.
#[derive(Debug)]
struct Options {
    reps: usize,
    lines: usize,
    deltas: usize,
    event: Duration,
    build: bool,
    write: bool,
    web: bool,
    host: Option<PathBuf>,
}

/// One subject: the program at a terminal with these arguments, or its page.
#[derive(Clone, Copy)]
enum Subject<'a> {
    Terminal(&'a [&'a str]),
    Web(&'a str),
}

impl Subject<'_> {
    fn run(
        self,
        host: &Path,
        url: &str,
        expected: &str,
        lines: usize,
    ) -> Result<Vec<Line>, String> {
        match self {
            Subject::Terminal(args) => run_once(host, args, url, expected, lines),
            Subject::Web(config) => web_driver::run_once(host, config, url, expected, lines),
        }
    }

    fn name(self) -> String {
        match self {
            Subject::Terminal(args) => args.join(" "),
            Subject::Web(config) => format!("web --port 0 --config {config}"),
        }
    }
}

/// One line as the subject answered it.
#[derive(Clone, Copy, Debug)]
struct Line {
    /// From writing the line to the first byte of its answer.
    first: Duration,
    /// From writing the line to its whole answer.
    whole: Duration,
    /// On-CPU ns of the host's threads over the line.
    cpu_ns: u64,
}

/// Runs the subject through `lines` lines; each line's figures.
fn run_once(
    host: &Path,
    args: &[&str],
    url: &str,
    expected: &str,
    lines: usize,
) -> Result<Vec<Line>, String> {
    let mut child = Command::new(host)
        .args(args)
        .env("ANTHROPIC_BASE_URL", url)
        .env("ANTHROPIC_API_KEY", API_KEY)
        .env_remove("RUST_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("{}: {e}", host.display()))?;
    let pid = child.id();
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let mut stdout = child.stdout.take().ok_or("no stdout")?;
    let mut stderr = child.stderr.take().ok_or("no stderr")?;
    let logs = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    // Each read of stdout with the moment it returned.
    let (tx, rx) = mpsc::channel::<(Instant, Vec<u8>)>();
    std::thread::spawn(move || {
        let mut buffer = [0_u8; 8192];
        while let Ok(n @ 1..) = stdout.read(&mut buffer) {
            if tx.send((Instant::now(), buffer[..n].to_vec())).is_err() {
                break;
            }
        }
    });
    let whole_answer = format!("{expected}\n\n");
    let mut measured = Vec::with_capacity(lines);
    let mut failure = None;
    'lines: for i in 1..=lines {
        let cpu_before = procfs::cpu_ns(pid).unwrap_or(0);
        let started = Instant::now();
        if let Err(e) = writeln!(stdin, "Tell me a story, part {i}.").and_then(|()| stdin.flush()) {
            failure = Some(format!("line {i}: writing stdin: {e}"));
            break;
        }
        let mut answer = Vec::new();
        let mut first = None;
        while answer.len() < whole_answer.len() {
            match rx.recv_timeout(LINE_TIMEOUT) {
                Ok((at, bytes)) => {
                    first.get_or_insert(at - started);
                    answer.extend_from_slice(&bytes);
                }
                Err(e) => {
                    failure = Some(format!("line {i}: no whole answer ({e})"));
                    break 'lines;
                }
            }
        }
        let whole = started.elapsed();
        if answer != whole_answer.as_bytes() {
            failure = Some(format!(
                "line {i}: the answer {:?}",
                String::from_utf8_lossy(&answer)
            ));
            break;
        }
        measured.push(Line {
            first: first.unwrap_or(whole),
            whole,
            cpu_ns: procfs::cpu_ns(pid).unwrap_or(0).saturating_sub(cpu_before),
        });
    }
    drop(stdin);
    let status = child.wait().map_err(|e| e.to_string())?;
    let logs = logs.join().unwrap_or_default();
    if failure.is_none() && !status.success() {
        failure = Some(format!("exit status {status}"));
    }
    match failure {
        Some(failure) => Err(format!(
            "{} {}: {failure}\n--- its stderr ---\n{logs}",
            host.display(),
            args.join(" ")
        )),
        None => Ok(measured),
    }
}

fn parse_options() -> Options {
    let mut options = Options {
        reps: 7,
        lines: 20,
        deltas: 40,
        event: Duration::from_millis(25),
        build: true,
        write: false,
        web: false,
        host: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut number = || -> u64 {
            args.next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{arg} needs a number"))
        };
        match arg.as_str() {
            "--reps" => options.reps = number() as usize,
            "--lines" => options.lines = number() as usize,
            "--deltas" => options.deltas = number() as usize,
            "--event-ms" => options.event = Duration::from_millis(number()),
            "--no-build" => options.build = false,
            "--write" => options.write = true,
            "--web" => options.web = true,
            "--host" => {
                let path = args.next().unwrap_or_else(|| panic!("--host needs a path"));
                options.host = Some(PathBuf::from(path));
            }
            _ => {
                eprintln!(
                    "usage: host-ttft [--reps N] [--lines N] [--deltas N] [--event-ms MS] [--no-build] [--host PATH] [--web] [--write]"
                );
                std::process::exit(2);
            }
        }
    }
    assert!(options.reps >= 1 && options.lines >= 1 && options.deltas >= 1);
    options
}

fn main() {
    let options = parse_options();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    if options.build && options.host.is_none() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let args = [
            "build",
            "--release",
            "-p",
            "mcpfn-host",
            "--bin",
            "mcp-host",
        ];
        let ok = Command::new(&cargo)
            .args(args)
            .current_dir(&root)
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "cargo {} failed", args.join(" "));
    }
    let host = options
        .host
        .clone()
        .unwrap_or_else(|| target.join("release/mcp-host"));
    let config = std::env::temp_dir().join(format!("bench-ttft-{}.json", std::process::id()));
    std::fs::write(&config, json!({"mcpServers": {}}).to_string()).expect("the config file");
    let config_arg = config.to_string_lossy().into_owned();
    let streamed: &[&str] = &["--config", &config_arg, "--quiet", "--stream"];
    let whole: &[&str] = &["--config", &config_arg, "--quiet"];
    let fake = Arc::new(Fake {
        words: (0..options.deltas).map(|i| format!("word{i} ")).collect(),
        event: options.event,
    });
    let expected = fake.text();
    let url = fake_api::serve(fake, answer).expect("the fake API");
    let load_before = procfs::load_average();
    let started = Instant::now();
    let subjects = if options.web {
        [Subject::Terminal(streamed), Subject::Web(&config_arg)]
    } else {
        [Subject::Terminal(streamed), Subject::Terminal(whole)]
    };
    let mut runs: [Vec<Line>; 2] = [Vec::new(), Vec::new()];
    let result = (|| {
        for subject in subjects {
            subject.run(&host, &url, &expected, options.lines)?;
        }
        for rep in 0..options.reps {
            for k in 0..2 {
                let which = if rep % 2 == 0 { k } else { 1 - k };
                let lines = subjects[which].run(&host, &url, &expected, options.lines)?;
                let (first, _, cpu) = medians(&lines);
                eprintln!(
                    "rep {rep}: {}: first text {first:.1} ms, {cpu:.0} µs CPU a line",
                    subjects[which].name()
                );
                runs[which].extend(lines);
            }
        }
        Ok::<_, String>(())
    })();
    let _ = std::fs::remove_file(&config);
    if let Err(e) = result {
        eprintln!("host-ttft: {e}");
        std::process::exit(1);
    }
    let load = (load_before, procfs::load_average());
    let (text, marks) = if options.web {
        let text = report_web(&options, &runs, load, started.elapsed(), &host);
        (text, (BEGIN_WEB, END_WEB))
    } else {
        (
            report(&options, &runs, load, started.elapsed()),
            (BEGIN, END),
        )
    };
    print!("{text}");
    if options.write {
        let path = root.join("BENCHMARKS.md");
        write_report(&path, &text, marks.0, marks.1).expect("BENCHMARKS.md written");
        eprintln!("wrote {}", path.display());
    }
}
