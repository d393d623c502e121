//! Run with: cargo run --example conformance --features tasks,skills (stdio),
//! or over HTTP: cargo run --example conformance --features tasks,skills,http
//! -- --http 127.0.0.1:PORT
//!
//! The fixture tools of the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`, its server scenarios `tools-*`,
//! `elicitation-sep1034-defaults` and `elicitation-sep1330-enums`; for
//! 2026-07-28, `input-required-result-*` (roots and several inputs in one
//! round among them), `server-stateless` and the Tasks extension's
//! `tasks-*`), its fixture resources (`resources-*`) and prompts
//! (`prompts-*`, `completion-complete`), with the names, arguments and
//! results its scenarios expect, and the skills folder `examples/skills`
//! of the Skills extension's `sep-2640-skills-*`. The suite talks
//! Streamable HTTP (`conformance server --url http://127.0.0.1:PORT/mcp`);
//! without `--http` this serves stdio, as every example does.
//! For `resources-subscribe` and `resources-unsubscribe` no resource is
//! needed (subscriptions are kept by URI); `test_trigger_tool_change` and
//! `test_trigger_prompt_change` change the lists for `server-stateless`'s
//! list-change checks, and `test_trigger_resource_update` tells a resource
//! update for the tests of subscriptions. `SKILLS_DIR=PATH` serves another skills folder;
//! `ELICIT_TIMEOUT_MS=N` sets how long a legacy elicitation or sampling
//! request waits for the client; `MAX_TASKS_PER_CLIENT=N` how many tasks one
//! client may make within a task TTL; `MAX_RESOURCE_SUBSCRIPTIONS=N` how
//! many resources a session or listen stream may subscribe to; the deployment variables
//! (`examples::deployment`: `MCP_AUTH_*`, `REDIS_URL`, …) apply as they do to
//! `everything`. Besides the fixtures, `summarize` shows the
//! whole sampling request builder.

use mcpfn_runtime::{
    Ask, CompletionContext, Content, Context, ElicitRequest, Elicitation, FormField, Level,
    PromptMessage, SampleRequest, SamplingMessage, Server, TaskSupport, Tool, ToolBuilder,
    ToolError, ToolOutcome, prompt, prompts, resource, resources, tool, tools,
};
use serde_json::{Value, json};
use std::time::Duration;

/// A 1x1 red PNG, base64-encoded.
const RED_PIXEL_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A WAV file of no samples (a RIFF header only), base64-encoded.
const EMPTY_WAV: &str = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=";

/// The pause between the steps of the logging and progress fixtures, so a
/// client sees the notifications arrive one by one.
const STEP: Duration = Duration::from_millis(50);

/// Returns a simple text response.
#[tool(read_only, idempotent, open_world = false)]
async fn test_simple_text() -> String {
    "This is a simple text response for testing.".to_owned()
}

/// Returns a 1x1 red PNG image.
#[tool(read_only, idempotent, open_world = false)]
async fn test_image_content() -> Vec<Content> {
    vec![Content::image_base64(RED_PIXEL_PNG, "image/png")]
}

/// Returns a short WAV audio clip.
#[tool(read_only, idempotent, open_world = false)]
async fn test_audio_content() -> Vec<Content> {
    vec![Content::audio_base64(EMPTY_WAV, "audio/wav")]
}

/// Returns an embedded text resource.
#[tool(read_only, idempotent, open_world = false)]
async fn test_embedded_resource() -> Vec<Content> {
    vec![
        Content::embedded_text(
            "test://embedded-resource",
            "This is an embedded resource content.",
        )
        .mime_type("text/plain"),
    ]
}

/// Returns text, an image and an embedded resource.
#[tool(read_only, idempotent, open_world = false)]
async fn test_multiple_content_types() -> Vec<Content> {
    vec![
        Content::text("Multiple content types test:"),
        Content::image_base64(RED_PIXEL_PNG, "image/png"),
        Content::embedded_text(
            "test://mixed-content-resource",
            json!({"test": "data", "value": 123}).to_string(),
        )
        .mime_type("application/json"),
    ]
}

/// Sends three info log messages while it runs.
#[tool(read_only, idempotent, open_world = false)]
async fn test_tool_with_logging(ctx: Context) -> String {
    ctx.log(Level::Info, "Tool execution started");
    tokio::time::sleep(STEP).await;
    ctx.log(Level::Info, "Tool processing data");
    tokio::time::sleep(STEP).await;
    ctx.log(Level::Info, "Tool execution completed");
    "Tool with logging executed successfully".to_owned()
}

/// Reports progress 0, 50 and 100 of 100 while it runs.
#[tool(read_only, idempotent, open_world = false)]
async fn test_tool_with_progress(ctx: Context) -> Result<String, ToolError> {
    ctx.progress(0.0, Some(100.0), None)?;
    tokio::time::sleep(STEP).await;
    ctx.progress(50.0, Some(100.0), None)?;
    tokio::time::sleep(STEP).await;
    ctx.progress(100.0, Some(100.0), None)?;
    Ok("Tool with progress executed successfully".to_owned())
}

/// Always fails with a tool error.
#[tool(read_only, idempotent, open_world = false)]
async fn test_error_handling() -> Result<String, ToolError> {
    Err(ToolError::new(
        "This tool intentionally returns an error for testing",
    ))
}

/// Asks the client's model to answer a prompt (`sampling/createMessage`).
#[tool(read_only, open_world = false)]
async fn test_sampling(
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
async fn summarize(
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
async fn test_elicitation(
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
async fn test_elicitation_sep1034_defaults(ctx: Context) -> Result<String, ToolError> {
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
async fn test_elicitation_sep1330_enums(ctx: Context) -> Result<String, ToolError> {
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
fn one_field(message: &str, name: &str, kind: &str) -> ElicitRequest {
    ElicitRequest::form(
        message,
        json!({"type": "object", "properties": {name: {"type": kind}}, "required": [name]}),
    )
}

/// The accepted field `name` of `answer`, or an error saying what came instead.
fn accepted(answer: &Elicitation, name: &str) -> Result<Value, ToolError> {
    answer
        .content
        .as_ref()
        .filter(|_| answer.is_accepted())
        .and_then(|content| content.get(name).cloned())
        .ok_or_else(|| ToolError::new(format!("no {name} was given ({})", describe(answer))))
}

/// 2026-07-28 fixture: asks for a name, then greets it.
#[tool(read_only, open_world = false)]
async fn test_input_required_result_elicitation(ctx: Context) -> Result<String, ToolError> {
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
async fn test_input_required_result_sampling(ctx: Context) -> Result<String, ToolError> {
    let request = SampleRequest::prompt("What is the capital of France?").max_tokens(100);
    let answer = ctx.sample("capital_question", request).await?;
    answer
        .text()
        .ok_or_else(|| ToolError::new("the model answered without text"))
}

/// SSE polling fixture (`server-sse-polling`, 2025-11-25 over HTTP): closes
/// the call's event stream first, so the client resumes it with
/// `Last-Event-ID` for the result (SEP-1699).
#[tool(read_only, open_world = false)]
async fn test_reconnection(ctx: Context) -> String {
    ctx.close_sse_stream();
    tokio::time::sleep(Duration::from_millis(100)).await;
    "Reconnection test completed".to_owned()
}

/// Roots fixture (`input-required-result-basic-list-roots`): asks the client
/// for its roots (`roots/list`) and lists them.
#[tool(read_only, open_world = false)]
async fn test_input_required_result_list_roots(ctx: Context) -> Result<String, ToolError> {
    let roots = ctx.roots("client_roots").await?;
    Ok(format!("Roots: {}", root_list(&roots)))
}

/// Several-inputs fixture (`input-required-result-multiple-input-requests`):
/// asks for a name, a greeting from the client's model and the roots, in
/// one round.
#[tool(read_only, open_world = false)]
async fn test_input_required_result_multiple_inputs(ctx: Context) -> Result<String, ToolError> {
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
fn root_list(roots: &[mcpfn_runtime::Root]) -> String {
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
async fn test_input_required_result_request_state(ctx: Context) -> Result<String, ToolError> {
    let answer = ctx
        .elicit("confirm", one_field("Please confirm", "ok", "boolean"))
        .await?;
    let ok = accepted(&answer, "ok")?;
    Ok(format!("state-ok: confirmed={ok}"))
}

/// 2026-07-28 fixture: two rounds of questions, the state growing between them.
#[tool(read_only, open_world = false)]
async fn test_input_required_result_multi_round(ctx: Context) -> Result<String, ToolError> {
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
async fn test_input_required_result_tampered_state(ctx: Context) -> Result<String, ToolError> {
    let answer = ctx
        .elicit("confirm", one_field("Please confirm", "ok", "boolean"))
        .await?;
    let ok = accepted(&answer, "ok")?;
    Ok(format!("confirmed={ok}"))
}

/// 2026-07-28 fixture: asks only through a capability the client declared
/// (sampling first, else elicitation).
#[tool(read_only, open_world = false)]
async fn test_input_required_result_capabilities(ctx: Context) -> Result<String, ToolError> {
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
async fn test_missing_capability(ctx: Context) -> Result<String, ToolError> {
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
async fn test_streaming_elicitation(ctx: Context) -> Result<String, ToolError> {
    ctx.progress(0.0, Some(1.0), Some("asking the user"))?;
    let answer = ctx
        .elicit("confirm", one_field("Please confirm", "ok", "boolean"))
        .await?;
    let ok = accepted(&answer, "ok")?;
    Ok(format!("streamed: confirmed={ok}"))
}

/// 2026-07-28 fixture (`server-stateless`): logs while it runs. A request
/// that names no `logLevel` in its envelope gets no `notifications/message`.
#[tool(read_only, idempotent, open_world = false)]
async fn test_logging_tool(ctx: Context) -> String {
    ctx.log(Level::Info, "test_logging_tool ran");
    "Logged one message (when the request set a log level)".to_owned()
}

/// 2026-07-28 fixture (`server-stateless`, its list-change checks): changes
/// the tool list (adds `test_list_changed_marker`, or removes it when it is
/// there), so the open `subscriptions/listen` streams that asked get
/// `notifications/tools/list_changed`.
#[tool(open_world = false)]
async fn test_trigger_tool_change(ctx: Context) -> Result<String, ToolError> {
    let tools = ctx.tools();
    if tools.remove("test_list_changed_marker") {
        return Ok("removed test_list_changed_marker".to_owned());
    }
    tools
        .add(test_list_changed_marker())
        .map_err(|err| ToolError::new(format!("could not add the marker tool: {err}")))?;
    Ok("added test_list_changed_marker".to_owned())
}

/// The tool `test_trigger_tool_change` adds and removes.
fn test_list_changed_marker() -> Tool {
    ToolBuilder::new("test_list_changed_marker", |_| {
        Box::pin(async { ToolOutcome::text("a marker of a tool list change") })
    })
    .description("Added and removed by test_trigger_tool_change.")
    .build()
}

/// 2026-07-28 fixture (`server-stateless`, its list-change checks): tells
/// the open `subscriptions/listen` streams that asked that the prompt list
/// changed (when the server offers prompts).
#[tool(read_only, open_world = false)]
async fn test_trigger_prompt_change(ctx: Context) -> String {
    ctx.notifier().prompt_list_changed();
    "told the prompt list changed".to_owned()
}

/// Not a suite fixture: tells the subscribers of the resource `uri` (by
/// default `test://watched-resource`, the suite's `resources-subscribe`
/// resource) that it changed, or, with `list`, that the resource list
/// did. The tests of subscriptions use it, in both eras and across
/// replicas.
#[tool(read_only, open_world = false)]
async fn test_trigger_resource_update(
    ctx: Context,
    /// The resource that changed
    uri: Option<String>,
    /// Tell a resource list change instead
    list: Option<bool>,
) -> String {
    if list == Some(true) {
        ctx.notifier().resource_list_changed();
        return "told the resource list changed".to_owned();
    }
    let uri = uri.as_deref().unwrap_or(WATCHED_RESOURCE);
    ctx.notifier().resource_updated(uri);
    format!("told {uri} changed")
}

/// The resource the suite's `resources-subscribe` and
/// `resources-unsubscribe` scenarios subscribe to. Subscriptions are kept
/// by URI, so the scenarios need no resource declared for it.
const WATCHED_RESOURCE: &str = "test://watched-resource";

/// Echoes a value the client also sends as the `Mcp-Param-Greeting` HTTP
/// header (2026-07-28 `x-mcp-header`; the suite checks the server compares
/// the two).
#[tool(read_only, idempotent, open_world = false)]
async fn test_custom_headers(
    /// A greeting, mirrored in the `Mcp-Param-Greeting` header
    #[arg(header = "Greeting")]
    greeting: String,
) -> String {
    format!("greeting: {greeting}")
}

/// `json_schema_2020_12_tool`: a hand-written inputSchema with 2020-12
/// keywords (`$schema`, `$defs`, `$ref`, `additionalProperties`; SEP-1613)
/// and the wider vocabulary of SEP-2106 (`$anchor` inside `$defs`,
/// `allOf`/`anyOf`, `if`/`then`/`else`), which the listing must carry
/// unchanged in every revision.
fn json_schema_2020_12_tool() -> Tool {
    ToolBuilder::new("json_schema_2020_12_tool", |_| {
        Box::pin(async { ToolOutcome::text("JSON Schema 2020-12 tool called") })
    })
    .description("Tool with JSON Schema 2020-12 features")
    .input_schema(json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
            }
        },
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"}
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false
    }))
    .read_only_hint(true)
    .build()
}

/// Tasks fixture: greets `name`, always on the request (never a task).
#[tool(read_only, idempotent, open_world = false)]
async fn greet(name: String) -> String {
    format!("Hello, {name}!")
}

/// Tasks fixture: works `seconds` seconds (at most 600) in steps of one,
/// reporting progress; a task when the client supports tasks.
#[tool(read_only, idempotent, open_world = false, task = "optional")]
async fn slow_compute(ctx: Context, seconds: u64, label: String) -> Result<String, ToolError> {
    let seconds = seconds.min(600);
    for second in 1..=seconds {
        tokio::time::sleep(Duration::from_secs(1)).await;
        ctx.progress(
            second as f64,
            Some(seconds as f64),
            Some(&format!("{label}: {second} of {seconds} s")),
        )?;
    }
    Ok(format!("{label}: computed for {seconds} s"))
}

/// Tasks fixture: a job that fails after a second with a tool error (an
/// `isError` result: the task completes); only as a task.
#[tool(open_world = false, task = "required")]
async fn failing_job() -> Result<String, ToolError> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err(ToolError::new("the job failed: its input was rejected"))
}

/// Tasks fixture: a job that ends with a JSON-RPC error (the task fails).
fn protocol_error_job() -> Tool {
    ToolBuilder::new("protocol_error_job", |_| {
        Box::pin(async {
            tokio::time::sleep(Duration::from_millis(200)).await;
            ToolOutcome::protocol_error(-32603, "the job's backend answered with an internal error")
        })
    })
    .description("Tasks fixture: a job that fails with a JSON-RPC error.")
    .task(TaskSupport::Optional)
    .build()
}

/// Tasks fixture: asks to confirm deleting `filename`, as a task.
#[tool(destructive, open_world = false, task = "optional")]
async fn confirm_delete(ctx: Context, filename: String) -> Result<String, ToolError> {
    let answer = ctx
        .elicit(
            "confirm",
            one_field(&format!("Delete {filename}?"), "confirm", "boolean"),
        )
        .await?;
    match accepted(&answer, "confirm")? {
        Value::Bool(true) => Ok(format!("Deleted {filename}")),
        _ => Ok(format!("Kept {filename}")),
    }
}

/// Tasks fixture: asks two questions at once, as a task.
#[tool(read_only, open_world = false, task = "optional")]
async fn multi_input(ctx: Context) -> Result<String, ToolError> {
    let form = |message: &str| {
        ElicitRequest::form(
            message,
            json!({"type": "object", "properties": {"name": {"type": "string"}, "confirm": {"type": "boolean"}}}),
        )
    };
    let (first, second) = tokio::join!(
        ctx.elicit("first", form("First answer?")),
        ctx.elicit("second", form("Second answer?"))
    );
    let (first, second) = (first?, second?);
    Ok(format!(
        "Received: {} and {}",
        describe(&first),
        describe(&second)
    ))
}

/// Tasks fixture: asks for a name on the request (a 2026-07-28 round),
/// then becomes a task that greets it.
#[tool(read_only, open_world = false, task = "required")]
async fn test_tool_with_task(ctx: Context) -> Result<String, ToolError> {
    let answer = ctx
        .elicit(
            "user_name",
            one_field("What is your name?", "name", "string"),
        )
        .await?;
    let name = accepted(&answer, "name")?;
    ctx.begin_task().await?;
    tokio::time::sleep(Duration::from_millis(300)).await;
    Ok(format!("Hello, {}!", name.as_str().unwrap_or_default()))
}

/// Tasks fixture (not a suite one; tests/suite/tasks.rs): asks for a name, then,
/// once that is answered, for a color, as a task: the task's second
/// question gets a key of its own (`input-2`), never the first one's.
#[tool(read_only, open_world = false, task = "optional")]
async fn two_step_job(ctx: Context) -> Result<String, ToolError> {
    let name = ctx
        .elicit("name", one_field("What is your name?", "name", "string"))
        .await?;
    let name = accepted(&name, "name")?;
    let color = ctx
        .elicit(
            "color",
            one_field("What is your favorite color?", "color", "string"),
        )
        .await?;
    let color = accepted(&color, "color")?;
    Ok(format!(
        "{} likes {}",
        name.as_str().unwrap_or_default(),
        color.as_str().unwrap_or_default()
    ))
}

/// `action=…, content={…}`, as the fixtures report an answer.
fn describe(answer: &Elicitation) -> String {
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

/// A static text resource (`resources-read-text`).
#[resource(
    "test://static-text",
    name = "Static Text Resource",
    mime_type = "text/plain"
)]
async fn static_text() -> String {
    "This is the content of the static text resource.".to_owned()
}

/// A static binary resource, a 1x1 PNG (`resources-read-binary`).
#[resource(
    "test://static-binary",
    name = "Static Binary Resource",
    mime_type = "image/png"
)]
async fn static_binary() -> mcpfn_runtime::ResourceContents {
    mcpfn_runtime::ResourceContents::Blob {
        uri: "test://static-binary".to_owned(),
        mime_type: Some("image/png".to_owned()),
        blob: RED_PIXEL_PNG.to_owned(),
        meta: None,
    }
}

/// A resource template with parameter substitution (`resources-templates-read`).
#[resource(
    "test://template/{id}/data",
    name = "Resource Template",
    mime_type = "application/json"
)]
async fn template_data(id: String) -> String {
    json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")}).to_string()
}

// ---- Prompts (`prompts-*`, `completion-complete`,
// `input-required-result-non-tool-request`) ----

/// A simple prompt without arguments
#[prompt]
async fn test_simple_prompt() -> String {
    "This is a simple prompt for testing.".to_owned()
}

/// A prompt with required arguments
#[prompt]
async fn test_prompt_with_arguments(
    /// First test argument
    #[complete(test_values)]
    arg1: String,
    /// Second test argument
    arg2: String,
) -> String {
    format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")
}

/// The completions of `arg1` (the suite asks for `test`).
async fn test_values(prefix: &str, _context: &CompletionContext) -> Vec<String> {
    ["test", "testValue1", "testValue2", "value"]
        .into_iter()
        .filter(|value| value.starts_with(prefix))
        .map(str::to_owned)
        .collect()
}

/// A prompt that includes an embedded resource
#[prompt]
async fn test_prompt_with_embedded_resource(
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
async fn test_prompt_with_image() -> Vec<PromptMessage> {
    vec![
        PromptMessage::user(Content::image_base64(RED_PIXEL_PNG, "image/png")),
        PromptMessage::user("Please analyze the image above."),
    ]
}

/// 2026-07-28 fixture: asks for the context the prompt should use.
#[prompt]
async fn test_input_required_result_prompt(ctx: Context) -> Result<String, ToolError> {
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

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let mut fixtures = tools![
        test_simple_text,
        test_image_content,
        test_audio_content,
        test_embedded_resource,
        test_multiple_content_types,
        test_tool_with_logging,
        test_tool_with_progress,
        test_error_handling,
        test_sampling,
        summarize,
        test_elicitation,
        test_elicitation_sep1034_defaults,
        test_elicitation_sep1330_enums,
        test_input_required_result_elicitation,
        test_input_required_result_sampling,
        test_input_required_result_list_roots,
        test_input_required_result_multiple_inputs,
        test_input_required_result_request_state,
        test_input_required_result_multi_round,
        test_input_required_result_tampered_state,
        test_input_required_result_capabilities,
        test_missing_capability,
        test_custom_headers,
        test_trigger_tool_change,
        test_trigger_prompt_change,
        test_trigger_resource_update,
        test_streaming_elicitation,
        test_logging_tool,
        test_reconnection,
        greet,
        slow_compute,
        failing_job,
        confirm_delete,
        multi_input,
        test_tool_with_task,
        two_step_job,
    ];
    fixtures.push(json_schema_2020_12_tool());
    fixtures.push(protocol_error_job());
    // The Skills extension's scenarios (`sep-2640-skills-*`) read the
    // skills in `examples/skills`; SKILLS_DIR=PATH serves another folder
    // (tests serve broken ones).
    let skills = std::env::var("SKILLS_DIR")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/skills").to_owned());
    let mut server = Server::new("mcp-runtime-conformance", env!("CARGO_PKG_VERSION"))
        .tools(fixtures)
        .resources(resources![static_text, static_binary, template_data])
        .prompts(prompts![
            test_simple_prompt,
            test_prompt_with_arguments,
            test_prompt_with_embedded_resource,
            test_prompt_with_image,
            test_input_required_result_prompt,
        ])
        .skills_dir(skills);
    // ELICIT_TIMEOUT_MS=N: how long a legacy elicitation or sampling request
    // waits for the client (tests shorten it).
    if let Some(ms) = std::env::var("ELICIT_TIMEOUT_MS")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        server = server.elicitation_timeout(Duration::from_millis(ms));
    }
    // MAX_TASKS_PER_CLIENT=N: how many tasks one client may make within a
    // task TTL (tests lower it to reach the quota).
    if let Some(tasks) = std::env::var("MAX_TASKS_PER_CLIENT")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        server = server.max_tasks_per_client(tasks);
    }
    // MAX_RESOURCE_SUBSCRIPTIONS=N: how many resources one session or
    // listen stream may subscribe to (tests lower it to reach the cap).
    if let Some(resources) = std::env::var("MAX_RESOURCE_SUBSCRIPTIONS")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        server = server.max_resource_subscriptions(resources);
    }
    // The deployment variables of docs/deployment.md (`MCP_AUTH_*` for an
    // OAuth-protected server, `REDIS_URL`, …): tests/suite/tasks.rs runs the task
    // fixtures with authorization on, where a task is its principal's.
    let (server, _auth) = examples::deployment(
        server,
        "conformance",
        "Conformance fixtures (mcp-runtime example)",
    );
    mcpfn_runtime::cli::run(server).await
}
