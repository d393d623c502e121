use mcp_runtime::prompt;

#[prompt]
fn hello() -> String {
    "Say hello.".to_owned()
}

fn main() {
    let _ = mcp_runtime::prompts![hello];
}
