// The same prompt listed twice: one error, on the later entry.

use mcpfn_runtime::prompt;

#[prompt]
async fn hello() -> String {
    "Say hello.".to_owned()
}

fn main() {
    let _ = mcpfn_runtime::prompts![hello, hello];
}
