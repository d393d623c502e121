use mcp_runtime::resource;

#[resource("test://count")]
async fn count() -> u32 {
    7
}

fn main() {
    let _ = mcp_runtime::resources![count];
}
