//! In-process tools that take a `State<T>`: the value given with
//! `AgentBuilder::state` reaches them through a real model round trip (a
//! fake Anthropic API on loopback), and a missing one stops `build` with
//! an error naming the builder's fix, not the runtime's `Server::state`.

use crate::common::fake_model::{FakeModel, Reply, claude_message, text_block, tool_use, unmarked};
use crate::common::run;
use mcpfn_host::agent::{Agent, AgentError};
use mcpfn_host::provider::Anthropic;
use mcpfn_runtime::{Server, State, tool, tools};
use serde_json::json;
use std::sync::Mutex;

/// Notes kept across calls.
#[derive(Debug, Default)]
struct Notes {
    lines: Vec<String>,
}

/// Keep a note; answers how many there are.
#[tool]
async fn note(notes: State<Mutex<Notes>>, text: String) -> String {
    // Through `Deref`: the `Mutex`'s `lock`, not the `Arc`'s.
    let mut notes = notes.lock().unwrap();
    notes.lines.push(text);
    format!("{} notes", notes.lines.len())
}

/// A prefix every answer starts with.
struct Prefix(&'static str);

/// Echo with the prefix.
#[tool]
async fn echo(prefix: State<Prefix>, text: String) -> String {
    format!("{}{text}", prefix.0)
}

#[test]
fn a_state_given_to_the_builder_reaches_the_in_process_tools_that_take_it() {
    run(async {
        let fake = FakeModel::start(vec![
            Reply::ok(claude_message(
                json!([
                    tool_use("toolu_1", "note", json!({"text": "milk"})),
                    tool_use("toolu_2", "echo", json!({"text": "hi"}))
                ]),
                "tool_use",
                10,
                2,
            )),
            Reply::ok(claude_message(
                json!([text_block("done")]),
                "end_turn",
                10,
                2,
            )),
        ]);
        let agent = Agent::new(Anthropic::new(&fake.base_url, Some("k")).unwrap())
            .state(Mutex::new(Notes {
                lines: vec!["eggs".into()],
            }))
            .tools(tools![note, echo])
            .state(Prefix("> "))
            .build()
            .await
            .unwrap();
        let mut chat = agent.conversation();
        let answer = agent.send(&mut chat, "note milk").await.unwrap();
        assert_eq!(answer.text, "done");
        // Without the prompt-cache breakpoint on the last block.
        let results = unmarked(&fake.requests()[1].body["messages"][2]["content"]);
        assert_eq!(
            results,
            json!([
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "2 notes"},
                {"type": "tool_result", "tool_use_id": "toolu_2", "content": "> hi"}
            ])
        );
    });
}

#[test]
fn an_in_process_tool_without_its_state_stops_build_naming_agent_builder_state() {
    run(async {
        let fake = FakeModel::start(Vec::new());
        let error = Agent::new(Anthropic::new(&fake.base_url, Some("k")).unwrap())
            .tools(tools![note])
            .state(Prefix("unused"))
            .build()
            .await
            .unwrap_err();
        let type_name = std::any::type_name::<Mutex<Notes>>();
        match &error {
            AgentError::MissingState { tool, type_name: t } => {
                assert_eq!((tool.as_str(), *t), ("note", type_name));
            }
            other => panic!("expected MissingState, got {other:?}"),
        }
        assert_eq!(
            error.to_string(),
            format!(
                "in-process tool `note` takes State<{type_name}>, but the agent has no such state; call `AgentBuilder::state(value)` with the {type_name} before `build()`"
            )
        );
        assert!(fake.requests().is_empty());
    });
}

#[test]
fn a_whole_server_without_its_state_keeps_the_runtimes_error_naming_server_state() {
    run(async {
        let fake = FakeModel::start(Vec::new());
        let error = Agent::new(Anthropic::new(&fake.base_url, Some("k")).unwrap())
            .server("notes", Server::new("notes", "1").tools(tools![note]))
            // The agent's state is for `tools(...)`, not for a server of
            // the caller's own.
            .state(Mutex::new(Notes::default()))
            .build()
            .await
            .unwrap_err();
        assert!(matches!(error, AgentError::Local(_)), "{error:?}");
        assert!(
            error
                .to_string()
                .ends_with("no such state is registered; add `.state(value)` to the Server"),
            "{error}"
        );
    });
}

#[test]
fn a_state_hands_out_its_arc_and_derefs_to_its_value() {
    let shared = std::sync::Arc::new(Mutex::new(Notes::default()));
    let state = State::from_arc(std::sync::Arc::clone(&shared));
    state.lock().unwrap().lines.push("a".into());
    assert!(std::sync::Arc::ptr_eq(&state.clone().into_arc(), &shared));
    assert_eq!(shared.lock().unwrap().lines, ["a"]);
}
