//! Doc comments on parameters become property descriptions.

use mcpfn_runtime::tool;

/// Look up the weather.
///
/// Uses the nearest station.
#[tool]
async fn lookup(
    /// The city, e.g. `Paris`.
    city: String,
    /// Days ahead,
    /// at most 7.
    days: u8,
) -> String {
    format!("{city} {days}")
}

fn main() {
    let tools = mcpfn_runtime::tools![lookup];
    let props = &tools[0].input_schema()["properties"];
    assert_eq!(props["city"]["description"], "The city, e.g. `Paris`.");
    let days = props["days"]["description"].as_str().unwrap();
    assert!(
        days.contains("Days ahead") && days.contains("at most 7."),
        "{days}"
    );
    let debug = format!("{:?}", tools[0]);
    assert!(debug.contains("Look up the weather."), "{debug}");
}
