use mcpfn_runtime::{Context, tool};

#[tool]
async fn whoami(#[arg(header = "Ctx")] ctx: Context) -> String {
    ctx.tool_name().to_owned()
}

fn main() {
    let _ = mcpfn_runtime::tools![whoami];
}
