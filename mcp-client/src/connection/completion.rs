//! `completion/complete`: values for a prompt's argument or a resource
//! template's variable, as a person types it. A server's answer is cut to
//! the spec's [`MAX_COMPLETION_VALUES`] (`hasMore` then set), and a value
//! longer than [`MAX_COMPLETION_VALUE_BYTES`] is left out: these are shown
//! in a menu and typed into a line, never a document.

use super::{Era, McpClient, request};
use crate::McpError;
use mcpfn_protocol::model::method::{Complete, Request};
use mcpfn_protocol::model::{
    CompleteParams, Completion, CompletionArgument, CompletionContextParams, CompletionRef,
    MAX_COMPLETION_VALUES,
};

/// The longest completion value passed on (1 KiB).
pub const MAX_COMPLETION_VALUE_BYTES: usize = 1024;

impl McpClient {
    /// The server's suggestions for `argument` (its name and what is typed
    /// of it so far) of `reference` (a prompt, or a resource template by
    /// its URI template), given the other arguments in `context`: at most
    /// [`MAX_COMPLETION_VALUES`], best first.
    pub async fn complete(
        &self,
        reference: CompletionRef,
        argument: CompletionArgument,
        context: Option<CompletionContextParams>,
    ) -> Result<Completion, McpError> {
        let (dispatcher, era, _) = self.session().await?;
        let params = CompleteParams {
            reference,
            argument,
            context,
            meta: (era == Era::Modern).then(|| self.inner.envelope.clone()),
        };
        let options =
            self.request_options(era, Complete::METHOD, None, self.inner.options.call_timeout);
        let result =
            request::<Complete>(&dispatcher, &self.inner.config.name, &params, options).await?;
        Ok(bounded(result.completion))
    }
}

/// `completion` within the caps: its first [`MAX_COMPLETION_VALUES`]
/// values of at most [`MAX_COMPLETION_VALUE_BYTES`] each.
fn bounded(mut completion: Completion) -> Completion {
    let before = completion.values.len();
    completion
        .values
        .retain(|value| value.len() <= MAX_COMPLETION_VALUE_BYTES);
    if completion.values.len() > MAX_COMPLETION_VALUES {
        completion.values.truncate(MAX_COMPLETION_VALUES);
        completion.has_more = Some(true);
    }
    if completion.values.len() < before {
        completion.total = completion.total.or(Some(before as u64));
    }
    completion
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_past_the_caps_are_cut_and_said_to_be_more() {
        let many = Completion {
            values: (0..150).map(|i| format!("v{i}")).collect(),
            total: None,
            has_more: None,
        };
        let cut = bounded(many);
        assert_eq!(cut.values.len(), MAX_COMPLETION_VALUES);
        assert_eq!(cut.values[99], "v99");
        assert_eq!((cut.total, cut.has_more), (Some(150), Some(true)));

        let long = Completion {
            values: vec!["a".into(), "b".repeat(MAX_COMPLETION_VALUE_BYTES + 1)],
            total: Some(2),
            has_more: Some(false),
        };
        assert_eq!(bounded(long).values, ["a"]);

        let fine = Completion::capped(vec!["x".into()]);
        assert_eq!(bounded(fine.clone()), fine);
    }
}
