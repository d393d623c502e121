use mcpfn_runtime::resource;

struct Id;

#[resource("notes://{id}")]
async fn note(id: Id) -> String {
    let _ = id;
    String::new()
}

fn main() {
    let _ = mcpfn_runtime::resources![note];
}
