//! Run with: cargo run -p catalog-server
//!
//! Serves the catalog tools over stdio; `--print-catalog` prints the catalog
//! its build script wrote, with no schema generation at run time.

use mcpfn_runtime::Server;

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    if std::env::args().any(|a| a == "--print-catalog") {
        print!("{}", catalog_server::TOOLS_JSON);
        return Ok(());
    }
    let server = Server::new("catalog", env!("CARGO_PKG_VERSION")).tools(catalog_tools::all());
    // Serves stdio, or prints the tools for `--dump-tools`.
    mcpfn_runtime::cli::run(server).await
}
