//! `mcp.json`'s per-server `tools` filter and `"disabled": true`, through
//! the `mcp-host` program with the `everything` example over stdio and a
//! scripted Anthropic API on loopback: what the recorded request offers,
//! what a call to a filtered-out name gets, and what stderr says.

use crate::common;

use common::fake_model::{
    FakeModel, McpConfig, Reply, claude_message, everything_entry, run_host, text_block, tool_use,
};
use serde_json::{Value, json};

/// The entry of `everything` with a filter: `add` and the `get_*` tools,
/// `echo` allowed and denied (deny wins), and one entry of each list that
/// matches nothing.
fn filtered_everything() -> Value {
    let mut entry = everything_entry(&[]);
    entry["tools"] = json!({
        "allow": ["add", "echo", "get_*", "nope_*"],
        "deny": ["echo", "gone"],
    });
    entry
}

#[test]
fn only_allowed_tools_are_offered_and_a_denied_name_never_reaches_the_server() {
    for form in ["mcpServers", "servers"] {
        let mut off = everything_entry(&[]);
        off["disabled"] = json!(true);
        let config = McpConfig::new(&json!({form: {"e": filtered_everything(), "off": off}}));
        let model = FakeModel::start(vec![
            Reply::ok(claude_message(
                json!([
                    tool_use("t1", "echo", json!({"text": "hi"})),
                    tool_use("t2", "add", json!({"a": 2, "b": 3}))
                ]),
                "tool_use",
                10,
                5,
            )),
            Reply::ok(claude_message(
                json!([text_block("done")]),
                "end_turn",
                10,
                5,
            )),
        ]);
        let run = run_host(
            &["--config", config.arg(), "--json", "--approve", "all"],
            &[
                ("ANTHROPIC_BASE_URL", model.base_url.as_str()),
                ("ANTHROPIC_API_KEY", "test-key"),
            ],
            "echo hi and add 2 and 3\n",
        );
        assert!(
            run.status.success(),
            "{form}: {}\n{}",
            run.stdout,
            run.stderr
        );
        let requests = model.requests();
        assert_eq!(requests.len(), 2, "{form}: {requests:?}");
        let offered: Vec<&str> = requests[0].body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(offered, ["add", "get_weather_data"], "{form}");
        // Both calls answered, in order; the denied one by the host.
        let last = requests[1].body["messages"]
            .as_array()
            .unwrap()
            .last()
            .unwrap();
        let results = last["content"].as_array().unwrap();
        assert_eq!(results[0]["tool_use_id"], "t1");
        assert_eq!(results[0]["is_error"], true);
        assert_eq!(
            results[0]["content"],
            "There is no tool named `echo`; call one of the tools offered."
        );
        assert_eq!(results[1]["tool_use_id"], "t2");
        assert_eq!(results[1]["content"], r#"{"sum":5.0}"#);
        // The denied call was never routed to a server ("" server); the
        // allowed one went to `e`.
        let line = &run.json_lines()[0];
        assert_eq!(
            line["tool_calls"],
            json!([
                {"name": "echo", "server": "", "is_error": true},
                {"name": "add", "server": "e", "is_error": false}
            ]),
            "{form}"
        );
        // One warning per entry matching nothing, naming server and entry.
        for entry in ["`tools.allow` entry `nope_*`", "`tools.deny` entry `gone`"] {
            let warnings: Vec<&str> = run.stderr.lines().filter(|l| l.contains(entry)).collect();
            assert_eq!(warnings.len(), 1, "{form}: {entry} in {}", run.stderr);
            assert!(warnings[0].contains("server=e"), "{}", warnings[0]);
        }
        // The disabled server is said to be disabled, not to have failed.
        assert!(
            run.stderr
                .contains("mcp-host: server `off` not started: disabled in the config"),
            "{form}: {}",
            run.stderr
        );
        assert!(!run.stderr.contains("server left out"), "{}", run.stderr);
        assert!(
            run.stderr.contains("mcp-host: 2 tools offered"),
            "{form}: {}",
            run.stderr
        );
    }
}
