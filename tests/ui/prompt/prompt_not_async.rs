use mcpfn_runtime::prompt;

#[prompt]
fn hello() -> String {
    "Say hello.".to_owned()
}

fn main() {
    let _ = mcpfn_runtime::prompts![hello];
}
