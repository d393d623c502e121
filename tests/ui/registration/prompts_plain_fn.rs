// A fn without #[prompt] in the list: one error, on its name.

async fn hello() -> String {
    "Say hello.".to_owned()
}

fn main() {
    let _ = mcpfn_runtime::prompts![hello];
}
