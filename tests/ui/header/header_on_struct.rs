use mcp_runtime::{Deserialize, JsonSchema, tool};

#[derive(Deserialize, JsonSchema)]
#[serde(crate = "mcp_runtime::serde")]
#[schemars(crate = "mcp_runtime::schemars")]
struct Point {
    x: i32,
    y: i32,
}

#[tool]
async fn locate(#[arg(header = "Point")] point: Point) -> String {
    format!("{} {}", point.x, point.y)
}

fn main() {
    let _ = mcp_runtime::tools![locate];
}
