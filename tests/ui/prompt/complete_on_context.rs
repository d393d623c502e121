use mcpfn_runtime::{CompletionContext, Context, prompt};

async fn nothing(_prefix: &str, _context: &CompletionContext) -> Vec<String> {
    Vec::new()
}

#[prompt]
async fn hello(#[complete(nothing)] ctx: Context) -> String {
    format!("Say hello to {}.", ctx.tool_name())
}

fn main() {
    let _ = mcpfn_runtime::prompts![hello];
}
