use mcpfn_runtime::tool;

struct Weather;

#[tool]
impl Weather {
    async fn lookup(&self, city: String) -> String {
        city
    }
}

fn main() {
    let _ = Weather.lookup(String::new());
}
