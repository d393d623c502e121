use mcp_runtime::resource;

struct Id;

#[resource("notes://{id}")]
async fn note(id: Id) -> String {
    let _ = id;
    String::new()
}

fn main() {
    let _ = mcp_runtime::resources![note];
}
