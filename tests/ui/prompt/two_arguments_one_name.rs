use mcpfn_runtime::prompt;

#[prompt]
async fn hello(name: String, #[arg(rename = "name")] other: String) -> String {
    format!("Say hello to {name} and {other}.")
}

fn main() {
    let _ = mcpfn_runtime::prompts![hello];
}
