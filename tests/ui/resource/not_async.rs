use mcp_runtime::resource;

#[resource("test://sync")]
fn sync() -> String {
    String::new()
}

fn main() {
    let _ = mcp_runtime::resources![sync];
}
