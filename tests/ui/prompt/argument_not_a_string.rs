use mcp_runtime::prompt;

#[prompt]
async fn repeat(times: u32) -> String {
    "again ".repeat(times as usize)
}

fn main() {
    let _ = mcp_runtime::prompts![repeat];
}
