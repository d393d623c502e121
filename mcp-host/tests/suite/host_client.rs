//! The era layer and the catalog over real processes and sockets: the
//! `everything` and `conformance` examples (stdio and HTTP, both eras), a
//! hand-written misbehaving server (tests/interop/fake.py) and a server made
//! with the official Python SDK (tests/interop/server.py).

use crate::common;

use common::{HttpServer, args, example, run, text};
use mcpfn_client::{
    CallOptions, ClientOptions, ElicitFn, ListLimits, McpClient, McpError, Mode, ProgressFn,
    SampleFn,
};
use mcpfn_client::{Endpoint, ServerConfig};
use mcpfn_host::catalog::{Catalog, CatalogOptions};
use mcpfn_host::config::McpConfig;
use mcpfn_protocol::ProtocolVersion;
use mcpfn_protocol::model::{
    CallToolResult, CreateMessageResult, ElicitAction, ElicitResult, Role, SamplingContent,
};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn stdio(name: &str, command: PathBuf, env: &[(&str, &str)]) -> ServerConfig {
    ServerConfig {
        name: name.to_owned(),
        transport: Endpoint::Stdio {
            command: command.to_string_lossy().into_owned(),
            args: Vec::new(),
            env: env
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
            cwd: None,
            inherit_env: false,
        },
        trusted: true,
    }
}

fn http(name: &str, url: String) -> ServerConfig {
    ServerConfig {
        name: name.to_owned(),
        transport: Endpoint::Http {
            url,
            headers: BTreeMap::new(),
            declared_sse: false,
        },
        trusted: false,
    }
}

fn fake(mode: &str, dir: Option<&str>) -> ServerConfig {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/interop/fake.py");
    let mut env = BTreeMap::from([("FAKE".to_owned(), mode.to_owned())]);
    if let Some(dir) = dir {
        env.insert("FAKE_DIR".to_owned(), dir.to_owned());
    }
    ServerConfig {
        name: format!("fake-{mode}"),
        transport: Endpoint::Stdio {
            command: "python3".into(),
            args: vec![script.to_string_lossy().into_owned()],
            env,
            cwd: None,
            inherit_env: false,
        },
        trusted: true,
    }
}

/// An elicitation handler that accepts every form with `content`, counting.
fn accept(content: Value, asked: Arc<Mutex<Vec<String>>>) -> ElicitFn {
    Arc::new(move |params| {
        asked.lock().unwrap().push(params.message.clone());
        let content = content.as_object().cloned();
        Box::pin(async move {
            Ok(ElicitResult {
                action: ElicitAction::Accept,
                content,
            })
        })
    })
}

fn sampler() -> SampleFn {
    Arc::new(|params| {
        let prompt = params
            .messages
            .first()
            .and_then(|m| m.content.text())
            .unwrap_or_default();
        Box::pin(async move {
            Ok(CreateMessageResult {
                role: Role::Assistant,
                content: SamplingContent::text(format!("echo of {prompt}")).into(),
                model: "fake-model".into(),
                stop_reason: Some("endTurn".into()),
            })
        })
    })
}

async fn connect(config: ServerConfig, mode: Mode) -> McpClient {
    McpClient::connect_with(config, ClientOptions::mode(mode))
        .await
        .expect("connects")
}

fn everything_stdio(env: &[(&str, &str)]) -> ServerConfig {
    stdio("everything", example("everything"), env)
}

#[test]
fn both_eras_over_stdio() {
    run(async {
        for (mode, version) in [
            (Mode::Legacy, ProtocolVersion::V2025_11_25),
            (Mode::Modern, ProtocolVersion::V2026_07_28),
            (Mode::Auto, ProtocolVersion::V2026_07_28),
        ] {
            let client = connect(everything_stdio(&[]), mode).await;
            assert_eq!(client.protocol_version().await, version, "{mode:?}");
            let tools = client.list_tools().await.unwrap();
            assert!(tools.iter().any(|t| t.name == "add"));
            let result = client
                .call_tool("add", args(json!({"a": 2, "b": 3})), CallOptions::default())
                .await
                .unwrap();
            assert!(!result.is_error, "{result:?}");
            assert_eq!(result.structured_content, Some(json!({"sum": 5.0})));
            let failed = client
                .call_tool(
                    "fail",
                    args(json!({"reason": "no"})),
                    CallOptions::default(),
                )
                .await
                .unwrap();
            assert!(failed.is_error);
            assert!(text(&failed).contains("no"));
            client.close().await;
        }
    });
}

#[test]
fn every_page_is_followed_in_both_eras() {
    run(async {
        for mode in [Mode::Legacy, Mode::Modern] {
            let client = connect(
                everything_stdio(&[("TOOLS", "23"), ("PAGE_SIZE", "4")]),
                mode,
            )
            .await;
            let tools = client.list_tools().await.unwrap();
            let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
            for i in 0..23 {
                assert!(
                    names.contains(&format!("add_{i}").as_str()),
                    "{mode:?}: {names:?}"
                );
            }
            let mut unique = names.clone();
            unique.sort_unstable();
            unique.dedup();
            assert_eq!(unique.len(), names.len(), "no page twice");
            // Cached: the same list object until it changes or expires.
            let again = client.list_tools().await.unwrap();
            assert!(Arc::ptr_eq(&tools, &again));
        }
    });
}

#[test]
fn elicitation_in_both_eras() {
    run(async {
        for mode in [Mode::Legacy, Mode::Modern] {
            let asked = Arc::new(Mutex::new(Vec::new()));
            let options = ClientOptions {
                elicitation: Some(accept(
                    json!({"name": "Ada", "pay": true}),
                    Arc::clone(&asked),
                )),
                ..ClientOptions::mode(mode)
            };
            let client = McpClient::connect_with(everything_stdio(&[]), options)
                .await
                .unwrap();
            // A party of 10 asks twice: two rounds in 2026-07-28.
            let result = client
                .call_tool(
                    "book_table",
                    args(json!({"party": 10})),
                    CallOptions::default(),
                )
                .await
                .unwrap();
            assert!(!result.is_error, "{mode:?}: {result:?}");
            assert_eq!(
                result.structured_content,
                Some(json!({"booked": true, "name": "Ada", "party": 10})),
                "{mode:?}"
            );
            assert_eq!(asked.lock().unwrap().len(), 2, "{mode:?}");
        }
    });
}

#[test]
fn input_rounds_are_bounded() {
    run(async {
        let asked = Arc::new(Mutex::new(Vec::new()));
        let options = ClientOptions {
            elicitation: Some(accept(
                json!({"name": "Ada", "pay": true}),
                Arc::clone(&asked),
            )),
            max_input_rounds: 1,
            ..ClientOptions::mode(Mode::Modern)
        };
        let client = McpClient::connect_with(everything_stdio(&[]), options)
            .await
            .unwrap();
        let error = client
            .call_tool(
                "book_table",
                args(json!({"party": 10})),
                CallOptions::default(),
            )
            .await
            .unwrap_err();
        assert!(error.to_string().contains("after 1 rounds"), "{error}");
    });
}

#[test]
fn sampling_in_both_eras() {
    run(async {
        for mode in [Mode::Legacy, Mode::Modern] {
            let options = ClientOptions {
                sampling: Some(sampler()),
                ..ClientOptions::mode(mode)
            };
            let client =
                McpClient::connect_with(stdio("conformance", example("conformance"), &[]), options)
                    .await
                    .unwrap();
            let result = client
                .call_tool(
                    "test_sampling",
                    args(json!({"prompt": "hi"})),
                    CallOptions::default(),
                )
                .await
                .unwrap();
            assert!(!result.is_error, "{mode:?}: {result:?}");
            assert_eq!(text(&result), "LLM response: echo of hi", "{mode:?}");
        }
    });
}

#[test]
fn progress_reaches_the_callback() {
    run(async {
        for mode in [Mode::Legacy, Mode::Modern] {
            let client = connect(everything_stdio(&[]), mode).await;
            let seen = Arc::new(Mutex::new(Vec::new()));
            let sink = Arc::clone(&seen);
            let progress: ProgressFn = Arc::new(move |p| sink.lock().unwrap().push(p.progress));
            let options = CallOptions {
                progress: Some(progress),
                ..CallOptions::default()
            };
            let result = client
                .call_tool("slow", args(json!({"ms": 200, "steps": 4})), options)
                .await
                .unwrap();
            assert!(!result.is_error);
            // Notifications travel beside the result; give the last a moment.
            for _ in 0..50 {
                if seen.lock().unwrap().len() == 4 {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            assert_eq!(*seen.lock().unwrap(), vec![1.0, 2.0, 3.0, 4.0], "{mode:?}");
        }
    });
}

#[test]
fn each_call_gets_its_own_progress_token_and_a_foreign_token_is_ignored() {
    run(async {
        let client = connect(fake("progress", None), Mode::Legacy).await;
        let mut tokens = Vec::new();
        for _ in 0..2 {
            let seen = Arc::new(Mutex::new(Vec::new()));
            let sink = Arc::clone(&seen);
            let progress: ProgressFn = Arc::new(move |p| {
                sink.lock()
                    .unwrap()
                    .push((p.progress, p.total, p.message.clone()))
            });
            let options = CallOptions {
                progress: Some(progress),
                ..CallOptions::default()
            };
            let result = client.call_tool("steps", None, options).await.unwrap();
            assert!(!result.is_error, "{result:?}");
            tokens.push(text(&result));
            // Notifications travel beside the result; give the last a moment.
            for _ in 0..50 {
                if seen.lock().unwrap().len() >= 2 {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
            assert_eq!(
                *seen.lock().unwrap(),
                vec![
                    (1.0, Some(2.0), Some("half".to_owned())),
                    (2.0, Some(2.0), Some("done".to_owned())),
                ]
            );
        }
        assert!(tokens[0].starts_with('"'), "{tokens:?}");
        assert_ne!(tokens[0], tokens[1]);
    });
}

#[test]
fn a_timeout_cancels_and_the_connection_stays() {
    run(async {
        for mode in [Mode::Legacy, Mode::Modern] {
            let client = connect(everything_stdio(&[]), mode).await;
            let started = Instant::now();
            let error = client
                .call_tool(
                    "slow",
                    args(json!({"ms": 20000})),
                    CallOptions::timeout(Duration::from_millis(300)),
                )
                .await
                .unwrap_err();
            assert!(started.elapsed() < Duration::from_secs(5));
            assert!(
                matches!(&error, McpError::Client(mcpfn_client::ClientError::Timeout { after, .. }) if *after == Duration::from_millis(300)),
                "{error:?}"
            );
            // Dropping a call's future cancels it too.
            let dropped = tokio::time::timeout(
                Duration::from_millis(200),
                client.call_tool("slow", args(json!({"ms": 20000})), CallOptions::default()),
            )
            .await;
            assert!(dropped.is_err());
            let result = client
                .call_tool("add", args(json!({"a": 1, "b": 1})), CallOptions::default())
                .await
                .unwrap();
            assert!(!result.is_error);
        }
    });
}

async fn has_bonus(client: &McpClient) -> bool {
    client
        .list_tools()
        .await
        .unwrap()
        .iter()
        .any(|t| t.name == "bonus")
}

/// Toggles `bonus` and waits until the (cached) list shows the change: only
/// a list-changed notification invalidates the cache.
async fn toggled_list_changes(client: &McpClient) {
    let before = has_bonus(client).await;
    let result = client
        .call_tool("toggle_bonus", None, CallOptions::default())
        .await
        .unwrap();
    assert!(!result.is_error);
    for _ in 0..100 {
        if has_bonus(client).await != before {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the tool list never changed");
}

#[test]
fn list_changes_invalidate_the_cache() {
    run(async {
        for mode in [Mode::Legacy, Mode::Modern] {
            let client = connect(everything_stdio(&[]), mode).await;
            toggled_list_changes(&client).await;
        }
    });
}

#[test]
fn both_eras_over_http() {
    run(async {
        let server = HttpServer::start();
        for (mode, version) in [
            (Mode::Legacy, ProtocolVersion::V2025_11_25),
            (Mode::Auto, ProtocolVersion::V2026_07_28),
        ] {
            let asked = Arc::new(Mutex::new(Vec::new()));
            let options = ClientOptions {
                elicitation: Some(accept(
                    json!({"name": "Ada", "pay": true}),
                    Arc::clone(&asked),
                )),
                ..ClientOptions::mode(mode)
            };
            let client = McpClient::connect_with(http("web", server.url()), options)
                .await
                .unwrap();
            assert_eq!(client.protocol_version().await, version);
            let tools = client.list_tools().await.unwrap();
            // Untrusted (a URL): hints are dropped, titles kept.
            let add = tools.iter().find(|t| t.name == "add").unwrap();
            assert!(
                add.annotations
                    .as_ref()
                    .is_none_or(|a| a.read_only_hint.is_none())
            );
            // `locate` mirrors arguments into Mcp-Param-* headers, which a
            // 2026-07-28 server checks against the body.
            let result = client
                .call_tool(
                    "locate",
                    args(json!({"region": "Zürich", "shard": 7})),
                    CallOptions::default(),
                )
                .await
                .unwrap();
            assert!(!result.is_error, "{mode:?}: {result:?}");
            let result = client
                .call_tool(
                    "book_table",
                    args(json!({"party": 2})),
                    CallOptions::default(),
                )
                .await
                .unwrap();
            assert!(!result.is_error, "{mode:?}: {result:?}");
            assert_eq!(asked.lock().unwrap().len(), 1);
            let error = client
                .call_tool(
                    "slow",
                    args(json!({"ms": 20000})),
                    CallOptions::timeout(Duration::from_millis(300)),
                )
                .await
                .unwrap_err();
            assert!(matches!(
                error,
                McpError::Client(mcpfn_client::ClientError::Timeout { .. })
            ));
            toggled_list_changes(&client).await;
            client.close().await;
        }
    });
}

#[test]
fn output_that_breaks_its_schema_is_not_passed_on() {
    run(async {
        let client = connect(fake("bad-output", None), Mode::Auto).await;
        assert_eq!(
            client.protocol_version().await,
            ProtocolVersion::V2025_06_18
        );
        let bad = client
            .call_tool("check", None, CallOptions::default())
            .await
            .unwrap();
        assert!(bad.is_error);
        assert!(bad.structured_content.is_none());
        assert!(text(&bad).contains("outputSchema"), "{}", text(&bad));
        let good = client
            .call_tool("check", args(json!({"good": true})), CallOptions::default())
            .await
            .unwrap();
        assert!(!good.is_error, "{good:?}");
    });
}

#[test]
fn an_unsupported_revision_is_refused() {
    run(async {
        let error =
            McpClient::connect_with(fake("old-version", None), ClientOptions::mode(Mode::Legacy))
                .await
                .unwrap_err();
        assert!(
            matches!(&error, McpError::UnsupportedVersion { version, .. } if version == "1999-01-01")
        );
        assert!(error.to_string().contains("1999-01-01"));
    });
}

#[test]
fn a_dead_stdio_server_is_restarted_once() {
    run(async {
        let dir = std::env::temp_dir().join(format!("mcp-host-restart-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let options = ClientOptions {
            restart: mcpfn_client::RestartPolicy::max_restarts(1),
            ..ClientOptions::mode(Mode::Auto)
        };
        let client = McpClient::connect_with(fake("exit", Some(dir.to_str().unwrap())), options)
            .await
            .expect("connects");
        let count = |c: CallToolResult| text(&c);
        assert_eq!(
            count(
                client
                    .call_tool("count", None, CallOptions::default())
                    .await
                    .unwrap()
            ),
            "1"
        );
        // The call the server dies in fails; the next one starts it again.
        assert!(
            client
                .call_tool("exit", None, CallOptions::default())
                .await
                .is_err()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(
            count(
                client
                    .call_tool("count", None, CallOptions::default())
                    .await
                    .unwrap()
            ),
            "2"
        );
        assert_eq!(client.restarts().await, 1);
        // Only once.
        assert!(
            client
                .call_tool("exit", None, CallOptions::default())
                .await
                .is_err()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert!(
            client
                .call_tool("count", None, CallOptions::default())
                .await
                .is_err()
        );
        let _ = std::fs::remove_dir_all(&dir);
    });
}

fn config_of(servers: Value) -> McpConfig {
    McpConfig::parse(&json!({"mcpServers": servers}).to_string()).unwrap()
}

#[test]
fn a_catalog_of_two_servers_with_the_same_tools() {
    run(async {
        let everything = example("everything").to_string_lossy().into_owned();
        let config = config_of(json!({
            "two": {"command": everything},
            "one": {"command": everything, "env": {"TOOLS": "1"}},
            "broken": {"command": "/nonexistent/mcp-server"},
        }));
        let catalog = Catalog::build(&config, Vec::new(), CatalogOptions::default())
            .await
            .unwrap();
        assert_eq!(catalog.failures().len(), 1);
        assert_eq!(catalog.failures()[0].server, "broken");
        let names: Vec<&str> = catalog
            .tools()
            .iter()
            .map(|t| t.model_name.as_str())
            .collect();
        // By server name, then the server's order; shared names prefixed.
        assert_eq!(names[0], "one__add");
        assert!(names.contains(&"add_0"), "{names:?}");
        assert!(names.contains(&"two__add"));
        let first_two = names.iter().position(|n| n.starts_with("two__")).unwrap();
        assert!(names[..first_two].iter().all(|n| !n.starts_with("two__")));
        let claude = mcpfn_host::provider::anthropic::tools(&catalog.offers());
        assert_eq!(claude.len(), names.len());
        assert_eq!(claude[0]["name"], "one__add");
        assert!(claude[0]["input_schema"].is_object());
        let openai = mcpfn_host::provider::openai::tools(
            &catalog.offers(),
            mcpfn_host::provider::openai::Strict::WhereExpressible,
        );
        assert_eq!(openai[0]["function"]["name"], "one__add");

        let result = catalog.call("two__add", json!({"a": 1, "b": 2})).await;
        assert_eq!(result.structured_content, Some(json!({"sum": 3.0})));
        let unknown = catalog.call("nope", json!({})).await;
        assert!(unknown.is_error);
        assert!(text(&unknown).contains("nope"));
        let rpc = catalog.call("one__add", json!({"a": "x"})).await;
        assert!(rpc.is_error);

        // Two slow calls on two servers run at once.
        let started = Instant::now();
        let (a, b) = tokio::join!(
            catalog.call("one__slow", json!({"ms": 1000})),
            catalog.call("two__slow", json!({"ms": 1000}))
        );
        assert!(!a.is_error && !b.is_error);
        assert!(
            started.elapsed() < Duration::from_millis(1800),
            "{:?}",
            started.elapsed()
        );

        // A timeout is an isError result that says so.
        let options = CatalogOptions {
            call_timeout: Some(Duration::from_millis(200)),
            ..CatalogOptions::default()
        };
        let quick = Catalog::build(
            &config_of(json!({"e": {"command": everything}})),
            Vec::new(),
            options,
        )
        .await
        .unwrap();
        let timed_out = quick.call("slow", json!({"ms": 10000})).await;
        assert!(timed_out.is_error);
        assert!(
            text(&timed_out).contains("did not answer within 0.2 s"),
            "{}",
            text(&timed_out)
        );
    });
}

/// py's own tool `e__add` is the name `e`'s `add` gets (both servers list
/// `add`): the catalog is built all the same, `e__add` stays `e`'s and
/// py's is offered under py's own prefix; each call reaches its server.
#[test]
fn a_tool_named_after_another_servers_prefix_gets_its_own_servers_prefix() {
    run(async {
        let python = common::python_sdk();
        let server = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/interop/server.py");
        let everything = example("everything").to_string_lossy().into_owned();
        let config = config_of(json!({
            "e": {"command": everything},
            "py": {"command": python, "args": [server]},
        }));
        let catalog = Catalog::build(&config, Vec::new(), CatalogOptions::default())
            .await
            .unwrap();
        assert!(catalog.failures().is_empty(), "{:?}", catalog.failures());
        let target = catalog.resolve("e__add").unwrap();
        assert_eq!((target.server.as_str(), target.tool.as_str()), ("e", "add"));
        assert_eq!(
            catalog.names().model_name("py", "e__add"),
            Some("py__e__add")
        );
        assert_eq!(catalog.names().model_name("py", "add"), Some("py__add"));
        let e = catalog.call("e__add", json!({"a": 1, "b": 2})).await;
        assert_eq!(e.structured_content, Some(json!({"sum": 3.0})), "{e:?}");
        let py = catalog.call("py__e__add", json!({"a": 1, "b": 2})).await;
        assert!(!py.is_error, "{py:?}");
        assert_eq!(text(&py), "3.0");
    });
}

#[test]
fn interop_with_the_python_sdk_server_over_stdio() {
    run(async {
        let python = common::python_sdk();
        let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/interop/server.py");
        for mode in [Mode::Auto, Mode::Legacy] {
            let config = ServerConfig {
                name: "py".into(),
                transport: Endpoint::Stdio {
                    command: python.to_string_lossy().into_owned(),
                    args: vec![script.to_string_lossy().into_owned()],
                    env: BTreeMap::new(),
                    cwd: None,
                    inherit_env: false,
                },
                trusted: true,
            };
            let client = connect(config, mode).await;
            let version = client.protocol_version().await;
            let tools = client.list_tools().await.unwrap();
            let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
            assert!(
                names.contains(&"add") && names.contains(&"greet"),
                "{names:?}"
            );
            let result = client
                .call_tool("add", args(json!({"a": 2, "b": 5})), CallOptions::default())
                .await
                .unwrap();
            assert!(!result.is_error, "{mode:?} {version}: {result:?}");
            assert_eq!(
                result.structured_content,
                Some(json!({"sum": 7.0})),
                "{mode:?}"
            );
            let result = client
                .call_tool(
                    "greet",
                    args(json!({"name": "Ada"})),
                    CallOptions::default(),
                )
                .await
                .unwrap();
            assert_eq!(text(&result), "Hello, Ada!");
            eprintln!("python SDK server, {mode:?}: {version}");
            client.close().await;
        }
    });
}

/// The host guide's (docs/host.md) catalog block is fenced `rs`
/// (highlighted as Rust, but not one of mcp-runtime's doctests, which do not
/// depend on mcp-host); lib.rs compiles the same code as a doctest.
#[test]
fn the_host_guide_example_is_the_compiled_one() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let guide = std::fs::read_to_string(root.join("../docs/host.md")).unwrap();
    let start = guide
        .find("```rs\nuse mcpfn_host::catalog")
        .expect("the Host side example")
        + "```rs\n".len();
    let end = start + guide[start..].find("```").unwrap();
    let lib = std::fs::read_to_string(root.join("src/lib.rs")).unwrap();
    let doc: Vec<&str> = lib
        .lines()
        .skip_while(|l| *l != "//! ```no_run")
        .skip(1)
        .take_while(|l| *l != "//! ```")
        .map(|l| {
            l.strip_prefix("//! ")
                .unwrap_or(l.strip_prefix("//!").unwrap_or(l))
        })
        .collect();
    let guide_lines: Vec<&str> = guide[start..end].lines().collect();
    assert_eq!(doc, guide_lines);
}

/// Add two numbers (in-process).
#[mcpfn_runtime::tool]
async fn add(a: f64, b: f64) -> f64 {
    a + b + 1000.0
}

#[test]
fn in_process_tools_beside_a_server() {
    run(async {
        let local = mcpfn_runtime::Server::new("local", "1.0.0")
            .tools(mcpfn_runtime::tools![add])
            .local()
            .unwrap();
        let sources: Vec<Arc<dyn mcpfn_host::catalog::ToolSource>> = vec![Arc::new(
            mcpfn_host::catalog::LocalSource::new("mine", local),
        )];
        let everything = example("everything").to_string_lossy().into_owned();
        let config = config_of(json!({"remote": {"command": everything}}));
        let catalog = Catalog::build(&config, sources, CatalogOptions::default())
            .await
            .unwrap();
        let names: Vec<&str> = catalog
            .tools()
            .iter()
            .map(|t| t.model_name.as_str())
            .collect();
        // `mine` sorts before `remote`; both have `add`.
        assert_eq!(names[0], "mine__add");
        assert!(names.contains(&"remote__add"));
        let local = catalog.call("mine__add", json!({"a": 1, "b": 2})).await;
        assert_eq!(local.structured_content, Some(json!(1003.0)));
        let remote = catalog.call("remote__add", json!({"a": 1, "b": 2})).await;
        assert_eq!(remote.structured_content, Some(json!({"sum": 3.0})));
    });
}

/// One HTTP request as the fake server saw it.
#[derive(Debug, Clone)]
struct Seen {
    headers: Vec<(String, String)>,
    body: Value,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// How the fake HTTP server behaves.
#[derive(Clone, Copy)]
struct FakeHttp {
    /// The `ttlMs` of its tool list.
    ttl_ms: u64,
    /// Legacy only: `server/discover` gets a bare HTTP 400, `initialize`
    /// answers 2025-11-25, notifications 202, the GET stream 405.
    legacy: bool,
}

/// A 2026-07-28 (or legacy) HTTP server in a few lines: answers
/// `server/discover` (or `initialize`), lists a tool with a valid
/// `x-mcp-header` and one with a broken one, and answers `tools/call`;
/// records every request.
async fn fake_http(behaviour: FakeHttp) -> (String, Arc<Mutex<Vec<Seen>>>) {
    use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            let log = Arc::clone(&log);
            tokio::spawn(async move {
                let mut stream = BufReader::new(stream);
                loop {
                    let mut line = String::new();
                    if stream.read_line(&mut line).await.unwrap_or(0) == 0 {
                        return;
                    }
                    let mut headers = vec![(
                        ":method".to_owned(),
                        line.split(' ').next().unwrap_or("").to_owned(),
                    )];
                    let mut length = 0;
                    loop {
                        let mut header = String::new();
                        stream.read_line(&mut header).await.unwrap();
                        let header = header.trim_end();
                        if header.is_empty() {
                            break;
                        }
                        let (name, value) = header.split_once(':').unwrap();
                        if name.eq_ignore_ascii_case("content-length") {
                            length = value.trim().parse().unwrap();
                        }
                        headers.push((name.to_owned(), value.trim().to_owned()));
                    }
                    let mut body = vec![0; length];
                    stream.read_exact(&mut body).await.unwrap();
                    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                    log.lock().unwrap().push(Seen {
                        headers: headers.clone(),
                        body: body.clone(),
                    });
                    let ttl = behaviour.ttl_ms;
                    let tools = json!([
                        {"name": "route", "inputSchema": {"type": "object", "properties": {
                            "region": {"type": "string", "x-mcp-header": "Region"}}}},
                        {"name": "broken", "inputSchema": {"type": "object", "properties": {
                            "n": {"type": "number", "x-mcp-header": "N"}}}}]);
                    let result = match (body["method"].as_str(), behaviour.legacy) {
                        _ if headers[0].1 != "POST" => None,
                        (Some("server/discover"), true) => None,
                        (Some("server/discover"), false) => Some(json!({"resultType": "complete",
                            "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
                            "ttlMs": 60000, "cacheScope": "public"})),
                        (Some("initialize"), true) => Some(json!({"protocolVersion": "2025-11-25",
                            "capabilities": {"tools": {}}, "serverInfo": {"name": "fake", "version": "1"}})),
                        (Some("tools/list"), true) => Some(json!({"tools": tools})),
                        (Some("tools/list"), false) => Some(json!({"resultType": "complete",
                            "ttlMs": ttl, "cacheScope": "public", "tools": tools})),
                        (Some("tools/call"), _) => Some(json!({"resultType": "complete",
                            "content": [{"type": "text", "text": "routed"}]})),
                        _ => Some(json!({})),
                    };
                    let response = match result {
                        _ if headers[0].1 == "GET" => {
                            "HTTP/1.1 405 Method Not Allowed\r\ncontent-length: 0\r\n\r\n"
                                .to_owned()
                        }
                        None => "HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n".to_owned(),
                        Some(_) if body.get("id").is_none() => {
                            "HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n".to_owned()
                        }
                        Some(result) => {
                            let reply =
                                json!({"jsonrpc": "2.0", "id": body["id"], "result": result})
                                    .to_string();
                            let session = if behaviour.legacy {
                                "mcp-session-id: s1\r\n"
                            } else {
                                ""
                            };
                            format!(
                                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n{session}content-length: {}\r\n\r\n{reply}",
                                reply.len()
                            )
                        }
                    };
                    if stream
                        .get_mut()
                        .write_all(response.as_bytes())
                        .await
                        .is_err()
                    {
                        return;
                    }
                }
            });
        }
    });
    (url, seen)
}

async fn fake_modern_http() -> (String, Arc<Mutex<Vec<Seen>>>) {
    fake_http(FakeHttp {
        ttl_ms: 60_000,
        legacy: false,
    })
    .await
}

fn count_of(seen: &Mutex<Vec<Seen>>, method: &str) -> usize {
    seen.lock()
        .unwrap()
        .iter()
        .filter(|s| s.body["method"] == method)
        .count()
}

#[test]
fn tool_lists_are_cached_for_their_ttl() {
    run(async {
        for (ttl_ms, lists) in [(60_000, 1), (0, 3)] {
            let (url, seen) = fake_http(FakeHttp {
                ttl_ms,
                legacy: false,
            })
            .await;
            let client = connect(http("fake", url), Mode::Modern).await;
            for _ in 0..3 {
                client.list_tools().await.unwrap();
            }
            assert_eq!(count_of(&seen, "tools/list"), lists, "ttlMs {ttl_ms}");
            // A call uses what is known of the tool, stale or not.
            client
                .call_tool(
                    "route",
                    args(json!({"region": "eu"})),
                    CallOptions::default(),
                )
                .await
                .unwrap();
            assert_eq!(count_of(&seen, "tools/list"), lists, "ttlMs {ttl_ms}");
        }
    });
}

#[test]
fn an_http_400_to_discover_falls_back_to_the_handshake() {
    run(async {
        let (url, seen) = fake_http(FakeHttp {
            ttl_ms: 0,
            legacy: true,
        })
        .await;
        let client = connect(http("fake", url), Mode::Auto).await;
        assert_eq!(
            client.protocol_version().await,
            ProtocolVersion::V2025_11_25
        );
        let tools = client.list_tools().await.unwrap();
        // A legacy session mirrors nothing into headers: `broken` stays.
        assert_eq!(tools.len(), 2);
        let result = client
            .call_tool(
                "route",
                args(json!({"region": "eu"})),
                CallOptions::default(),
            )
            .await
            .unwrap();
        assert_eq!(text(&result), "routed");
        let seen = seen.lock().unwrap().clone();
        let methods: Vec<&str> = seen
            .iter()
            .filter_map(|s| s.body["method"].as_str())
            .collect();
        assert_eq!(
            &methods[..3],
            ["server/discover", "initialize", "notifications/initialized"]
        );
        let call = seen
            .iter()
            .find(|s| s.body["method"] == "tools/call")
            .unwrap();
        assert_eq!(call.header("MCP-Protocol-Version"), Some("2025-11-25"));
        assert_eq!(call.header("Mcp-Session-Id"), Some("s1"));
        assert!(call.header("Mcp-Method").is_none());
        assert!(call.body["params"].get("_meta").is_none());
    });
}

#[test]
fn modern_http_headers_and_the_x_mcp_header_rules() {
    run(async {
        let (url, seen) = fake_modern_http().await;
        let client = connect(http("fake", url), Mode::Auto).await;
        assert_eq!(
            client.protocol_version().await,
            ProtocolVersion::V2026_07_28
        );
        let tools = client.list_tools().await.unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        // `broken` mirrors a `number`: dropped (with a warning).
        assert_eq!(names, ["route"]);
        let result = client
            .call_tool(
                "route",
                args(json!({"region": "Zürich"})),
                CallOptions::default(),
            )
            .await
            .unwrap();
        assert_eq!(text(&result), "routed");
        let seen = seen.lock().unwrap().clone();
        let call = seen
            .iter()
            .find(|s| s.body["method"] == "tools/call")
            .expect("the call was posted");
        assert_eq!(call.header("Mcp-Method"), Some("tools/call"));
        assert_eq!(call.header("Mcp-Name"), Some("route"));
        assert_eq!(call.header("MCP-Protocol-Version"), Some("2026-07-28"));
        assert_eq!(
            call.header("Mcp-Param-Region"),
            Some("=?base64?WsO8cmljaA==?=")
        );
        assert_eq!(
            call.body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
            "2026-07-28"
        );
        // Every request carries the envelope.
        for request in &seen {
            assert!(
                request.body["params"]["_meta"]["io.modelcontextprotocol/clientInfo"].is_object(),
                "{request:?}"
            );
            assert!(request.header("Mcp-Method").is_some());
        }
    });
}

/// Kills the Python server when the test ends, however it ends.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn interop_with_the_python_sdk_server_over_http() {
    run(async {
        let python = common::python_sdk();
        let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/interop/server.py");
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut server = Killed(
            std::process::Command::new(python)
                .arg(&script)
                .args(["--http", &port.to_string()])
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap(),
        );
        // Up when it accepts connections: the Python SDK takes seconds to
        // import, and far longer on a loaded machine.
        let deadline = std::time::Instant::now() + Duration::from_secs(120);
        while tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_err()
        {
            if let Ok(Some(status)) = server.0.try_wait() {
                panic!("the Python SDK's server exited before listening on port {port}: {status}");
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the Python SDK's server did not listen on port {port} within 120 s"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let url = format!("http://127.0.0.1:{port}/mcp");
        for mode in [Mode::Auto, Mode::Legacy] {
            let client = connect(http("py", url.clone()), mode).await;
            let version = client.protocol_version().await;
            let tools = client.list_tools().await.unwrap();
            assert!(tools.iter().any(|t| t.name == "greet"), "{mode:?}");
            let result = client
                .call_tool("add", args(json!({"a": 2, "b": 5})), CallOptions::default())
                .await
                .unwrap();
            assert_eq!(
                result.structured_content,
                Some(json!({"sum": 7.0})),
                "{mode:?} {version}"
            );
            eprintln!("python SDK server over HTTP, {mode:?}: {version}");
            client.close().await;
        }
    });
}

#[test]
fn a_catalog_restarts_a_dead_server_under_the_same_names() {
    run(async {
        let dir = std::env::temp_dir().join(format!("mcp-host-catalog-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/interop/fake.py");
        let config = config_of(json!({"f": {"command": "python3", "args": [script],
            "env": {"FAKE": "exit", "FAKE_DIR": dir}}}));
        let catalog = Catalog::build(&config, Vec::new(), CatalogOptions::default())
            .await
            .unwrap();
        let names: Vec<String> = catalog
            .tools()
            .iter()
            .map(|t| t.model_name.clone())
            .collect();
        assert_eq!(text(&catalog.call("count", json!({})).await), "1");
        let died = catalog.call("exit", json!({})).await;
        assert!(died.is_error);
        assert!(text(&died).contains("exited"), "{}", text(&died));
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(text(&catalog.call("count", json!({})).await), "2");
        let after: Vec<String> = catalog
            .tools()
            .iter()
            .map(|t| t.model_name.clone())
            .collect();
        assert_eq!(names, after);
        let _ = std::fs::remove_dir_all(&dir);
    });
}

/// A log sink for one test.
#[derive(Clone, Default)]
struct Sink(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn every_call_is_logged_for_audit() {
    let sink = Sink::default();
    let writer = sink.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .with_max_level(tracing::Level::INFO)
        .finish();
    tracing::subscriber::with_default(subscriber, || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(async {
                common::bounded(async {
                    let client = connect(everything_stdio(&[]), Mode::Auto).await;
                    client
                        .call_tool("fail", None, CallOptions::default())
                        .await
                        .unwrap();
                    client.close().await;
                })
                .await;
            });
    });
    let log = String::from_utf8(sink.0.lock().unwrap().clone()).unwrap();
    let line = log
        .lines()
        .find(|l| l.contains("mcpfn_host::audit"))
        .unwrap_or_else(|| panic!("no audit line in {log}"));
    for part in [
        "server=everything",
        "tool=fail",
        "duration_ms=",
        "is_error=true",
    ] {
        assert!(line.contains(part), "{part} missing from {line}");
    }
}

/// Item 7 of issue 30: `x-mcp-header` is a 2026-07-28 HTTP keyword, so a
/// stdio server's schemas are not walked for it: a tool with 30,000
/// annotated properties (past the default listing caps, so they are raised
/// here; under the per-message JSON budget) lists in the time the same schema without the keyword takes, and
/// can be called (the old uniqueness check was quadratic in the number of
/// annotated properties: BENCHMARKS.md, "Figures behind design choices").
#[test]
fn header_annotations_cost_a_stdio_server_nothing() {
    run(async {
        let script =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/interop/hostile_lists.py");
        let options = ClientOptions {
            list_limits: ListLimits {
                max_bytes: 64 << 20,
                max_tree_bytes: 1 << 30,
                ..ListLimits::default()
            },
            ..ClientOptions::mode(Mode::Legacy)
        };
        let mut took = Vec::new();
        for plain in ["1", "0"] {
            let config = ServerConfig {
                name: "wide".to_owned(),
                transport: Endpoint::Stdio {
                    command: "python3".into(),
                    args: vec![script.to_string_lossy().into_owned()],
                    env: BTreeMap::from([
                        ("LISTS".to_owned(), "headers".to_owned()),
                        ("LISTS_PLAIN".to_owned(), plain.to_owned()),
                        ("LISTS_PROPS".to_owned(), "30000".to_owned()),
                    ]),
                    cwd: None,
                    inherit_env: false,
                },
                trusted: false,
            };
            let client = McpClient::connect_with(config, options.clone())
                .await
                .unwrap();
            let started = Instant::now();
            let tools = client.list_tools().await.unwrap();
            took.push(started.elapsed());
            assert_eq!(tools.len(), 1);
            assert_eq!(tools[0].name, "wide");
            let result = client
                .call_tool("wide", args(json!({"p1": "x"})), CallOptions::default())
                .await
                .unwrap();
            assert_eq!(text(&result), "called wide");
            client.close().await;
        }
        eprintln!(
            "30,000 properties listed in {:?} without x-mcp-header, {:?} with",
            took[0], took[1]
        );
        assert!(
            took[1] < took[0] * 2 + Duration::from_secs(1),
            "with the keyword: {:?}, without: {:?}",
            took[1],
            took[0]
        );
    });
}

/// The listing caps are the catalog's options too: with 20 tools per
/// server, a server listing 100 keeps its first 20 (in list order) and
/// `everything` (18 tools) is offered and called.
#[test]
fn a_catalog_keeps_the_first_tools_of_a_server_past_its_configured_tool_cap() {
    run(async {
        let everything = example("everything").to_string_lossy().into_owned();
        let script = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/interop/hostile_lists.py")
            .to_string_lossy()
            .into_owned();
        let config = config_of(json!({
            "e": {"command": everything},
            "evil": {"command": "python3", "args": [script], "env": {"LISTS": "many", "LISTS_TOOLS": "100"}},
        }));
        let options = CatalogOptions {
            client: ClientOptions {
                list_limits: ListLimits {
                    max_tools: 20,
                    ..ListLimits::default()
                },
                ..ClientOptions::default()
            },
            ..CatalogOptions::default()
        };
        let catalog = Catalog::build(&config, Vec::new(), options).await.unwrap();
        assert!(catalog.failures().is_empty(), "{:?}", catalog.failures());
        let kept: Vec<&str> = catalog
            .tools()
            .iter()
            .filter(|t| t.server == "evil")
            .map(|t| t.tool.name.as_str())
            .collect();
        let first: Vec<String> = (0..20).map(|i| format!("t{i}")).collect();
        assert_eq!(kept, first);
        let result = catalog.call("add", json!({"a": 2, "b": 3})).await;
        assert!(!result.is_error, "{result:?}");
        assert!(text(&result).contains('5'), "{result:?}");
    });
}
