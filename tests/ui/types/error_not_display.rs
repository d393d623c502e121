use mcpfn_runtime::tool;

#[derive(Debug)]
struct LookupFailed;

#[tool]
async fn lookup(city: String) -> Result<String, LookupFailed> {
    if city.is_empty() {
        return Err(LookupFailed);
    }
    Ok(city)
}

fn main() {
    let _ = mcpfn_runtime::tools![lookup];
}
