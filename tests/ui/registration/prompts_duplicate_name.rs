// Two fns that give their prompts the same name: one error, on the later entry.

use mcpfn_runtime::prompt;

#[prompt(name = "greet")]
async fn hello() -> String {
    "Say hello.".to_owned()
}

#[prompt(name = "greet")]
async fn welcome() -> String {
    "Say welcome.".to_owned()
}

fn main() {
    let _ = mcpfn_runtime::prompts![hello, welcome];
}
