//! A `pub` tool in another module is registered by its path.

mod weather {
    use mcpfn_runtime::tool;

    /// Look up the weather.
    #[tool]
    pub async fn lookup(city: String) -> String {
        city
    }

    pub mod nested {
        #[mcpfn_runtime::tool(name = "nested_echo")]
        pub fn echo(text: String) -> String {
            text
        }
    }
}

fn main() {
    let tools = mcpfn_runtime::tools![weather::lookup, weather::nested::echo];
    assert_eq!(tools[0].name(), "lookup");
    assert_eq!(tools[1].name(), "nested_echo");
    let schema = tools[0].input_schema();
    assert_eq!(schema["properties"]["city"]["type"], "string");
}
