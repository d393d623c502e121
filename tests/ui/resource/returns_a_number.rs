use mcpfn_runtime::resource;

#[resource("test://count")]
async fn count() -> u32 {
    7
}

fn main() {
    let _ = mcpfn_runtime::resources![count];
}
