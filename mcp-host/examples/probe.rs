//! Run with: cargo run -p mcpfn-host --example probe -- COMMAND [ARGS...] | URL
//!
//! Connects to one MCP server (a command over stdio, or a Streamable HTTP
//! URL), makes the legacy handshake and prints the `tools/list` result: the
//! message-level client on its own, with no typed model.

use mcpfn_client::{
    Dispatcher, DispatcherConfig, NoHandler, RequestOptions, StdioConfig, StdioTransport, Transport,
};
use serde_json::json;
use serde_json::value::to_raw_value;
use std::sync::Arc;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let target = args.next().ok_or("usage: probe COMMAND [ARGS...] | URL")?;
    let (transport, inbox): (Box<dyn Transport>, _) = if target.starts_with("http") {
        #[cfg(feature = "http")]
        {
            let config = mcpfn_client::HttpConfig::new("probe", target.as_str());
            let (transport, inbox) = mcpfn_client::HttpTransport::connect(config)?;
            (Box::new(transport), inbox)
        }
        #[cfg(not(feature = "http"))]
        return Err("this build has no HTTP (feature `http`)".into());
    } else {
        let (transport, inbox) =
            StdioTransport::spawn(StdioConfig::new("probe", target.as_str()).args(args))?;
        (Box::new(transport), inbox)
    };
    let client = Dispatcher::new(
        transport,
        inbox,
        Arc::new(NoHandler),
        DispatcherConfig::new("probe"),
    );
    let init = to_raw_value(&json!({"protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "probe", "version": env!("CARGO_PKG_VERSION")}}))?;
    let options = RequestOptions {
        cancel_notification: false,
        ..RequestOptions::default()
    };
    let result = client.request("initialize", Some(&init), options).await?;
    let version =
        serde_json::from_str::<serde_json::Value>(result.get())?["protocolVersion"].clone();
    if let Some(version) = version.as_str() {
        client.set_headers(&[("MCP-Protocol-Version".into(), version.into())])?;
    }
    client
        .notify("notifications/initialized", None, &[])
        .await?;
    let tools = client
        .request("tools/list", None, RequestOptions::default())
        .await?;
    println!("{}", tools.get());
    client.close().await;
    Ok(())
}
