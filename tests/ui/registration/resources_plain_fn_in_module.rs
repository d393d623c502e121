// A fn without #[resource], listed by its path beside a resource of the
// same module: one error, on its name.

use mcpfn_runtime::resources;

mod files {
    /// The readme.
    #[mcpfn_runtime::resource("test://readme")]
    pub async fn readme() -> String {
        String::new()
    }

    pub async fn plain() -> String {
        String::new()
    }
}

fn main() {
    let _ = resources![files::readme, self::files::plain];
}
