// Two resources at one URI: one error, on the later entry.

use mcpfn_runtime::resource;

#[resource("test://readme")]
async fn readme() -> String {
    String::new()
}

#[resource("test://readme")]
async fn also_readme() -> String {
    String::new()
}

fn main() {
    let _ = mcpfn_runtime::resources![readme, also_readme];
}
