use mcpfn_runtime::prompt;

#[prompt]
async fn repeat(times: u32) -> String {
    "again ".repeat(times as usize)
}

fn main() {
    let _ = mcpfn_runtime::prompts![repeat];
}
