//! The host library over the rest of a server's surface, end to end: the
//! `conformance` example over stdio behind an agent, its servers and
//! surface listed, a prompt run as the next turn and a resource attached
//! to a line, each sent to a scripted model API on loopback whose received
//! request is checked byte for byte (Claude and OpenAI).

use crate::common;

use common::fake_model::{
    FakeModel, Reply, claude_message, openai_completion, openai_text, text_block, unmarked,
};
use common::run;
use mcpfn_host::agent::Agent;
use mcpfn_host::agent::servers::ServerState;
use mcpfn_host::agent::skills::{load_skill, skills_listing};
use mcpfn_host::agent::turn::Turn;
use mcpfn_host::config::McpConfig;
use mcpfn_host::provider::{Anthropic, OpenAi};
use serde_json::json;
use std::collections::BTreeMap;

/// The conformance example's 1x1 PNG.
const RED_PIXEL_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

fn config() -> McpConfig {
    let command = common::example("conformance");
    McpConfig::parse(
        &json!({"mcpServers": {
            "conformance": {"command": command.to_str().unwrap(), "args": []},
            "off": {"command": "true", "disabled": true}
        }})
        .to_string(),
    )
    .unwrap()
}

#[test]
fn a_prompt_runs_as_the_next_turn_and_a_resource_is_attached_for_both_apis() {
    run(async {
        let claude = FakeModel::start(vec![Reply::ok(claude_message(
            json!([text_block("A red pixel.")]),
            "end_turn",
            30,
            4,
        ))]);
        let agent = Agent::new(
            Anthropic::new(&claude.base_url, Some("k"))
                .unwrap()
                .caching(false),
        )
        .config(config())
        .build()
        .await
        .unwrap();

        let servers = agent.servers();
        let names: Vec<(&str, &ServerState)> = servers
            .iter()
            .map(|s| (s.name.as_str(), &s.state))
            .collect();
        assert_eq!(
            names,
            [
                ("conformance", &ServerState::Ready),
                ("off", &ServerState::Disabled)
            ]
        );
        assert!(servers[0].tools.iter().any(|t| t == "test_simple_text"));
        let surface = servers[0].surface().await.unwrap();
        assert!(
            surface
                .prompts
                .iter()
                .any(|p| p.name == "test_prompt_with_image")
        );
        assert!(
            surface
                .resources
                .iter()
                .any(|r| r.uri == "test://static-text")
        );
        assert_eq!(
            surface.templates[0].uri_template,
            "test://template/{id}/data"
        );
        let refunds = surface
            .skills
            .iter()
            .find(|s| s.frontmatter.get("name") == Some(&json!("refunds")))
            .expect("the refunds skill is listed")
            .clone();
        assert!(skills_listing([("conformance", &refunds)]).starts_with(
            "- refunds (server `conformance`, <skill://acme/billing/refunds/SKILL.md>): "
        ));

        // A skill is loaded when asked for: its SKILL.md, verified, named
        // by its server; an entry whose frontmatter is not the file's is
        // refused.
        let client = agent.client("conformance").expect("a ready server");
        let loaded = load_skill(&client, &refunds).await.unwrap();
        let skill_md = std::fs::read_to_string(
            common::workspace_root().join("examples/skills/acme/billing/refunds/SKILL.md"),
        )
        .unwrap();
        assert_eq!(
            loaded.messages()[0].content,
            mcpfn_protocol::model::PromptMessage::user(format!(
                "[Skill loaded from server `conformance` (<skill://acme/billing/refunds/SKILL.md>). It is that server's text, not the host's.]\n\n{skill_md}"
            ))
            .content
        );
        let mut altered = refunds.clone();
        altered
            .frontmatter
            .insert("description".into(), json!("Refund everything"));
        let error = load_skill(&client, &altered).await.unwrap_err();
        assert_eq!(
            error.to_string(),
            "server `conformance`: skill `refunds`: its SKILL.md frontmatter differs from its entry's; it was not loaded"
        );

        // The prompt's image and text, the user's turn as Claude takes it.
        let prompt = client
            .get_prompt("test_prompt_with_image", BTreeMap::new())
            .await
            .unwrap();
        let mut chat = agent.conversation();
        let answer = agent
            .send_turn(&mut chat, &Turn::prompt(prompt))
            .await
            .unwrap();
        assert_eq!(answer.text, "A red pixel.");
        let sent = &claude.requests()[0].body;
        assert_eq!(
            unmarked(&sent["messages"]),
            json!([{"role": "user", "content": [
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": RED_PIXEL_PNG}},
                {"type": "text", "text": "Please analyze the image above."}
            ]}])
        );
        agent.catalog().close().await;

        // A line with a text resource and an image resource attached, as
        // OpenAI takes it.
        let openai = FakeModel::start(vec![Reply::ok(openai_completion(
            openai_text("Read both."),
            "stop",
            30,
            3,
        ))]);
        let agent = Agent::new(OpenAi::new(&openai.base_url, Some("k")).unwrap())
            .config(config())
            .build()
            .await
            .unwrap();
        let client = agent.client("conformance").unwrap();
        let text = client.read_resource("test://static-text").await.unwrap();
        let image = client.read_resource("test://static-binary").await.unwrap();
        let turn = Turn::line("Compare these")
            .attach("conformance", "test://static-text", text)
            .attach("conformance", "test://static-binary", image);
        let mut chat = agent.conversation();
        let answer = agent.send_turn(&mut chat, &turn).await.unwrap();
        assert_eq!(answer.text, "Read both.");
        let sent = &openai.requests()[0].body;
        assert_eq!(
            sent["messages"],
            json!([{"role": "user", "content": [
                {"type": "text", "text": "Compare these"},
                {"type": "text", "text": "[Attached: the resource <test://static-text> of server `conformance`.]"},
                {"type": "text", "text": "Resource <test://static-text>:\nThis is the content of the static text resource."},
                {"type": "text", "text": "[Attached: the resource <test://static-binary> of server `conformance`.]"},
                {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{RED_PIXEL_PNG}")}}
            ]}])
        );
        // The turn stays in the history: the next line follows it.
        assert_eq!(chat.history().messages()[0], sent["messages"][0]);
        agent.catalog().close().await;
    });
}
