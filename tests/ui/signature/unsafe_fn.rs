use mcpfn_runtime::tool;

#[tool]
async unsafe fn lookup(city: String) -> String {
    city
}

fn main() {
    let _ = mcpfn_runtime::tools![lookup];
}
