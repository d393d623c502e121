//! What a running tool asks its client: the user (elicitation), the
//! client's model (sampling), its roots, or several at once.

use super::Context;
use crate::context::ask::{Ask, Asks};
use crate::context::elicit::{ElicitRequest, Elicitation, SampleRequest, SampleResult};
use crate::outcome::ToolError;

impl Context {
    /// Asks the user for input through the client (`elicitation/create`).
    ///
    /// `key` names this question within the tool (it must be stable across
    /// runs: in the 2026-07-28 era the tool runs again once the answer is in).
    /// Declining or cancelling reaches the tool as an [`Elicitation`] value;
    /// an `Err` means the client cannot be asked (no `elicitation`
    /// capability in a legacy session, or the client failed the request), or,
    /// in a legacy session, that the user did not answer within
    /// [`Server::elicitation_timeout`](crate::Server::elicitation_timeout)
    /// (the question is then withdrawn with `notifications/cancelled`).
    /// Returning the `Err` with `?` ends the call with an `isError` result
    /// that says so.
    pub async fn elicit(
        &self,
        key: &str,
        request: ElicitRequest,
    ) -> Result<Elicitation, ToolError> {
        self.ask(Ask::elicit(key, request)).await
    }

    /// Asks the client's model for a message (`sampling/createMessage`).
    ///
    /// Works like [`Context::elicit`]: `key` names this request within the
    /// tool and must be stable across runs (in the 2026-07-28 era the call
    /// ends with an `input_required` result carrying the request, and the
    /// tool runs again once the client sends the model's answer). An `Err`
    /// means the client cannot be asked (no `sampling` capability: in the
    /// 2026-07-28 era the call then fails with `-32021`), failed the
    /// request, sent an answer that is not a `CreateMessageResult`, or, in a
    /// legacy session, did not answer within
    /// [`Server::elicitation_timeout`](crate::Server::elicitation_timeout)
    /// (the request is then withdrawn with `notifications/cancelled`).
    ///
    /// ```no_run
    /// use mcpfn_runtime::{Context, SampleRequest, ToolError, tool};
    ///
    /// /// Summarize a text with the client's model.
    /// #[tool]
    /// async fn summarize(ctx: Context, text: String) -> Result<String, ToolError> {
    ///     let request = SampleRequest::prompt(format!("Summarize in one line:\n{text}"))
    ///         .max_tokens(100);
    ///     let answer = ctx.sample("summary", request).await?;
    ///     answer.text().ok_or_else(|| ToolError::new("the model sent no text"))
    /// }
    /// ```
    pub async fn sample(
        &self,
        key: &str,
        request: SampleRequest,
    ) -> Result<SampleResult, ToolError> {
        self.ask(Ask::sample(key, request)).await
    }

    /// Asks the client for its roots (`roots/list`): the directories and
    /// files it lets the server work in.
    ///
    /// Works like [`Context::elicit`]: `key` names this request within the
    /// tool and must be stable across runs. An `Err` means the client cannot
    /// be asked (it did not declare the `roots` capability: in the
    /// 2026-07-28 era the call then fails with `-32021`), failed the
    /// request, sent an answer that is not a `ListRootsResult` (or one of
    /// more than [`MAX_ROOTS`](crate::MAX_ROOTS) roots), or, in a legacy
    /// session, did not answer within
    /// [`Server::elicitation_timeout`](crate::Server::elicitation_timeout).
    ///
    /// ```no_run
    /// use mcpfn_runtime::{Context, ToolError, tool};
    ///
    /// /// The client's roots, one URI a line.
    /// #[tool]
    /// async fn workspace(ctx: Context) -> Result<String, ToolError> {
    ///     let roots = ctx.roots("roots").await?;
    ///     Ok(roots.iter().map(|root| root.uri.as_str()).collect::<Vec<_>>().join("\n"))
    /// }
    /// ```
    pub async fn roots(&self, key: &str) -> Result<Vec<crate::Root>, ToolError> {
        self.ask(Ask::roots(key)).await
    }

    /// Asks several things at once ([`Ask`]s, as a tuple) and returns the
    /// answers in the same shape: in a legacy session every request is sent
    /// to the client at once and awaited together; in the 2026-07-28 era
    /// the call ends with one `input_required` result carrying every
    /// question not answered yet, and the tool runs again once the client
    /// sends them all. Each key must be stable across runs and distinct in
    /// the round. The first failure (as [`Context::elicit`] lists them)
    /// ends the round: the questions still open are withdrawn.
    ///
    /// ```no_run
    /// use mcpfn_runtime::{Ask, Context, ElicitRequest, FormField, SampleRequest, ToolError, tool};
    ///
    /// #[derive(serde::Deserialize)]
    /// struct Name {
    ///     name: String,
    /// }
    ///
    /// /// Greets the user, naming the client's first root.
    /// #[tool]
    /// async fn welcome(ctx: Context) -> Result<String, ToolError> {
    ///     let form = ElicitRequest::new("Your name?").field("name", FormField::string().required());
    ///     let (name, greeting, roots) = ctx
    ///         .ask((
    ///             Ask::elicit("name", form),
    ///             Ask::sample("greeting", SampleRequest::prompt("Say hello").max_tokens(20)),
    ///             Ask::roots("roots"),
    ///         ))
    ///         .await?;
    ///     let name: Name = name.content_as()?;
    ///     let greeting = greeting.text().unwrap_or_default();
    ///     let root = roots.first().map_or("nowhere", |root| root.uri.as_str());
    ///     Ok(format!("{greeting}, {}, in {root}", name.name))
    /// }
    /// ```
    pub async fn ask<A: Asks>(&self, asks: A) -> Result<A::Output, ToolError> {
        crate::context::ask::ask(self, asks).await
    }
}
