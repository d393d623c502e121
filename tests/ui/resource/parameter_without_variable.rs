use mcp_runtime::resource;

#[resource("notes://{id}")]
async fn note(id: String, folder: String) -> String {
    format!("{folder}/{id}")
}

fn main() {
    let _ = mcp_runtime::resources![note];
}
