// A private #[resource] fn listed from outside its module: rustc's one
// error, that the fn is private, and none of ours.

use mcpfn_runtime::resources;

mod files {
    /// The readme.
    #[mcpfn_runtime::resource("test://readme")]
    async fn readme() -> String {
        String::new()
    }
}

fn main() {
    let _ = resources![files::readme];
}
