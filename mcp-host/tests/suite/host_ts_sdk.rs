//! `McpClient` against a server made with the official TypeScript SDK
//! (tests/interop/ts_server.mjs; `@modelcontextprotocol/sdk` pinned in
//! tests/interop/package-lock.json, installed with `npm ci` on first use), over
//! stdio and Streamable HTTP, in `Auto` and `Legacy` modes: list, a call with
//! structured content checked against the tool's `outputSchema`, an image
//! block, and `isError`.
//!
//! The v1 SDK speaks only the legacy handshake: over stdio it answers
//! `server/discover` with -32601, over HTTP the script answers a request
//! outside a session that is not `initialize` with HTTP 400 (as the SDK's
//! own session examples do); `Auto` must fall back to `initialize` on both
//! and negotiate 2025-11-25. Node.js >= 20 with npm must be on `PATH`: the
//! tests fail, they do not skip, without them (as the `tests` crate's
//! interop tests).

use crate::common;

use common::{args, run, text};
use mcpfn_client::{CallOptions, ClientOptions, McpClient, Mode};
use mcpfn_client::{Endpoint, ServerConfig};
use mcpfn_protocol::ProtocolVersion;
use mcpfn_protocol::model::ContentBlock;
use serde_json::json;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

fn script() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/interop/ts_server.mjs")
        .to_string_lossy()
        .into_owned()
}

/// The checks both transports share: the tools, `add`'s structured result,
/// `pixel`'s image and `fail`'s `isError`.
async fn exercise(config: ServerConfig, mode: Mode) {
    let client = McpClient::connect_with(config, ClientOptions::mode(mode))
        .await
        .expect("connects");
    let version = client.protocol_version().await;
    assert_eq!(version, ProtocolVersion::V2025_11_25, "{mode:?}");
    let tools = client.list_tools().await.unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["add", "fail", "pixel"], "{mode:?}");
    let add = tools.iter().find(|t| t.name == "add").unwrap();
    assert!(
        add.output_schema.is_some(),
        "add declares its output schema"
    );

    let result = client
        .call_tool("add", args(json!({"a": 2, "b": 5})), CallOptions::default())
        .await
        .unwrap();
    assert!(!result.is_error, "{mode:?}: {result:?}");
    assert_eq!(
        result.structured_content,
        Some(json!({"sum": 7})),
        "{mode:?}"
    );

    let result = client
        .call_tool("pixel", None, CallOptions::default())
        .await
        .unwrap();
    assert!(!result.is_error, "{mode:?}: {result:?}");
    assert_eq!(text(&result), "one pixel");
    let image = result
        .content
        .iter()
        .find_map(|b| match b {
            ContentBlock::Image(image) => Some(image),
            _ => None,
        })
        .expect("an image block");
    assert_eq!(image.mime_type, "image/png");
    assert!(image.data.starts_with("iVBORw0KGgo"), "{}", image.data);

    let result = client
        .call_tool(
            "fail",
            args(json!({"reason": "on purpose"})),
            CallOptions::default(),
        )
        .await
        .unwrap();
    assert!(result.is_error, "{mode:?}: {result:?}");
    assert_eq!(text(&result), "failed: on purpose");

    // Concurrent calls on one connection come back to their callers.
    let mut calls = tokio::task::JoinSet::new();
    for i in 0..32 {
        let client = client.clone();
        calls.spawn(async move {
            let result = client
                .call_tool("add", args(json!({"a": i, "b": 1})), CallOptions::default())
                .await
                .unwrap();
            assert_eq!(result.structured_content, Some(json!({"sum": i + 1})));
        });
    }
    while let Some(done) = calls.join_next().await {
        done.unwrap();
    }
    eprintln!("TypeScript SDK server, {mode:?}: {version}");
    client.close().await;
}

#[test]
fn interop_with_the_typescript_sdk_server_over_stdio() {
    run(async {
        let sdk = common::ts_sdk();
        for mode in [Mode::Auto, Mode::Legacy] {
            let config = ServerConfig {
                name: "ts".into(),
                transport: Endpoint::Stdio {
                    command: "node".into(),
                    args: vec![script(), sdk.to_string_lossy().into_owned()],
                    env: BTreeMap::new(),
                    cwd: None,
                    inherit_env: false,
                },
                trusted: true,
            };
            exercise(config, mode).await;
        }
    });
}

/// The HTTP server's process, killed when the test ends.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn interop_with_the_typescript_sdk_server_over_http() {
    run(async {
        let sdk = common::ts_sdk();
        let mut child = Command::new("node")
            .arg(script())
            .arg(&sdk)
            .args(["--http", "0"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("node runs (install Node.js >= 20)");
        let stderr = child.stderr.take().unwrap();
        let _server = Killed(child);
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                eprintln!("ts_server: {line}");
                if let Some(addr) = line.strip_prefix("listening on ") {
                    let _ = tx.send(addr.to_owned());
                }
            }
        });
        let addr = tokio::task::spawn_blocking(move || rx.recv_timeout(Duration::from_secs(30)))
            .await
            .unwrap()
            .expect("the TypeScript server logs its address");
        for mode in [Mode::Auto, Mode::Legacy] {
            let config = ServerConfig {
                name: "ts".into(),
                transport: Endpoint::Http {
                    url: format!("http://{addr}/mcp"),
                    headers: BTreeMap::new(),
                    declared_sse: false,
                },
                trusted: false,
            };
            exercise(config, mode).await;
        }
    });
}
