//! The in-process door's prompts: listed as `prompts/list` lists them, got
//! through the same run as a call ([`LocalClient::run`]: a prompt's body
//! is a call), and their arguments (and resource templates' variables)
//! completed through the wire's path ([`crate::complete`]).

use super::LocalClient;
use crate::complete::{self, CompletionContext};
use crate::context::Context;
use crate::context::elicit::Interrupt;
use crate::outcome::ToolOutcome;
use crate::prompt::Given;
use crate::protocol::model::{self, Completion, CompletionRef, GetPromptResult, RpcError};
use crate::session::call_span::Outcome;
use crate::session::finish;
use crate::session::run::{Ending, Sink};
use crate::tool::Tool;
use serde::Deserialize as _;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The door's [`Sink`] for a prompt: the body's answer as the owned model.
struct PromptReturned;

impl Sink for PromptReturned {
    type Output = Result<GetPromptResult, RpcError>;

    /// The door's peer answers every question (or is unable to) itself.
    fn interruptible(&self) -> bool {
        false
    }

    async fn deliver(self, tool: &Tool, _: &Context, ending: Ending) -> (Outcome, Self::Output) {
        match ending {
            Ending::Outcome(ran) => (ran.outcome(), prompt_model(tool, &ran.outcome)),
            Ending::Interrupted(Interrupt::MissingCapability(required)) => {
                (Outcome::Error, Err(finish::missing_capability(required)))
            }
            // The door's peer answers every question and is never
            // cancelled by its context: neither ending reaches it.
            Ending::Interrupted(Interrupt::InputRequired(questions)) => {
                let keys: Vec<&str> = questions.iter().map(|(key, _)| key.as_str()).collect();
                (
                    Outcome::Error,
                    Err(RpcError::internal_error(format!(
                        "the prompt asked `{}` of a client that answers in process",
                        keys.join("`, `")
                    ))),
                )
            }
            Ending::Cancelled => (
                Outcome::Cancelled,
                Err(RpcError::internal_error("the prompt was cancelled")),
            ),
        }
    }
}

/// The owned `GetPromptResult` of a prompt's outcome: the one the wire
/// writes ([`finish::prompt_answer`]), read as the model.
fn prompt_model(tool: &Tool, outcome: &ToolOutcome) -> Result<GetPromptResult, RpcError> {
    let answer = finish::prompt_answer(tool, outcome)?;
    Ok(GetPromptResult {
        description: answer.description.map(str::to_owned),
        messages: serde_json::from_str(answer.messages).map_err(|err| {
            RpcError::internal_error(format!("the prompt's messages do not read back: {err}"))
        })?,
        meta: None,
    })
}

impl LocalClient {
    /// The server's prompts as `prompts/list` lists them.
    pub fn prompts(&self) -> Vec<model::Prompt> {
        let door = &*self.door;
        door.shared
            .prompts
            .iter()
            .filter_map(|prompt| {
                let listed = serde_json::to_value(prompt.listed(door.version)).ok()?;
                model::Prompt::deserialize(listed).ok()
            })
            .collect()
    }

    /// Gets prompt `name` filled in with `arguments`: the `Err` the wire
    /// answers with for an unknown prompt, a missing required argument or
    /// a body that failed; its questions (`ctx.elicit`) go to
    /// [`LocalClient::on_elicitation`].
    ///
    /// ```
    /// use mcpfn_runtime::{Server, prompt, prompts};
    /// use std::collections::BTreeMap;
    ///
    /// /// Ask for a review.
    /// #[prompt]
    /// async fn review(file: String) -> String {
    ///     format!("Review {file}.")
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let client = Server::new("p", "1").prompts(prompts![review]).local()?;
    /// assert_eq!(client.prompts()[0].name, "review");
    /// let arguments = BTreeMap::from([("file".to_owned(), "a.rs".to_owned())]);
    /// let result = client.get_prompt("review", arguments).await?;
    /// assert_eq!(result.messages.len(), 1);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: BTreeMap<String, String>,
    ) -> Result<GetPromptResult, RpcError> {
        let Some(prompt) = self.door.shared.prompts.get(name) else {
            return Err(RpcError::invalid_params(format!(
                "Invalid params: no prompt is named '{name}' (see prompts/list)"
            )));
        };
        let given: Vec<_> = arguments
            .keys()
            .map(|name| (Cow::Borrowed(name.as_str()), Given::Text))
            .collect();
        prompt.check_arguments(&given)?;
        let arguments: Map<String, Value> = arguments
            .into_iter()
            .map(|(name, value)| (name, Value::String(value)))
            .collect();
        let name = Arc::clone(&prompt.name);
        let runner = Arc::clone(&prompt.runner);
        self.run(
            name,
            runner,
            Value::Object(arguments),
            super::CallOptions::default(),
            PromptReturned,
            |tool, refusal| prompt_model(tool, &refusal),
        )
        .await
    }

    /// Completes `argument` (typed so far as `value`) of `reference`, with
    /// the `arguments` already given: the values the wire would send.
    pub async fn complete(
        &self,
        reference: &CompletionRef,
        argument: &str,
        value: &str,
        arguments: BTreeMap<String, String>,
    ) -> Result<Completion, RpcError> {
        let completer = self.door.shared.completer(reference, argument)?;
        complete::run(
            completer,
            CompletionContext::new(argument, value, arguments),
        )
        .await
    }
}

#[cfg(test)]
mod tests {
    use crate::protocol::model::{
        Completion, CompletionRef, ContentBlock, ElicitAction, ElicitResult, PromptMessage, Role,
    };
    use crate::{CompletionContext, ElicitRequest, PromptBuilder, Server};
    use serde_json::json;
    use std::collections::BTreeMap;

    fn server() -> Server {
        let ask = PromptBuilder::new("ask", |call| {
            Box::pin(async move {
                let form = ElicitRequest::form("Topic?", json!({"type": "object"}));
                let answer = call.context().elicit("topic", form).await?;
                let topic = answer.content.and_then(|c| c.get("topic").cloned());
                Ok(vec![PromptMessage::user(format!(
                    "About {}",
                    topic.unwrap_or_default()
                ))])
            })
        })
        .argument("style", "", true)
        .complete("style", |context: CompletionContext| {
            Box::pin(async move {
                (0..150)
                    .map(|i| format!("{}{i}", context.value()))
                    .collect()
            })
        })
        .build();
        Server::new("p", "1").prompts([ask])
    }

    #[tokio::test]
    async fn the_door_gets_a_prompt_that_asks_and_completes_its_arguments() {
        let client = server().local().unwrap().on_elicitation(|_| async {
            let content = json!({"topic": "bees"}).as_object().cloned();
            Ok(ElicitResult {
                action: ElicitAction::Accept,
                content,
            })
        });
        assert_eq!(client.prompts()[0].arguments[0].name, "style");
        let arguments = BTreeMap::from([("style".to_owned(), "terse".to_owned())]);
        let got = client.get_prompt("ask", arguments).await.unwrap();
        assert_eq!(got.messages[0].role, Role::User);
        assert!(
            matches!(&got.messages[0].content, ContentBlock::Text(t) if t.text == "About \"bees\""),
            "{got:?}"
        );
        let missing = client.get_prompt("ask", BTreeMap::new()).await.unwrap_err();
        assert_eq!(missing.code, -32602);
        assert!(missing.message.contains("needs the argument 'style'"));
        let reference = CompletionRef::Prompt {
            name: "ask".into(),
            title: None,
        };
        let Completion {
            values,
            total,
            has_more,
        } = client
            .complete(&reference, "style", "s", BTreeMap::new())
            .await
            .unwrap();
        assert_eq!(
            (values.len(), total, has_more),
            (100, Some(150), Some(true))
        );
        assert_eq!(values[0], "s0");
        let none = client
            .complete(&reference, "other", "", BTreeMap::new())
            .await;
        assert_eq!(none.unwrap().values.len(), 0);
    }

    #[tokio::test]
    async fn the_door_completes_a_template_variable_with_the_others_given() {
        let city = crate::ResourceBuilder::new("weather://{country}/{city}", "weather", |read| {
            Box::pin(async move { Ok(vec![read.text("sunny")]) })
        })
        .complete("city", |context: CompletionContext| {
            Box::pin(async move {
                let country = context.argument("country").unwrap_or("?");
                vec![format!("{country}:{}", context.value())]
            })
        })
        .build()
        .unwrap();
        let client = Server::new("r", "1").resources([city]).local().unwrap();
        let reference = CompletionRef::Resource {
            uri: "weather://{country}/{city}".into(),
        };
        let given = BTreeMap::from([("country".to_owned(), "fr".to_owned())]);
        let completed = client
            .complete(&reference, "city", "Pa", given)
            .await
            .unwrap();
        assert_eq!(completed.values, ["fr:Pa"]);
        let none = client
            .complete(&reference, "country", "", BTreeMap::new())
            .await;
        assert_eq!(none.unwrap().values.len(), 0);
        let unknown = CompletionRef::Resource {
            uri: "weather://{x}".into(),
        };
        let refused = client
            .complete(&unknown, "x", "", BTreeMap::new())
            .await
            .unwrap_err();
        assert_eq!(refused.code, -32602, "{refused:?}");
    }

    #[tokio::test]
    async fn a_door_without_elicitation_is_told_what_the_prompt_needs() {
        let client = server().local().unwrap();
        let arguments = BTreeMap::from([("style".to_owned(), "x".to_owned())]);
        let refused = client.get_prompt("ask", arguments).await.unwrap_err();
        assert_eq!(refused.code, -32603, "{refused:?}");
        assert!(refused.message.contains("elicitation"), "{refused:?}");
    }
}
