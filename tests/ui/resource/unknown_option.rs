use mcpfn_runtime::resource;

#[resource("test://a", mime = "text/plain")]
async fn a() -> String {
    String::new()
}

fn main() {
    let _ = mcpfn_runtime::resources![a];
}
