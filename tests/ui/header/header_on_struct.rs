use mcpfn_runtime::{Deserialize, JsonSchema, tool};

#[derive(Deserialize, JsonSchema)]
#[serde(crate = "mcpfn_runtime::serde")]
#[schemars(crate = "mcpfn_runtime::schemars")]
struct Point {
    x: i32,
    y: i32,
}

#[tool]
async fn locate(#[arg(header = "Point")] point: Point) -> String {
    format!("{} {}", point.x, point.y)
}

fn main() {
    let _ = mcpfn_runtime::tools![locate];
}
