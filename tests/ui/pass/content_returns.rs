//! `Vec<Content>` and `()` are content, without an output schema.

use mcpfn_runtime::{Content, tool};

#[tool]
async fn pictures(count: usize) -> Vec<Content> {
    vec![Content::image(b"\x89PNG\r\n\x1a\n", "image/png"); count]
}

#[tool]
async fn ping() {}

#[tool]
fn nothing(reason: String) -> () {
    let _ = reason;
}

fn main() {
    let tools = mcpfn_runtime::tools![pictures, ping, nothing];
    assert!(tools.iter().all(|t| t.output_schema().is_none()));
    assert_eq!(tools[1].name(), "ping");
}
