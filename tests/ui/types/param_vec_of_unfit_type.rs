use mcpfn_runtime::tool;

struct City {
    name: String,
}

#[tool]
async fn lookup(days: u8, cities: Vec<City>) -> String {
    format!("{days} {}", cities.len())
}

fn main() {
    let _ = mcpfn_runtime::tools![lookup];
    let _ = |c: City| c.name;
}
