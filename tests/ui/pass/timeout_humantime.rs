//! `timeout` takes humantime's syntax: fractions and compound durations.

use mcpfn_runtime::testing::Client;
use mcpfn_runtime::{Server, tool, tools};
use serde_json::json;

/// Takes too long.
#[tool(timeout = "0.1s")]
async fn sluggish() -> String {
    tokio::time::sleep(std::time::Duration::from_secs(5)).await;
    String::new()
}

/// Answers well within its timeout.
#[tool(timeout = "1h 30m")]
async fn patient() -> String {
    "done".to_owned()
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let server = Server::new("s", "1").tools(tools![sluggish, patient]);
    let client = Client::builder(server).connect().await.unwrap();
    let slow = client.call("sluggish", json!({})).await.unwrap();
    assert_eq!(slow.text(), Some("The tool 'sluggish' timed out after 100ms."));
    let fine = client.call("patient", json!({})).await.unwrap();
    assert_eq!(fine.text(), Some("done"));
}
