//! Run with: cargo run --example axum --features http
//!
//! An MCP server mounted in an axum application: the MCP endpoint at
//! `/mcp`, next to the application's own `/health` route. `ADDR` sets the
//! address (default `127.0.0.1:8932`). Each request carries its peer's
//! address in its extensions, so the service's per-client limits (open event
//! streams, `Server::max_streams_per_client`) count per address.

use axum::Router;
use axum::extract::{ConnectInfo, Request};
use axum::routing::get;
use mcpfn_runtime::{Server, tool, tools};
use std::net::SocketAddr;

/// Add two numbers.
#[tool(read_only, idempotent)]
async fn add(
    /// First addend
    a: f64,
    /// Second addend
    b: f64,
) -> f64 {
    a + b
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let mcp = Server::new("axum-example", env!("CARGO_PKG_VERSION"))
        .tools(tools![add])
        .http_service()
        .map_err(|err| std::io::Error::new(std::io::ErrorKind::InvalidInput, err.to_string()))?;
    let app = Router::new()
        .route("/health", get(|| async { "ok" }))
        .route_service("/mcp", mcp)
        // The service reads the peer as a plain `SocketAddr` extension.
        .layer(axum::middleware::map_request(
            |ConnectInfo(peer): ConnectInfo<SocketAddr>, mut request: Request| async move {
                request.extensions_mut().insert(peer);
                request
            },
        ));
    // Loopback only: the service checks `Host` against loopback names.
    let addr = std::env::var("ADDR").unwrap_or_else(|_| "127.0.0.1:8932".to_owned());
    let listener = tokio::net::TcpListener::bind(addr).await?;
    eprintln!("serving http://{}/mcp", listener.local_addr()?);
    axum::serve(
        listener,
        app.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .await
}
