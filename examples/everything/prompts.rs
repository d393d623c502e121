//! The prompt `translate`, whose `language` argument completes.

use mcpfn_runtime::{CompletionContext, PromptMessage, prompt};

/// The languages `translate` offers, for its completion.
pub(crate) const LANGUAGES: &[&str] = &[
    "Danish",
    "Dutch",
    "English",
    "Finnish",
    "French",
    "German",
    "Greek",
    "Italian",
    "Japanese",
    "Norwegian",
    "Polish",
    "Portuguese",
    "Spanish",
    "Swedish",
];

/// Translate a text, keeping its tone
#[prompt(title = "Translate")]
pub(crate) async fn translate(
    /// The language to translate into
    #[complete(languages)]
    language: String,
    /// The text to translate
    text: String,
    /// The tone to keep, e.g. "formal" (the text's own when absent)
    tone: Option<String>,
) -> Vec<PromptMessage> {
    let tone = tone.map_or_else(String::new, |tone| format!(", in a {tone} tone"));
    vec![
        PromptMessage::user(format!(
            "Translate the text below into {language}{tone}. Answer with the translation only."
        )),
        PromptMessage::user(text),
    ]
}

/// The languages starting with what was typed (any case); when the text
/// is already given, its own language is not offered (a toy rule, to show
/// the context of the other arguments).
pub(crate) async fn languages(prefix: &str, context: &CompletionContext) -> Vec<String> {
    let prefix = prefix.to_lowercase();
    let written_in_english = context.argument("text").is_some_and(|text| {
        text.split_whitespace()
            .any(|w| w.eq_ignore_ascii_case("the"))
    });
    LANGUAGES
        .iter()
        .filter(|language| language.to_lowercase().starts_with(&prefix))
        .filter(|language| !(written_in_english && **language == "English"))
        .map(|language| (*language).to_owned())
        .collect()
}
