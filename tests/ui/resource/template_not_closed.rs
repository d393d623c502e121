use mcpfn_runtime::resource;

#[resource("file:///{path")]
async fn file(path: String) -> String {
    path
}

fn main() {
    let _ = mcpfn_runtime::resources![file];
}
