// A fn without #[prompt], listed by its path beside a prompt of the same
// module: one error, on its name.

use mcpfn_runtime::prompts;

mod texts {
    /// Say hello.
    #[mcpfn_runtime::prompt]
    pub async fn hello() -> String {
        "Say hello.".to_owned()
    }

    pub async fn plain() -> String {
        "Say nothing.".to_owned()
    }
}

fn main() {
    let _ = prompts![texts::hello, crate::texts::plain];
}
