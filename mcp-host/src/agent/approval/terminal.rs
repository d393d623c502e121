//! [`AskTerminal`]: the questions asked on the controlling terminal (or another
//! [`Person`]), their answers, and what is kept of the "always" ones.

use super::{Answer, ApprovalRequest, Approver, Caller, Decision, Person, Question};
use crate::agent::definition::DefinitionChange;
use crate::agent::kept::KeptApprovals;
use mcpfn_client::BoxFuture;
use serde_json::Value;
use std::fmt;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::sync::{Arc, Mutex};

/// Asks a person on the terminal about each call that needs it (see
/// [`AskTerminal::decide`] for which do), and remembers the "always"
/// answers (for the run, or across runs: [`AskTerminal::keep`]). Without a terminal ([`AskTerminal::nobody`]) the
/// calls that would be asked are not run, and the model is told no one
/// could be asked ([`Decision::Unasked`]), not that someone declined.
/// The person may be elsewhere ([`AskTerminal::person`]: a page): which
/// calls are asked and what an answer means stay the same.
#[derive(Clone)]
pub struct AskTerminal {
    /// `None`: no one to ask.
    person: Option<Arc<dyn Person>>,
    kept: Arc<Mutex<KeptApprovals>>,
    ask_read_only: bool,
}

/// The controlling terminal (or pipes in a test) as a [`Person`].
pub(super) struct Terminal(Arc<Mutex<TerminalIo>>);

pub(super) struct TerminalIo {
    reader: BufReader<Box<dyn std::io::Read + Send>>,
    writer: Box<dyn Write + Send>,
}

impl fmt::Debug for AskTerminal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AskTerminal")
            .field("has_person", &self.person.is_some())
            .field("ask_read_only", &self.ask_read_only)
            .finish_non_exhaustive()
    }
}

/// The longest input shown in a prompt, in characters: a short form, on
/// about one screen line or a few; the rest is counted, not shown.
pub(super) const SHOWN_INPUT: usize = 300;

/// How many lines one question reads before it takes them for a no.
pub(super) const MAX_ASKED: usize = 20;

/// A call's answers.
pub(super) const CALL_ANSWERS: &[Answer] = &[
    Answer::Once,
    Answer::AlwaysTool,
    Answer::AlwaysServer,
    Answer::Deny,
];
/// A definition's answers: "always" means nothing for one.
pub(super) const DEFINITION_ANSWERS: &[Answer] = &[Answer::Once, Answer::Deny];

/// What is said after a line that is not one of `accepts`.
pub(super) fn not_an_answer(accepts: &[Answer]) -> String {
    let letters = if accepts.len() == 2 {
        "y or n"
    } else {
        "y, t, s or n"
    };
    format!("That line is not an answer (it was not sent to the model). Type {letters} and Enter: ")
}

impl AskTerminal {
    /// The controlling terminal (`/dev/tty`); an error when there is none
    /// (a daemon, CI, `setsid`).
    pub fn open() -> std::io::Result<AskTerminal> {
        let tty = File::options().read(true).write(true).open("/dev/tty")?;
        let reader = tty.try_clone()?;
        Ok(AskTerminal::over(reader, tty))
    }

    /// Prompts on `writer` and reads answers from `reader` (a terminal, or
    /// pipes in a test).
    pub fn over(
        reader: impl std::io::Read + Send + 'static,
        writer: impl Write + Send + 'static,
    ) -> AskTerminal {
        AskTerminal::person(Terminal(Arc::new(Mutex::new(TerminalIo {
            reader: BufReader::new(Box::new(reader)),
            writer: Box::new(writer),
        }))))
    }

    /// Asks `person` (a page, say) what the terminal would be asked.
    pub fn person(person: impl Person) -> AskTerminal {
        AskTerminal::with(Some(Arc::new(person)))
    }

    /// No one to ask: what needs a person is not run
    /// ([`Decision::Unasked`]); what does not (see [`AskTerminal::decide`])
    /// runs.
    pub fn nobody() -> AskTerminal {
        AskTerminal::with(None)
    }

    fn with(person: Option<Arc<dyn Person>>) -> AskTerminal {
        AskTerminal {
            person,
            kept: Arc::default(),
            ask_read_only: false,
        }
    }

    /// Whether calls of tools a trusted server marks read-only are asked
    /// about too (default `false`: they run without asking).
    pub fn ask_read_only(mut self, ask: bool) -> AskTerminal {
        self.ask_read_only = ask;
        self
    }

    /// The "always" answers: those of `kept` (a file's, kept across runs)
    /// and the new ones, saved there as they come (a save that fails is a
    /// warning; the answer still holds for the run).
    pub fn keep(self, kept: KeptApprovals) -> AskTerminal {
        *lock(&self.kept) = kept;
        self
    }

    /// Whether `request` runs without asking: a trusted server's read-only
    /// tool (unless [`AskTerminal::ask_read_only`]), or a tool or server
    /// an "always" answer covers for its definition now.
    fn runs_unasked(&self, request: &ApprovalRequest<'_>) -> bool {
        (!self.ask_read_only && request.is_trusted_read_only())
            || lock(&self.kept).allows(request.server, request.tool)
    }

    /// Keeps an "always" answer.
    fn remember(&self, answer: Answer, request: &ApprovalRequest<'_>) {
        let mut kept = lock(&self.kept);
        match answer {
            Answer::AlwaysTool => kept.allow_tool(request.server, request.tool),
            Answer::AlwaysServer => kept.allow_server(
                request.server,
                request
                    .listed
                    .iter()
                    .filter(|t| t.server == request.server)
                    .map(|t| &t.tool)
                    .chain(std::iter::once(request.tool)),
            ),
            Answer::Once | Answer::Deny => return,
        }
        if let Err(e) = kept.save() {
            tracing::warn!(error = %e, "the approval holds for this run only");
        }
    }

    /// Asks `question`, if there is someone to ask; an answer it does
    /// not take is no.
    async fn ask(&self, question: Question<'_>) -> Option<Answer> {
        let person = self.person.as_ref()?;
        let answer = person.ask(question).await;
        Some(if question.answers().contains(&answer) {
            answer
        } else {
            Answer::Deny
        })
    }
}

impl Terminal {
    /// Asks `question` until a line is one of its answers (`accepts`), or
    /// the terminal ends (no).
    fn ask_lines(terminal: &Mutex<TerminalIo>, question: &str, accepts: &[Answer]) -> Answer {
        let mut terminal = lock(terminal);
        let mut prompt = question.to_owned();
        // Bounded: a stuck key cannot keep the line waiting for ever.
        for _ in 0..MAX_ASKED {
            if terminal
                .writer
                .write_all(prompt.as_bytes())
                .and_then(|()| terminal.writer.flush())
                .is_err()
            {
                return Answer::Deny;
            }
            let mut line = String::new();
            match terminal.reader.read_line(&mut line) {
                Ok(n) if n > 0 => {}
                _ => return Answer::Deny,
            }
            match Answer::parse(&line) {
                Some(answer) if accepts.contains(&answer) => return answer,
                _ => prompt = not_an_answer(accepts),
            }
        }
        Answer::Deny
    }
}

impl Person for Terminal {
    /// Asks off the runtime's threads (the terminal is read blocking).
    fn ask<'a>(&'a self, question: Question<'a>) -> BoxFuture<'a, Answer> {
        let text = match question {
            Question::Call(request) => call_question(request),
            Question::Definition(change) => format!(
                "\n[mcp-host] A tool's definition needs your approval.\n{}Offer `{}` of `{}` to the model? [y/N] ",
                change.details(),
                clean(&change.tool.name),
                clean(change.server),
            ),
        };
        let (terminal, accepts) = (Arc::clone(&self.0), question.answers());
        Box::pin(async move {
            tokio::task::spawn_blocking(move || Terminal::ask_lines(&terminal, &text, accepts))
                .await
                .unwrap_or(Answer::Deny)
        })
    }
}

/// A poisoned lock's data is still sound here (sets and a terminal).
pub(super) fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// The server's words reach a terminal: no escape sequences.
pub(super) fn clean(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { '\u{FFFD}' } else { c })
        .collect()
}

/// The input's short form: its JSON, cut to [`SHOWN_INPUT`] characters.
pub(super) fn short_input(input: &Value) -> String {
    let input = input.to_string();
    let count = input.chars().count();
    if count <= SHOWN_INPUT {
        return clean(&input);
    }
    let shown: String = input.chars().take(SHOWN_INPUT).collect();
    format!(
        "{}… ({} more characters)",
        clean(&shown),
        count - SHOWN_INPUT
    )
}

/// The prompt for `request`.
pub(super) fn call_question(request: &ApprovalRequest<'_>) -> String {
    let (tool, server) = (clean(&request.tool.name), clean(request.server));
    let hint = if request.is_trusted_read_only() {
        " (read-only)"
    } else {
        ""
    };
    let who = match request.caller {
        Caller::Model => "The model",
        Caller::App => "The server's app",
    };
    format!(
        "\n{who} asks to run `{tool}` of server `{server}`{hint} with {}\n\
         Run it? y = once, t = always `{tool}` of `{server}`, s = always any tool of `{server}`, n = no [y/t/s/N] ",
        short_input(request.input),
    )
}

impl Approver for AskTerminal {
    /// Runs without asking a trusted server's read-only tool (unless
    /// [`AskTerminal::ask_read_only`]) and what an earlier "always" answer
    /// covers; asks about the rest (and remembers an "always"); with no one
    /// to ask, the rest is [`Decision::Unasked`].
    fn decide<'a>(&'a self, request: &'a ApprovalRequest<'a>) -> BoxFuture<'a, Decision> {
        Box::pin(async move {
            if self.runs_unasked(request) {
                return Decision::Run;
            }
            let Some(answer) = self.ask(Question::Call(request)).await else {
                return Decision::Unasked;
            };
            self.remember(answer, request);
            answer.decision()
        })
    }

    fn approve_definition<'a>(
        &'a self,
        change: &'a DefinitionChange<'a>,
    ) -> BoxFuture<'a, Decision> {
        Box::pin(async move {
            match self.ask(Question::Definition(change)).await {
                Some(Answer::Once) => Decision::Run,
                Some(_) => Decision::Decline,
                None => Decision::Unasked,
            }
        })
    }
}
