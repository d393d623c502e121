//! `task = "optional" | "required"`, `resumable`, and `ctx.begin_task()` in the body.

use mcp_runtime::{Context, ToolError, tool};

/// Builds a report, as a task when the client supports tasks (run again
/// from the start if its replica dies).
#[tool(task = "optional", resumable)]
async fn build_report(ctx: Context, sections: u32) -> Result<String, ToolError> {
    ctx.progress(1.0, Some(f64::from(sections)), Some("started"))?;
    Ok(format!("{sections} sections"))
}

/// Asks first, then becomes a task.
#[tool(task = "required")]
async fn ask_then_work(ctx: Context) -> Result<String, ToolError> {
    ctx.begin_task().await?;
    Ok(format!("a task: {}", ctx.is_task()))
}

fn main() {
    let tools = mcp_runtime::tools![build_report, ask_then_work];
    assert_eq!(tools.len(), 2);
}
