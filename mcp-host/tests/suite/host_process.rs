//! What a stdio server process gets and how it ends, through the real
//! `mcp-host` program against real child processes (tests/interop/proc.py)
//! and a scripted model API: its environment (the SDKs' allow-list, the
//! entry's `env` with `${VAR}` expanded, `inheritEnv`), its exit noticed by
//! its status while a child it left holds its pipe, its process group ended,
//! the graceful close at the host's exit or on SIGTERM, and its logs cut and
//! rate-limited.

#![cfg(unix)]

use crate::common;

use common::fake_model::{
    FakeModel, HostRun, McpConfig, Reply, TempDir, claude_message, host_binary, run_host,
    text_block, tool_use,
};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const CLAUDE_KEY: &str = "sk-ant-test-key-that-must-not-leak";

fn proc_script() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/interop/proc.py")
        .to_string_lossy()
        .into_owned()
}

/// The Python interpreter itself, not a wrapper on PATH (pyenv's shim
/// adds variables of its own, which would blur what the host passed).
fn python() -> &'static str {
    static PYTHON: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    PYTHON.get_or_init(|| {
        let out = Command::new("python3")
            .args(["-c", "import sys; print(sys.executable)"])
            .output()
            .expect("python3 runs");
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    })
}

/// A stdio entry running proc.py with `env`, and more fields.
fn entry(env: Value, more: Value) -> Value {
    let mut entry = json!({"command": python(), "args": [proc_script()], "env": env});
    if let (Some(entry), Some(more)) = (entry.as_object_mut(), more.as_object()) {
        entry.extend(more.clone());
    }
    entry
}

/// Runs the program on `config` against `fake` with `extra` environment.
fn host(
    config: &McpConfig,
    fake: &FakeModel,
    args: &[&str],
    extra: &[(&str, &str)],
    stdin: &str,
) -> HostRun {
    let mut all = vec!["--config", config.arg(), "--approve", "all", "--json"];
    all.extend_from_slice(args);
    let mut env = vec![
        ("ANTHROPIC_BASE_URL", fake.base_url.as_str()),
        ("ANTHROPIC_API_KEY", CLAUDE_KEY),
    ];
    env.extend_from_slice(extra);
    run_host(&all, &env, stdin)
}

/// The `(pid, kind)` lines proc.py wrote to `dir/pids`.
fn pids(dir: &Path) -> Vec<(i32, String)> {
    std::fs::read_to_string(dir.join("pids"))
        .unwrap_or_default()
        .lines()
        .filter_map(|line| {
            let mut parts = line.split_whitespace();
            let pid = parts.next()?.parse().ok()?;
            Some((pid, parts.nth(1)?.to_owned()))
        })
        .collect()
}

/// Whether `pid` is a live process (a zombie is not).
fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

/// Asserts every process proc.py recorded in `dir` is gone (within 2 s:
/// an orphan's reaping by init is not instant), and kills any left.
fn assert_all_gone(dir: &Path) {
    let recorded = pids(dir);
    assert!(!recorded.is_empty(), "no process was recorded");
    let deadline = Instant::now() + Duration::from_secs(2);
    while recorded.iter().any(|(pid, _)| alive(*pid)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let left: Vec<_> = recorded.iter().filter(|(pid, _)| alive(*pid)).collect();
    for (pid, _) in &left {
        let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
    }
    assert!(
        left.is_empty(),
        "left running after the host exited: {left:?}"
    );
}

/// Every string in `value`, depth first.
fn strings(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(text) => out.push(text.clone()),
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(map) => map.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}

/// The environment proc.py's `env` tool reported, as the model received it.
fn reported_env(request: &Value) -> BTreeMap<String, String> {
    let mut texts = Vec::new();
    strings(request, &mut texts);
    let text = texts
        .iter()
        .find_map(|t| t.strip_prefix("ENV "))
        .unwrap_or_else(|| panic!("no env tool result in {request}"));
    serde_json::from_str(text).unwrap()
}

/// One tool call, then a final text.
fn one_call(tool: &str) -> Vec<Reply> {
    vec![
        Reply::ok(claude_message(
            json!([tool_use("toolu_1", tool, json!({}))]),
            "tool_use",
            10,
            5,
        )),
        Reply::ok(claude_message(
            json!([text_block("done")]),
            "end_turn",
            20,
            2,
        )),
    ]
}

#[test]
fn a_server_gets_the_allow_list_and_its_env_and_inherit_env_gives_everything() {
    let secrets = [
        ("OPENAI_API_KEY", "sk-openai-must-not-leak"),
        ("MY_SECRET", "s3cret-for-the-server"),
        ("UNRELATED_SECRET", "nobody-asked-for-this"),
        ("TERM", "xterm-test"),
    ];
    // The default: the allow-list, plus `env` with `${VAR}` expanded.
    let config = McpConfig::new(&json!({"mcpServers": {"plain": entry(
        json!({"GIVEN": "${MY_SECRET}", "VSCODE": "v=${env:MY_SECRET}", "DEFAULTED": "${NOT_SET:-fallback}", "LITERAL": "1"}),
        json!({}),
    )}}));
    let fake = FakeModel::start(one_call("env"));
    let run = host(&config, &fake, &[], &secrets, "show the env\n");
    assert!(run.status.success(), "{}", run.stderr);
    let requests = fake.requests();
    assert_eq!(requests.len(), 2, "{}", run.stderr);
    let env = reported_env(&requests[1].body);
    for leaked in [
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
        "OPENAI_API_KEY",
        "UNRELATED_SECRET",
        "MY_SECRET",
    ] {
        assert!(
            !env.contains_key(leaked),
            "{leaked} reached the server: {env:?}"
        );
    }
    assert!(!requests[1].raw_body.contains(CLAUDE_KEY));
    assert_eq!(
        env.get("GIVEN").map(String::as_str),
        Some("s3cret-for-the-server")
    );
    assert_eq!(
        env.get("VSCODE").map(String::as_str),
        Some("v=s3cret-for-the-server")
    );
    assert_eq!(env.get("DEFAULTED").map(String::as_str), Some("fallback"));
    assert_eq!(env.get("LITERAL").map(String::as_str), Some("1"));
    assert_eq!(env.get("TERM").map(String::as_str), Some("xterm-test"));
    assert_eq!(
        env.get("PATH"),
        std::env::var("PATH").ok().as_ref(),
        "PATH is passed"
    );
    // Nothing else but what Python itself may set (PEP 538's LC_CTYPE).
    let allowed = [
        "HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LC_CTYPE",
    ];
    let extra: Vec<&String> = env
        .keys()
        .filter(|k| !allowed.contains(&k.as_str()))
        .filter(|k| !["GIVEN", "VSCODE", "DEFAULTED", "LITERAL"].contains(&k.as_str()))
        .collect();
    assert!(extra.is_empty(), "more than the allow-list: {extra:?}");

    // `"inheritEnv": true`: everything.
    let config = McpConfig::new(&json!({"mcpServers": {"all": entry(
        json!({"GIVEN": "x"}),
        json!({"inheritEnv": true}),
    )}}));
    let fake = FakeModel::start(one_call("env"));
    let run = host(&config, &fake, &[], &secrets, "show the env\n");
    assert!(run.status.success(), "{}", run.stderr);
    let env = reported_env(&fake.requests()[1].body);
    for (name, value) in secrets {
        assert_eq!(env.get(name).map(String::as_str), Some(value), "{name}");
    }
    assert_eq!(
        env.get("ANTHROPIC_API_KEY").map(String::as_str),
        Some(CLAUDE_KEY)
    );
    assert_eq!(env.get("GIVEN").map(String::as_str), Some("x"));
}

#[test]
fn an_unset_variable_in_env_is_an_error_naming_the_server_and_the_variable() {
    let config = McpConfig::new(&json!({"mcpServers": {"gh": entry(
        json!({"GITHUB_TOKEN": "${NO_SUCH_VARIABLE_SET}"}),
        json!({}),
    )}}));
    let fake = FakeModel::start(Vec::new());
    let run = host(&config, &fake, &[], &[], "");
    assert_eq!(run.status.code(), Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains(
            "server `gh`: `env.GITHUB_TOKEN` uses `${NO_SUCH_VARIABLE_SET}`, which is not set"
        ),
        "{}",
        run.stderr
    );
}

#[test]
fn a_server_exiting_while_its_child_holds_its_pipe_fails_at_once_restarts_and_its_group_ends() {
    let dir = TempDir::new();
    let config = McpConfig::new(&json!({"mcpServers": {"orphan": entry(
        json!({"PROC": "orphan", "PROC_DIR": dir.path.to_str().unwrap()}),
        json!({}),
    )}}));
    let mut replies = one_call("exit");
    replies.extend(one_call("starts"));
    let fake = FakeModel::start(replies);
    let started = Instant::now();
    let run = host(
        &config,
        &fake,
        &["--tool-timeout", "20"],
        &[],
        "exit please\nhow many starts?\n",
    );
    let took = started.elapsed();
    eprintln!("two lines, an exit and a restart: {took:?}");
    assert!(run.status.success(), "{}", run.stderr);
    // Failed at once: far from the 20 s tool timeout (twice).
    assert!(
        took < Duration::from_secs(10),
        "took {took:?}\n{}",
        run.stderr
    );
    let requests = fake.requests();
    assert_eq!(requests.len(), 4, "{}", run.stderr);
    let first = &requests[1].raw_body;
    assert!(
        first.contains("server `orphan` exited (exit status: 3)"),
        "{first}"
    );
    // Restarted on the next call: a second process answers.
    let mut texts = Vec::new();
    strings(&requests[3].body, &mut texts);
    assert!(texts.iter().any(|t| t == "2"), "{}", requests[3].raw_body);
    let recorded = pids(&dir.path);
    assert_eq!(
        recorded.iter().filter(|(_, kind)| kind == "child").count(),
        2,
        "{recorded:?}"
    );
    assert_all_gone(&dir.path);
}

/// Two servers: `saver` takes 0.5 s after the end of its stdin to write
/// its state; `stubborn` ignores both the end of stdin and SIGTERM.
fn closing_config(dir: &TempDir) -> McpConfig {
    let dir = dir.path.to_str().unwrap();
    McpConfig::new(&json!({"mcpServers": {
        "saver": entry(json!({"PROC": "save", "PROC_DIR": dir, "PREFIX": "s_"}), json!({})),
        "stubborn": entry(json!({"PROC": "stubborn,orphan", "PROC_DIR": dir, "PREFIX": "t_"}), json!({})),
    }}))
}

#[test]
fn at_the_end_of_stdin_servers_get_their_grace_then_sigterm_then_sigkill() {
    let dir = TempDir::new();
    let config = closing_config(&dir);
    let fake = FakeModel::start(Vec::new());
    let started = Instant::now();
    // The default grace (2 s): `--close-grace` is read by the program's
    // own unit tests.
    let run = host(&config, &fake, &[], &[], "");
    let took = started.elapsed();
    eprintln!("start, list and close with the default grace: {took:?}");
    assert!(run.status.success(), "{}", run.stderr);
    assert_eq!(
        std::fs::read_to_string(dir.path.join("state"))
            .ok()
            .as_deref(),
        Some("saved"),
        "the server did not get to save its state\n{}",
        run.stderr
    );
    // The stubborn one: 2 s after EOF, 2 s after SIGTERM, then SIGKILL.
    assert!(
        run.stderr
            .contains("the server outlived SIGTERM; killing its process group"),
        "{}",
        run.stderr
    );
    assert!(took >= Duration::from_secs(4), "took {took:?}");
    assert!(took < Duration::from_secs(10), "took {took:?}");
    assert_all_gone(&dir.path);
}

/// Starts the program on `config` (stdin kept open), waits until `dir`
/// records `processes`, sends `signal`, and returns how it exited, how long
/// that took after the signal, and its stderr.
fn signalled(
    config: &McpConfig,
    dir: &TempDir,
    processes: usize,
    settle: Duration,
    signal: &str,
) -> (std::process::ExitStatus, Duration, String) {
    signalled_in_line(
        config,
        dir,
        &FakeModel::start(Vec::new()),
        "",
        processes,
        settle,
        signal,
        |_| {},
    )
}

/// [`signalled`], with `line` written to the program's stdin (kept open),
/// `fake` answering its model requests, and `check` given the program's
/// pid just before the signal.
#[allow(clippy::too_many_arguments)]
fn signalled_in_line(
    config: &McpConfig,
    dir: &TempDir,
    fake: &FakeModel,
    line: &str,
    processes: usize,
    settle: Duration,
    signal: &str,
    check: impl FnOnce(u32),
) -> (std::process::ExitStatus, Duration, String) {
    let mut child = Command::new(host_binary())
        .args([
            "--config",
            config.arg(),
            "--approve",
            "all",
            "--close-grace",
            "1",
        ])
        .env("ANTHROPIC_BASE_URL", &fake.base_url)
        .env("ANTHROPIC_API_KEY", CLAUDE_KEY)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    std::io::Write::write_all(&mut stdin, line.as_bytes()).unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let log = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let deadline = Instant::now() + Duration::from_secs(30);
    while pids(&dir.path).len() < processes && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(settle);
    check(child.id());
    let sent = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let signalled = Instant::now();
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            break child.wait().unwrap();
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let took = signalled.elapsed();
    drop(stdin);
    (status, took, log.join().unwrap())
}

#[test]
fn sigterm_to_the_host_closes_the_servers_gracefully_too() {
    let dir = TempDir::new();
    let config = closing_config(&dir);
    // Both servers started and the tools listed (the host then waits on
    // its stdin, which stays open).
    let (status, took, log) = signalled(&config, &dir, 3, Duration::from_millis(500), "-TERM");
    assert_eq!(status.code(), Some(143), "{status:?}\n{log}");
    // `--close-grace 1`: 1 s after EOF, 1 s after SIGTERM (the default
    // would take 4 s).
    assert!(
        took >= Duration::from_secs(2) && took < Duration::from_millis(3800),
        "took {took:?}"
    );
    assert!(
        log.contains("mcp-host: SIGTERM: closing the servers"),
        "{log}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path.join("state"))
            .ok()
            .as_deref(),
        Some("saved"),
        "{log}"
    );
    assert_all_gone(&dir.path);
}

/// A server that, called, floods the host with 300,000 requests and never
/// reads its stdin again.
fn flooding_config(dir: &TempDir) -> McpConfig {
    let dir = dir.path.to_str().unwrap();
    McpConfig::new(&json!({"mcpServers": {
        "flood": entry(json!({"PROC": "requests", "PROC_DIR": dir}), json!({})),
    }}))
}

#[test]
fn sigterm_during_a_call_to_a_server_that_floods_requests_and_stops_reading_ends_on_time() {
    let dir = TempDir::new();
    let config = flooding_config(&dir);
    let fake = FakeModel::start(one_call("requests"));
    // The server and its flood recorded, then a second for the host's
    // replies to fill the pipe the server no longer reads.
    let (status, took, log) = signalled_in_line(
        &config,
        &dir,
        &fake,
        "flood me\n",
        2,
        Duration::from_secs(1),
        "-TERM",
        |_| {},
    );
    eprintln!("exit {took:?} after SIGTERM during the flood (--close-grace 1)");
    assert_eq!(status.code(), Some(143), "{status:?}\n{log}");
    // `--close-grace 1`: its stdin cannot be closed while a write to it is
    // blocked, so it gets the grace, then SIGTERM, which ends it.
    assert!(took < Duration::from_millis(2500), "took {took:?}\n{log}");
    assert!(!log.contains("did not close within"), "{log}");
    assert_all_gone(&dir.path);
}

#[test]
fn the_end_of_stdin_after_a_call_to_a_server_that_floods_requests_and_stops_reading_ends_on_time() {
    let dir = TempDir::new();
    let config = flooding_config(&dir);
    let fake = FakeModel::start(one_call("requests"));
    let started = Instant::now();
    let run = host(
        &config,
        &fake,
        &["--tool-timeout", "2", "--close-grace", "1"],
        &[],
        "flood me\n",
    );
    let took = started.elapsed();
    eprintln!(
        "the whole run (a 2 s call timeout, then the end of stdin, --close-grace 1): {took:?}"
    );
    assert!(run.status.success(), "{}", run.stderr);
    let lines = run.json_lines();
    assert_eq!(lines.len(), 1, "{}", run.stdout);
    assert_eq!(lines[0]["text"], "done");
    assert_eq!(lines[0]["tool_calls"][0]["is_error"], true);
    // The call's 2 s, then the close: the grace (its stdin cannot be
    // closed), then SIGTERM ends it.
    assert!(
        took < Duration::from_millis(4500),
        "took {took:?}\n{}",
        run.stderr
    );
    assert!(
        pids(&dir.path).iter().any(|(_, kind)| kind == "flooding"),
        "{:?}",
        pids(&dir.path)
    );
    assert_all_gone(&dir.path);
}

/// The `(pid, state)` of `parent`'s children, from `/proc/*/stat`.
fn children_of(parent: u32) -> Vec<(i32, String)> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| {
            let pid: i32 = entry.ok()?.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let mut rest = stat.rsplit_once(')')?.1.split_whitespace();
            let state = rest.next()?.to_owned();
            let ppid: u32 = rest.next()?.parse().ok()?;
            (ppid == parent).then_some((pid, state))
        })
        .collect()
}

#[test]
fn an_orphan_the_host_adopts_is_reaped_when_it_exits() {
    let dir = TempDir::new();
    let config = McpConfig::new(&json!({"mcpServers": {
        "forker": entry(json!({"PROC_DIR": dir.path.to_str().unwrap()}), json!({})),
    }}));
    let fake = FakeModel::start(one_call("brief"));
    let mut seen = Vec::new();
    // The server and its grandchild recorded; the grandchild exits 0.2 s
    // later, an orphan of the host's (its subreaper).
    let (status, _, log) = signalled_in_line(
        &config,
        &dir,
        &fake,
        "fork one\n",
        2,
        Duration::from_millis(1500),
        "-TERM",
        |host| seen = children_of(host),
    );
    assert_eq!(status.code(), Some(143), "{status:?}\n{log}");
    let brief = pids(&dir.path)
        .into_iter()
        .find(|(_, kind)| kind == "brief")
        .map(|(pid, _)| pid)
        .unwrap_or_else(|| panic!("no grandchild recorded\n{log}"));
    // The host's children a second after the orphan exited: its server
    // alone, running; no zombie, the orphan's among them.
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert!(seen.iter().all(|(_, state)| state != "Z"), "{seen:?}");
    assert!(seen.iter().all(|(pid, _)| *pid != brief), "{seen:?}");
    // The call was answered: the model got the tool's result.
    assert!(fake.requests().len() >= 2, "{log}");
    assert!(fake.requests()[1].raw_body.contains("forked"), "{log}");
    assert_all_gone(&dir.path);
}

#[test]
fn sigint_while_the_servers_start_ends_them_too() {
    let dir = TempDir::new();
    // It never answers `initialize`: the host is still starting it.
    let config = McpConfig::new(&json!({"mcpServers": {
        "slow": entry(json!({"PROC": "slow,orphan", "PROC_DIR": dir.path.to_str().unwrap()}), json!({})),
    }}));
    let (status, took, log) = signalled(&config, &dir, 2, Duration::from_millis(200), "-INT");
    assert_eq!(status.code(), Some(130), "{status:?}\n{log}");
    assert!(took < Duration::from_secs(2), "took {took:?}");
    assert!(
        log.contains("mcp-host: SIGINT while the servers started: killing them"),
        "{log}"
    );
    assert_all_gone(&dir.path);
}

#[test]
fn a_daemon_a_server_started_in_a_session_of_its_own_ends_with_the_host() {
    let dir = TempDir::new();
    let config = McpConfig::new(&json!({"mcpServers": {
        "d": entry(json!({"PROC": "daemon", "PROC_DIR": dir.path.to_str().unwrap(), "PREFIX": "d_"}), json!({})),
    }}));
    let fake = FakeModel::start(one_call("d_starts"));
    let run = host(&config, &fake, &[], &[], "how many starts?\n");
    assert!(run.status.success(), "{}", run.stderr);
    let recorded = pids(&dir.path);
    assert!(
        recorded.iter().any(|(_, kind)| kind == "daemon"),
        "no daemon recorded: {recorded:?}"
    );
    // Its recorded group is its own (setsid), not the server's.
    let groups = std::fs::read_to_string(dir.path.join("pids")).unwrap();
    let group_of = |kind: &str| {
        groups
            .lines()
            .find(|line| line.ends_with(kind))
            .and_then(|line| line.split_whitespace().nth(1))
            .map(str::to_owned)
    };
    assert_ne!(group_of("daemon"), group_of("server"), "{groups}");
    assert_all_gone(&dir.path);
}

/// The flood's line size: over the 4 KiB cut, small enough that a debug
/// build of the host reads more lines a second than the rate lets through.
const FLOOD_BYTES: usize = 64 * 1024;

#[test]
fn a_log_flood_is_cut_and_rate_limited_and_the_other_server_still_answers() {
    let dir = TempDir::new();
    let dir_text = dir.path.to_str().unwrap();
    let config = McpConfig::new(&json!({"mcpServers": {
        "flood": entry(json!({"PROC": "flood", "FLOOD_SECS": "5", "FLOOD_BYTES": FLOOD_BYTES.to_string(), "PREFIX": "f_"}), json!({})),
        "good": entry(json!({"PROC_DIR": dir_text, "PREFIX": "g_"}), json!({})),
    }}));
    // The model takes 3 s to ask for the call: the host runs on through
    // 3 s of the flood.
    let (run, took) = good_answers_through_three_seconds_of(&config);
    eprintln!(
        "host stderr: {} bytes, {} lines ({} from stderr, {} log notifications) over {took:?} of a flood of {FLOOD_BYTES}-byte lines",
        run.stderr.len(),
        run.stderr.lines().count(),
        run.stderr
            .lines()
            .filter(|l| l.starts_with(" INFO mcpfn_host::server:"))
            .count(),
        run.stderr
            .lines()
            .filter(|l| l.contains("server log"))
            .count(),
    );
    for line in run.stderr.lines().filter(|l| !l.contains("xxxxxxxx")) {
        eprintln!("{line}");
    }
    // Per source at most a burst of 100 lines and 20 a second after it,
    // each at most 4 KiB and a note: under 2 MiB for both sources.
    assert!(
        run.stderr.len() < 2 << 20,
        "host stderr: {} bytes",
        run.stderr.len()
    );
    assert!(run.stderr.contains(" bytes cut)"), "no cut note");
    assert!(
        run.stderr.contains("server `flood`: ")
            && run.stderr.contains("stderr lines dropped")
            && run.stderr.contains("log notification lines dropped"),
        "no dropped count: {}",
        &run.stderr[run.stderr.len().saturating_sub(3000)..]
    );
}

#[test]
fn a_flood_of_unusable_messages_is_rate_limited_in_the_log_and_the_other_server_still_answers() {
    let dir = TempDir::new();
    let dir_text = dir.path.to_str().unwrap();
    let config = McpConfig::new(&json!({"mcpServers": {
        "junk": entry(json!({"PROC": "junk", "FLOOD_SECS": "5", "PREFIX": "j_"}), json!({})),
        "good": entry(json!({"PROC_DIR": dir_text, "PREFIX": "g_"}), json!({})),
    }}));
    // The host runs on through 3 s of lines that are not JSON-RPC and
    // answers to ids it never sent, before the model asks for the call.
    let (run, _) = good_answers_through_three_seconds_of(&config);
    let skipped = run
        .stderr
        .lines()
        .filter(|l| l.contains("skipped a message that is not JSON-RPC"))
        .count();
    let unknown = run
        .stderr
        .lines()
        .filter(|l| l.contains("dropped an answer whose id this client never sent"))
        .count();
    eprintln!(
        "host stderr: {} bytes, {skipped} not-JSON-RPC warnings, {unknown} unknown-id warnings",
        run.stderr.len()
    );
    // A burst of 100 warnings and 20 a second after it, each id cut to an
    // excerpt: the 64 KiB ids are not copied into the log.
    assert!(
        skipped + unknown <= 100 + 20 * 10,
        "{skipped} + {unknown} warnings"
    );
    assert!(
        run.stderr.len() < 256 << 10,
        "host stderr: {} bytes",
        run.stderr.len()
    );
    assert!(
        run.stderr.contains("server `junk`: ") && run.stderr.contains("warning lines dropped"),
        "no dropped count: {}",
        &run.stderr[run.stderr.len().saturating_sub(3000)..]
    );
}

/// A process killed when the test ends.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn a_log_flood_on_an_http_get_stream_is_cut_and_rate_limited_too() {
    let mut server = Killed(
        Command::new(python())
            .arg(proc_script())
            .env("PROC", "http")
            .env("PREFIX", "h_")
            .env("FLOOD_SECS", "5")
            .env("FLOOD_BYTES", FLOOD_BYTES.to_string())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut port = String::new();
    let mut stdout = server.0.stdout.take().unwrap();
    let mut byte = [0u8; 1];
    while stdout.read(&mut byte).unwrap() == 1 && byte[0] != b'\n' {
        port.push(char::from(byte[0]));
    }
    let dir = TempDir::new();
    let config = McpConfig::new(&json!({"mcpServers": {
        "web": {"url": format!("http://127.0.0.1:{port}/mcp")},
        "good": entry(json!({"PROC_DIR": dir.path.to_str().unwrap(), "PREFIX": "g_"}), json!({})),
    }}));
    let (run, took) = good_answers_through_three_seconds_of(&config);
    eprintln!(
        "host stderr: {} bytes, {} log notification lines over {took:?} of a GET stream of {FLOOD_BYTES}-byte log messages",
        run.stderr.len(),
        run.stderr
            .lines()
            .filter(|l| l.contains("server log"))
            .count(),
    );
    assert!(
        run.stderr.len() < 1 << 20,
        "host stderr: {} bytes",
        run.stderr.len()
    );
    assert!(run.stderr.contains(" bytes cut)"), "no cut note");
    assert!(
        run.stderr.contains("server `web`: ")
            && run.stderr.contains("log notification lines dropped"),
        "no dropped count: {}",
        &run.stderr[run.stderr.len().saturating_sub(3000)..]
    );
}

/// Runs the host on one line whose model asks, 3 s in, for `g_starts` of
/// the server `good` while the config's other server misbehaves; checks
/// that the host ended well and that `good` answered (its first start).
/// Returns the run and how long it took.
fn good_answers_through_three_seconds_of(config: &McpConfig) -> (HostRun, Duration) {
    let mut replies = one_call("g_starts");
    replies[0] = replies[0].clone().after(Duration::from_secs(3));
    let fake = FakeModel::start(replies);
    let started = Instant::now();
    let run = host(config, &fake, &[], &[], "how many starts?\n");
    let took = started.elapsed();
    assert!(
        run.status.success(),
        "{}",
        &run.stderr[..run.stderr.len().min(4000)]
    );
    let requests = fake.requests();
    assert_eq!(requests.len(), 2);
    let mut texts = Vec::new();
    strings(&requests[1].body, &mut texts);
    assert!(texts.iter().any(|t| t == "1"), "{}", requests[1].raw_body);
    (run, took)
}
