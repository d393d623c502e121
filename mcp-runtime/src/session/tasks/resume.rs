//! A task's tool run again after its worker was lost: [`resume`] starts it
//! on this replica with the task's own peer, and [`Resumed`] stores its end
//! in the record.

use super::{Settled, TaskRun, task_end};
use crate::conn::client::ClientInfo;
use crate::conn::connection::{CancelSignal, Connection};
use crate::context::{Context, ContextParts};
use crate::protocol::ProtocolVersion;
use crate::protocol::model::RpcError;
use crate::session::call_span::CallSpan;
use crate::session::call_span::Outcome;
use crate::session::run::{self, Admitted, Ending, Sink, run_tool};
use crate::shared::Shared;
use crate::task::TaskRecord;
use crate::tool::Tool;
use crate::tool::ToolCall;
use crate::tool::call::Arguments;
use std::sync::Arc;

/// Runs the tool of task `id` again from the start, on this replica, after
/// this replica took the task over from a lost worker (a resumable tool:
/// `TaskRecord::adopt_or_fail`). The run has no request: its id is the
/// task's, its client the capabilities the task was made with, no
/// principal (the token that made the task is gone with its request).
pub(crate) fn resume(shared: &Arc<Shared>, id: &str, record: &TaskRecord) {
    let Some(again) = record.resume.clone() else {
        return;
    };
    let shared = Arc::clone(shared);
    let (id, tool_name, owner) = (id.to_owned(), record.tool.clone(), record.owner.clone());
    tokio::spawn(async move {
        let cancel = CancelSignal::default();
        let run = TaskRun::new(&shared.tasks, &id, owner, cancel.clone());
        let Some((name, tool)) = shared.tools.lookup(&tool_name) else {
            run.settle(Settled::Failed(RpcError::internal_error(format!(
                "the task's tool '{tool_name}' is no longer served, so it could not be started again"
            ))))
            .await;
            return;
        };
        run.watch();
        tracing::info!(task = %id, tool = %name, "task taken over: its tool runs again");
        let request_id = serde_json::value::to_raw_value(&id)
            .unwrap_or_else(|_| unreachable!("a string is JSON"));
        let context = Context::new(ContextParts {
            request_id,
            tool: Arc::clone(&name),
            version: ProtocolVersion::V2026_07_28,
            client: Arc::new(ClientInfo {
                info: None,
                capabilities: again.capabilities,
            }),
            meta: None,
            request_log_level: None,
            cancel,
            // Nothing is written to it: the task's peer gets it all.
            connection: Arc::new(Connection::new(crate::conn::outbox::channel(0).0)),
            reach: Arc::clone(&shared.reach),
            answers: serde_json::Map::new(),
            peer: None,
        });
        context.resume_task(Arc::new(run.clone()));
        let arguments = again
            .arguments
            .map_or(Arguments::None, |raw| Arguments::Raw(Arc::from(raw.get())));
        let version = ProtocolVersion::V2026_07_28;
        // The span a call over the wire opens, with no caller's trace: the
        // request that carried one is gone.
        let span = CallSpan::open(&name, context.raw_request_id(), version, || None);
        let call = ToolCall {
            name,
            arguments,
            version,
            context: context.clone(),
        };
        let admitted = Admitted {
            timeout: run::timeout(&shared, &tool, true, None),
            future: run_tool(Arc::clone(&tool), call),
            tool,
            context,
            span,
        };
        // No principal: the limits count it as a client of its own.
        run::execute(&shared, None, admitted, Resumed { run, version }).await;
    });
}

/// The [`Sink`] of a task's tool run again after its worker was lost (see
/// [`resume`]): its end stored in the record; `tasks/cancel` ends it.
struct Resumed {
    run: TaskRun,
    version: ProtocolVersion,
}

impl Sink for Resumed {
    type Output = ();

    fn cancelled_by_context(&self) -> bool {
        true
    }

    async fn deliver(self, tool: &Tool, _: &Context, ending: Ending) -> (Outcome, ()) {
        let (outcome, settled) = task_end(tool, ending, self.version);
        self.run.settle(settled).await;
        (outcome, ())
    }
}
