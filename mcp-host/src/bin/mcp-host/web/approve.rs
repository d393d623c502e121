//! Approvals asked on the page: the terminal's `--approve ask` (which
//! calls are asked, what "always" covers, the approvals kept across runs)
//! with the question shown on every open page and answered by a button.
//! The first answer counts; one given after the line was stopped, or to
//! a question no longer asked, is refused.

use super::lock;
use super::stream::Stream;
use mcpfn_client::BoxFuture;
use mcpfn_host::agent::approval::{Answer, Caller, Person, Question};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;

/// The page's words for each answer (`POST /api/approve`'s `answer`).
const ANSWERS: &[(&str, Answer)] = &[
    ("once", Answer::Once),
    ("tool", Answer::AlwaysTool),
    ("server", Answer::AlwaysServer),
    ("deny", Answer::Deny),
];

/// A question waiting for its answer.
struct Waiting {
    answers: &'static [Answer],
    reply: oneshot::Sender<Answer>,
}

#[derive(Default)]
struct Asked {
    next: u64,
    waiting: HashMap<u64, Waiting>,
}

/// The person at the page.
#[derive(Clone)]
pub(crate) struct PagePerson {
    stream: Arc<Stream>,
    asked: Arc<Mutex<Asked>>,
}

/// Why an answer was not taken.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum NotTaken {
    /// No such answer (`answer` is not one of [`ANSWERS`]' words, or not
    /// one this question takes).
    NotAnAnswer(String),
    /// The question was answered, or is no longer asked.
    NotAsked(u64),
}

impl std::fmt::Display for NotTaken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotTaken::NotAnAnswer(word) => {
                write!(f, "`{word}` is not an answer this question takes")
            }
            NotTaken::NotAsked(ask) => {
                write!(
                    f,
                    "question {ask} is not asked (answered, or its line ended)"
                )
            }
        }
    }
}

/// Takes a waiting question back out when it is no longer asked (its
/// line interrupted), so a late answer is refused and every page hears.
struct Withdraw {
    asked: Arc<Mutex<Asked>>,
    stream: Arc<Stream>,
    ask: u64,
    /// Why, for the page: the line ended, or the app's request did.
    reason: &'static str,
}

impl Drop for Withdraw {
    fn drop(&mut self) {
        if lock(&self.asked).waiting.remove(&self.ask).is_some() {
            self.stream.publish(
                &json!({"event": "approval_closed", "ask": self.ask, "reason": self.reason}),
            );
        }
    }
}

impl PagePerson {
    pub(crate) fn new(stream: Arc<Stream>) -> PagePerson {
        PagePerson {
            stream,
            asked: Arc::default(),
        }
    }

    /// Answers question `ask` with `word` (`once`, `tool`, `server`,
    /// `deny`).
    pub(crate) fn answer(&self, ask: u64, word: &str) -> Result<(), NotTaken> {
        let answer = ANSWERS
            .iter()
            .find(|(name, _)| *name == word)
            .map(|(_, answer)| *answer)
            .ok_or_else(|| NotTaken::NotAnAnswer(word.to_owned()))?;
        let mut asked = lock(&self.asked);
        let waiting = asked.waiting.get(&ask).ok_or(NotTaken::NotAsked(ask))?;
        if !waiting.answers.contains(&answer) {
            return Err(NotTaken::NotAnAnswer(word.to_owned()));
        }
        let waiting = asked.waiting.remove(&ask).ok_or(NotTaken::NotAsked(ask))?;
        // Published before the line goes on: the page shows the answer
        // ahead of the call it lets run.
        self.stream
            .publish(&json!({"event": "approval_answered", "ask": ask, "answer": word}));
        let _ = waiting.reply.send(answer);
        Ok(())
    }

    /// What the page shows of `question`.
    fn shown(question: Question<'_>) -> Value {
        let words = |answers: &[Answer]| -> Vec<&str> {
            ANSWERS
                .iter()
                .filter(|(_, answer)| answers.contains(answer))
                .map(|(word, _)| *word)
                .collect()
        };
        match question {
            Question::Call(request) => json!({
                "kind": "call",
                "caller": match request.caller {
                    Caller::App => "app",
                    _ => "model",
                },
                "server": request.server,
                "tool": request.tool.name,
                "read_only": request.is_trusted_read_only(),
                "input": request.input,
                "answers": words(question.answers()),
            }),
            Question::Definition(change) => json!({
                "kind": "definition",
                "server": change.server,
                "tool": change.tool.name,
                "details": change.details(),
                "answers": words(question.answers()),
            }),
            _ => json!({"kind": "unknown", "answers": ["deny"]}),
        }
    }
}

impl Person for PagePerson {
    fn ask<'a>(&'a self, question: Question<'a>) -> BoxFuture<'a, Answer> {
        let (reply, answered) = oneshot::channel();
        let ask = {
            let mut asked = lock(&self.asked);
            asked.next += 1;
            let ask = asked.next;
            asked.waiting.insert(
                ask,
                Waiting {
                    answers: question.answers(),
                    reply,
                },
            );
            ask
        };
        let mut event = PagePerson::shown(question);
        event["event"] = "approval_asked".into();
        event["ask"] = ask.into();
        // A model's call is asked in its card; an app's has none.
        if let Question::Call(request) = question
            && request.caller == Caller::Model
        {
            event["call"] = self
                .stream
                .last_call(request.server, &request.tool.name)
                .into();
        }
        self.stream.publish(&event);
        let reason = match question {
            Question::Call(request) if request.caller == Caller::App => {
                "the app's request ended (the app closed, or the page went away)"
            }
            _ => "the line ended",
        };
        let withdraw = Withdraw {
            asked: Arc::clone(&self.asked),
            stream: Arc::clone(&self.stream),
            ask,
            reason,
        };
        Box::pin(async move {
            let _withdraw = withdraw;
            answered.await.unwrap_or(Answer::Deny)
        })
    }
}
