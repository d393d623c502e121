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

use super::definition::DefinitionChange;
use mcp_client::BoxFuture;
use mcp_protocol::model::Tool;
use serde_json::Value;
use std::fmt;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::sync::{Arc, Mutex};

/// A call about to run.
#[derive(Clone, Copy, Debug)]
pub struct ApprovalRequest<'a> {
    /// The name the model used.
    pub model_name: &'a str,
    /// The tool, as its server lists it (its MCP name, its annotations).
    pub tool: &'a Tool,
    /// The server's config name.
    pub server: &'a str,
    /// Whether the server's annotations are believed.
    pub trusted: bool,
    /// The arguments.
    pub input: &'a Value,
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

/// Asks on the terminal: the call is shown (server, tool, input) and runs
/// on `y` or `yes`; anything else, or an end of input, declines.
#[derive(Clone)]
pub struct AskTerminal {
    terminal: Arc<Mutex<Terminal>>,
}

struct Terminal {
    reader: BufReader<Box<dyn std::io::Read + Send>>,
    writer: Box<dyn Write + Send>,
}

impl fmt::Debug for AskTerminal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AskTerminal").finish_non_exhaustive()
    }
}

/// The longest input shown in a prompt, in characters.
const SHOWN_INPUT: usize = 2_000;

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
        AskTerminal {
            terminal: Arc::new(Mutex::new(Terminal {
                reader: BufReader::new(Box::new(reader)),
                writer: Box::new(writer),
            })),
        }
    }

    fn ask(terminal: &Mutex<Terminal>, question: &str) -> Decision {
        let mut terminal = terminal.lock().unwrap_or_else(|e| e.into_inner());
        if terminal
            .writer
            .write_all(question.as_bytes())
            .and_then(|()| terminal.writer.flush())
            .is_err()
        {
            return Decision::Decline;
        }
        let mut answer = String::new();
        match terminal.reader.read_line(&mut answer) {
            Ok(n) if n > 0 => {}
            _ => return Decision::Decline,
        }
        match answer.trim().to_ascii_lowercase().as_str() {
            "y" | "yes" => Decision::Run,
            _ => Decision::Decline,
        }
    }
}

/// The prompt for `request`.
fn question(request: &ApprovalRequest<'_>) -> String {
    let mut input = request.input.to_string();
    if input.chars().count() > SHOWN_INPUT {
        input = input.chars().take(SHOWN_INPUT).collect::<String>() + "…";
    }
    // The server's words reach a terminal: no escape sequences.
    let clean = |text: &str| -> String {
        text.chars()
            .map(|c| if c.is_control() { '\u{FFFD}' } else { c })
            .collect()
    };
    let hint = if request.is_trusted_read_only() {
        " (read-only)"
    } else {
        ""
    };
    format!(
        "\nThe model asks to run `{}` of server `{}`{hint} with {}\nRun it? [y/N] ",
        clean(&request.tool.name),
        clean(request.server),
        clean(&input),
    )
}

impl AskTerminal {
    /// Asks `question` off the runtime's threads (the terminal is read
    /// blocking).
    fn ask_blocking(&self, question: String) -> BoxFuture<'static, Decision> {
        let terminal = Arc::clone(&self.terminal);
        Box::pin(async move {
            tokio::task::spawn_blocking(move || AskTerminal::ask(&terminal, &question))
                .await
                .unwrap_or(Decision::Decline)
        })
    }
}

impl Approver for AskTerminal {
    fn decide<'a>(&'a self, request: &'a ApprovalRequest<'a>) -> BoxFuture<'a, Decision> {
        self.ask_blocking(question(request))
    }

    fn approve_definition<'a>(
        &'a self,
        change: &'a DefinitionChange<'a>,
    ) -> BoxFuture<'a, Decision> {
        self.ask_blocking(format!(
            "\n{}Offer it to the model? [y/N] ",
            change.details()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_protocol::model::ToolAnnotations;
    use serde_json::json;

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
            tool,
            server: "weather",
            trusted,
            input,
        }
    }

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

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_terminal_prompt_shows_the_call_and_reads_one_answer_each() {
        let shown = Shared::default();
        let ask = AskTerminal::over(&b"y\nno\n\x1b[31m\n"[..], shown.clone());
        let tool = tool(None);
        let input = json!({"city": "北京"});
        let request = request(&tool, true, &input);
        assert_eq!(ask.decide(&request).await, Decision::Run);
        assert_eq!(ask.decide(&request).await, Decision::Decline);
        assert_eq!(ask.decide(&request).await, Decision::Decline);
        assert_eq!(
            ask.decide(&request).await,
            Decision::Decline,
            "end of input declines"
        );
        let shown = String::from_utf8(shown.0.lock().unwrap().clone()).unwrap();
        assert!(shown.contains("The model asks to run `get_weather` of server `weather` with {\"city\":\"北京\"}\nRun it? [y/N] "), "{shown}");
    }
}
