//! One response's calls answered: the host's search answered and what was
//! not offered refused here, the rest run through [`calls::run`], and
//! their results appended to the history in the API's form.

use super::budget;
use super::calls::{self, CallRecord, Run};
use super::events;
use super::interrupt::Interrupt;
use super::on_demand::{self, FoundTools, LocalSearch};
use super::{Agent, Answer, Conversation};
use crate::provider::ToolCall;
use mcpfn_protocol::model::CallToolResult;
use serde_json::Value;

impl Agent {
    /// Runs one response's calls and appends their results; returns how
    /// many messages that added.
    pub(super) async fn answer_calls(
        &self,
        conversation: &mut Conversation,
        answer: &mut Answer,
        calls: &[ToolCall],
        run: Run,
        interrupt: &Interrupt,
        events: Option<&events::EventSink>,
    ) -> usize {
        // A tool gone since the request is refused by name, not called.
        let offered = self.tools.refresh(&*self.provider).await;
        let emit = |event: events::Event| {
            if let Some(sink) = events {
                sink(&event);
            }
        };
        // The host answers its search and refuses what was not offered
        // itself, in the calls' order; the rest go to their servers.
        let mut answered: Vec<Option<(budget::Kept, CallRecord)>> = Vec::with_capacity(calls.len());
        let mut others = Vec::new();
        for call in calls {
            if let Some(search) = offered.search.as_ref().filter(|s| s.is_search(call)) {
                answered.push(Some(self.answer_search(
                    search,
                    &mut conversation.found,
                    call,
                    &run,
                    &emit,
                )));
                continue;
            }
            let entry = offered.catalog.tool(&call.name);
            let refusal = entry.and(on_demand::not_offered(
                offered.loaded.as_ref(),
                &conversation.found,
                offered.search.as_ref().map(LocalSearch::name),
                &call.name,
            ));
            match (entry, refusal) {
                (Some(entry), Some(reason)) => {
                    emit(events::Event::CallRequested {
                        id: call.id.clone(),
                        tool: entry.tool.name.clone(),
                        server: entry.server.clone(),
                        input: call.input.clone().unwrap_or(Value::Null),
                    });
                    let failure = crate::call_result::CallFailure::NotRun { reason };
                    tracing::warn!(tool = %call.name, "call refused: {failure}");
                    emit(events::Event::CallNotRun {
                        id: call.id.clone(),
                        reason: failure.to_string(),
                    });
                    let record = CallRecord {
                        name: entry.tool.name.clone(),
                        server: entry.server.clone(),
                        is_error: true,
                    };
                    answered.push(Some((self.result_budget.keep(failure.to_result()), record)));
                }
                _ => {
                    answered.push(None);
                    others.push(call.clone());
                }
            }
        }
        let mut ran = calls::run(
            &offered.catalog,
            &*self.approver,
            &self.in_flight,
            &others,
            run.clone(),
            self.result_budget,
            calls::LineWatch { interrupt, events },
        )
        .await
        .into_iter();
        let results: Vec<(budget::Kept, CallRecord)> = answered
            .into_iter()
            .filter_map(|answered| answered.or_else(|| ran.next()))
            .collect();
        let (kept, records): (Vec<_>, Vec<_>) = results.into_iter().unzip();
        let sent = self.result_budget.share(kept);
        let pairs: Vec<(&ToolCall, &CallToolResult)> = calls.iter().zip(&sent).collect();
        let messages = self.provider.tool_results(&pairs);
        let added = messages.len();
        for message in messages {
            conversation.history.push(message);
        }
        answer.tool_calls.extend(records);
        added
    }

    /// The host's answer to a call of its search tool, kept to the budget
    /// ([`LocalSearch::answer_call`]).
    fn answer_search(
        &self,
        search: &LocalSearch,
        found: &mut FoundTools,
        call: &ToolCall,
        run: &Run,
        emit: &dyn Fn(events::Event),
    ) -> (budget::Kept, CallRecord) {
        let result = search.answer_call(&*self.provider, found, call, run, emit);
        let record = CallRecord {
            name: call.name.clone(),
            server: String::new(),
            is_error: result.is_error,
        };
        (self.result_budget.keep(result), record)
    }
}
