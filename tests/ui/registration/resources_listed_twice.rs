// The same resource listed twice: one error, on the later entry.

use mcpfn_runtime::resource;

#[resource("test://a")]
async fn a() -> String {
    String::new()
}

fn main() {
    let _ = mcpfn_runtime::resources![a, a];
}
