use mcpfn_runtime::{CompletionContext, Context, resource};

async fn ids(_prefix: &str, _context: &CompletionContext) -> Vec<String> {
    Vec::new()
}

#[resource("notes://{id}")]
async fn note(id: String, #[complete(ids)] ctx: Context) -> String {
    let _ = ctx;
    id
}

fn main() {
    let _ = mcpfn_runtime::resources![note];
}
