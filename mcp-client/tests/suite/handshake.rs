//! `Mode::Auto`'s handshake against a scripted stdio server: the
//! `server/discover` probe, and what follows when it fails.

use crate::common;

use common::run;
use mcpfn_client::{ClientOptions, McpClient, Mode, ServerConfig};
use mcpfn_protocol::ProtocolVersion;
use std::time::Duration;

/// A 2026-07-28 server that speaks only that revision and reads nothing
/// for its first 1.5 s (a slow start), writing each method it is sent to
/// the file named by its first argument.
const SLOW_MODERN: &str = r#"
import json, sys, time
time.sleep(1.5)
log = open(sys.argv[1], "a")
for line in sys.stdin:
    message = json.loads(line)
    method = message.get("method")
    log.write(method + "\n")
    log.flush()
    if "id" not in message:
        continue
    answer = {"jsonrpc": "2.0", "id": message["id"]}
    if method == "server/discover":
        answer["result"] = {"resultType": "complete", "supportedVersions": ["2026-07-28"],
                            "capabilities": {"tools": {}}}
    elif method == "initialize":
        answer["error"] = {"code": -32022,
                           "message": "this server speaks 2026-07-28 only",
                           "data": {"requested": message["params"]["protocolVersion"],
                                    "supported": ["2026-07-28"]}}
    elif method == "tools/list":
        answer["result"] = {"resultType": "complete", "tools": [
            {"name": "late", "inputSchema": {"type": "object"}}]}
    else:
        answer["error"] = {"code": -32601, "message": "Method not found"}
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()
"#;

/// The probe gives up before the slow server reads it; the `initialize`
/// that follows is refused as unsupported naming only 2026-07-28 (the
/// server did answer the probe, late, and now speaks that revision), so
/// the client asks `server/discover` again and speaks 2026-07-28. Under
/// load the Python SDK's server starts this slowly, and connecting failed.
#[test]
fn a_modern_server_slower_than_the_probe_is_asked_again_and_spoken_to_in_2026() {
    run(async {
        let dir = std::env::temp_dir().join(format!("mcp-slow-modern-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let log = dir.join("methods");
        let _ = std::fs::remove_file(&log);
        let config = ServerConfig::stdio(
            "slow",
            "python3".to_owned(),
            ["-c", SLOW_MODERN, &log.to_string_lossy()],
        );
        let options = ClientOptions {
            probe_timeout: Duration::from_millis(300),
            ..ClientOptions::mode(Mode::Auto)
        };
        let client = McpClient::connect_with(config, options)
            .await
            .expect("connects in 2026-07-28");
        assert_eq!(
            client.protocol_version().await,
            ProtocolVersion::V2026_07_28
        );
        let tools = client.list_tools().await.unwrap();
        assert_eq!(tools.len(), 1, "{tools:?}");
        assert_eq!(tools[0].name, "late");
        let methods = std::fs::read_to_string(&log).unwrap();
        assert_eq!(
            methods.lines().collect::<Vec<_>>(),
            [
                "server/discover",
                "initialize",
                "server/discover",
                "tools/list"
            ]
        );
        client.close().await;
        let _ = std::fs::remove_dir_all(&dir);
    });
}
