//! The next turn of a conversation when the host writes it, not the user
//! alone: a server's prompt run as the next turn ([`Turn::prompt`]: its
//! messages, the user's and the assistant's, in order), and a user line
//! with resources attached ([`Turn::line`], [`Turn::attach`]). Sent with
//! [`Agent::send_turn`](super::Agent::send_turn), it goes into the
//! history as the provider's own messages
//! ([`Provider::content_message`]),
//! consecutive messages of one role as one message.
//!
//! What the content costs is bounded as a tool's result is, with the
//! agent's [`ResultBudget`]: each message's text to its per-result bound,
//! the turn's together to its per-response bound, images likewise, what is
//! cut said in a note. A text resource is sent as its text under its URI,
//! a binary one as an image when it is one the API takes, else as a note
//! naming its URI, type and size.
//!
//! ```
//! use mcpfn_host::agent::turn::Turn;
//! use mcpfn_protocol::model::{ReadResourceResult, ResourceContents};
//!
//! let read = ReadResourceResult {
//!     contents: vec![ResourceContents::Text {
//!         uri: "file:///notes.md".into(),
//!         mime_type: Some("text/markdown".into()),
//!         text: "# Notes".into(),
//!         meta: None,
//!     }],
//!     ttl_ms: None,
//!     cache_scope: None,
//!     meta: None,
//! };
//! let turn = Turn::line("Summarize this").attach("docs", "file:///notes.md", read);
//! assert_eq!(turn.messages().len(), 3);
//! ```

use super::budget::{ResultBudget, Subject};
use crate::provider::Provider;
use mcpfn_protocol::model::{
    CallToolResult, ContentBlock, EmbeddedResource, GetPromptResult, PromptMessage,
    ReadResourceResult, Role,
};
use serde_json::Value;

/// Messages the host puts into the conversation as its next turn.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Turn {
    messages: Vec<PromptMessage>,
}

impl Turn {
    /// A prompt's messages (what `prompts/get` gave), in order: user and
    /// assistant alike. A prompt that ends with the assistant's message has
    /// said the assistant's part of the turn: sent, that message is the
    /// line's answer and the model is asked on the next line (see
    /// [`Agent::send_turn`](super::Agent::send_turn)).
    pub fn prompt(result: GetPromptResult) -> Turn {
        Turn {
            messages: result.messages,
        }
    }

    /// The user's line `text`, to attach resources to.
    pub fn line(text: impl Into<String>) -> Turn {
        Turn {
            messages: vec![PromptMessage::user(text.into())],
        }
    }

    /// Attaches resource `uri` of server `server`, as `resources/read`
    /// gave it, after the turn's messages as the user's: a line naming
    /// them, then each of its contents.
    pub fn attach(mut self, server: &str, uri: &str, read: ReadResourceResult) -> Turn {
        self.messages.push(PromptMessage::user(format!(
            "[Attached: the resource <{uri}> of server `{server}`.]"
        )));
        for contents in read.contents {
            self.messages.push(PromptMessage {
                role: Role::User,
                content: ContentBlock::Resource(EmbeddedResource {
                    resource: contents,
                    annotations: None,
                    meta: None,
                }),
            });
        }
        self
    }

    /// This turn's messages followed by `next`'s (an app's context ahead
    /// of a prompt the person runs).
    pub fn then(mut self, next: &Turn) -> Turn {
        self.messages.extend(next.messages.iter().cloned());
        self
    }

    /// The messages, in order.
    pub fn messages(&self) -> &[PromptMessage] {
        &self.messages
    }

    /// The text of the assistant's messages the turn ends with, joined by
    /// lines; `None` when it ends with the user's.
    pub fn closing_reply(&self) -> Option<String> {
        let first = self
            .messages
            .iter()
            .rposition(|message| message.role != Role::Assistant)
            .map_or(0, |user| user + 1);
        let closing = &self.messages[first..];
        if closing.is_empty() {
            return None;
        }
        let texts: Vec<&str> = closing
            .iter()
            .filter_map(|message| match &message.content {
                ContentBlock::Text(text) => Some(text.text.as_str()),
                _ => None,
            })
            .collect();
        Some(texts.join("\n"))
    }

    /// The turn as `provider`'s messages, consecutive messages of one role
    /// joined, their content within `budget`.
    pub(crate) fn provider_messages(
        &self,
        provider: &dyn Provider,
        budget: &ResultBudget,
    ) -> Vec<Value> {
        let mut runs: Vec<(Role, Vec<ContentBlock>)> = Vec::new();
        for message in &self.messages {
            match runs.last_mut() {
                Some((role, blocks)) if *role == message.role => {
                    blocks.push(message.content.clone());
                }
                _ => runs.push((message.role, vec![message.content.clone()])),
            }
        }
        // Each run is cut as one result is, then the turn's runs share the
        // bound of one response's results.
        let kept = runs
            .iter()
            .map(|(_, blocks)| {
                budget.keep_as(
                    CallToolResult {
                        content: blocks.clone(),
                        ..CallToolResult::default()
                    },
                    Subject::Message,
                )
            })
            .collect();
        budget
            .share(kept)
            .into_iter()
            .zip(&runs)
            .map(|(bounded, (role, _))| provider.content_message(*role, &bounded.content))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::openai;
    use mcpfn_protocol::model::ResourceContents;
    use serde_json::json;

    /// The OpenAI shapes, without a client.
    #[derive(Debug)]
    struct Shapes;

    impl Provider for Shapes {
        fn default_model(&self) -> &str {
            "shapes"
        }
        fn tools(&self, _: &[crate::tool_offer::ToolOffer]) -> Vec<Value> {
            Vec::new()
        }
        fn user_message(&self, text: &str) -> Value {
            json!({"role": "user", "content": text})
        }
        fn content_message(&self, role: Role, content: &[ContentBlock]) -> Value {
            openai::content_message(role, content)
        }
        fn tool_results(&self, _: &[(&crate::provider::ToolCall, &CallToolResult)]) -> Vec<Value> {
            Vec::new()
        }
        fn send<'a>(
            &'a self,
            _: crate::provider::Request<'a>,
        ) -> mcpfn_client::BoxFuture<
            'a,
            Result<crate::provider::Reply, crate::provider::ProviderError>,
        > {
            unreachable!("never sent")
        }
    }

    fn read(uri: &str, text: &str) -> ReadResourceResult {
        ReadResourceResult {
            contents: vec![ResourceContents::Text {
                uri: uri.into(),
                mime_type: None,
                text: text.into(),
                meta: None,
            }],
            ttl_ms: None,
            cache_scope: None,
            meta: None,
        }
    }

    #[test]
    fn a_prompts_roles_stay_and_runs_of_one_role_are_one_message() {
        let turn = Turn::prompt(GetPromptResult {
            description: None,
            messages: vec![
                PromptMessage::user("Translate into French:"),
                PromptMessage::user("Good morning"),
                PromptMessage::assistant("Bonjour"),
                PromptMessage::user("And good night?"),
            ],
            meta: None,
        });
        assert_eq!(
            turn.provider_messages(&Shapes, &ResultBudget::default()),
            [
                json!({"role": "user", "content": "Translate into French:\nGood morning"}),
                json!({"role": "assistant", "content": "Bonjour"}),
                json!({"role": "user", "content": "And good night?"}),
            ]
        );
    }

    #[test]
    fn the_assistant_messages_a_turn_ends_with_are_its_reply() {
        let turn = Turn::prompt(GetPromptResult {
            description: None,
            messages: vec![
                PromptMessage::user("Plan a trip"),
                PromptMessage::assistant("Where to?"),
                PromptMessage::assistant("And when?"),
            ],
            meta: None,
        });
        assert_eq!(
            turn.closing_reply().as_deref(),
            Some("Where to?\nAnd when?")
        );
        let asked = Turn::prompt(GetPromptResult {
            description: None,
            messages: vec![
                PromptMessage::assistant("Hello"),
                PromptMessage::user("Plan a trip"),
            ],
            meta: None,
        });
        assert_eq!(asked.closing_reply(), None);
        assert_eq!(Turn::line("Hi").closing_reply(), None);
    }

    #[test]
    fn an_attachment_is_named_and_cut_to_the_budget() {
        let turn = Turn::line("Summarize").attach(
            "docs",
            "file:///big.txt",
            read("file:///big.txt", &"x".repeat(5_000)),
        );
        let messages = turn.provider_messages(&Shapes, &ResultBudget::per_result(1_000));
        assert_eq!(messages.len(), 1);
        let text = messages[0]["content"].as_str().unwrap();
        assert!(
            text.starts_with("Summarize\n[Attached: the resource <file:///big.txt> of server `docs`.]\nResource <file:///big.txt>:\nxxx"),
            "{text}"
        );
        assert!(text.len() < 1_400, "{}", text.len());
        assert!(
            text.ends_with(
                " bytes of this message were cut: the host sends at most 1,000 bytes of one message]"
            ),
            "{text}"
        );
    }
}
