//! `scopes(...)`: advertised in the tool's `_meta`, and ignored on stdio
//! (no caller identity there: the tool runs).

use mcpfn_runtime::{Server, tool};

/// Save a file.
#[tool(scopes("files:write", "files:read"), read_only = false)]
async fn save(path: String) -> String {
    path
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let tools = mcpfn_runtime::tools![save];
    assert_eq!(tools[0].scopes(), ["files:write", "files:read"]);

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
    assert_eq!(
        list["result"]["tools"][0]["_meta"],
        serde_json::json!({"rs.mcp-runtime/scopes": ["files:write", "files:read"]})
    );
    client
        .send(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"save","arguments":{"path":"a"}}}"#)
        .await?;
    let call: serde_json::Value = serde_json::from_str(&client.recv().await?.unwrap()).unwrap();
    assert_eq!(call["result"]["content"][0]["text"], "a", "{call}");
    client.close().await?;
    server.await??;
    Ok(())
}
