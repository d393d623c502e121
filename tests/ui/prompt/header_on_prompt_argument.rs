use mcp_runtime::prompt;

#[prompt]
async fn hello(#[arg(header = "Name")] name: String) -> String {
    format!("Say hello to {name}.")
}

fn main() {
    let _ = mcp_runtime::prompts![hello];
}
