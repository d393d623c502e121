//! `task = "optional" | "required"`, `resumable`, and `ctx.begin_task()` in the body:
//! each tool runs as it declares. Without the Tasks extension the required
//! one is refused and the others answer at once; with it the optional one
//! and the required one (once its body begins the task) become tasks, and
//! the plain one still answers at once.

use mcpfn_runtime::{Context, Server, ToolError, tool};
use serde_json::{Value, json};

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

/// A 2026-07-28 `tools/call`, declaring the Tasks extension when `tasks`.
fn call(id: u64, name: &str, arguments: Value, tasks: bool) -> String {
    let mut capabilities = json!({});
    if tasks {
        capabilities["extensions"] = json!({"io.modelcontextprotocol/tasks": {}});
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": name, "arguments": arguments, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": capabilities,
            "io.modelcontextprotocol/clientInfo": {"name": "ui", "version": "0"}}}})
    .to_string()
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let tools = mcpfn_runtime::tools![build_report, ask_then_work, plain];
    let (mut client, server_end) = mcpfn_runtime::testing::memory();
    let (read, write) = tokio::io::split(server_end);
    let server = tokio::spawn(Server::new("ui", "0").tools(tools).serve(read, write));
    let mut ask = async |line: String| -> std::io::Result<Value> {
        client.send(&line).await?;
        Ok(serde_json::from_str(&client.recv().await?.unwrap()).unwrap())
    };
    let report = json!({"sections": 3});
    let refused = ask(call(1, "ask_then_work", json!({}), false)).await?;
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    let now = ask(call(2, "build_report", report.clone(), false)).await?;
    assert_eq!(now["result"]["content"][0]["text"], "3 sections", "{now}");
    let now = ask(call(3, "plain", json!({}), false)).await?;
    assert_eq!(now["result"]["content"][0]["text"], "plain", "{now}");
    for (id, name, arguments) in [(4, "build_report", report), (5, "ask_then_work", json!({}))] {
        let task = ask(call(id, name, arguments, true)).await?;
        assert_eq!(task["result"]["resultType"], "task", "{name}: {task}");
    }
    let now = ask(call(6, "plain", json!({}), true)).await?;
    assert_eq!(now["result"]["content"][0]["text"], "plain", "{now}");
    drop(ask);
    client.close().await?;
    server.await??;
    Ok(())
}
