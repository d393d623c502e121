use mcpfn_runtime::{ToolError, tool};

struct Forecast {
    celsius: f64,
}

#[tool]
async fn lookup(city: String) -> Result<Forecast, ToolError> {
    Ok(Forecast {
        celsius: city.len() as f64,
    })
}

fn main() {
    let _ = mcpfn_runtime::tools![lookup];
    let _ = |f: Forecast| f.celsius;
}
