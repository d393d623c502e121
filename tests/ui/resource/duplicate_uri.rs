use mcp_runtime::resource;

#[resource("test://readme")]
async fn readme() -> String {
    String::new()
}

#[resource("test://readme")]
async fn also_readme() -> String {
    String::new()
}

fn main() {
    let _ = mcp_runtime::resources![readme, also_readme];
}
