//! Unit-conversion tools kept in a library, so that both the server binary and
//! its build script (which writes the tool catalog at build time) can use them.

use mcpfn_runtime::{Tool, ToolError, tool, tools};

/// Convert a temperature between Celsius and Fahrenheit.
#[tool(read_only, idempotent, open_world = false)]
pub fn convert_temperature(
    /// The temperature to convert
    value: f64,
    /// The unit of `value`: "C" or "F"
    from: String,
) -> Result<f64, ToolError> {
    match from.as_str() {
        "C" | "c" => Ok(value * 9.0 / 5.0 + 32.0),
        "F" | "f" => Ok((value - 32.0) * 5.0 / 9.0),
        other => Err(ToolError::new(format!(
            "unknown unit {other:?}; use \"C\" or \"F\""
        ))),
    }
}

/// Convert a distance in kilometres to miles.
#[tool(read_only, idempotent, open_world = false)]
pub fn km_to_miles(
    /// Kilometres
    km: f64,
) -> f64 {
    km / 1.609_344
}

/// Every tool of the catalog.
pub fn all() -> Vec<Tool> {
    tools![convert_temperature, km_to_miles]
}
