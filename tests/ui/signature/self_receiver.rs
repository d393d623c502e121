use mcp_runtime::tool;

struct Weather;

impl Weather {
    #[tool]
    async fn lookup(&self, city: String) -> String {
        city
    }
}

fn main() {
    let _ = Weather.lookup(String::new());
}
