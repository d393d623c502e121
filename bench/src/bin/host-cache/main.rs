//! What prompt caching saves, against a fake Anthropic Messages API that
//! accounts cache writes and reads by the documented prefix rules.
//!
//! ```text
//! cargo run --release -p bench --bin host-cache -- [--reps N] [--lines N]
//!     [--long-lines N] [--bytes N] [--no-build]
//! ```
//!
//! 1. The 50-line conversation of `host` (each line answered with one
//!    `read_text` call returning 10,240 bytes, so 2 requests a line),
//!    through `target/release/mcp-host --json --approve all` with caching
//!    on (the default) and with `--no-cache`, `--reps` (3) interleaved runs
//!    of each: the tokens each run was billed for, and the program's CPU
//!    per line (its threads' on-CPU time after the last answer, median).
//! 2. The `--long-lines` (200) conversation through the library's
//!    [`Agent`] in this process (the program has no history option on this
//!    branch), with the history policies `FullHistory` (`all`),
//!    `LastTurns(10)` (`last:10`) and `MaxBytes(200_000)` (about 50,000
//!    tokens), caching on, and `all` with caching off: the size of the
//!    last request, and the tokens billed.
//!
//! The fake's accounting, from Anthropic's prompt-caching documentation:
//! the prompt is its blocks in rendering order (each tool definition, each
//! system block, each message's content blocks, a string `content` being
//! one text block), each worth its JSON's bytes ÷ 4 tokens, rounded up
//! (the `cache_control` markers left out). A block with `cache_control` is
//! a breakpoint. For each breakpoint the fake looks for a prefix written
//! before at the breakpoint and at each of the 19 blocks before it (the
//! documented 20-block lookback) and reads the longest found; the tokens
//! from there to the last breakpoint are written (each breakpoint's prefix
//! stored) when that prefix has at least 1,024 tokens (Claude Sonnet 4.6's
//! documented minimum); the tokens after the last breakpoint are plain
//! input. The 5-minute lifetime is not modelled: a run lasts seconds.
//! Billed input is priced at the list prices of Claude Sonnet 4.6: $3 per
//! million input tokens, writes 1.25× that, reads 0.1×.

#[path = "../../fake_api.rs"]
mod fake_api;
// Shared with `host`; this benchmark reads a thread's CPU time, the
// machine and the load only.
mod fake;
#[allow(dead_code)]
#[path = "../../procfs.rs"]
mod procfs;

use fake::*;

use mcpfn_host::agent::Agent;
use mcpfn_host::agent::history::{FullHistory, HistoryPolicy, LastTurns, MaxBytes};
use mcpfn_host::provider::Anthropic;
use mcpfn_runtime::{tool, tools};
use serde_json::{Value, json};
use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;

/// The fake's text when a line ends.
const FINAL_TEXT: &str = "The page is read.";

/// One run of the program: what it was billed, its CPU per line (µs), and
/// the sum of the `usage` of its `--json` lines.
fn run_program(
    host: &Path,
    config: &Path,
    url: &str,
    fake: &Fake,
    lines: usize,
    cache: bool,
) -> (Billed, f64, Value) {
    let _ = fake.take();
    let mut args = vec![
        "--config".to_owned(),
        config.display().to_string(),
        "--json".into(),
        "--approve".into(),
        "all".into(),
    ];
    if !cache {
        args.push("--no-cache".into());
    }
    let mut child = Command::new(host)
        .args(&args)
        .env("ANTHROPIC_BASE_URL", url)
        .env("ANTHROPIC_API_KEY", "bench-key")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("mcp-host starts");
    let pid = child.id();
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut usage = [0u64; 4];
    let mut cpu_ns = 0;
    for i in 1..=lines {
        writeln!(stdin, "Please read page {i} and tell me when you are done.").expect("stdin");
        stdin.flush().expect("stdin");
        let mut line = String::new();
        stdout.read_line(&mut line).expect("an answer");
        let answer: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
        assert!(
            answer["stop_reason"] == "end_turn" && answer["text"] == FINAL_TEXT,
            "line {i}: {answer}"
        );
        for (sum, key) in usage.iter_mut().zip([
            "input_tokens",
            "output_tokens",
            "cache_creation_input_tokens",
            "cache_read_input_tokens",
        ]) {
            *sum += answer["usage"][key].as_u64().unwrap_or(0);
        }
        if i == lines {
            cpu_ns = procfs::cpu_ns(pid).unwrap_or(0);
        }
    }
    drop(stdin);
    let _ = child.wait();
    let (billed, problems) = fake.take();
    assert!(problems.is_empty(), "the fake saw: {problems:?}");
    let usage = json!({
        "input_tokens": usage[0], "output_tokens": usage[1],
        "cache_creation_input_tokens": usage[2], "cache_read_input_tokens": usage[3],
    });
    (billed, cpu_ns as f64 / 1e3 / lines as f64, usage)
}

/// Returns `bytes` bytes of text, as `host-tool`'s tool does.
#[tool(read_only, idempotent, open_world = false)]
async fn read_text(
    /// How many bytes of text to return
    bytes: u32,
) -> String {
    const LINE: &str =
        "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.\n";
    let bytes = bytes as usize;
    LINE.repeat(bytes / LINE.len() + 1)[..bytes].to_owned()
}

/// One long conversation through the library with `policy`.
async fn run_library(
    url: &str,
    fake: &Fake,
    lines: usize,
    cache: bool,
    policy: impl HistoryPolicy,
) -> Billed {
    let _ = fake.take();
    let provider = Anthropic::new(url, Some("bench-key"))
        .expect("the provider")
        .caching(cache);
    let agent = Agent::new(provider)
        .tools(tools![read_text])
        .history(policy)
        .build()
        .await
        .expect("the agent");
    let mut chat = agent.conversation();
    for i in 1..=lines {
        let answer = agent
            .send(
                &mut chat,
                &format!("Please read page {i} and tell me when you are done."),
            )
            .await
            .expect("an answer");
        assert_eq!(answer.text, FINAL_TEXT, "line {i}");
    }
    let (billed, problems) = fake.take();
    assert!(problems.is_empty(), "the fake saw: {problems:?}");
    billed
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() {
    let mut reps = 3;
    let mut lines = 50;
    let mut long_lines = 200;
    let mut bytes = 10_240;
    let mut build = true;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut number = || -> usize {
            args.next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{arg} needs a number"))
        };
        match arg.as_str() {
            "--reps" => reps = number(),
            "--lines" => lines = number(),
            "--long-lines" => long_lines = number(),
            "--bytes" => bytes = number(),
            "--no-build" => build = false,
            _ => {
                eprintln!(
                    "usage: host-cache [--reps N] [--lines N] [--long-lines N] [--bytes N] [--no-build]"
                );
                std::process::exit(2);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    if build {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let ok = Command::new(cargo)
            .args([
                "build",
                "--release",
                "-p",
                "bench",
                "--bin",
                "host-tool",
                "-p",
                "mcp-host",
                "--bin",
                "mcp-host",
            ])
            .current_dir(&root)
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "the release build failed");
    }
    let host = target.join("release/mcp-host");
    let tool = target.join("release/host-tool");
    let config = std::env::temp_dir().join(format!("bench-host-cache-{}.json", std::process::id()));
    std::fs::write(
        &config,
        json!({"mcpServers": {"pages": {"command": tool, "args": []}}}).to_string(),
    )
    .expect("the config");
    let fake = Arc::new(Fake {
        bytes,
        ..Fake::default()
    });
    let url = fake_api::serve(Arc::clone(&fake), answer).expect("the fake API");

    println!(
        "Machine: {}; 1-minute load average {:.2} at the start.\n",
        procfs::machine(),
        procfs::load_average()
    );
    println!(
        "## {lines}-line conversation, {bytes}-byte results, mcp-host --json --approve all ({reps} runs each, interleaved)\n"
    );
    let mut runs: [Vec<(Billed, f64, Value)>; 2] = [Vec::new(), Vec::new()];
    for rep in 0..reps {
        for k in 0..2 {
            let cache = (rep + k) % 2 == 0;
            let run = run_program(&host, &config, &url, &fake, lines, cache);
            eprintln!("rep {rep} cache {cache}: {:.0} µs/line", run.1);
            runs[usize::from(!cache)].push(run);
        }
    }
    let _ = std::fs::remove_file(&config);
    println!(
        "| caching | requests | prompt tokens | plain input | cache writes | cache reads | billed input (base-price tokens) | $ at $3/MTok | CPU per line (µs, median) |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut dollars = [0.0; 2];
    for (which, name) in [(0, "on (default)"), (1, "off (`--no-cache`)")] {
        let (billed, _, usage) = &runs[which][0];
        let cpu = median(runs[which].iter().map(|r| r.1).collect());
        dollars[which] = billed.dollars();
        println!(
            "| {name} | {} | {} | {} | {} | {} | {:.0} | {:.4} | {cpu:.0} |",
            billed.requests,
            billed.prompt(),
            billed.input,
            billed.written,
            billed.read,
            billed.base_tokens(),
            billed.dollars(),
        );
        // The program's `--json` lines report what the API reported, in
        // the one meaning (`input_tokens` the whole prompt).
        assert_eq!(usage["input_tokens"], billed.prompt(), "{name}: {usage}");
        assert_eq!(usage["cache_read_input_tokens"], billed.read, "{name}");
        assert_eq!(
            usage["cache_creation_input_tokens"], billed.written,
            "{name}"
        );
    }
    println!(
        "\nCaching on costs {:.1} % of caching off for the input.\n",
        100.0 * dollars[0] / dollars[1]
    );

    println!("## {long_lines}-line conversation through the library, by history policy\n");
    println!(
        "| history | caching | last request (KB) | largest request (KB) | prompt tokens | plain input | cache writes | cache reads | $ at $3/MTok |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let cases: Vec<(&str, bool, Box<dyn HistoryPolicy>)> = vec![
        ("all (`FullHistory`)", false, Box::new(FullHistory)),
        ("all (`FullHistory`)", true, Box::new(FullHistory)),
        ("last:10 (`LastTurns(10)`)", true, Box::new(LastTurns(10))),
        (
            "tokens:50000 (`MaxBytes(200_000)`)",
            true,
            Box::new(MaxBytes(200_000)),
        ),
    ];
    for (name, cache, policy) in cases {
        let billed = runtime.block_on(run_library(&url, &fake, long_lines, cache, Boxed(policy)));
        println!(
            "| {name} | {} | {:.1} | {:.1} | {} | {} | {} | {} | {:.4} |",
            if cache { "on" } else { "off" },
            billed.last_body as f64 / 1e3,
            billed.max_body as f64 / 1e3,
            billed.prompt(),
            billed.input,
            billed.written,
            billed.read,
            billed.dollars(),
        );
    }
}

/// A boxed policy as a policy.
#[derive(Debug)]
struct Boxed(Box<dyn HistoryPolicy>);

impl HistoryPolicy for Boxed {
    fn after_turn(&self, history: &mut mcpfn_host::agent::history::History) {
        self.0.after_turn(history);
    }
}
