use mcpfn_runtime::tool;

#[tool]
struct Lookup {
    city: String,
}

fn main() {
    let _ = Lookup {
        city: String::new(),
    }
    .city;
}
