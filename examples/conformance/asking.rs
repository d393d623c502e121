//! Fixtures that ask the client: sampling, elicitation (forms, defaults,
//! enums), the 2026-07-28 `input_required` rounds (roots, several inputs,
//! request state, several rounds, tampering, capabilities) and a legacy request
//! streamed over SSE.

use mcpfn_runtime::{
    Ask, Context, ElicitRequest, Elicitation, FormField, SampleRequest, SamplingMessage, ToolError,
    tool,
};
use serde_json::{Value, json};

/// Asks the client's model to answer a prompt (`sampling/createMessage`).
#[tool(read_only, open_world = false)]
pub(crate) async fn test_sampling(
    ctx: Context,
    /// The prompt to send to the LLM
    prompt: String,
) -> Result<String, ToolError> {
    let answer = ctx
        .sample("llm", SampleRequest::prompt(prompt).max_tokens(100))
        .await?;
    let text = answer
        .text()
        .ok_or_else(|| ToolError::new("the model answered without text"))?;
    Ok(format!("LLM response: {text}"))
}

/// Summarizes a text with the client's model (not a suite fixture: it shows
/// the rest of the sampling request builder).
#[tool(read_only, open_world = false)]
pub(crate) async fn summarize(
    ctx: Context,
    /// The text to summarize
    text: String,
) -> Result<String, ToolError> {
    let request = SampleRequest::new([
        SamplingMessage::user("Summarize the text that follows in one sentence."),
        SamplingMessage::user(text),
    ])
    .max_tokens(60)
    .system_prompt("You write one-sentence summaries.")
    .temperature(0.2)
    .stop_sequence("\n\n")
    .model_hint("claude");
    let answer = ctx.sample("summary", request).await?;
    let summary = answer
        .text()
        .ok_or_else(|| ToolError::new("the model answered without text"))?;
    Ok(format!("{summary} (model: {})", answer.model))
}

/// Asks the user for a username and an email address.
#[tool(read_only, open_world = false)]
pub(crate) async fn test_elicitation(
    ctx: Context,
    /// The message to show the user
    message: String,
) -> Result<String, ToolError> {
    let schema = json!({
        "type": "object",
        "properties": {
            "username": {"type": "string", "description": "User's response"},
            "email": {"type": "string", "description": "User's email address"}
        },
        "required": ["username", "email"]
    });
    let answer = ctx
        .elicit("user", ElicitRequest::form(message, schema))
        .await?;
    Ok(format!("User response: {}", describe(&answer)))
}

/// Asks for a form whose every field has a default (SEP-1034).
#[tool(read_only, open_world = false)]
pub(crate) async fn test_elicitation_sep1034_defaults(ctx: Context) -> Result<String, ToolError> {
    let request = ElicitRequest::new("Please review and update the form fields with defaults")
        .field(
            "name",
            FormField::string()
                .description("User name")
                .default("John Doe"),
        )
        .field(
            "age",
            FormField::integer().description("User age").default(30),
        )
        .field(
            "score",
            FormField::number().description("User score").default(95.5),
        )
        .field(
            "status",
            FormField::select(["active", "inactive", "pending"])
                .description("User status")
                .default("active"),
        )
        .field(
            "verified",
            FormField::boolean()
                .description("Verification status")
                .default(true),
        );
    let answer = ctx.elicit("defaults", request).await?;
    Ok(format!("Elicitation completed: {}", describe(&answer)))
}

/// Asks for a form with the five kinds of enum field (SEP-1330).
#[tool(read_only, open_world = false)]
pub(crate) async fn test_elicitation_sep1330_enums(ctx: Context) -> Result<String, ToolError> {
    let request = ElicitRequest::new("Please choose from the enum fields")
        .field(
            "untitledSingle",
            FormField::select(["option1", "option2", "option3"]).description("Pick one option"),
        )
        .field(
            "titledSingle",
            FormField::titled_select([
                ("value1", "First Option"),
                ("value2", "Second Option"),
                ("value3", "Third Option"),
            ])
            .description("Pick one titled option"),
        )
        .field(
            "legacyEnum",
            FormField::legacy_titled_select(
                ["opt1", "opt2", "opt3"],
                ["Option One", "Option Two", "Option Three"],
            )
            .description("Pick one (legacy enumNames)"),
        )
        .field(
            "untitledMulti",
            FormField::multi_select(["option1", "option2", "option3"])
                .description("Pick any options"),
        )
        .field(
            "titledMulti",
            FormField::titled_multi_select([
                ("value1", "First Choice"),
                ("value2", "Second Choice"),
                ("value3", "Third Choice"),
            ])
            .description("Pick any titled options"),
        );
    let answer = ctx.elicit("enums", request).await?;
    Ok(format!("Elicitation completed: {}", describe(&answer)))
}

/// A form of one required field `name` of `kind` (`string`, `boolean`, …).
pub(crate) fn one_field(message: &str, name: &str, kind: &str) -> ElicitRequest {
    ElicitRequest::form(
        message,
        json!({"type": "object", "properties": {name: {"type": kind}}, "required": [name]}),
    )
}

/// The accepted field `name` of `answer`, or an error saying what came instead.
pub(crate) fn accepted(answer: &Elicitation, name: &str) -> Result<Value, ToolError> {
    answer
        .content
        .as_ref()
        .filter(|_| answer.is_accepted())
        .and_then(|content| content.get(name).cloned())
        .ok_or_else(|| ToolError::new(format!("no {name} was given ({})", describe(answer))))
}

/// 2026-07-28 fixture: asks for a name, then greets it.
#[tool(read_only, open_world = false)]
pub(crate) async fn test_input_required_result_elicitation(
    ctx: Context,
) -> Result<String, ToolError> {
    let answer = ctx
        .elicit(
            "user_name",
            one_field("What is your name?", "name", "string"),
        )
        .await?;
    let name = accepted(&answer, "name")?;
    Ok(format!("Hello, {}!", name.as_str().unwrap_or_default()))
}

/// 2026-07-28 fixture: asks the client's model a question.
#[tool(read_only, open_world = false)]
pub(crate) async fn test_input_required_result_sampling(ctx: Context) -> Result<String, ToolError> {
    let request = SampleRequest::prompt("What is the capital of France?").max_tokens(100);
    let answer = ctx.sample("capital_question", request).await?;
    answer
        .text()
        .ok_or_else(|| ToolError::new("the model answered without text"))
}

/// Roots fixture (`input-required-result-basic-list-roots`): asks the client
/// for its roots (`roots/list`) and lists them.
#[tool(read_only, open_world = false)]
pub(crate) async fn test_input_required_result_list_roots(
    ctx: Context,
) -> Result<String, ToolError> {
    let roots = ctx.roots("client_roots").await?;
    Ok(format!("Roots: {}", root_list(&roots)))
}

/// Several-inputs fixture (`input-required-result-multiple-input-requests`):
/// asks for a name, a greeting from the client's model and the roots, in
/// one round.
#[tool(read_only, open_world = false)]
pub(crate) async fn test_input_required_result_multiple_inputs(
    ctx: Context,
) -> Result<String, ToolError> {
    let (name, greeting, roots) = ctx
        .ask((
            Ask::elicit(
                "user_name",
                one_field("What is your name?", "name", "string"),
            ),
            Ask::sample(
                "greeting",
                SampleRequest::prompt("Generate a greeting").max_tokens(50),
            ),
            Ask::roots("client_roots"),
        ))
        .await?;
    let name = accepted(&name, "name")?;
    Ok(format!(
        "{} {}! Roots: {}",
        greeting.text().unwrap_or_default(),
        name.as_str().unwrap_or_default(),
        root_list(&roots)
    ))
}

/// The roots' URIs, comma-separated (`none` when there are none).
pub(crate) fn root_list(roots: &[mcpfn_runtime::Root]) -> String {
    if roots.is_empty() {
        return "none".to_owned();
    }
    roots
        .iter()
        .map(|root| root.uri.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// 2026-07-28 fixture: asks for a confirmation; the retry only completes
/// with the sealed `requestState` this server issued.
#[tool(read_only, open_world = false)]
pub(crate) async fn test_input_required_result_request_state(
    ctx: Context,
) -> Result<String, ToolError> {
    let answer = ctx
        .elicit("confirm", one_field("Please confirm", "ok", "boolean"))
        .await?;
    let ok = accepted(&answer, "ok")?;
    Ok(format!("state-ok: confirmed={ok}"))
}

/// 2026-07-28 fixture: two rounds of questions, the state growing between them.
#[tool(read_only, open_world = false)]
pub(crate) async fn test_input_required_result_multi_round(
    ctx: Context,
) -> Result<String, ToolError> {
    let name = ctx
        .elicit(
            "step1",
            one_field("Step 1: What is your name?", "name", "string"),
        )
        .await?;
    let name = accepted(&name, "name")?;
    let color = ctx
        .elicit(
            "step2",
            one_field("Step 2: What is your favorite color?", "color", "string"),
        )
        .await?;
    let color = accepted(&color, "color")?;
    Ok(format!(
        "Hello, {}! Your favorite color is {}.",
        name.as_str().unwrap_or_default(),
        color.as_str().unwrap_or_default()
    ))
}

/// 2026-07-28 fixture: a question whose sealed state the client may not alter
/// (a tampered state is refused with `-32602`).
#[tool(read_only, open_world = false)]
pub(crate) async fn test_input_required_result_tampered_state(
    ctx: Context,
) -> Result<String, ToolError> {
    let answer = ctx
        .elicit("confirm", one_field("Please confirm", "ok", "boolean"))
        .await?;
    let ok = accepted(&answer, "ok")?;
    Ok(format!("confirmed={ok}"))
}

/// 2026-07-28 fixture: asks only through a capability the client declared
/// (sampling first, else elicitation).
#[tool(read_only, open_world = false)]
pub(crate) async fn test_input_required_result_capabilities(
    ctx: Context,
) -> Result<String, ToolError> {
    if ctx.client_capabilities().get("sampling").is_some() {
        let answer = ctx
            .sample("probe", SampleRequest::prompt("Say hello.").max_tokens(20))
            .await?;
        return Ok(format!("sampled: {}", answer.text().unwrap_or_default()));
    }
    let answer = ctx
        .elicit("probe", one_field("Say hello.", "text", "string"))
        .await?;
    Ok(format!("elicited: {}", accepted(&answer, "text")?))
}

/// Needs the `sampling` capability: a client that did not declare it gets
/// `-32021` (2026-07-28) or an error result (legacy).
#[tool(read_only, open_world = false)]
pub(crate) async fn test_missing_capability(ctx: Context) -> Result<String, ToolError> {
    let answer = ctx
        .sample("probe", SampleRequest::prompt("Say hello.").max_tokens(20))
        .await?;
    Ok(answer.text().unwrap_or_default())
}

/// 2026-07-28 fixture (`server-stateless`): reports progress, then asks the
/// user to confirm. A 2026-07-28 request's stream carries the progress and
/// the `input_required` result, never an `elicitation/create` request of its
/// own; in a legacy session the question is that request, on the call's
/// stream.
#[tool(read_only, open_world = false)]
pub(crate) async fn test_streaming_elicitation(ctx: Context) -> Result<String, ToolError> {
    ctx.progress(0.0, Some(1.0), Some("asking the user"))?;
    let answer = ctx
        .elicit("confirm", one_field("Please confirm", "ok", "boolean"))
        .await?;
    let ok = accepted(&answer, "ok")?;
    Ok(format!("streamed: confirmed={ok}"))
}

/// `action=…, content={…}`, as the fixtures report an answer.
pub(crate) fn describe(answer: &Elicitation) -> String {
    let action = match answer.action {
        mcpfn_runtime::ElicitAction::Accept => "accept",
        mcpfn_runtime::ElicitAction::Decline => "decline",
        mcpfn_runtime::ElicitAction::Cancel => "cancel",
    };
    let content = answer
        .content
        .as_ref()
        .map_or_else(|| "{}".to_owned(), |c| Value::Object(c.clone()).to_string());
    format!("action={action}, content={content}")
}
