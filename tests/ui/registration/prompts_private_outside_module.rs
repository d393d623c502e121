// A private #[prompt] fn listed from outside its module: rustc's one error,
// that the fn is private, and none of ours (it is a #[prompt] fn).

use mcpfn_runtime::prompts;

mod texts {
    /// Say hello.
    #[mcpfn_runtime::prompt]
    async fn hello() -> String {
        "Say hello.".to_owned()
    }
}

fn main() {
    let _ = prompts![texts::hello];
}
