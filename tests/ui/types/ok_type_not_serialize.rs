use mcp_runtime::{ToolError, tool};

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
    let _ = mcp_runtime::tools![lookup];
    let _ = |f: Forecast| f.celsius;
}
