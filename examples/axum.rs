//! Run with: cargo run --example axum
//!
//! An MCP server mounted in an axum application: the MCP endpoint at
//! `/mcp`, next to the application's own `/health` route. `ADDR` sets the
//! address (default `127.0.0.1:8932`).

use axum::Router;
use axum::routing::get;
use mcp_runtime::{Server, tool, tools};

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
        .route_service("/mcp", mcp);
    // Loopback only: the service checks `Host` against loopback names.
    let addr = std::env::var("ADDR").unwrap_or_else(|_| "127.0.0.1:8932".to_owned());
    let listener = tokio::net::TcpListener::bind(addr).await?;
    eprintln!("serving http://{}/mcp", listener.local_addr()?);
    axum::serve(listener, app).await
}
