use mcpfn_runtime::prompt;

#[prompt]
async fn count() -> u32 {
    3
}

fn main() {
    let _ = mcpfn_runtime::prompts![count];
}
