//! The README's agent (`mcp-host/examples/agent.rs`) run as a person runs
//! it, from a directory of their own, against a scripted model API: it
//! finds the `everything` server beside its own binary and offers its
//! tools; without the server it says which is missing and fails.

use crate::common;

use common::fake_model::{FakeModel, Reply, TempDir, claude_message, text_block};
use serde_json::json;
use std::process::{Command, Output};

/// Runs the example binary at `binary` in a new temp dir.
fn agent(binary: &std::path::Path, fake: &FakeModel) -> Output {
    let elsewhere = TempDir::new();
    let mut command = Command::new(binary);
    for (name, _) in std::env::vars_os() {
        let text = name.to_string_lossy();
        if text.starts_with("ANTHROPIC_") || text.starts_with("OPENAI_") {
            command.env_remove(&name);
        }
    }
    command
        .current_dir(&elsewhere.path)
        .env("ANTHROPIC_BASE_URL", &fake.base_url)
        .env("ANTHROPIC_API_KEY", "sk-ant-test-key")
        .output()
        .unwrap()
}

fn says(text: &str) -> Reply {
    Reply::ok(claude_message(json!([text_block(text)]), "end_turn", 10, 3))
}

#[test]
fn the_agent_example_runs_from_any_directory_with_the_everything_tools() {
    common::everything();
    let binary = common::example("agent");
    let fake = FakeModel::start(vec![says("晴"), says("也晴"), says("5")]);
    let run = agent(&binary, &fake);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert_eq!(
        String::from_utf8_lossy(&run.stdout),
        "> 北京今天天气怎么样\n晴 [end_turn]\n> 那上海呢\n也晴 [end_turn]\n> 2 加 3 是多少？\n5 [end_turn]\n"
    );
    let offered: Vec<String> = fake.requests()[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    for name in ["get_weather", "echo", "slow", "add"] {
        assert!(
            offered.iter().any(|o| o == name),
            "{name} not in {offered:?}"
        );
    }
}

#[test]
fn the_agent_example_without_its_server_names_it_and_fails() {
    let alone = TempDir::new();
    let binary = alone.path.join("agent");
    std::fs::copy(common::example("agent"), &binary).unwrap();
    let fake = FakeModel::start(vec![says("never")]);
    let run = agent(&binary, &fake);
    assert_eq!(run.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&run.stderr),
        format!(
            "no `everything` server at {}: `cargo build -p examples --example everything` first\n",
            alone.path.join("everything").display()
        )
    );
    assert!(fake.requests().is_empty());
}
