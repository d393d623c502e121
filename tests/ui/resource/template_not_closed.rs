use mcp_runtime::resource;

#[resource("file:///{path")]
async fn file(path: String) -> String {
    path
}

fn main() {
    let _ = mcp_runtime::resources![file];
}
