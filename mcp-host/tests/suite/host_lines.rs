//! How the `mcp-host` program ends its lines and its run, through the real
//! program, the `everything` example over stdio and a scripted model API:
//! its exit status (no key; no line answered), a per-line deadline
//! (`--line-timeout`) that cuts a stalled model request or a slow tool
//! call short (the server gets `notifications/cancelled`), a clean run that
//! says nothing on stderr with `--quiet`, and the defaults at a terminal
//! (streamed answers, calls shown, no info log) against pipes (unchanged).

use crate::common;

use common::fake_model::{
    FakeModel, HostRun, McpConfig, Reply, TempDir, claude_events, claude_message, host_binary,
    run_host, text_block, tool_use,
};
use common::terminal::sh_quote;
use serde_json::{Value, json};
use std::io::Write;
use std::time::{Duration, Instant};

const CLAUDE_KEY: &str = "sk-ant-test-key";

/// Runs the program on `config` with `args` against `fake`, with a key.
fn host(config: &McpConfig, fake: &FakeModel, args: &[&str], stdin: &str) -> HostRun {
    let mut all = vec!["--config", config.arg(), "--approve", "all"];
    all.extend_from_slice(args);
    run_host(
        &all,
        &[
            ("ANTHROPIC_BASE_URL", &fake.base_url),
            ("ANTHROPIC_API_KEY", CLAUDE_KEY),
        ],
        stdin,
    )
}

/// A whole text answer.
fn says(text: &str) -> Reply {
    Reply::ok(claude_message(json!([text_block(text)]), "end_turn", 10, 3))
}

/// `run`'s stdout, stderr and status, for an assertion's message.
fn shown(run: &HostRun) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        run.status, run.stdout, run.stderr
    )
}

#[test]
fn no_api_key_is_an_error_naming_the_variable_before_any_server_or_line() {
    let fake = FakeModel::start(vec![says("never sent")]);
    let config = McpConfig::everything("everything", &[]);
    let run = run_host(
        &["--config", config.arg()],
        &[("ANTHROPIC_BASE_URL", &fake.base_url)],
        "hi\n",
    );
    assert_eq!(run.status.code(), Some(2), "{}", shown(&run));
    assert_eq!(
        run.stderr,
        "mcp-host: ANTHROPIC_API_KEY is not set: the anthropic API needs a key (--provider chooses the API)\n"
    );
    assert_eq!(run.stdout, "");
    assert!(fake.requests().is_empty());

    let run = run_host(
        &["--config", config.arg(), "--provider", "openai"],
        &[("OPENAI_API_KEY", ""), ("ANTHROPIC_API_KEY", CLAUDE_KEY)],
        "hi\n",
    );
    assert_eq!(run.status.code(), Some(2), "{}", shown(&run));
    assert_eq!(
        run.stderr,
        "mcp-host: OPENAI_API_KEY is not set: the openai API needs a key (--provider chooses the API)\n"
    );
}

#[test]
fn a_run_that_answers_no_line_exits_1_and_one_answered_line_is_enough() {
    let config = McpConfig::new(&json!({"mcpServers": {}}));
    let refused = || Reply::claude_error(400, "invalid_request_error", "no such model");
    let fake = FakeModel::start(vec![refused(), refused()]);
    let run = host(&config, &fake, &["--quiet"], "one\ntwo\n");
    assert_eq!(run.status.code(), Some(1), "{}", shown(&run));
    assert!(
        run.stderr
            .ends_with("mcp-host: no line was answered (2 failed or timed out)\n"),
        "{}",
        shown(&run)
    );
    // Text output: each failed line still has its (empty) answer.
    assert_eq!(run.stdout, "\n\n\n\n");

    let fake = FakeModel::start(vec![refused(), says("fine")]);
    let run = host(&config, &fake, &["--quiet"], "one\ntwo\n");
    assert!(run.status.success(), "{}", shown(&run));
    assert_eq!(run.stdout, "\n\nfine\n\n");
}

#[test]
fn a_clean_quiet_run_on_a_server_of_our_runtime_says_nothing_on_stderr() {
    // The server answers its open `subscriptions/listen` as it closes: an
    // answer to a request the client gave up on, expected, not a warning.
    let config = McpConfig::everything("everything", &[]);
    let fake = FakeModel::start(vec![
        Reply::ok(claude_message(
            json!([tool_use("toolu_1", "echo", json!({"text": "hi"}))]),
            "tool_use",
            10,
            3,
        )),
        says("done"),
    ]);
    let run = host(&config, &fake, &["--quiet"], "echo hi\n");
    assert!(run.status.success(), "{}", shown(&run));
    assert_eq!(run.stdout, "done\n\n");
    assert_eq!(run.stderr, "", "{}", shown(&run));
}

#[test]
fn a_stalled_model_request_ends_the_line_at_its_deadline() {
    let config = McpConfig::new(&json!({"mcpServers": {}}));
    let fake = FakeModel::start(vec![says("too late").after(Duration::from_secs(30))]);
    let started = Instant::now();
    let run = host(
        &config,
        &fake,
        &["--json", "--quiet", "--line-timeout", "1.5"],
        "北京今天天气怎么样\n",
    );
    let took = started.elapsed();
    assert!(took < Duration::from_secs(15), "{took:?}\n{}", shown(&run));
    assert_eq!(run.status.code(), Some(1), "{}", shown(&run));
    assert_eq!(
        run.json_lines(),
        vec![json!({
            "text": "",
            "stop_reason": "timed_out",
            "turns": 0,
            "usage": {"input_tokens": 0, "output_tokens": 0},
            "tool_calls": [],
            "error": "the line timed out after 1.5 s (--line-timeout)",
            "tool_calls_kept": 0,
        })]
    );
    assert_eq!(
        run.stderr,
        "mcp-host: the line timed out after 1.5 s (--line-timeout): `北京今天天气怎么样`: the line is dropped from the conversation\n\
         mcp-host: no line was answered (1 failed or timed out)\n"
    );
}

#[test]
fn a_slow_tool_past_the_deadline_is_cancelled_and_the_next_line_sees_why() {
    let config = McpConfig::everything("everything", &[]);
    let slow = json!({"ms": 60000, "steps": 600});
    let fake = FakeModel::start(vec![
        Reply::ok(claude_message(
            json!([tool_use("toolu_slow", "slow", slow.clone())]),
            "tool_use",
            10,
            3,
        )),
        says("next answer"),
    ]);
    let run = host(
        &config,
        &fake,
        &["--json", "--line-timeout", "2", "--close-grace", "1"],
        "sleep a minute\nand now?\n",
    );
    assert!(run.status.success(), "{}", shown(&run));
    let lines = run.json_lines();
    assert_eq!(lines.len(), 2, "{}", shown(&run));
    assert_eq!(lines[0]["stop_reason"], "timed_out", "{}", lines[0]);
    assert_eq!(
        lines[0]["tool_calls"],
        json!([{"name": "slow", "server": "everything", "is_error": true}])
    );
    assert_eq!(lines[0]["tool_calls_kept"], 1);
    assert_eq!(lines[1]["text"], "next answer");
    // The server was told: its `slow` logs the cancellation, the host
    // passes its stderr on.
    assert!(
        run.stderr.contains("slow: cancelled by the client after"),
        "{}",
        shown(&run)
    );
    assert!(
        run.stderr.contains(
            "mcp-host: the line timed out after 2 s (--line-timeout): `sleep a minute`: its 1 tool call is kept in the history\n"
        ),
        "{}",
        shown(&run)
    );
    // The round stays in the history, the call answered with why.
    let requests = fake.requests();
    let messages = requests[1].body["messages"].as_array().unwrap().clone();
    let result = &messages[2]["content"][0];
    assert_eq!(result["tool_use_id"], "toolu_slow", "{result}");
    assert_eq!(result["is_error"], true);
    assert_eq!(
        result["content"],
        "The line's time limit (2 s) passed before this call returned a result; it was cancelled and may or may not have taken effect.",
        "{result}"
    );
}

/// The program with its stdin, stdout and stderr on a pseudo-terminal
/// (util-linux `script`): `line` typed at its line editor's first prompt,
/// Ctrl-D at the next (keys typed ahead of the editor would reach it all
/// at once, a Ctrl-D typed ahead as a NUL); returns what the terminal
/// showed, its escape sequences and carriage returns left out.
fn on_a_terminal(config: &McpConfig, fake: &FakeModel, args: &[&str], line: &str) -> String {
    let args: Vec<String> = args.iter().map(|a| sh_quote(a)).collect();
    let command = format!(
        "{} --config {} {}",
        sh_quote(host_binary().to_str().unwrap()),
        sh_quote(config.arg()),
        args.join(" "),
    );
    let dir = TempDir::new();
    let mut script = std::process::Command::new("script");
    script.args(["-qec", &command, "/dev/null"]);
    for (name, _) in std::env::vars() {
        if name.starts_with("ANTHROPIC_") || name.starts_with("OPENAI_") || name == "RUST_LOG" {
            script.env_remove(name);
        }
    }
    let mut child = script
        .current_dir(&dir.path)
        .env("ANTHROPIC_BASE_URL", &fake.base_url)
        .env("ANTHROPIC_API_KEY", CLAUDE_KEY)
        .env("SHELL", "/bin/sh")
        .env("TERM", "xterm")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut typed = child.stdin.take().unwrap();
    let mut terminal = child.stdout.take().unwrap();
    let shown = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let into = std::sync::Arc::clone(&shown);
    let reader = std::thread::spawn(move || {
        let mut buffer = [0_u8; 4096];
        while let Ok(n @ 1..) = std::io::Read::read(&mut terminal, &mut buffer) {
            into.lock().unwrap().extend_from_slice(&buffer[..n]);
        }
    });
    // Each prompt of the editor turns bracketed paste on.
    let prompts = || {
        String::from_utf8_lossy(&shown.lock().unwrap())
            .matches("\x1b[?2004h")
            .count()
    };
    let started = Instant::now();
    let mut keys = [format!("{line}\r"), "\x04".to_owned()]
        .into_iter()
        .enumerate();
    let mut next = keys.next();
    while child.try_wait().unwrap().is_none() {
        if let Some((at, key)) = &next
            && prompts() > *at
        {
            typed.write_all(key.as_bytes()).unwrap();
            typed.flush().unwrap();
            next = keys.next();
        }
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("the program hung on the terminal");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(typed);
    reader.join().unwrap();
    let shown = String::from_utf8_lossy(&shown.lock().unwrap()).into_owned();
    without_escapes(&shown).replace('\r', "")
}

/// `text` without its CSI escape sequences (`ESC [ … final byte`).
fn without_escapes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' && chars.peek() == Some(&'[') {
            chars.next();
            for c in chars.by_ref() {
                if ('@'..='~').contains(&c) {
                    break;
                }
            }
            continue;
        }
        out.push(c);
    }
    out
}

/// The session of the terminal test: one call of `echo`, then the answer.
fn echo_session(streamed: bool) -> FakeModel {
    let first = claude_message(
        json!([
            text_block("我来查一下。"),
            tool_use("toolu_1", "echo", json!({"text": "北京"}))
        ]),
        "tool_use",
        10,
        3,
    );
    let second = claude_message(json!([text_block("北京今天晴。")]), "end_turn", 20, 5);
    let reply = |message: Value| {
        if streamed {
            Reply::sse(claude_events(&message))
        } else {
            Reply::ok(message)
        }
    };
    FakeModel::start(vec![reply(first), reply(second)])
}

#[test]
fn at_a_terminal_answers_stream_calls_show_and_the_info_log_is_off() {
    common::terminal::require_pty();
    let config = McpConfig::everything("weather", &[]);
    let fake = echo_session(true);
    let shown = on_a_terminal(&config, &fake, &["--approve", "all"], "北京今天天气怎么样");
    assert!(fake.requests().iter().all(|r| r.body["stream"] == true));
    // The typed line (echoed), the text as it came, the call between, the
    // answer's end; nothing of the log at info.
    let call = "[weather/echo {\"text\":\"北京\"}]\n";
    let start = shown
        .find("北京今天天气怎么样\n")
        .unwrap_or_else(|| panic!("{shown}"));
    let session = &shown[start..];
    let (before, after) = session
        .split_once(call)
        .unwrap_or_else(|| panic!("{shown}"));
    assert_eq!(before, "北京今天天气怎么样\n我来查一下。", "{shown}");
    let (timing, rest) = after.split_once('\n').unwrap();
    assert!(
        timing.starts_with("[echo: ") && timing.ends_with(" ms]"),
        "{shown}"
    );
    // Up to the editor's next prompt.
    let answer = rest.split("> ").next().unwrap();
    assert_eq!(answer.trim_end(), "北京今天晴。", "{shown}");
    assert!(!shown.contains("INFO"), "{shown}");
    assert!(!shown.contains("tools offered"), "{shown}");

    // Asked for, the info log is back.
    let fake = echo_session(true);
    let shown = on_a_terminal(
        &config,
        &fake,
        &["--approve", "all", "--log-level", "info"],
        "北京今天天气怎么样",
    );
    assert!(shown.contains("tools offered"), "{shown}");
}

#[test]
fn through_pipes_the_answer_is_whole_and_the_info_log_stays() {
    let config = McpConfig::everything("weather", &[]);
    let fake = echo_session(false);
    let run = host(&config, &fake, &[], "北京今天天气怎么样\n");
    assert!(run.status.success(), "{}", shown(&run));
    assert_eq!(run.stdout, "北京今天晴。\n\n");
    assert!(
        fake.requests()
            .iter()
            .all(|r| r.body.get("stream").is_none())
    );
    assert!(
        run.stderr.contains(" INFO ") && run.stderr.contains("tools offered"),
        "{}",
        shown(&run)
    );
    assert!(!run.stderr.contains("[weather/echo"), "{}", shown(&run));
}
