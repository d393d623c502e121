use mcpfn_runtime::resource;

#[resource("notes://{folder}/{id}")]
async fn note(id: String) -> String {
    id
}

fn main() {
    let _ = mcpfn_runtime::resources![note];
}
