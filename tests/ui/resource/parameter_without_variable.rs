use mcpfn_runtime::resource;

#[resource("notes://{id}")]
async fn note(id: String, folder: String) -> String {
    format!("{folder}/{id}")
}

fn main() {
    let _ = mcpfn_runtime::resources![note];
}
