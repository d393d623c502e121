//! `--approve ask` as a person meets it: the program runs under a real
//! pseudo-terminal (util-linux `script`), its stdin, stdout and stderr
//! files, and the answers typed on the terminal; the scripted model API on
//! loopback records what the model was told. Each test counts the prompts
//! the terminal showed and checks each call's result exactly.

use crate::common;

use common::fake_model::{
    FakeModel, McpConfig, Recorded, Reply, claude_message, everything_entry, run_host, text_block,
    tool_use, unmarked,
};
use common::terminal::{self, OnTerminal};
use serde_json::{Value, json};

const CLAUDE_KEY: &str = "sk-ant-test-key";

const DECLINED: &str = "The user declined to run this tool call.";
const UNASKED: &str =
    "The call was not run: it needs a person's approval and no one could be asked.";

fn end(text: &str) -> Reply {
    Reply::ok(claude_message(json!([text_block(text)]), "end_turn", 1, 1))
}

fn calls(uses: Value) -> Reply {
    Reply::ok(claude_message(uses, "tool_use", 1, 1))
}

/// The tool results `request` sends (its last message's blocks).
fn results(request: &Recorded) -> Value {
    let messages = request.body["messages"].as_array().unwrap();
    unmarked(&messages.last().unwrap()["content"])
}

fn ran(id: &str, text: &str) -> Value {
    json!({"type": "tool_result", "tool_use_id": id, "content": text})
}

fn failed(id: &str, text: &str) -> Value {
    json!({"type": "tool_result", "tool_use_id": id, "content": text, "is_error": true})
}

/// How many times the terminal asked about `tool` of `server`.
fn asked(shown: &str, tool: &str, server: &str) -> usize {
    shown
        .matches(&format!(
            "The model asks to run `{tool}` of server `{server}`"
        ))
        .count()
}

/// The program with `--json` and `args` on a terminal where `keys` are
/// typed, one line `go` on its stdin.
fn on_terminal(config: &McpConfig, args: &[&str], fake: &FakeModel, keys: &[u8]) -> OnTerminal {
    let args: Vec<&str> = std::iter::once("--json")
        .chain(args.iter().copied())
        .collect();
    terminal::on_terminal(config, &args, fake, "go\n", keys)
}

#[test]
fn allow_once_runs_the_call_and_the_next_call_is_asked_again() {
    let config = McpConfig::everything("everything", &[]);
    let fake = FakeModel::start(vec![
        calls(json!([tool_use("toolu_1", "toggle_bonus", json!({}))])),
        calls(json!([tool_use("toolu_2", "toggle_bonus", json!({}))])),
        end("done"),
    ]);
    let run = on_terminal(&config, &["--approve", "ask"], &fake, b"y\ny\n");
    let requests = fake.requests();
    assert_eq!(requests.len(), 3, "{}", run.context());
    assert_eq!(
        asked(&run.shown, "toggle_bonus", "everything"),
        2,
        "{}",
        run.context()
    );
    assert!(run.shown.contains(
        "The model asks to run `toggle_bonus` of server `everything` with {}\r\n\
         Run it? y = once, t = always `toggle_bonus` of `everything`, s = always any tool of `everything`, n = no [y/t/s/N] "
    ), "{}", run.context());
    assert_eq!(
        results(&requests[1]),
        json!([ran("toolu_1", "bonus is now hidden")])
    );
    assert_eq!(
        results(&requests[2]),
        json!([ran("toolu_2", "bonus is now listed")])
    );
}

#[test]
fn always_for_a_tool_is_not_asked_again_but_another_tool_is() {
    let config = McpConfig::everything("everything", &[]);
    let fake = FakeModel::start(vec![
        calls(json!([tool_use("toolu_1", "toggle_bonus", json!({}))])),
        calls(json!([
            tool_use("toolu_2", "toggle_bonus", json!({})),
            tool_use("toolu_3", "book_table", json!({"party": 0}))
        ])),
        end("done"),
    ]);
    let run = on_terminal(&config, &["--approve", "ask"], &fake, b"t\nn\n");
    let requests = fake.requests();
    assert_eq!(requests.len(), 3, "{}", run.context());
    assert_eq!(
        asked(&run.shown, "toggle_bonus", "everything"),
        1,
        "{}",
        run.context()
    );
    assert_eq!(
        asked(&run.shown, "book_table", "everything"),
        1,
        "{}",
        run.context()
    );
    assert_eq!(
        results(&requests[1]),
        json!([ran("toolu_1", "bonus is now hidden")])
    );
    assert_eq!(
        results(&requests[2]),
        json!([
            ran("toolu_2", "bonus is now listed"),
            failed("toolu_3", DECLINED)
        ])
    );
}

#[test]
fn always_for_a_server_covers_its_tools_not_another_servers() {
    let mut a = everything_entry(&[]);
    a["tools"] = json!({"allow": ["toggle_bonus", "book_table"]});
    let mut b = everything_entry(&[]);
    b["tools"] = json!({"allow": ["echo"]});
    b["trusted"] = json!(false);
    let config = McpConfig::new(&json!({"mcpServers": {"a": a, "b": b}}));
    let fake = FakeModel::start(vec![
        calls(json!([
            tool_use("toolu_1", "toggle_bonus", json!({})),
            tool_use("toolu_2", "book_table", json!({"party": 0})),
            tool_use("toolu_3", "echo", json!({"text": "hi"}))
        ])),
        end("done"),
    ]);
    let run = on_terminal(&config, &["--approve", "ask"], &fake, b"s\nn\n");
    let requests = fake.requests();
    assert_eq!(requests.len(), 2, "{}", run.context());
    assert_eq!(
        asked(&run.shown, "toggle_bonus", "a"),
        1,
        "{}",
        run.context()
    );
    assert_eq!(asked(&run.shown, "book_table", "a"), 0, "{}", run.context());
    // An untrusted server's read-only hint is not believed: asked, "n".
    assert_eq!(asked(&run.shown, "echo", "b"), 1, "{}", run.context());
    assert_eq!(
        results(&requests[1]),
        json!([
            ran("toolu_1", "bonus is now hidden"),
            failed("toolu_2", "party must be between 1 and 20"),
            failed("toolu_3", DECLINED)
        ])
    );
    let out: Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(
        out["tool_calls"],
        json!([
            {"name": "toggle_bonus", "server": "a", "is_error": false},
            {"name": "book_table", "server": "a", "is_error": true},
            {"name": "echo", "server": "b", "is_error": true}
        ])
    );
}

#[test]
fn read_only_tools_of_trusted_servers_run_unasked_unless_told_to_ask() {
    let config = McpConfig::everything("everything", &[]);
    for (flags, expected) in [
        (&["--approve", "ask"][..], (0, ran("toolu_1", "read me"))),
        (
            &["--approve", "ask", "--ask-read-only"],
            (1, failed("toolu_1", DECLINED)),
        ),
    ] {
        let fake = FakeModel::start(vec![
            calls(json!([tool_use(
                "toolu_1",
                "echo",
                json!({"text": "read me"})
            )])),
            end("done"),
        ]);
        // "n" is typed either way: asked when it should not be, the call
        // would be declined and the result would say so.
        let run = on_terminal(&config, flags, &fake, b"n\n");
        let requests = fake.requests();
        assert_eq!(requests.len(), 2, "{}", run.context());
        assert_eq!(
            asked(&run.shown, "echo", "everything"),
            expected.0,
            "{flags:?} {}",
            run.context()
        );
        assert_eq!(results(&requests[1]), json!([expected.1]), "{flags:?}");
    }
}

#[test]
fn without_a_terminal_ask_read_only_runs_nothing_and_says_why() {
    let config = McpConfig::everything("everything", &[]);
    let fake = FakeModel::start(vec![
        calls(json!([
            tool_use("toolu_1", "echo", json!({"text": "read me"})),
            tool_use("toolu_2", "toggle_bonus", json!({}))
        ])),
        end("done"),
    ]);
    let base_url = fake.base_url.clone();
    let run = run_host(
        &["--config", config.arg(), "--json", "--ask-read-only"],
        &[
            ("ANTHROPIC_BASE_URL", base_url.as_str()),
            ("ANTHROPIC_API_KEY", CLAUDE_KEY),
        ],
        "go\n",
    );
    let requests = fake.requests();
    assert_eq!(requests.len(), 2, "stderr:\n{}", run.stderr);
    assert_eq!(
        results(&requests[1]),
        json!([failed("toolu_1", UNASKED), failed("toolu_2", UNASKED)])
    );
    assert!(
        run.stderr.contains(
            "); calls that need approval are not run, and the model is told no one could be asked\n"
        ),
        "{}",
        run.stderr
    );
}

// Approvals kept across runs, and questions that a line typed for the model
// cannot answer.

/// `mcp-host approvals ARGS`: its status, stdout and stderr.
fn approvals_command(args: &[&str], env: &[(&str, &str)]) -> common::fake_model::HostRun {
    let mut all = vec!["approvals"];
    all.extend_from_slice(args);
    run_host(&all, env, "")
}

#[test]
fn always_for_a_tool_is_kept_across_runs_listed_and_revoked() {
    common::terminal::require_pty();
    let dir = common::fake_model::TempDir::new();
    let pins = dir.path.join("pins.json");
    let pins = pins.to_str().unwrap();
    let kept = dir.path.join("approvals.json");
    let config = McpConfig::everything("everything", &[]);
    let args = ["--approve", "ask", "--pins", pins];
    let toggle = || {
        FakeModel::start(vec![
            calls(json!([tool_use("toolu_1", "toggle_bonus", json!({}))])),
            end("done"),
        ])
    };
    // Run 1: "t", kept in approvals.json beside the pins, owner-only.
    let fake = toggle();
    let run = on_terminal(&config, &args, &fake, b"t\n");
    assert_eq!(
        asked(&run.shown, "toggle_bonus", "everything"),
        1,
        "{}",
        run.context()
    );
    assert_eq!(
        results(&fake.requests()[1]),
        json!([ran("toolu_1", "bonus is now hidden")])
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&kept).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "{mode:o}");
    }
    // Run 2: not asked; nothing is typed, so a question would hang.
    let fake = toggle();
    let run = on_terminal(&config, &args, &fake, b"");
    assert_eq!(
        asked(&run.shown, "toggle_bonus", "everything"),
        0,
        "{}",
        run.context()
    );
    assert_eq!(
        results(&fake.requests()[1]),
        json!([ran("toolu_1", "bonus is now hidden")])
    );
    // Listed: one line, when it was approved.
    let listed = approvals_command(&["list", "--pins", pins], &[]);
    assert!(listed.status.success(), "{}", listed.stderr);
    let line = listed.stdout.strip_suffix('\n').unwrap();
    let when = line
        .strip_prefix("everything/toggle_bonus approved ")
        .unwrap_or_else(|| panic!("{line:?}"));
    assert!(
        when.len() == 20 && when.starts_with("20") && when.ends_with('Z'),
        "{when}"
    );
    // Revoked: said, and once only.
    let revoked = approvals_command(&["revoke", "everything/toggle_bonus", "--pins", pins], &[]);
    assert!(revoked.status.success(), "{}", revoked.stderr);
    assert_eq!(
        revoked.stdout,
        format!("revoked everything/toggle_bonus (approved {when})\n")
    );
    let again = approvals_command(&["revoke", "everything/toggle_bonus", "--pins", pins], &[]);
    assert_eq!(again.status.code(), Some(1));
    assert_eq!(
        again.stderr,
        format!(
            "mcp-host: no approval matches `everything/toggle_bonus` in {}\n",
            kept.display()
        )
    );
    let listed = approvals_command(&["list", "--pins", pins], &[]);
    assert_eq!(
        listed.stdout,
        format!("no approvals kept in {}\n", kept.display())
    );
    // Run 3: asked again; "n".
    let fake = toggle();
    let run = on_terminal(&config, &args, &fake, b"n\n");
    assert_eq!(
        asked(&run.shown, "toggle_bonus", "everything"),
        1,
        "{}",
        run.context()
    );
    assert_eq!(
        results(&fake.requests()[1]),
        json!([failed("toolu_1", DECLINED)])
    );
}

#[test]
fn always_for_a_server_is_kept_in_the_config_directory_for_the_tools_it_listed() {
    common::terminal::require_pty();
    let home = common::fake_model::TempDir::new();
    let xdg = home.path.join("config");
    let env = [("XDG_CONFIG_HOME", xdg.to_str().unwrap())];
    let server = |allow: Value| {
        let mut entry = everything_entry(&[]);
        entry["tools"] = json!({"allow": allow});
        McpConfig::new(&json!({"mcpServers": {"a": entry}}))
    };
    // Run 1: `a` lists `toggle_bonus` and `echo`; "s".
    let config = server(json!(["toggle_bonus", "echo"]));
    let fake = FakeModel::start(vec![
        calls(json!([tool_use("toolu_1", "toggle_bonus", json!({}))])),
        end("done"),
    ]);
    let run = terminal::on_terminal_with(
        &config,
        &["--json", "--approve", "ask", "--ask-read-only"],
        &fake,
        Some("go\n"),
        b"s\n",
        &env,
    );
    assert_eq!(
        asked(&run.shown, "toggle_bonus", "a"),
        1,
        "{}",
        run.context()
    );
    let listed = approvals_command(&["list"], &env);
    assert!(
        listed.stdout.starts_with("a/* approved 20"),
        "{}{}",
        listed.stdout,
        listed.stderr
    );
    assert!(xdg.join("mcp-host/approvals.json").is_file());
    // Run 2: `echo` (listed then) runs unasked; `book_table` (not listed
    // then) is asked about: "n".
    let config = server(json!(["toggle_bonus", "echo", "book_table"]));
    let fake = FakeModel::start(vec![
        calls(json!([
            tool_use("toolu_1", "echo", json!({"text": "hi"})),
            tool_use("toolu_2", "book_table", json!({"party": 2}))
        ])),
        end("done"),
    ]);
    let run = terminal::on_terminal_with(
        &config,
        &["--json", "--approve", "ask", "--ask-read-only"],
        &fake,
        Some("go\n"),
        b"n\n",
        &env,
    );
    assert_eq!(asked(&run.shown, "echo", "a"), 0, "{}", run.context());
    assert_eq!(asked(&run.shown, "book_table", "a"), 1, "{}", run.context());
    assert_eq!(
        results(&fake.requests()[1]),
        json!([ran("toolu_1", "hi"), failed("toolu_2", DECLINED)])
    );
    // Revoking the server's name removes its approvals.
    let revoked = approvals_command(&["revoke", "a"], &env);
    assert!(
        revoked.stdout.starts_with("revoked a/* (approved 20"),
        "{}",
        revoked.stdout
    );
}

#[test]
fn a_line_typed_for_the_model_at_a_question_is_not_its_answer() {
    common::terminal::require_pty();
    // The terminal is stdin too: the line "go" is read first, then the
    // call's question reads "what about Paris?" (not an answer: asked
    // again) and "y"; Ctrl-D ends the input.
    let config = McpConfig::everything("everything", &[]);
    let fake = FakeModel::start(vec![
        calls(json!([tool_use("toolu_1", "toggle_bonus", json!({}))])),
        end("done"),
    ]);
    let run = terminal::on_terminal_with(
        &config,
        &["--json", "--approve", "ask"],
        &fake,
        None,
        b"go\nwhat about Paris?\ny\n\x04",
        &[],
    );
    let requests = fake.requests();
    assert_eq!(requests.len(), 2, "{}", run.context());
    assert_eq!(
        asked(&run.shown, "toggle_bonus", "everything"),
        1,
        "{}",
        run.context()
    );
    assert!(
        run.shown.contains(
            // The terminal echoes the keys as they are typed, ahead.
            "[y/t/s/N] That line is not an answer (it was not sent to the model). Type y, t, s or n and Enter: "
        ),
        "{}",
        run.context()
    );
    assert_eq!(
        results(&requests[1]),
        json!([ran("toolu_1", "bonus is now hidden")])
    );
    for request in &requests {
        assert!(!request.raw_body.contains("Paris"), "{}", request.raw_body);
    }
    let first = requests[0].body["messages"].as_array().unwrap();
    assert_eq!(first.len(), 1);
    assert_eq!(first[0]["content"][0]["text"], "go");
    let out: Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(out["text"], "done");
}
