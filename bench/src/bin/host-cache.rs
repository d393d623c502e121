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

#[path = "../fake_api.rs"]
mod fake_api;
// Shared with `host`; this benchmark reads a thread's CPU time, the
// machine and the load only.
#[allow(dead_code)]
#[path = "../procfs.rs"]
mod procfs;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response};
use mcpfn_host::agent::Agent;
use mcpfn_host::agent::history::{FullHistory, HistoryPolicy, LastTurns, MaxBytes};
use mcpfn_host::provider::Anthropic;
use mcpfn_runtime::{tool, tools};
use serde_json::{Value, json};
use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The documented 20-block lookback: the breakpoint and 19 blocks before.
const LOOKBACK: usize = 20;
/// Claude Sonnet 4.6's smallest cacheable prefix, in tokens.
const MIN_CACHEABLE: u64 = 1024;
/// Claude Sonnet 4.6's base input price, dollars per million tokens.
const INPUT_PRICE: f64 = 3.0;
/// The fake's text when a line ends.
const FINAL_TEXT: &str = "The page is read.";

/// Tokens of one request as the fake billed them.
#[derive(Clone, Copy, Debug, Default)]
struct Billed {
    /// Plain input: neither read nor written.
    input: u64,
    written: u64,
    read: u64,
    requests: u64,
    /// The largest request body, in bytes.
    max_body: usize,
    /// The last request body, in bytes.
    last_body: usize,
}

impl Billed {
    fn prompt(&self) -> u64 {
        self.input + self.written + self.read
    }

    /// The input in base-price tokens: writes at 1.25×, reads at 0.1×.
    fn base_tokens(&self) -> f64 {
        self.input as f64 + 1.25 * self.written as f64 + 0.1 * self.read as f64
    }

    fn dollars(&self) -> f64 {
        self.base_tokens() * INPUT_PRICE / 1e6
    }
}

/// The fake API: its cache and what it billed since the last `take`.
#[derive(Debug, Default)]
struct Fake {
    bytes: usize,
    cache: Mutex<HashSet<u64>>,
    billed: Mutex<Billed>,
    problems: Mutex<Vec<String>>,
    next_id: AtomicU64,
}

impl Fake {
    /// What was billed since the last call, the cache emptied (each run
    /// starts cold, as another conversation an hour later would).
    fn take(&self) -> (Billed, Vec<String>) {
        self.cache.lock().unwrap().clear();
        let billed = std::mem::take(&mut *self.billed.lock().unwrap());
        let problems = std::mem::take(&mut *self.problems.lock().unwrap());
        (billed, problems)
    }

    /// Accounts one request: `(plain input, written, read)`.
    fn account(&self, body: &Value, size: usize) -> (u64, u64, u64) {
        let blocks = blocks(body);
        // prefix[i]: tokens of blocks 0..i; hash[i]: the prefix 0..=i.
        let mut prefix = vec![0u64];
        let mut hashes = Vec::with_capacity(blocks.len());
        let mut hasher = DefaultHasher::new();
        let mut breakpoints = Vec::new();
        for (i, (text, marked)) in blocks.iter().enumerate() {
            text.hash(&mut hasher);
            hashes.push(hasher.finish());
            prefix.push(prefix[i] + (text.len() as u64).div_ceil(4));
            if *marked {
                breakpoints.push(i);
            }
        }
        let total = *prefix.last().unwrap_or(&0);
        let mut cache = self.cache.lock().unwrap();
        let mut read_to = 0;
        for &b in &breakpoints {
            let hit = (b.saturating_sub(LOOKBACK - 1)..=b)
                .rev()
                .find(|&j| cache.contains(&hashes[j]));
            if let Some(j) = hit {
                read_to = read_to.max(j + 1);
            }
        }
        let read = prefix[read_to];
        let mut written = 0;
        if let Some(&last) = breakpoints.last()
            && prefix[last + 1] >= MIN_CACHEABLE
        {
            written = prefix[last + 1].saturating_sub(read);
            for &b in &breakpoints {
                if prefix[b + 1] >= MIN_CACHEABLE {
                    cache.insert(hashes[b]);
                }
            }
        }
        let input = total - read - written;
        let mut billed = self.billed.lock().unwrap();
        billed.input += input;
        billed.written += written;
        billed.read += read;
        billed.requests += 1;
        billed.max_body = billed.max_body.max(size);
        billed.last_body = size;
        (input, written, read)
    }
}

/// The prompt's blocks in rendering order, each as JSON without its
/// `cache_control`, and whether it carried one. A message's role goes
/// with its first block.
fn blocks(body: &Value) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut push = |block: &Value, prefix: &str| {
        let mut plain = block.clone();
        let marked = plain
            .as_object_mut()
            .and_then(|b| b.remove("cache_control"))
            .is_some();
        out.push((format!("{prefix}{plain}"), marked));
    };
    for tool in body["tools"].as_array().into_iter().flatten() {
        push(tool, "");
    }
    let content = |content: &Value| -> Vec<Value> {
        match content {
            Value::String(text) => vec![json!({"type": "text", "text": text})],
            Value::Array(blocks) => blocks.clone(),
            _ => Vec::new(),
        }
    };
    for block in content(&body["system"]) {
        push(&block, "");
    }
    for message in body["messages"].as_array().into_iter().flatten() {
        let role = format!("<{}>", message["role"]);
        for (i, block) in content(&message["content"]).iter().enumerate() {
            push(block, if i == 0 { &role } else { "" });
        }
    }
    out
}

/// Answers one request: a `read_text` call to a user's line, the final
/// text to a tool result; the usage as the fake billed it.
async fn answer(request: Request<Incoming>, fake: Arc<Fake>) -> Response<Full<Bytes>> {
    let body = request
        .into_body()
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let (input, written, read) = fake.account(&request, body.len());
    let id = fake.next_id.fetch_add(1, Ordering::Relaxed);
    let last = &request["messages"]
        .as_array()
        .and_then(|m| m.last())
        .cloned();
    let answers_a_tool = last.as_ref().is_some_and(|m| {
        m["content"]
            .as_array()
            .is_some_and(|b| b.iter().any(|b| b["type"] == "tool_result"))
    });
    let tool = request["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["name"].as_str())
        .find(|name| name.ends_with("read_text"))
        .unwrap_or("read_text")
        .to_owned();
    if request["tools"].as_array().is_none_or(Vec::is_empty) {
        fake.problems
            .lock()
            .unwrap()
            .push("a request with no tools".into());
    }
    let usage = json!({
        "input_tokens": input, "output_tokens": 20,
        "cache_creation_input_tokens": written, "cache_read_input_tokens": read,
    });
    let content = if answers_a_tool {
        json!([{"type": "text", "text": FINAL_TEXT}])
    } else {
        json!([
            {"type": "text", "text": "I will read the page."},
            {"type": "tool_use", "id": format!("toolu_{id}"), "name": tool, "input": {"bytes": fake.bytes}},
        ])
    };
    let stop = if answers_a_tool {
        "end_turn"
    } else {
        "tool_use"
    };
    let response = json!({
        "id": format!("msg_{id}"), "type": "message", "role": "assistant",
        "model": request["model"], "content": content,
        "stop_reason": stop, "stop_sequence": null, "usage": usage,
    });
    let mut response = Response::new(Full::new(Bytes::from(response.to_string())));
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    response
}

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
