//! A server switched off and on at run time under the library's agent
//! (`Agent::set_offered`), what a list of servers shows meanwhile
//! (`Agent::listed`, `Agent::switched_off`): two in-process servers, the
//! Anthropic provider over a scripted model API on loopback that records
//! every request.

use crate::common;

use common::fake_model::{FakeModel, Recorded, Reply, claude_message, text_block, tool_use};
use mcpfn_host::agent::Agent;
use mcpfn_host::agent::switch::NotConnected;
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
        assert_eq!(agent.switched_off(), ["weather".to_owned()].into());
        // Still connected, its tool still listed, no longer offered.
        let listed = agent.listed();
        assert_eq!(listed.servers().collect::<Vec<_>>(), ["garden", "weather"]);
        assert!(listed.tools().iter().any(|t| t.model_name == "forecast"));
        assert!(agent.catalog().tool("forecast").is_none());
        assert_eq!(
            agent.catalog().switched_off(),
            &["weather".to_owned()].into()
        );
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
fn a_switch_names_only_a_connected_server() {
    common::run(async {
        let fake = FakeModel::start(Vec::new());
        let agent = agent(&fake).await;
        assert_eq!(
            agent.set_offered("nowhere", false).await,
            Err(NotConnected("nowhere".into()))
        );
        assert_eq!(
            NotConnected("nowhere".into()).to_string(),
            "no server `nowhere` is connected: only a connected server can be offered or not"
        );
        assert!(agent.switched_off().is_empty());
        assert_eq!(agent.set_offered("garden", true).await, Ok(false));
    });
}
