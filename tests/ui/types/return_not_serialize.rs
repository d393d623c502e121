use mcpfn_runtime::tool;

struct Forecast {
    celsius: f64,
}

#[tool]
async fn lookup(city: String) -> Forecast {
    Forecast {
        celsius: city.len() as f64,
    }
}

fn main() {
    let _ = mcpfn_runtime::tools![lookup];
    let _ = |f: Forecast| f.celsius;
}
