use mcpfn_runtime::tool;

/// The user's own type, which merely shares the runtime's name.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Context {
    user: String,
}

#[tool]
async fn greet(ctx: Context) -> String {
    ctx.user
}

fn main() {
    let _ = mcpfn_runtime::tools![greet];
}
