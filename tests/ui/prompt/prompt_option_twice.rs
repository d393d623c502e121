use mcpfn_runtime::prompt;

#[prompt(title = "Hello", title = "Hi")]
async fn hello() -> String {
    "Say hello.".to_owned()
}

fn main() {
    let _ = mcpfn_runtime::prompts![hello];
}
