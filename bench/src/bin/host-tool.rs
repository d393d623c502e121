//! The MCP server of the host benchmark (`host`): one tool, `read_text`,
//! that returns `bytes` bytes of text, as a `read_file` or a search tool
//! hands a model a page of text. A stdio server built on mcp-runtime, no
//! rate limit (a conversation makes one call per turn, far under the
//! default, but the benchmark should never measure a refusal).
//!
//! The input is a number, not the text itself (unlike `everything`'s
//! `echo`): the 10 KB are in the tool results of the history only, not
//! twice (once more in each `tool_use` block's `input`).

use mcpfn_runtime::{Server, tool, tools};

/// Return `bytes` bytes of text (a line of lorem ipsum, repeated and cut).
#[tool(read_only, idempotent, open_world = false)]
async fn read_text(
    /// How many bytes of text to return (at most 1 MiB)
    bytes: u32,
) -> String {
    const LINE: &str =
        "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.\n";
    let bytes = (bytes as usize).min(1 << 20);
    LINE.repeat(bytes / LINE.len() + 1)[..bytes].to_owned()
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let server = Server::new("host-tool", "1")
        .tools(tools![read_text])
        .no_rate_limit();
    mcpfn_runtime::cli::run(server).await
}
