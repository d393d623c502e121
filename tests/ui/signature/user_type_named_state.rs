use mcpfn_runtime::tool;

/// The user's own wrapper, which merely shares the runtime's name.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct State<T> {
    value: T,
}

#[tool]
async fn echo(state: State<u32>) -> String {
    state.value.to_string()
}

fn main() {
    let _ = mcpfn_runtime::tools![echo];
}
