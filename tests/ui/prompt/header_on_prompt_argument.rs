use mcpfn_runtime::prompt;

#[prompt]
async fn hello(#[arg(header = "Name")] name: String) -> String {
    format!("Say hello to {name}.")
}

fn main() {
    let _ = mcpfn_runtime::prompts![hello];
}
