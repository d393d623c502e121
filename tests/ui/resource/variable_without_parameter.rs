use mcp_runtime::resource;

#[resource("notes://{folder}/{id}")]
async fn note(id: String) -> String {
    id
}

fn main() {
    let _ = mcp_runtime::resources![note];
}
