// An associated fn without #[prompt], listed through its type: one error,
// on its name.

use mcpfn_runtime::prompts;

struct Texts;

impl Texts {
    async fn hello() -> String {
        "Say hello.".to_owned()
    }
}

fn main() {
    let _ = Texts::hello();
    let _ = prompts![Texts::hello];
}
