use mcp_runtime::resource;

#[resource("test://a", mime = "text/plain")]
async fn a() -> String {
    String::new()
}

fn main() {
    let _ = mcp_runtime::resources![a];
}
