//! A server switched off and on at run time under the library's agent
//! (`Agent::set_offered`), and the servers as a list shows them
//! (`Agent::servers`): two in-process servers, the Anthropic provider over
//! a scripted model API on loopback that records every request.

use crate::common;

use common::fake_model::{FakeModel, Recorded, Reply, claude_message, text_block, tool_use};
use mcpfn_host::agent::Agent;
use mcpfn_host::agent::servers::{NotConnected, ServerState, ServerTool};
use mcpfn_host::provider::Anthropic;
use mcpfn_runtime::{Server, tool, tools};
use serde_json::{Value, json};

/// The weather in a city.
#[tool(read_only)]
async fn forecast(city: String) -> String {
    format!("sun in {city}")
}

/// Waters the garden.
#[tool]
async fn water() -> String {
    "watered".into()
}

fn end(text: &str) -> Reply {
    Reply::ok(claude_message(json!([text_block(text)]), "end_turn", 1, 1))
}

fn calls(uses: Value) -> Reply {
    Reply::ok(claude_message(uses, "tool_use", 1, 1))
}

/// The names of a request's tools, in order.
fn names(request: &Recorded) -> Vec<String> {
    request.body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .map(|t| t["name"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

async fn agent(fake: &FakeModel) -> Agent {
    Agent::new(
        Anthropic::new(&fake.base_url, Some("sk-ant-test-key"))
            .unwrap()
            .caching(false),
    )
    .server(
        "garden",
        Server::new("garden", "1.0.0").tools(tools![water]),
    )
    .server(
        "weather",
        Server::new("weather", "1.0.0").tools(tools![forecast]),
    )
    .build()
    .await
    .unwrap()
}

#[test]
fn a_server_switched_off_leaves_the_next_request_and_comes_back_in_its_place() {
    common::run(async {
        let fake = FakeModel::start(vec![
            end("one"),
            calls(json!([tool_use(
                "toolu_1",
                "forecast",
                json!({"city": "Oslo"})
            )])),
            end("two"),
            end("three"),
        ]);
        let agent = agent(&fake).await;
        let mut chat = agent.conversation();
        agent.send(&mut chat, "first").await.unwrap();

        assert_eq!(agent.set_offered("weather", false).await, Ok(true));
        // Switching it off again changes nothing.
        assert_eq!(agent.set_offered("weather", false).await, Ok(false));
        let weather = agent
            .servers()
            .into_iter()
            .find(|s| s.name == "weather")
            .unwrap();
        assert!(!weather.offered);
        // Still connected, its tools still listed.
        assert_eq!(weather.state, ServerState::Connected);
        assert_eq!(weather.tools.len(), 1);
        assert_eq!(agent.offered_tools().len(), 1);

        // The model calls it from memory: refused, saying why, never run.
        let answer = agent.send(&mut chat, "second").await.unwrap();
        assert_eq!(answer.text, "two");
        assert!(answer.tool_calls[0].is_error);

        assert_eq!(agent.set_offered("weather", true).await, Ok(true));
        agent.send(&mut chat, "third").await.unwrap();

        let requests = fake.requests();
        assert_eq!(requests.len(), 4);
        assert_eq!(names(&requests[0]), ["water", "forecast"]);
        assert_eq!(names(&requests[1]), ["water"]);
        assert_eq!(names(&requests[2]), ["water"]);
        let result = &requests[2].body["messages"][4]["content"][0];
        assert_eq!(result["is_error"], true, "{result}");
        assert!(
            result["content"]
                .to_string()
                .contains("the tool `forecast` of server `weather` is no longer offered (the user switched its server off)"),
            "{result}"
        );
        // Back in its place, the same bytes as before.
        assert_eq!(requests[3].body["tools"], requests[0].body["tools"]);
    });
}

#[test]
fn the_servers_list_their_state_and_tools_and_a_switch_names_only_a_connected_one() {
    common::run(async {
        let fake = FakeModel::start(Vec::new());
        let agent = agent(&fake).await;
        let servers = agent.servers();
        let shown: Vec<(&str, &ServerState, bool)> = servers
            .iter()
            .map(|s| (s.name.as_str(), &s.state, s.offered))
            .collect();
        assert_eq!(
            shown,
            [
                ("garden", &ServerState::Connected, true),
                ("weather", &ServerState::Connected, true),
            ]
        );
        assert_eq!(
            servers[1].tools,
            [ServerTool {
                name: "forecast".into(),
                model_name: "forecast".into(),
                summary: "The weather in a city.".into(),
            }]
        );
        assert_eq!(
            agent.set_offered("nowhere", false).await,
            Err(NotConnected("nowhere".into()))
        );
        assert_eq!(
            NotConnected("nowhere".into()).to_string(),
            "no server `nowhere` is connected: only a connected server can be offered or not"
        );
    });
}
