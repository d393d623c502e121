//! Headers on every allowed type: String, bool, integers, and Options of them
//! (advertised with a plain type, never a `null` union). Wide integers get
//! ±(2^53−1) bounds, enforced at call time.

use mcpfn_runtime::testing::Client;
use mcpfn_runtime::{ProtocolVersion, Server, tool, tools};
use serde_json::json;

#[tool]
async fn query(
    /// Region to run in
    #[arg(header = "Region")]
    region: String,
    #[arg(header = "Dry-Run")] dry_run: Option<bool>,
    #[arg(header = "Shard")] shard: i32,
    #[arg(header = "Tenant_ID")] tenant: u64,
    #[arg(header = "!#$%&'*+-.^_`|~09azAZ")] odd: Option<i64>,
    sql: String,
) -> String {
    format!("{region} {dry_run:?} {shard} {tenant} {odd:?} {sql}")
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let tools = tools![query];
    let props = &tools[0].input_schema()["properties"];
    assert_eq!(props["region"]["x-mcp-header"], "Region");
    assert_eq!(props["region"]["description"], "Region to run in");
    assert_eq!(props["dry_run"]["x-mcp-header"], "Dry-Run");
    assert_eq!(props["dry_run"]["type"], "boolean", "plain type for Option<bool>");
    assert_eq!(props["shard"]["type"], "integer");
    assert!(props["shard"].get("maximum").is_none() || props["shard"]["maximum"] == i32::MAX);
    assert_eq!(props["tenant"]["maximum"], 9_007_199_254_740_991_u64);
    assert_eq!(props["tenant"]["minimum"], 0);
    assert_eq!(props["odd"]["minimum"], -9_007_199_254_740_991_i64);
    assert_eq!(props["odd"]["type"], "integer");
    assert!(props["sql"].get("x-mcp-header").is_none());

    let server = Server::new("h", "1").tools(tools![query]);
    let client = Client::builder(server).protocol_version(ProtocolVersion::V2025_11_25).connect().await.unwrap();
    let ok = client
        .call("query", json!({"region": "eu", "shard": 1, "tenant": 9_007_199_254_740_991_u64, "sql": "select 1"}))
        .await
        .unwrap();
    assert!(!ok.is_error(), "{ok:?}");
    let too_big = client
        .call("query", json!({"region": "eu", "shard": 1, "tenant": 9_007_199_254_740_993_u64, "sql": "x"}))
        .await
        .unwrap();
    assert!(too_big.is_error());
    assert!(too_big.text().unwrap().contains("`tenant`"), "{too_big:?}");
    assert!(too_big.text().unwrap().contains("out of range"), "{too_big:?}");
}
