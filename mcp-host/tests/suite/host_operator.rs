//! The operator's settings of the `mcp-host` program, driven as a child
//! against a fake Anthropic API: what it logs (`--quiet`, `--log-level`,
//! `RUST_LOG`), how long a server may take to start (`--start-timeout`,
//! `"startTimeout"`), how often a dying server is started again, how
//! far apart (`--restarts`, `"restarts"`), and what becomes of the tools
//! a 2025-11-25 server runs only as tasks.

use crate::common::fake_model::{
    FakeModel, HostRun, McpConfig, Recorded, Reply, TempDir, claude_message, run_host_with,
    text_block, tool_use,
};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn asks(name: &str, id: &str) -> Reply {
    Reply::ok(claude_message(
        json!([tool_use(id, name, json!({}))]),
        "tool_use",
        10,
        5,
    ))
}

fn says(text: &str) -> Reply {
    Reply::ok(claude_message(json!([text_block(text)]), "end_turn", 10, 5))
}

/// A stdio entry running tests/interop/fake.py in `mode`.
fn fake(mode: &str, dir: Option<&TempDir>, tools: &[&str]) -> Value {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/interop/fake.py");
    let mut env = json!({"FAKE": mode, "FAKE_TOOLS": json!(tools).to_string(), "FAKE_TAG": mode});
    if let Some(dir) = dir {
        env["FAKE_DIR"] = json!(dir.path.to_str().unwrap());
    }
    json!({"command": "python3", "args": [script.to_str().unwrap()], "env": env})
}

/// Runs the host with `--json --approve all` and `extra`, `RUST_LOG` as
/// given (removed when `None`, whatever the test's own environment says).
fn host(
    config: &McpConfig,
    model: &FakeModel,
    extra: &[&str],
    rust_log: Option<&str>,
    stdin: &str,
) -> HostRun {
    let mut args = vec!["--config", config.arg(), "--json", "--approve", "all"];
    args.extend_from_slice(extra);
    let run = run_host_with(
        &args,
        &[
            ("ANTHROPIC_BASE_URL", model.base_url.as_str()),
            ("ANTHROPIC_API_KEY", "test-key"),
        ],
        stdin,
        |command| {
            command.env_remove("RUST_LOG");
            if let Some(value) = rust_log {
                command.env("RUST_LOG", value);
            }
        },
    );
    assert!(
        run.status.success(),
        "mcp-host failed ({}):\nstdout:\n{}\nstderr:\n{}",
        run.status,
        run.stdout,
        run.stderr
    );
    run
}

/// The text of the tool results a request carries, `(is_error, text)`.
fn results(request: &Recorded) -> Vec<(bool, String)> {
    let last = &request.body["messages"].as_array().unwrap().last().unwrap()["content"];
    last.as_array()
        .unwrap()
        .iter()
        .map(|b| {
            let text = match &b["content"] {
                Value::String(s) => s.clone(),
                Value::Array(blocks) => blocks.iter().filter_map(|c| c["text"].as_str()).collect(),
                other => panic!("tool_result content {other}"),
            };
            (b["is_error"].as_bool().unwrap_or(false), text)
        })
        .collect()
}

/// One line, one call of the `listed` fake's tool `look`, then an answer:
/// run with `extra` and `rust_log`, the stderr it wrote.
fn one_call(extra: &[&str], rust_log: Option<&str>) -> String {
    let config = McpConfig::new(&json!({"mcpServers": {"f": fake("listed", None, &["look"])}}));
    let model = FakeModel::start(vec![asks("look", "t1"), says("seen")]);
    let run = host(&config, &model, extra, rust_log, "look\n");
    assert_eq!(run.json_lines()[0]["text"], "seen", "{}", run.stdout);
    assert_eq!(
        results(&model.requests()[1]),
        [(false, "listed/look: {}".to_owned())]
    );
    run.stderr
}

#[test]
fn quiet_and_log_level_leave_out_the_info_lines_and_rust_log_chooses_by_target() {
    let default = one_call(&[], None);
    for line in ["INFO", "calling", "tools offered to"] {
        assert!(default.contains(line), "{line}: {default}");
    }
    assert!(!default.contains("DEBUG"), "{default}");

    for flags in [&["--quiet"][..], &["--log-level", "warn"]] {
        let quiet = one_call(flags, Some("debug"));
        assert_eq!(quiet, "", "{flags:?} wins over RUST_LOG: {quiet}");
    }

    // `mcpfn_client` at debug, every other target off: the legacy fake's
    // refusal of `server/discover` (a debug line of mcpfn_client) and none
    // of mcpfn_host's info lines.
    let client = one_call(&[], Some("mcpfn_client=debug"));
    assert!(client.contains("DEBUG"), "{client}");
    assert!(
        client.contains("server/discover refused; the legacy handshake follows"),
        "{client}"
    );
    assert!(!client.contains("INFO"), "{client}");
    assert!(!client.contains("tools offered to"), "{client}");

    let warn = one_call(&[], Some("warn"));
    assert_eq!(warn, "", "{warn}");

    let refused = one_call(&[], Some("mcpfn_host[call]=debug"));
    assert!(
        refused.starts_with("mcp-host: RUST_LOG=\"mcpfn_host[call]=debug\" is not a log filter"),
        "{refused}"
    );
    assert!(refused.contains("INFO"), "the default, info: {refused}");
}

#[test]
fn a_server_slower_than_its_start_timeout_is_left_out_in_that_time() {
    let config = McpConfig::new(&json!({"mcpServers": {
        "mute": {"command": "sh", "args": ["-c", "sleep 30"]},
        "muter": {"command": "sh", "args": ["-c", "sleep 30"], "startTimeout": 0.5},
        "f": fake("listed", None, &["look"]),
    }}));
    let model = FakeModel::start(vec![says("hello")]);
    let started = Instant::now();
    let run = host(&config, &model, &["--start-timeout", "2"], None, "hi\n");
    let took = started.elapsed();
    assert!(took < Duration::from_secs(8), "{took:?}: {}", run.stderr);
    let first = model.requests()[0].received - started;
    assert!(
        first >= Duration::from_millis(1_900) && first < Duration::from_secs(6),
        "the first model request came {first:?} after the start"
    );
    for (server, within) in [("mute", "2"), ("muter", "0.5")] {
        let line = run
            .stderr
            .lines()
            .find(|l| l.contains("server left out") && l.contains(&format!("server={server} ")))
            .unwrap_or_else(|| panic!("{server}: {}", run.stderr));
        assert!(
            line.contains(&format!(
                "did not start and list its tools within {within} s"
            )),
            "{line}"
        );
    }
    let requests = model.requests();
    let offered: Vec<&str> = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(offered, ["look"]);
    assert_eq!(run.json_lines()[0]["text"], "hello");
}

/// fake.py's `exit` tool kills its process; `count` says how many were
/// started. Killed three times, restarted three times (`--restarts 3`, the
/// default), the later restarts no sooner than 1 s, then 2 s, after the
/// start before them; killed a fourth time, it stays dead.
#[test]
fn a_server_killed_again_and_again_is_restarted_with_backoff_up_to_the_limit() {
    let dir = TempDir::new();
    let config = McpConfig::new(&json!({"mcpServers": {"f": fake("exit", Some(&dir), &[])}}));
    let mut script = Vec::new();
    for round in 1..=4 {
        script.push(asks("exit", &format!("e{round}")));
        script.push(asks("count", &format!("c{round}")));
    }
    script.push(says("done"));
    let model = FakeModel::start(script);
    let run = host(&config, &model, &["--max-turns", "20"], None, "crash\n");
    assert_eq!(run.json_lines()[0]["text"], "done", "{}", run.stderr);
    let requests = model.requests();
    assert_eq!(requests.len(), 9);
    let counts: Vec<(bool, String)> = [2, 4, 6, 8]
        .iter()
        .map(|&i| results(&requests[i]).remove(0))
        .collect();
    assert_eq!(
        counts[..3],
        [
            (false, "2".into()),
            (false, "3".into()),
            (false, "4".into())
        ]
    );
    assert!(counts[3].0, "no fourth restart: {counts:?}");
    for i in [1, 3, 5, 7] {
        assert!(results(&requests[i])[0].0, "the call it died in fails");
    }
    assert_eq!(
        std::fs::read_to_string(dir.path.join("starts")).unwrap(),
        "4"
    );
    // Restart 1 at once; restart 2 no sooner than 1 s after restart 1,
    // restart 3 no sooner than 2 s after restart 2. Each restart comes
    // just before the request that carries its count, less the process's
    // start (a Python interpreter: well under 300 ms) and the handshake.
    let gap = |a: usize, b: usize| requests[b].received - requests[a].received;
    assert!(gap(1, 2) < Duration::from_millis(900), "{:?}", gap(1, 2));
    assert!(
        (Duration::from_millis(700)..Duration::from_millis(1_900)).contains(&gap(2, 4)),
        "{:?}",
        gap(2, 4)
    );
    assert!(
        (Duration::from_millis(1_700)..Duration::from_millis(2_900)).contains(&gap(4, 6)),
        "{:?}",
        gap(4, 6)
    );
    assert!(
        gap(7, 8) < Duration::from_millis(900),
        "no wait once the restarts are used up"
    );
    let restarts: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains("connecting to the server again"))
        .collect();
    assert_eq!(restarts.len(), 3, "{}", run.stderr);
    assert!(restarts[2].contains("restart=3 of=3"), "{}", restarts[2]);
}

#[test]
fn an_entry_with_restarts_0_is_never_restarted_whatever_the_flag() {
    let dir = TempDir::new();
    let mut entry = fake("exit", Some(&dir), &[]);
    entry["restarts"] = json!(0);
    let config = McpConfig::new(&json!({"mcpServers": {"f": entry}}));
    let model = FakeModel::start(vec![asks("exit", "e"), asks("count", "c"), says("done")]);
    host(&config, &model, &["--restarts", "5"], None, "crash\n");
    let requests = model.requests();
    assert!(results(&requests[2])[0].0, "{:?}", results(&requests[2]));
    assert_eq!(
        std::fs::read_to_string(dir.path.join("starts")).unwrap(),
        "1"
    );
}

/// A 2025-11-25 server's tool with `execution.taskSupport: "required"`
/// would always fail (-32601 without a `task`): it is not offered, and one
/// warning names it; `"optional"` and absent are offered.
#[test]
fn a_tool_that_runs_only_as_a_2025_11_25_task_is_left_out_with_a_warning_naming_it() {
    let plain = fake("task-required", None, &[]);
    // Listed again after its list changed: still one warning.
    let mut changing = plain.clone();
    changing["env"]["FAKE_LIST_CHANGED"] = json!("1");
    for entry in [plain, changing] {
        task_required_is_left_out(entry);
    }
}

fn task_required_is_left_out(entry: Value) {
    let config = McpConfig::new(&json!({"mcpServers": {"r": entry}}));
    let model = FakeModel::start(vec![asks("lookup", "l1"), says("done")]);
    let run = host(&config, &model, &[], None, "research\n");
    let requests = model.requests();
    let offered: Vec<&str> = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(offered, ["lookup", "plain"]);
    assert_eq!(results(&requests[1]), [(false, "1".to_owned())]);
    let warnings: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains("tools left out"))
        .collect();
    assert_eq!(warnings.len(), 1, "{}", run.stderr);
    assert!(warnings[0].contains(" WARN "), "{}", warnings[0]);
    assert!(
        warnings[0]
            .contains("they run only as 2025-11-25 tasks (execution.taskSupport \"required\")"),
        "{}",
        warnings[0]
    );
    assert!(
        warnings[0].contains("server=r tools=research"),
        "{}",
        warnings[0]
    );
}
