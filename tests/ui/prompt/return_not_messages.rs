use mcp_runtime::prompt;

#[prompt]
async fn count() -> u32 {
    3
}

fn main() {
    let _ = mcp_runtime::prompts![count];
}
