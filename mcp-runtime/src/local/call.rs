//! One call through the door: the server's call sequence (admission, run
//! slot, timeout, answer) with the door's id, client and peer, the
//! [`Returned`] sink that hands the answer back as the owned model, and
//! the guards that cancel a dropped call and count the calls in flight.

use super::{CallOptions, LocalClient};
use crate::conn::connection::CancelSignal;
use crate::context::{Context, ContextParts};
use crate::outcome::ToolOutcome;
use crate::protocol::ProtocolVersion;
use crate::protocol::model::{CallToolResult, RpcError};
use crate::session::call_span::Outcome;
use crate::session::run::{self, Admitted, Ending, Sink, run_tool};
use crate::session::{admit, finish};
use crate::tool::call::Arguments;
use crate::tool::{Tool, ToolCall};
use serde_json::{Map, Value};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The door's [`Sink`]: the answer returned to the caller as the owned
/// model.
pub(super) struct Returned {
    pub(super) version: ProtocolVersion,
}

/// Dropping the call's future cancels it (see [`CancelOnDrop`]): the
/// context's cancellation does not, as [`Sink`] has it by default.
impl Sink for Returned {
    type Output = Result<CallToolResult, RpcError>;

    /// The door's peer answers every question (or is unable to) itself.
    fn interruptible(&self) -> bool {
        false
    }

    async fn deliver(self, tool: &Tool, _: &Context, ending: Ending) -> (Outcome, Self::Output) {
        let (outcome, answer) = finish::ended(tool, ending, self.version);
        // Only a context's cancellation ends a run as cancelled, and the
        // door's never does (see above).
        let answer =
            answer.unwrap_or_else(|| Err(RpcError::internal_error("the call was cancelled")));
        (outcome, answer)
    }
}

/// Cancels a call whose future is dropped before it finished, so clones of
/// its context (say, in a task the tool spawned) see the cancellation.
struct CancelOnDrop(Option<CancelSignal>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(cancel) = self.0.take() {
            cancel.cancel();
        }
    }
}

/// Counts a call in flight until it ends.
struct InFlight(Arc<AtomicUsize>);

impl InFlight {
    /// Counts a call in `count`; with how many were running before it.
    fn enter(count: &Arc<AtomicUsize>) -> (InFlight, usize) {
        let before = count.fetch_add(1, Ordering::Relaxed);
        (InFlight(Arc::clone(count)), before)
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

impl LocalClient {
    /// Runs `tool` (found as `name`) with `arguments`: the same admission,
    /// run slot, timeout and answer as a call over the wire
    /// (`session::{admit, run, finish}`), for a tool or a prompt's body; the
    /// door supplies only how the call arrived (its id, client and peer),
    /// and `sink` takes the answer as the owned model (`refused` makes it of
    /// a refusal before the run).
    pub(super) async fn run<S: Sink>(
        &self,
        name: Arc<str>,
        tool: Arc<Tool>,
        arguments: Value,
        options: CallOptions,
        sink: S,
        refused: impl FnOnce(&Tool, ToolOutcome) -> S::Output,
    ) -> S::Output {
        let door = &*self.door;
        let shared = &door.shared;
        let (n, id) = door.next_request();
        let version = door.version;
        let (_in_flight, running) = InFlight::enter(&door.in_flight);
        let admitted = admit::admit(
            shared,
            &door.connection,
            &name,
            &id,
            version,
            running,
            || None,
        );
        let span = match admitted {
            Ok(span) => span,
            Err(refusal) => return refused(&tool, refusal),
        };
        let peer = door.peer_for(&options, n);
        let cancel = CancelSignal::default();
        let context = Context::new(ContextParts {
            request_id: id,
            tool: Arc::clone(&name),
            version,
            client: Arc::clone(&door.client),
            meta: None,
            request_log_level: None,
            cancel: cancel.clone(),
            connection: Arc::clone(&door.connection),
            reach: Arc::clone(&shared.reach),
            answers: Map::new(),
            peer: Some(peer),
        });
        let mut cancel_on_drop = CancelOnDrop(Some(cancel));
        let call = ToolCall {
            name,
            arguments: Arguments::Local(arguments),
            version,
            context: context.clone(),
        };
        let admitted = Admitted {
            timeout: run::timeout(shared, &tool, false, options.timeout),
            future: run_tool(Arc::clone(&tool), call),
            tool,
            context,
            span,
        };
        let client = door.connection.client_key();
        let answer = run::execute(shared, client, admitted, sink).await;
        // Ended: nothing left to cancel.
        cancel_on_drop.0 = None;
        answer
    }
}
