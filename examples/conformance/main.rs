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

use mcpfn_runtime::{Server, prompts, resources, tools};
mod asking;
mod changes;
mod content;
mod prompts;
mod resources;
mod tasks;

use std::time::Duration;

/// A 1x1 red PNG, base64-encoded.
const RED_PIXEL_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A WAV file of no samples (a RIFF header only), base64-encoded.
const EMPTY_WAV: &str = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=";

/// The pause between the steps of the logging and progress fixtures, so a
/// client sees the notifications arrive one by one.
const STEP: Duration = Duration::from_millis(50);

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let mut fixtures = tools![
        content::test_simple_text,
        content::test_image_content,
        content::test_audio_content,
        content::test_embedded_resource,
        content::test_multiple_content_types,
        content::test_tool_with_logging,
        content::test_tool_with_progress,
        content::test_error_handling,
        asking::test_sampling,
        asking::summarize,
        asking::test_elicitation,
        asking::test_elicitation_sep1034_defaults,
        asking::test_elicitation_sep1330_enums,
        asking::test_input_required_result_elicitation,
        asking::test_input_required_result_sampling,
        asking::test_input_required_result_list_roots,
        asking::test_input_required_result_multiple_inputs,
        asking::test_input_required_result_request_state,
        asking::test_input_required_result_multi_round,
        asking::test_input_required_result_tampered_state,
        asking::test_input_required_result_capabilities,
        asking::test_missing_capability,
        content::test_custom_headers,
        changes::test_trigger_tool_change,
        changes::test_trigger_prompt_change,
        changes::test_trigger_resource_update,
        asking::test_streaming_elicitation,
        content::test_logging_tool,
        changes::test_reconnection,
        tasks::greet,
        tasks::slow_compute,
        tasks::failing_job,
        tasks::confirm_delete,
        tasks::multi_input,
        tasks::test_tool_with_task,
        tasks::two_step_job,
    ];
    fixtures.push(content::json_schema_2020_12_tool());
    fixtures.push(tasks::protocol_error_job());
    // The Skills extension's scenarios (`sep-2640-skills-*`) read the
    // skills in `examples/skills`; SKILLS_DIR=PATH serves another folder
    // (tests serve broken ones).
    let skills = std::env::var("SKILLS_DIR")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/skills").to_owned());
    let mut server = Server::new("mcp-runtime-conformance", env!("CARGO_PKG_VERSION"))
        .tools(fixtures)
        .resources(resources![
            resources::static_text,
            resources::static_binary,
            resources::template_data
        ])
        .prompts(prompts![
            prompts::test_simple_prompt,
            prompts::test_prompt_with_arguments,
            prompts::test_prompt_with_embedded_resource,
            prompts::test_prompt_with_image,
            prompts::test_input_required_result_prompt,
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
