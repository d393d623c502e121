//! `tools/call`: the call's timeout and progress, its 2026-07-28
//! `input_required` rounds, a task the server makes of it, and its result
//! checked against the tool's `outputSchema`.

use super::listing::Entry;
use super::rounds::Rounds;
use super::{CallOptions, Era, McpClient, handler::HostHandler, tasks};
use crate::McpError;
#[cfg(feature = "output-schema")]
use crate::output;
use mcpfn_protocol::model::method::{CallTool, Request};
use mcpfn_protocol::model::{
    CallToolParams, CallToolResponse, CallToolResult, InputRequest, JsonObject,
};
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

impl McpClient {
    /// Calls tool `name` with `arguments`. A tool's own failure is an
    /// `isError` result (`Ok`); a result whose `structuredContent` breaks
    /// the tool's `outputSchema` is replaced by an `isError` result saying
    /// so; `Err` is a call that produced no result.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Option<JsonObject>,
        options: CallOptions,
    ) -> Result<CallToolResult, McpError> {
        let started = Instant::now();
        let outcome = self.call_inner(name, arguments, options).await;
        let duration_ms = started.elapsed().as_secs_f64() * 1000.0;
        match &outcome {
            Ok(result) => {
                tracing::info!(target: "mcpfn_host::audit", server = %self.inner.config.name, tool = %name, duration_ms, is_error = result.is_error, "{}", CallTool::METHOD)
            }
            Err(error) => {
                tracing::info!(target: "mcpfn_host::audit", server = %self.inner.config.name, tool = %name, duration_ms, is_error = true, %error, "tools/call failed")
            }
        }
        outcome
    }

    async fn call_inner(
        &self,
        name: &str,
        arguments: Option<JsonObject>,
        options: CallOptions,
    ) -> Result<CallToolResult, McpError> {
        let timeout = options.timeout.unwrap_or(self.inner.options.call_timeout);
        let deadline = Instant::now() + timeout;
        // The tool's header parameters and output validator; a failed list
        // does not stop the call (the server judges it).
        let entry = match self.known_entry(name) {
            Some(entry) => Some(entry),
            None => match self.cached_or_fetch().await {
                Ok((_, entries)) => entries.get(name).cloned(),
                Err(e) => {
                    tracing::debug!(server = %self.inner.config.name, error = %e, "tools/list failed before a call");
                    None
                }
            },
        };
        let (dispatcher, era, _) = self.session().await?;
        let token = options.progress.as_ref().map(|callback| {
            let token = format!(
                "\"mcp-host-{}\"",
                self.inner.next_token.fetch_add(1, Ordering::Relaxed)
            );
            self.inner
                .handler
                .progress
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(token.clone(), Arc::clone(callback));
            token
        });
        let _unregister = token.clone().map(|token| Unregister {
            handler: Arc::clone(&self.inner.handler),
            token,
        });
        let mut meta = match era {
            Era::Modern => Some(self.inner.envelope.clone()),
            Era::Legacy(_) => None,
        };
        if let Some(token) = &token {
            let base = meta.take().unwrap_or_default();
            meta = Some(
                base.with_progress_token(token)
                    .map_err(|e| McpError::Protocol {
                        server: self.inner.config.name.clone(),
                        reason: e.to_string(),
                    })?,
            );
        }
        let header_values = match (&entry, era) {
            (Some(entry), Era::Modern) => match arguments.as_ref() {
                Some(arguments) => entry
                    .params
                    .iter()
                    .filter_map(|p| p.header(arguments))
                    .collect(),
                None => Vec::new(),
            },
            _ => Vec::new(),
        };
        let mut rounds = Rounds::new(
            self,
            era,
            CallTool::METHOD,
            format!("tool `{name}`"),
            timeout,
            deadline,
        );
        loop {
            let round = rounds.next()?;
            let params = CallToolParams {
                name: name.to_owned(),
                arguments: arguments.clone(),
                input_responses: round.input_responses,
                request_state: round.request_state,
                meta: meta.clone(),
            };
            let mut request = self.request_options(era, CallTool::METHOD, Some(name), round.left);
            request.headers.extend(header_values.iter().cloned());
            let response: CallToolResponse =
                super::request::<CallTool>(&dispatcher, &self.inner.config.name, &params, request)
                    .await
                    .map_err(|e| rounds.timed_out(e))?;
            match response {
                CallToolResponse::Complete(result) => {
                    return Ok(self.checked(name, entry.as_deref(), result).await);
                }
                CallToolResponse::InputRequired(asked) => rounds.answer(asked).await?,
                CallToolResponse::Task(created) => {
                    // A server may answer with a task only a client that
                    // declared the extension on this request.
                    if era != Era::Modern || !self.inner.options.tasks {
                        return Err(McpError::Protocol {
                            server: self.inner.config.name.clone(),
                            reason: format!(
                                "tool `{name}` answered with task `{}`, but this client did not declare the tasks extension",
                                created.task.task_id
                            ),
                        });
                    }
                    let progress =
                        options
                            .progress
                            .as_ref()
                            .zip(token.as_deref())
                            .map(|(callback, token)| {
                                (
                                    Arc::clone(callback),
                                    serde_json::from_str(token).unwrap_or(Value::Null),
                                )
                            });
                    let driven = tasks::Driven {
                        dispatcher: &dispatcher,
                        created: created.task,
                        deadline,
                        timeout,
                        progress,
                    };
                    let result = self.drive_task(driven).await?;
                    return Ok(self.checked(name, entry.as_deref(), result).await);
                }
            }
        }
    }

    /// The answers to 2026-07-28 input requests by their keys, from the
    /// client's handlers (the `input_required` rounds of a call and a
    /// task's `inputRequests` alike); one that cannot be answered fails
    /// the call.
    pub(super) async fn answer_inputs(
        &self,
        requests: impl IntoIterator<Item = (String, InputRequest)>,
    ) -> Result<BTreeMap<String, Value>, McpError> {
        let mut answers = BTreeMap::new();
        for (key, request) in requests {
            match self.inner.handler.answer(request).await {
                Ok(answer) => {
                    answers.insert(key, answer);
                }
                Err(e) => {
                    return Err(McpError::Protocol {
                        server: self.inner.config.name.clone(),
                        reason: format!(
                            "input request `{key}` could not be answered: {}",
                            e.message
                        ),
                    });
                }
            }
        }
        Ok(answers)
    }

    /// The result, or an `isError` result in its place when its
    /// `structuredContent` breaks the tool's `outputSchema`.
    async fn checked(
        &self,
        name: &str,
        entry: Option<&Entry>,
        result: CallToolResult,
    ) -> CallToolResult {
        #[cfg(feature = "output-schema")]
        if !result.is_error
            && let Some(check) = entry.and_then(|e| e.output.as_ref())
            && let Some(validator) = check.validator(&self.inner.config.name, name).await
        {
            let reason = match &result.structured_content {
                None => Some(
                    "the tool has an outputSchema but the result has no structuredContent"
                        .to_owned(),
                ),
                Some(content) => validator.iter_errors(content).next().map(|e| {
                    format!(
                        "structuredContent does not match the tool's outputSchema at `{}`: {e}",
                        e.instance_path()
                    )
                }),
            };
            if let Some(reason) = reason {
                tracing::warn!(server = %self.inner.config.name, tool = %name, %reason, "result not passed on");
                return output::discarded(&reason);
            }
        }
        #[cfg(not(feature = "output-schema"))]
        let _ = (name, entry);
        result
    }
}

/// How long a call's progress callback outlives the call. The dispatcher
/// routes the result to the caller at once but hands notifications to the
/// handler through a queue, so progress the server sent just before its
/// result may be delivered just after it.
const PROGRESS_GRACE: Duration = Duration::from_millis(500);

/// Removes a call's progress callback once the call ends, however it ends
/// (after [`PROGRESS_GRACE`]).
struct Unregister {
    handler: Arc<HostHandler>,
    token: String,
}

impl Drop for Unregister {
    fn drop(&mut self) {
        let handler = Arc::clone(&self.handler);
        let token = std::mem::take(&mut self.token);
        let remove = move || {
            handler
                .progress
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&token);
        };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                runtime.spawn(async move {
                    tokio::time::sleep(PROGRESS_GRACE).await;
                    remove();
                });
            }
            Err(_) => remove(),
        }
    }
}
