use mcpfn_runtime::tool;

struct City {
    name: String,
}

#[tool]
async fn lookup(city: City) -> String {
    city.name
}

fn main() {
    let _ = mcpfn_runtime::tools![lookup];
}
