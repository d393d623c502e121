//! `task = "optional" | "required"`, `resumable`, and `ctx.begin_task()` in the body:
//! each tool is listed with the task support it declares.

use mcp_runtime::{Context, Server, ToolError, tool};

/// Builds a report, as a task when the client supports tasks (run again
/// from the start if its replica dies).
#[tool(task = "optional", resumable)]
async fn build_report(ctx: Context, sections: u32) -> Result<String, ToolError> {
    ctx.progress(1.0, Some(f64::from(sections)), Some("started"))?;
    Ok(format!("{sections} sections"))
}

/// Asks first, then becomes a task.
#[tool(task = "required")]
async fn ask_then_work(ctx: Context) -> Result<String, ToolError> {
    ctx.begin_task().await?;
    Ok(format!("a task: {}", ctx.is_task()))
}

/// Never a task.
#[tool]
async fn plain() -> String {
    "plain".to_owned()
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let tools = mcp_runtime::tools![build_report, ask_then_work, plain];
    let (mut client, server_end) = mcp_runtime::testing::memory();
    let (read, write) = tokio::io::split(server_end);
    let server = tokio::spawn(Server::new("ui", "0").tools(tools).serve(read, write));
    client.send(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"ui","version":"0"}}}"#).await?;
    client.recv().await?.unwrap();
    client
        .send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        .await?;
    client
        .send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#)
        .await?;
    let list: serde_json::Value = serde_json::from_str(&client.recv().await?.unwrap()).unwrap();
    let declared: Vec<(&str, &serde_json::Value)> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["name"].as_str().unwrap(), &t["execution"]))
        .collect();
    assert_eq!(
        declared,
        [
            ("build_report", &serde_json::json!({"taskSupport": "optional"})),
            ("ask_then_work", &serde_json::json!({"taskSupport": "required"})),
            ("plain", &serde_json::Value::Null),
        ],
        "{list}"
    );
    client.close().await?;
    server.await??;
    Ok(())
}
