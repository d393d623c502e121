//! Task fixtures (the Tasks extension): slow, failing and multi-step jobs, one
//! that asks for input on the way, and `describe`.

use super::asking::{accepted, describe, one_field};
use mcpfn_runtime::{
    Context, ElicitRequest, TaskSupport, Tool, ToolBuilder, ToolError, ToolOutcome, tool,
};
use serde_json::{Value, json};
use std::time::Duration;

/// Tasks fixture: greets `name`, always on the request (never a task).
#[tool(read_only, idempotent, open_world = false)]
pub(crate) async fn greet(name: String) -> String {
    format!("Hello, {name}!")
}

/// Tasks fixture: works `seconds` seconds (at most 600) in steps of one,
/// reporting progress; a task when the client supports tasks.
#[tool(read_only, idempotent, open_world = false, task = "optional")]
pub(crate) async fn slow_compute(
    ctx: Context,
    seconds: u64,
    label: String,
) -> Result<String, ToolError> {
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
pub(crate) async fn failing_job() -> Result<String, ToolError> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err(ToolError::new("the job failed: its input was rejected"))
}

/// Tasks fixture: a job that ends with a JSON-RPC error (the task fails).
pub(crate) fn protocol_error_job() -> Tool {
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
pub(crate) async fn confirm_delete(ctx: Context, filename: String) -> Result<String, ToolError> {
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
pub(crate) async fn multi_input(ctx: Context) -> Result<String, ToolError> {
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
pub(crate) async fn test_tool_with_task(ctx: Context) -> Result<String, ToolError> {
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
pub(crate) async fn two_step_job(ctx: Context) -> Result<String, ToolError> {
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
