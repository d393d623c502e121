//! The resources: fixed ones (`about`, `pixel.png`, `bonus`) and the templates
//! `filler/{bytes}` and `greeting/{language}/{name}`, whose variables complete.

use mcpfn_runtime::{CompletionContext, Context, resource};

/// What this server is, and what it serves.
#[resource(
    "everything://about",
    mime_type = "text/plain",
    title = "About everything"
)]
pub(crate) async fn about() -> &'static str {
    "everything: a kitchen-sink MCP server of mcp-runtime. Its tools show structured and \
     text results, errors, progress, logs, cancellation, elicitation and tasks; its \
     resources are this text, a PNG, the bonus tool's state and the templates \
     everything://filler/{bytes} and everything://greeting/{language}/{name}."
}

/// The largest text `filler` makes: 16 MiB.
pub(crate) const MAX_FILLER: usize = 16 << 20;

/// A text of `bytes` bytes (at most 16 MiB), for load tests and benchmarks.
#[resource("everything://filler/{bytes}", mime_type = "text/plain")]
pub(crate) async fn filler(bytes: usize) -> Result<String, String> {
    if bytes > MAX_FILLER {
        return Err(format!("{bytes} bytes is over the {MAX_FILLER}-byte limit"));
    }
    Ok("x".repeat(bytes))
}

/// A 1x1 PNG, for reading bytes (sent base64).
#[resource("everything://pixel.png", mime_type = "image/png")]
pub(crate) async fn pixel() -> Vec<u8> {
    const PNG: [u8; 70] = [
        0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44,
        0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f,
        0x15, 0xc4, 0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0xfc,
        0xcf, 0xc0, 0xf0, 0x1f, 0x00, 0x05, 0x05, 0x02, 0x00, 0x5f, 0xc8, 0xf1, 0xd2, 0x00, 0x00,
        0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
    ];
    PNG.to_vec()
}

/// Whether the `bonus` tool is listed; `toggle_bonus` tells its
/// subscribers when it changes.
#[resource("everything://bonus", mime_type = "text/plain")]
pub(crate) async fn bonus_state(ctx: Context) -> &'static str {
    if ctx.tools().is_enabled("bonus") {
        "listed"
    } else {
        "hidden"
    }
}

/// "Hello" in each language `greeting` speaks.
pub(crate) const HELLOS: &[(&str, &str)] = &[
    ("English", "Hello"),
    ("French", "Bonjour"),
    ("German", "Hallo"),
    ("Spanish", "Hola"),
];

/// A greeting in a language, for a name; both variables complete, the
/// name from the language already chosen.
#[resource("everything://greeting/{language}/{name}", mime_type = "text/plain")]
pub(crate) async fn greeting(
    #[complete(hello_languages)] language: String,
    #[complete(names_in)] name: String,
) -> Result<String, String> {
    let Some((_, hello)) = HELLOS.iter().find(|(known, _)| *known == language) else {
        return Err(format!("no greeting in {language}"));
    };
    Ok(format!("{hello}, {name}!"))
}

/// The languages `greeting` speaks that start with what was typed (any
/// case).
pub(crate) async fn hello_languages(prefix: &str, _: &CompletionContext) -> Vec<String> {
    let prefix = prefix.to_lowercase();
    HELLOS
        .iter()
        .filter(|(language, _)| language.to_lowercase().starts_with(&prefix))
        .map(|(language, _)| (*language).to_owned())
        .collect()
}

/// Names common in the language already chosen (every one when none is),
/// starting with what was typed.
pub(crate) async fn names_in(prefix: &str, context: &CompletionContext) -> Vec<String> {
    let names: &[&str] = match context.argument("language") {
        Some("English") => &["Alice", "Arthur", "Bob"],
        Some("French") => &["Amelie", "Bastien"],
        Some("German") => &["Anna", "Bernd"],
        Some("Spanish") => &["Ana", "Bruno"],
        _ => &[
            "Alice", "Amelie", "Ana", "Anna", "Arthur", "Bastien", "Bernd", "Bob", "Bruno",
        ],
    };
    names
        .iter()
        .filter(|name| name.starts_with(prefix))
        .map(|name| (*name).to_owned())
        .collect()
}
