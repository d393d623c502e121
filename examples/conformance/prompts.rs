//! The prompt fixtures: simple, with arguments (whose values complete), with an
//! embedded resource, with an image, and one that asks the client in an
//! `input_required` round.

use super::RED_PIXEL_PNG;
use super::asking::{accepted, one_field};
use mcpfn_runtime::{CompletionContext, Content, Context, PromptMessage, ToolError, prompt};

/// A simple prompt without arguments
#[prompt]
pub(crate) async fn test_simple_prompt() -> String {
    "This is a simple prompt for testing.".to_owned()
}

/// A prompt with required arguments
#[prompt]
pub(crate) async fn test_prompt_with_arguments(
    /// First test argument
    #[complete(test_values)]
    arg1: String,
    /// Second test argument
    arg2: String,
) -> String {
    format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")
}

/// The completions of `arg1` (the suite asks for `test`).
pub(crate) async fn test_values(prefix: &str, _context: &CompletionContext) -> Vec<String> {
    ["test", "testValue1", "testValue2", "value"]
        .into_iter()
        .filter(|value| value.starts_with(prefix))
        .map(str::to_owned)
        .collect()
}

/// A prompt that includes an embedded resource
#[prompt]
pub(crate) async fn test_prompt_with_embedded_resource(
    /// URI of the resource to embed
    #[arg(rename = "resourceUri")]
    resource_uri: String,
) -> Vec<PromptMessage> {
    vec![
        PromptMessage::user(
            Content::embedded_text(resource_uri, "Embedded resource content for testing.")
                .mime_type("text/plain"),
        ),
        PromptMessage::user("Please process the embedded resource above."),
    ]
}

/// A prompt that includes image content
#[prompt]
pub(crate) async fn test_prompt_with_image() -> Vec<PromptMessage> {
    vec![
        PromptMessage::user(Content::image_base64(RED_PIXEL_PNG, "image/png")),
        PromptMessage::user("Please analyze the image above."),
    ]
}

/// 2026-07-28 fixture: asks for the context the prompt should use.
#[prompt]
pub(crate) async fn test_input_required_result_prompt(ctx: Context) -> Result<String, ToolError> {
    let answer = ctx
        .elicit(
            "user_context",
            one_field("What context should the prompt use?", "context", "string"),
        )
        .await?;
    let context = accepted(&answer, "context")?;
    Ok(format!(
        "Use this context: {}",
        context.as_str().unwrap_or_default()
    ))
}
