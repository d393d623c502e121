//! rmcp's Streamable HTTP server answering `add`, what the HTTP part of the
//! benchmark compares `everything --http` against.
//!
//! ```text
//! rmcp-server ADDR        e.g. rmcp-server 127.0.0.1:8931
//! ```
//!
//! It serves the official Rust SDK's `StreamableHttpService` in stateless
//! mode (`legacy_session_mode: false`) with JSON responses, through hyper's
//! HTTP/1.1 server (keep-alive on) on a tokio multi-thread runtime, the setup
//! rmcp's own examples use (they mount the service with axum; axum adds
//! nothing on this path, so plain hyper keeps the dependency tree smaller).
//! The service answers on every path; the benchmark posts to `/mcp`.
//!
//! The one tool is `add(a: number, b: number) -> {"sum": number}`, returned
//! through rmcp's `Json` wrapper: `structuredContent` plus the text mirror,
//! like `everything`'s `add`. It runs until killed.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{Implementation, ServerCapabilities, ServerConfig};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{Json, ServerHandler, tool, tool_handler, tool_router};
use std::sync::Arc;

/// The arguments of `add`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct AddInput {
    /// First addend
    a: f64,
    /// Second addend
    b: f64,
}

/// The result of `add`.
#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
struct AddOutput {
    /// a + b
    sum: f64,
}

/// The server: one `add` tool.
#[derive(Debug, Clone)]
struct Adder {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Adder {
    fn new() -> Self {
        Self {
            tool_router: Self::tool_router(),
        }
    }

    /// Add two numbers.
    #[tool(
        description = "Add two numbers.",
        annotations(read_only_hint = true, idempotent_hint = true)
    )]
    fn add(&self, Parameters(AddInput { a, b }): Parameters<AddInput>) -> Json<AddOutput> {
        Json(AddOutput { sum: a + b })
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Adder {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("rmcp-bench", "0.1.0"))
    }
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let addr = std::env::args()
        .nth(1)
        .ok_or_else(|| std::io::Error::other("usage: rmcp-server ADDR"))?;
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None);
    let service = StreamableHttpService::new(
        || Ok(Adder::new()),
        Arc::new(NeverSessionManager::default()),
        config,
    );
    eprintln!("rmcp-server: listening on {}", listener.local_addr()?);
    loop {
        let (stream, _) = listener.accept().await?;
        // Requests and responses are small; do not wait to fill segments.
        stream.set_nodelay(true)?;
        let service = hyper_util::service::TowerToHyperService::new(service.clone());
        tokio::spawn(async move {
            let io = hyper_util::rt::TokioIo::new(stream);
            // A client closing its connection mid-request is not an error here.
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(io, service)
                .await;
        });
    }
}
