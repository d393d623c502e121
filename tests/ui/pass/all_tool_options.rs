//! Every `#[tool(...)]` option at once, checked on the wire through `tools/list`.

use mcpfn_runtime::{Server, tool};

/// Delete a file.
#[tool(
    name = "files.delete",
    title = "Delete file",
    read_only = false,
    destructive = false,
    idempotent,
    open_world,
    icon(src = "https://x/y.png", mime_type = "image/png", sizes = "48x48"),
    meta(version = 2, stable = true)
)]
async fn delete(path: String) -> String {
    path
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let tools = mcpfn_runtime::tools![delete];
    assert_eq!(tools[0].name(), "files.delete");

    let (mut client, server_end) = mcpfn_runtime::testing::memory();
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
    let def = &list["result"]["tools"][0];
    assert_eq!(def["name"], "files.delete");
    assert_eq!(def["title"], "Delete file");
    assert_eq!(def["description"], "Delete a file.");
    assert_eq!(
        def["annotations"],
        serde_json::json!({
            "readOnlyHint": false,
            "destructiveHint": false,
            "idempotentHint": true,
            "openWorldHint": true,
        })
    );
    assert_eq!(
        def["icons"],
        serde_json::json!([{"src": "https://x/y.png", "mimeType": "image/png", "sizes": ["48x48"]}])
    );
    assert_eq!(
        def["_meta"],
        serde_json::json!({"version": 2, "stable": true})
    );
    client.close().await?;
    server.await??;
    Ok(())
}
