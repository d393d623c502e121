// Two fns that give their tools the same name.

use mcpfn_runtime::{tool, tools};

/// Look a user up.
#[tool(name = "lookup")]
async fn lookup_user(id: u32) -> String {
    id.to_string()
}

mod orders {
    /// Look an order up.
    #[mcpfn_runtime::tool(name = "lookup")]
    pub async fn lookup_order(id: u32) -> String {
        id.to_string()
    }
}

fn main() {
    let _ = tools![lookup_user, orders::lookup_order];
}
