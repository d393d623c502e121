// The one case with two errors: a free fn cannot take `self`, which rustc
// reports too. The macro cannot tell a free fn from a method, and a method
// (see `placement/method_with_self.rs`) must be given back with its `self`.

use mcpfn_runtime::tool;

#[tool]
async fn lookup(&self, city: String) -> String {
    city
}

fn main() {}
