//! `Context` and `State<T>` parameters are injected: not in the inputSchema,
//! in any position, alongside ordinary arguments; `timeout` bounds a call.

use mcpfn_runtime::testing::Client;
use mcpfn_runtime::{Context, Level, Server, State, ToolError, tool, tools};
use serde_json::json;
use std::sync::atomic::{AtomicU32, Ordering};

struct Hits {
    count: AtomicU32,
}

/// Count a visit and say hello.
#[tool(timeout = "2s")]
async fn visit(hits: State<Hits>, name: String, ctx: Context, excited: Option<bool>) -> Result<String, ToolError> {
    let n = hits.count.fetch_add(1, Ordering::SeqCst) + 1;
    ctx.progress(1.0, Some(1.0), Some("counted"))?;
    ctx.log(Level::Info, format!("visit {n}"));
    let mark = if excited.unwrap_or(false) { "!" } else { "." };
    Ok(format!("Hello {name}{mark} Visit {n} via {}", ctx.tool_name()))
}

/// Takes too long.
#[tool(timeout = "50ms")]
async fn sluggish() -> String {
    tokio::time::sleep(std::time::Duration::from_secs(5)).await;
    String::new()
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let listed = tools![visit];
    let schema = listed[0].input_schema();
    assert_eq!(schema["required"], json!(["name"]));
    assert_eq!(schema["properties"].as_object().unwrap().len(), 2, "{schema}");

    let server = Server::new("s", "1").state(Hits { count: AtomicU32::new(0) }).tools(tools![visit, sluggish]);
    let client = Client::builder(server).log_level(Level::Info).connect().await.unwrap();
    let first = client.call_with_progress("visit", json!({"name": "Ada", "excited": true})).await.unwrap();
    assert_eq!(first.text(), Some("Hello Ada! Visit 1 via visit"));
    assert_eq!(first.progress().len(), 1);
    assert_eq!(first.logs()[0].data, "visit 1");
    let second = client.call("visit", json!({"name": "Bo"})).await.unwrap();
    assert_eq!(second.text(), Some("Hello Bo. Visit 2 via visit"));
    let slow = client.call("sluggish", json!({})).await.unwrap();
    assert_eq!(slow.text(), Some("The tool 'sluggish' timed out after 50ms."));

    // A State nobody registered stops the server at startup; dumping the
    // schemas needs none.
    let missing = Server::new("s", "1").tools(tools![visit]);
    assert!(missing.dump(mcpfn_runtime::DumpFormat::OpenAi).is_ok());
    let (_client, server_end) = mcpfn_runtime::testing::memory();
    let (read, write) = tokio::io::split(server_end);
    let err = missing.serve(read, write).await.unwrap_err();
    assert!(err.to_string().contains("State<"), "{err}");
}
