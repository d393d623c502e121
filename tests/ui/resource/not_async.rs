use mcpfn_runtime::resource;

#[resource("test://sync")]
fn sync() -> String {
    String::new()
}

fn main() {
    let _ = mcpfn_runtime::resources![sync];
}
