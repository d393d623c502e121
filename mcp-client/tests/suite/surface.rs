//! The rest of the surface from the client's side, end to end over real
//! stdio and Streamable HTTP: resources (listed, templates, read, updates
//! of a subscription), prompts (listed, got, with a 2026-07-28
//! `input_required` round), completions and Skills, against the
//! `conformance` example in both eras; then a hostile server's 100 MiB
//! resource and 10,000-message prompt, and a skill file whose digest is
//! not the manifest's.

use crate::common;

use common::run;
use mcpfn_client::{
    CallOptions, Change, ClientOptions, ElicitFn, McpClient, McpError, Mode, ServerConfig,
};
use mcpfn_protocol::model::{
    CompletionArgument, CompletionContextParams, CompletionRef, ContentBlock, ElicitAction,
    ElicitResult, ResourceContents, Role, SkillFiles,
};
use serde_json::json;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// The conformance example's 1x1 PNG.
const RED_PIXEL_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

fn stdio(name: &str, command: PathBuf, args: &[&str]) -> ServerConfig {
    ServerConfig::stdio(
        name,
        command.to_string_lossy().into_owned(),
        args.iter().copied(),
    )
}

/// The `conformance` example over stdio, and over HTTP from `http`.
fn conformance(http: &common::HttpServer) -> [ServerConfig; 2] {
    [
        stdio("conformance", common::example("conformance"), &[]),
        ServerConfig::http("conformance", http.url()),
    ]
}

/// Answers every elicitation with `context: "release notes"`.
fn context_answer() -> ElicitFn {
    Arc::new(|_| {
        Box::pin(async {
            Ok(ElicitResult {
                action: ElicitAction::Accept,
                content: json!({"context": "release notes"}).as_object().cloned(),
            })
        })
    })
}

fn texts(messages: &[mcpfn_protocol::model::PromptMessage]) -> Vec<(Role, String)> {
    messages
        .iter()
        .map(|m| {
            let text = match &m.content {
                ContentBlock::Text(t) => t.text.clone(),
                other => format!("<{}>", other.kind()),
            };
            (m.role, text)
        })
        .collect()
}

#[test]
fn resources_prompts_and_completions_in_both_eras_over_stdio_and_http() {
    run(async {
        let http = common::HttpServer::start_example("conformance");
        for config in conformance(&http) {
            for mode in [Mode::Legacy, Mode::Modern] {
                let at = format!("{:?} {mode:?}", config.transport)
                    .chars()
                    .take(60)
                    .collect::<String>();
                let options = ClientOptions {
                    elicitation: Some(context_answer()),
                    ..ClientOptions::mode(mode)
                };
                let client = McpClient::connect_with(config.clone(), options)
                    .await
                    .unwrap();

                let mut uris: Vec<String> = client
                    .list_resources()
                    .await
                    .unwrap()
                    .into_iter()
                    .map(|r| r.uri)
                    .filter(|uri| uri.starts_with("test://"))
                    .collect();
                uris.sort();
                // (Beside the skills' files.)
                assert_eq!(uris, ["test://static-binary", "test://static-text"], "{at}");
                let templates = client.list_resource_templates().await.unwrap();
                assert_eq!(templates.len(), 1, "{at}");
                assert_eq!(templates[0].uri_template, "test://template/{id}/data");

                let read = client.read_resource("test://static-text").await.unwrap();
                assert_eq!(
                    read.contents,
                    [ResourceContents::Text {
                        uri: "test://static-text".into(),
                        mime_type: Some("text/plain".into()),
                        text: "This is the content of the static text resource.".into(),
                        meta: None,
                    }],
                    "{at}"
                );
                let read = client.read_resource("test://static-binary").await.unwrap();
                assert!(
                    matches!(&read.contents[..], [ResourceContents::Blob { blob, .. }] if blob == RED_PIXEL_PNG),
                    "{at}: {read:?}"
                );
                let read = client
                    .read_resource("test://template/7/data")
                    .await
                    .unwrap();
                assert!(
                    matches!(&read.contents[..], [ResourceContents::Text { text, .. }] if text.contains("Data for ID: 7")),
                    "{at}: {read:?}"
                );

                let mut names: Vec<String> = client
                    .list_prompts()
                    .await
                    .unwrap()
                    .into_iter()
                    .map(|p| p.name)
                    .collect();
                names.sort();
                assert!(
                    names.contains(&"test_prompt_with_arguments".to_owned())
                        && names.contains(&"test_prompt_with_image".to_owned()),
                    "{at}: {names:?}"
                );
                let arguments = BTreeMap::from([
                    ("arg1".to_owned(), "a".to_owned()),
                    ("arg2".to_owned(), "b".to_owned()),
                ]);
                let got = client
                    .get_prompt("test_prompt_with_arguments", arguments)
                    .await
                    .unwrap();
                assert_eq!(
                    texts(&got.messages),
                    [(
                        Role::User,
                        "Prompt with arguments: arg1='a', arg2='b'".to_owned()
                    )],
                    "{at}"
                );
                let image = client
                    .get_prompt("test_prompt_with_image", BTreeMap::new())
                    .await
                    .unwrap();
                assert_eq!(
                    texts(&image.messages),
                    [
                        (Role::User, "<image>".to_owned()),
                        (Role::User, "Please analyze the image above.".to_owned())
                    ],
                    "{at}"
                );
                if mode == Mode::Modern {
                    // An input_required round inside prompts/get, answered
                    // by the elicitation handler.
                    let asked = client
                        .get_prompt("test_input_required_result_prompt", BTreeMap::new())
                        .await
                        .unwrap();
                    assert_eq!(
                        texts(&asked.messages),
                        [(Role::User, "Use this context: release notes".to_owned())],
                        "{at}"
                    );
                }

                let completion = client
                    .complete(
                        CompletionRef::Prompt {
                            name: "test_prompt_with_arguments".into(),
                            title: None,
                        },
                        CompletionArgument {
                            name: "arg1".into(),
                            value: "test".into(),
                        },
                        Some(CompletionContextParams::default()),
                    )
                    .await
                    .unwrap();
                assert_eq!(
                    completion.values,
                    ["test", "testValue1", "testValue2"],
                    "{at}"
                );
                client.close().await;
            }
        }
    });
}

/// The next change told, within a few seconds.
async fn next_change(changes: &mut tokio::sync::broadcast::Receiver<Change>) -> Change {
    tokio::time::timeout(Duration::from_secs(10), changes.recv())
        .await
        .expect("a change is told")
        .unwrap()
}

#[test]
fn a_subscription_tells_updates_until_it_ends_in_both_eras() {
    run(async {
        let http = common::HttpServer::start_example("conformance");
        for config in conformance(&http) {
            for mode in [Mode::Legacy, Mode::Modern] {
                let client = McpClient::connect_with(config.clone(), ClientOptions::mode(mode))
                    .await
                    .unwrap();
                let mut changes = client.changes();
                // A listing opens the 2026-07-28 stream of list changes.
                client.list_prompts().await.unwrap();
                client
                    .subscribe_resource("test://watched-resource")
                    .await
                    .unwrap();
                let trigger = |arguments: serde_json::Value| {
                    let client = client.clone();
                    async move {
                        client
                            .call_tool(
                                "test_trigger_resource_update",
                                arguments.as_object().cloned(),
                                CallOptions::default(),
                            )
                            .await
                            .unwrap()
                    }
                };
                trigger(json!({})).await;
                assert_eq!(
                    next_change(&mut changes).await,
                    Change::ResourceUpdated("test://watched-resource".into()),
                    "{mode:?}"
                );
                client
                    .call_tool("test_trigger_prompt_change", None, CallOptions::default())
                    .await
                    .unwrap();
                assert_eq!(
                    next_change(&mut changes).await,
                    Change::PromptsListChanged,
                    "{mode:?}"
                );

                client
                    .unsubscribe_resource("test://watched-resource")
                    .await
                    .unwrap();
                trigger(json!({})).await;
                // The list change after it proves the update was not sent
                // (the server sends in order).
                client
                    .call_tool("test_trigger_prompt_change", None, CallOptions::default())
                    .await
                    .unwrap();
                assert_eq!(
                    next_change(&mut changes).await,
                    Change::PromptsListChanged,
                    "{mode:?}: no update after unsubscribing"
                );
                client.close().await;
            }
        }
    });
}

#[test]
fn a_subscription_is_made_again_when_its_server_is_started_again() {
    run(async {
        // The server writes its PID, so the test can end it (and only it).
        let dir =
            std::env::temp_dir().join(format!("mcp-client-subscribe-again-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let pid_file = dir.join("pid");
        let script = format!(
            "echo $$ > '{}'; exec '{}'",
            pid_file.display(),
            common::example("conformance").display()
        );
        let pid = || {
            std::fs::read_to_string(&pid_file)
                .unwrap()
                .trim()
                .to_owned()
        };
        let config = ServerConfig::stdio("conformance", "sh", ["-c", script.as_str()]);
        let client = McpClient::connect_with(config, ClientOptions::mode(Mode::Legacy))
            .await
            .unwrap();
        let mut changes = client.changes();
        client
            .subscribe_resource("test://watched-resource")
            .await
            .unwrap();
        let first = pid();
        assert!(
            std::process::Command::new("kill")
                .args(["-KILL", &first])
                .status()
                .unwrap()
                .success()
        );
        // A call that meets the dead connection fails; the next one starts
        // the server again.
        let mut tries = 0;
        loop {
            let called = client
                .call_tool("test_trigger_resource_update", None, CallOptions::default())
                .await;
            if called.is_ok() && client.restarts().await == 1 {
                break;
            }
            tries += 1;
            assert!(tries < 50, "the server was not started again: {called:?}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert_ne!(pid(), first);
        // The list change after it proves the order: the update came first.
        client
            .call_tool("test_trigger_prompt_change", None, CallOptions::default())
            .await
            .unwrap();
        assert_eq!(
            next_change(&mut changes).await,
            Change::ResourceUpdated("test://watched-resource".into())
        );
        client.close().await;
        let _ = std::fs::remove_dir_all(&dir);
    });
}

#[test]
fn skills_are_listed_and_their_files_read_and_checked() {
    run(async {
        for mode in [Mode::Legacy, Mode::Modern] {
            let config = stdio("conformance", common::example("conformance"), &[]);
            let client = McpClient::connect_with(config, ClientOptions::mode(mode))
                .await
                .unwrap();
            let skills = client.list_skills().await.unwrap();
            let refunds = skills
                .iter()
                .find(|s| s.frontmatter.get("name") == Some(&json!("refunds")))
                .expect("the refunds skill is listed")
                .clone();
            let SkillFiles::Listed(files) = &refunds.resources else {
                panic!("refunds lists its files");
            };
            assert_eq!(files.len(), 3, "{files:?}");
            let disk = common::workspace_root().join("examples/skills/acme/billing/refunds");
            for (file, path) in [
                ("SKILL.md", "SKILL.md"),
                ("examples/stamp.png", "examples/stamp.png"),
            ] {
                let uri = refunds.uri.replace("SKILL.md", file);
                let read = client.read_skill_file(&refunds, &uri).await.unwrap();
                assert_eq!(read.bytes, std::fs::read(disk.join(path)).unwrap(), "{uri}");
            }

            // A manifest whose digest is not the file's: the bytes are read
            // and refused.
            let mut tampered = refunds.clone();
            if let SkillFiles::Listed(files) = &mut tampered.resources {
                files[0].digest = format!("sha256:{}", "0".repeat(64));
            }
            let SkillFiles::Listed(files) = &tampered.resources else {
                unreachable!()
            };
            let error = client
                .read_skill_file(&tampered, &files[0].uri)
                .await
                .unwrap_err();
            assert!(matches!(error, McpError::Skill { .. }), "{error:?}");
            let line = error.to_string();
            assert!(
                line.starts_with("server `conformance`: skill `refunds`: `skill://")
                    && line.contains(&format!(
                        "not the sha256:{} its manifest lists",
                        "0".repeat(64)
                    )),
                "{line}"
            );
            // A file outside the skill is not even asked for.
            let error = client
                .read_skill_file(&refunds, "test://static-text")
                .await
                .unwrap_err();
            assert!(
                error
                    .to_string()
                    .contains("is not under the skill's directory"),
                "{error}"
            );
            client.close().await;
        }
    });
}

fn hostile() -> ServerConfig {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/interop/hostile.py");
    stdio(
        "hostile",
        PathBuf::from("python3"),
        &[&script.to_string_lossy()],
    )
}

#[test]
fn only_updates_of_resources_subscribed_to_or_below_them_are_told() {
    run(async {
        let client = McpClient::connect_with(hostile(), ClientOptions::mode(Mode::Legacy))
            .await
            .unwrap();
        let mut changes = client.changes();
        // Told before the answer: the subscription already counts.
        client.subscribe_resource("test://a").await.unwrap();
        // Told after the answer: the subscription no longer counts (a
        // 2026-07-28 stream let go can still carry such an update).
        client.unsubscribe_resource("test://a").await.unwrap();
        let mut told = Vec::new();
        for _ in 0..3 {
            told.push(next_change(&mut changes).await);
        }
        assert_eq!(
            told,
            [
                Change::ResourceUpdated("test://a/part".into()),
                Change::ResourceUpdated("test://a".into()),
                Change::PromptsListChanged,
            ]
        );
        client.close().await;
    });
}

#[test]
fn a_100_mib_resource_and_a_10000_message_prompt_are_refused_by_name() {
    run(async {
        let client = McpClient::connect_with(hostile(), ClientOptions::mode(Mode::Legacy))
            .await
            .unwrap();
        let error = client.read_resource("test://huge").await.unwrap_err();
        let McpError::Limit { server, reason } = &error else {
            panic!("not a limit: {error:?}");
        };
        assert_eq!(server, "hostile");
        // The size is the whole line's: 100 MiB of text and its envelope.
        let size: usize = reason
            .split("a message of ")
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no size in {reason}"));
        assert!((100 << 20..(100 << 20) + 200).contains(&size), "{reason}");
        assert!(
            reason.starts_with(
                "resource `test://huge` was not read: server `hostile` sent a message of "
            ) && reason.ends_with("larger than the limit of 16777216 bytes; it was discarded"),
            "{reason}"
        );

        // The connection goes on.
        let Err(error) = client.get_prompt("flood", BTreeMap::new()).await else {
            panic!("the 10,000 messages were taken");
        };
        assert_eq!(
            error.to_string(),
            "server `hostile`: prompt `flood` returned 10,000 messages, more than the 1,000 a prompt may hold; it was refused"
        );
        client.close().await;
    });
}
