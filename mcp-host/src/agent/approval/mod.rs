//! A person in the loop: before each call the model asks for, an
//! [`Approver`] sees which tool of which server would run with which input
//! and decides. The spec asks hosts to show what runs and to let a person
//! refuse; a declined call still gets a result (an `isError` one saying the
//! user declined), so the history stays valid and the model can adapt.
//!
//! Three policies come with the crate: [`ApproveAll`], [`ReadOnly`] (only
//! what a *trusted* server marks `readOnlyHint`; an untrusted server's
//! annotations could say anything) and [`AskTerminal`] (a prompt on the
//! controlling terminal, never on stdin, which may carry the user's lines).
//!
//! [`AskTerminal`] asks only where a person's word matters: a trusted
//! server's read-only tools run unasked (unless told to ask about them
//! too), and a person can answer once, always for the tool, always for the
//! server, or no ([`Answer`]). The "always" answers are bound to the
//! definitions they approved (the tool's, or the server's tools' as listed
//! then) and hold for the run, or across runs when kept in a file
//! ([`AskTerminal::keep`], [`super::kept`]).
//!
//! A question only takes one of its listed answers: any other line (a
//! message for the model typed at the wrong moment) is not an answer, and
//! the question is asked again. With
//! no terminal, what would be asked is not run and the model is told that
//! no one could be asked ([`Decision::Unasked`]): saying "the user
//! declined" when nobody was asked would mislead the model and the person
//! reading the history.

use super::definition::DefinitionChange;
use crate::catalog::CatalogTool;
use mcpfn_client::BoxFuture;
use mcpfn_protocol::model::Tool;
use serde_json::Value;
use std::fmt;

/// Who asks for a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Caller {
    /// The model, in a response.
    Model,
    /// An app of the tool's own server (MCP Apps), from its frame.
    App,
}

/// A call about to run.
#[derive(Clone, Copy, Debug)]
pub struct ApprovalRequest<'a> {
    /// The name the model used (an app's call: the tool's model name, or
    /// its MCP name when the model is never offered it).
    pub model_name: &'a str,
    /// Who asks: the model, or an app (the same rules decide both).
    pub caller: Caller,
    /// The tool, as its server lists it (its MCP name, its annotations).
    pub tool: &'a Tool,
    /// The server's config name.
    pub server: &'a str,
    /// Whether the server's annotations are believed.
    pub trusted: bool,
    /// The arguments.
    pub input: &'a Value,
    /// The tools offered (of every server): an "always any tool of the
    /// server" answer approves the definitions of the server's among them.
    pub listed: &'a [CatalogTool],
}

impl ApprovalRequest<'_> {
    /// Whether a trusted server marks the tool read-only.
    pub fn is_trusted_read_only(&self) -> bool {
        self.trusted
            && self
                .tool
                .annotations
                .as_ref()
                .and_then(|a| a.read_only_hint)
                == Some(true)
    }
}

/// What happens to a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// It runs.
    Run,
    /// It does not; the model is told the user declined.
    Decline,
    /// It does not: it needed a person's approval and no one could be
    /// asked (no terminal). The model is told so ([`UNASKED_REASON`]), not
    /// that someone declined.
    Unasked,
}

/// Decides whether each call runs. Calls of one response are put to it one
/// at a time, in order, before any of them runs.
pub trait Approver: Send + Sync + fmt::Debug + 'static {
    /// Decides about `request`.
    fn decide<'a>(&'a self, request: &'a ApprovalRequest<'a>) -> BoxFuture<'a, Decision>;

    /// Decides whether a tool whose definition is not the approved one
    /// (changed, or new to an approved server; see [`super::pins`]) is
    /// offered to the model ([`Decision::Run`]) or held back. The default
    /// holds it back: only a person should let a changed definition in.
    fn approve_definition<'a>(
        &'a self,
        change: &'a DefinitionChange<'a>,
    ) -> BoxFuture<'a, Decision> {
        let _ = change;
        Box::pin(async { Decision::Decline })
    }
}

/// Runs every call.
#[derive(Clone, Copy, Debug, Default)]
pub struct ApproveAll;

impl Approver for ApproveAll {
    fn decide<'a>(&'a self, _request: &'a ApprovalRequest<'a>) -> BoxFuture<'a, Decision> {
        Box::pin(async { Decision::Run })
    }
}

/// Runs what a trusted server marks `readOnlyHint: true`; declines the rest.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReadOnly;

impl Approver for ReadOnly {
    fn decide<'a>(&'a self, request: &'a ApprovalRequest<'a>) -> BoxFuture<'a, Decision> {
        let decision = if request.is_trusted_read_only() {
            Decision::Run
        } else {
            Decision::Decline
        };
        Box::pin(async move { decision })
    }
}

/// Why a call that needed a person was not run when no one could be asked
/// ([`Decision::Unasked`]); the model reads "The call was not run: " and
/// this. Defined beside the catalog's app calls, which word the same refusal.
pub use crate::catalog::UNASKED_REASON;

mod terminal;

pub use terminal::AskTerminal;
use terminal::{CALL_ANSWERS, DEFINITION_ANSWERS};

/// A person's answer to a call's prompt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    /// `y`: this call runs; the next one of the tool is asked again.
    Once,
    /// `t`: this call and every later call of the tool (of this server)
    /// run, for the rest of the run.
    AlwaysTool,
    /// `s`: this call and every later call of any tool of the server run,
    /// for the rest of the run.
    AlwaysServer,
    /// `n`: the call does not run; the model is told the user declined.
    Deny,
}

impl Answer {
    /// The answer a typed line means: `y`, `t`, `s` or `n` (case and
    /// surrounding blanks ignored; `yes` and `no` too), an empty line the
    /// default, no. Anything else is not an answer (`None`): a line meant
    /// for the model, typed at the question, must not decide it.
    pub fn parse(line: &str) -> Option<Answer> {
        match line.trim().to_ascii_lowercase().as_str() {
            "y" | "yes" => Some(Answer::Once),
            "t" => Some(Answer::AlwaysTool),
            "s" => Some(Answer::AlwaysServer),
            "n" | "no" | "" => Some(Answer::Deny),
            _ => None,
        }
    }

    fn decision(self) -> Decision {
        match self {
            Answer::Deny => Decision::Decline,
            Answer::Once | Answer::AlwaysTool | Answer::AlwaysServer => Decision::Run,
        }
    }
}

/// What a person is asked.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum Question<'a> {
    /// Whether a call runs: any of [`Question::answers`].
    Call(&'a ApprovalRequest<'a>),
    /// Whether a changed (or new) definition is offered to the model:
    /// [`Answer::Once`] or [`Answer::Deny`] ("always" means nothing for
    /// one).
    Definition(&'a DefinitionChange<'a>),
}

impl Question<'_> {
    /// The answers the question takes.
    pub fn answers(&self) -> &'static [Answer] {
        match self {
            Question::Call(_) => CALL_ANSWERS,
            Question::Definition(_) => DEFINITION_ANSWERS,
        }
    }
}

/// Someone who answers [`Question`]s: a person at the terminal
/// ([`AskTerminal::open`]), or at a page. [`AskTerminal`] decides which
/// questions are asked and keeps the "always" answers; a `Person` only
/// asks, and answers with one of [`Question::answers`] (anything else is
/// taken for [`Answer::Deny`]).
pub trait Person: Send + Sync + 'static {
    /// Asks `question`; a person who cannot answer any more (the terminal
    /// closed) is [`Answer::Deny`].
    fn ask<'a>(&'a self, question: Question<'a>) -> BoxFuture<'a, Answer>;
}

#[cfg(test)]
mod tests {
    use super::terminal::{SHOWN_INPUT, call_question, short_input};
    use super::*;
    use mcpfn_protocol::model::ToolAnnotations;
    use serde_json::json;
    use std::io::Write;
    use std::sync::{Arc, Mutex};

    fn tool(read_only: Option<bool>) -> Tool {
        let mut tool: Tool = serde_json::from_value(
            json!({"name": "get_weather", "inputSchema": {"type": "object"}}),
        )
        .unwrap();
        tool.annotations = read_only.map(|hint| ToolAnnotations {
            read_only_hint: Some(hint),
            ..ToolAnnotations::default()
        });
        tool
    }

    fn request<'a>(tool: &'a Tool, trusted: bool, input: &'a Value) -> ApprovalRequest<'a> {
        ApprovalRequest {
            model_name: "get_weather",
            caller: Caller::Model,
            tool,
            server: "weather",
            trusted,
            input,
            listed: &[],
        }
    }

    /// The tools offered in the terminal's tests: server `b`'s.
    static LISTED: std::sync::LazyLock<Vec<CatalogTool>> = std::sync::LazyLock::new(|| {
        [
            named("write", None),
            named("other", Some(false)),
            named("reads", Some(true)),
        ]
        .into_iter()
        .map(|tool| CatalogTool {
            model_name: tool.name.clone(),
            server: "b".into(),
            tool,
            trusted: false,
        })
        .collect()
    });

    #[tokio::test]
    async fn read_only_runs_only_what_a_trusted_server_marks_read_only() {
        let input = json!({"city": "北京"});
        let (marked, unmarked, writes) = (tool(Some(true)), tool(None), tool(Some(false)));
        assert_eq!(
            ReadOnly.decide(&request(&marked, true, &input)).await,
            Decision::Run
        );
        assert_eq!(
            ReadOnly.decide(&request(&marked, false, &input)).await,
            Decision::Decline
        );
        assert_eq!(
            ReadOnly.decide(&request(&unmarked, true, &input)).await,
            Decision::Decline
        );
        assert_eq!(
            ReadOnly.decide(&request(&writes, true, &input)).await,
            Decision::Decline
        );
        assert_eq!(
            ApproveAll.decide(&request(&writes, false, &input)).await,
            Decision::Run
        );
    }

    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn shown(shared: &Shared) -> String {
        String::from_utf8(shared.0.lock().unwrap().clone()).unwrap()
    }

    fn named(name: &str, read_only: Option<bool>) -> Tool {
        let mut tool = tool(read_only);
        tool.name = name.to_owned();
        tool
    }

    fn call<'a>(
        tool: &'a Tool,
        server: &'a str,
        trusted: bool,
        input: &'a Value,
    ) -> ApprovalRequest<'a> {
        ApprovalRequest {
            model_name: &tool.name,
            caller: Caller::Model,
            tool,
            server,
            trusted,
            input,
            listed: &LISTED,
        }
    }

    #[test]
    fn answers_are_single_letters_and_anything_else_is_no_answer() {
        for (line, answer) in [
            ("y\n", Some(Answer::Once)),
            (" YES \n", Some(Answer::Once)),
            ("t\n", Some(Answer::AlwaysTool)),
            ("S\r\n", Some(Answer::AlwaysServer)),
            ("n\n", Some(Answer::Deny)),
            ("\n", Some(Answer::Deny)),
            ("yy\n", None),
            ("what is the weather in Paris?\n", None),
            ("\u{1b}[31m\n", None),
        ] {
            assert_eq!(Answer::parse(line), answer, "{line:?}");
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_terminal_asks_what_needs_a_person_and_remembers_always() {
        let screen = Shared::default();
        let ask = AskTerminal::over(&b"y\nt\nn\ns\n"[..], screen.clone());
        let input = json!({"city": "北京"});
        let (write, other, reads) = (
            named("write", None),
            named("other", Some(false)),
            named("reads", Some(true)),
        );
        // A trusted server's read-only tool: never asked.
        assert_eq!(
            ask.decide(&call(&reads, "a", true, &input)).await,
            Decision::Run
        );
        assert_eq!(shown(&screen), "");
        // y: once, then asked again; t: not asked again for that tool.
        assert_eq!(
            ask.decide(&call(&write, "a", true, &input)).await,
            Decision::Run
        );
        assert_eq!(
            ask.decide(&call(&write, "a", true, &input)).await,
            Decision::Run
        );
        assert_eq!(
            ask.decide(&call(&write, "a", true, &input)).await,
            Decision::Run
        );
        assert_eq!(shown(&screen).matches("The model asks").count(), 2);
        // n: another tool of the server is asked, and declined.
        assert_eq!(
            ask.decide(&call(&other, "a", true, &input)).await,
            Decision::Decline
        );
        // An untrusted server's read-only hint is not believed; s: that
        // server's every tool from now on.
        assert_eq!(
            ask.decide(&call(&reads, "b", false, &input)).await,
            Decision::Run
        );
        assert_eq!(
            ask.decide(&call(&write, "b", false, &input)).await,
            Decision::Run
        );
        assert_eq!(
            ask.decide(&call(&other, "b", false, &input)).await,
            Decision::Run
        );
        assert_eq!(shown(&screen).matches("The model asks").count(), 4);
        // End of input: declined.
        assert_eq!(
            ask.decide(&call(&other, "a", true, &input)).await,
            Decision::Decline
        );
        assert!(shown(&screen).starts_with(
            "\nThe model asks to run `write` of server `a` with {\"city\":\"北京\"}\n\
             Run it? y = once, t = always `write` of `a`, s = always any tool of `a`, n = no [y/t/s/N] "
        ), "{}", shown(&screen));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_line_that_is_not_an_answer_is_asked_again_and_not_taken() {
        let screen = Shared::default();
        let ask = AskTerminal::over(&b"what about Paris?\nyy\nn\n"[..], screen.clone());
        let (write, input) = (named("write", None), json!({}));
        assert_eq!(
            ask.decide(&call(&write, "a", true, &input)).await,
            Decision::Decline
        );
        let again = "That line is not an answer (it was not sent to the model). Type y, t, s or n and Enter: ";
        assert!(
            shown(&screen).ends_with(&format!("[y/t/s/N] {again}{again}")),
            "{}",
            shown(&screen)
        );
        // A definition's question takes y or n only: "t" is not an answer.
        let screen = Shared::default();
        let ask = AskTerminal::over(&b"t\ny\n"[..], screen.clone());
        let (old, new) = (named("write", None), named("write", Some(true)));
        let change = DefinitionChange {
            server: "a",
            model_name: "write",
            tool: &new,
            previous: Some(&old),
            new_tool: false,
        };
        assert_eq!(ask.approve_definition(&change).await, Decision::Run);
        assert!(
            shown(&screen).starts_with("\n[mcp-host] A tool's definition needs your approval.\nServer `a` changed tool `write`"),
            "{}",
            shown(&screen)
        );
        assert!(
            shown(&screen).ends_with(
                "Offer `write` of `a` to the model? [y/N] That line is not an answer (it was not sent to the model). Type y or n and Enter: "
            ),
            "{}",
            shown(&screen)
        );
    }

    #[test]
    fn an_apps_call_is_asked_as_the_apps() {
        let (write, input) = (named("write", None), json!({}));
        let mut request = call(&write, "a", true, &input);
        request.caller = Caller::App;
        assert!(
            call_question(&request)
                .starts_with("\nThe server's app asks to run `write` of server `a` with {}\n"),
            "{}",
            call_question(&request)
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn read_only_tools_are_asked_about_when_told_to() {
        let screen = Shared::default();
        let ask = AskTerminal::over(&b"n\n"[..], screen.clone()).ask_read_only(true);
        let (reads, input) = (named("reads", Some(true)), json!({}));
        assert_eq!(
            ask.decide(&call(&reads, "a", true, &input)).await,
            Decision::Decline
        );
        assert!(
            shown(&screen).contains("`reads` of server `a` (read-only) with {}"),
            "{}",
            shown(&screen)
        );
    }

    #[tokio::test]
    async fn with_no_one_to_ask_only_what_needs_no_one_runs() {
        let input = json!({});
        let (write, reads) = (named("write", None), named("reads", Some(true)));
        let nobody = AskTerminal::nobody();
        assert_eq!(
            nobody.decide(&call(&reads, "a", true, &input)).await,
            Decision::Run
        );
        assert_eq!(
            nobody.decide(&call(&write, "a", true, &input)).await,
            Decision::Unasked
        );
        assert_eq!(
            nobody.decide(&call(&reads, "a", false, &input)).await,
            Decision::Unasked
        );
        let strict = AskTerminal::nobody().ask_read_only(true);
        assert_eq!(
            strict.decide(&call(&reads, "a", true, &input)).await,
            Decision::Unasked
        );
    }

    #[test]
    fn the_input_is_shown_short_and_without_escapes() {
        assert_eq!(
            short_input(&json!({"a": "\u{1b}[2J", "b": "\u{85}"})),
            // JSON escapes C0 controls itself; the rest are replaced.
            "{\"a\":\"\\u001b[2J\",\"b\":\"\u{FFFD}\"}"
        );
        let long = json!({"text": "x".repeat(1_000)});
        let shown = short_input(&long);
        let whole = long.to_string().chars().count();
        assert_eq!(
            shown,
            format!(
                "{}… ({} more characters)",
                &long.to_string()[..SHOWN_INPUT],
                whole - SHOWN_INPUT
            )
        );
    }
}
