//! The conversation on stdin: one line read at a time, answered through
//! the agent, interrupted or ended by a signal, its answer written out and
//! what went wrong said on stderr.

use crate::answer::{Failure, write_answer};
use crate::cli::Output;
use crate::input::Input;
use crate::read::Read;
use crate::show;
use crate::signals::{INTERRUPT_STATUS, Signals};
use crate::typed::{self, Taken};
use mcpfn_client::text::excerpt;
use mcpfn_host::agent::history::Trim;
use mcpfn_host::agent::interrupt::{INTERRUPTED, Interrupt, TIMED_OUT};
use mcpfn_host::agent::{Agent, Answer, Conversation};
use std::future::IntoFuture;
use std::process::ExitCode;
use std::time::Duration;

/// How [`converse`] ended.
pub(crate) enum Ended {
    /// On its own: the end of stdin, or a failure.
    Status(ExitCode),
    /// On a signal, with its name and the status to exit with.
    Signal(&'static str, u8),
}

/// Answers the typed lines (a command is run, the rest sent:
/// [`typed::take`]) until the input's end or a signal; the first SIGINT
/// during a line interrupts that line alone. At the end of the input,
/// fails when lines were read and none was answered.
pub(crate) async fn converse(
    input: &mut Input,
    agent: &Agent,
    conversation: &mut Conversation,
    output: Output,
    line_timeout: Duration,
    signals: &mut Signals,
) -> Ended {
    let sink = show::sink(output);
    // Lines answered, and lines that failed or timed out.
    let (mut answered, mut unanswered) = (0_u64, 0_u64);
    loop {
        let read = tokio::select! {
            read = input.read() => read,
            (name, status) = signals.next() => return Ended::Signal(name, status),
        };
        let typed = match read {
            Read::End if answered == 0 && unanswered > 0 => {
                eprintln!("mcp-host: no line was answered ({unanswered} failed or timed out)");
                return Ended::Status(ExitCode::FAILURE);
            }
            Read::End => return Ended::Status(ExitCode::SUCCESS),
            Read::Interrupted => return Ended::Signal("SIGINT", INTERRUPT_STATUS),
            Read::Line(line) => line,
            Read::Failed(e) => {
                eprintln!("mcp-host: stdin: {e}");
                return Ended::Status(ExitCode::FAILURE);
            }
        };
        if typed.trim().is_empty() {
            continue;
        }
        // A prompt or a resource fetched first: Ctrl-C drops the line.
        let taken = tokio::select! {
            taken = typed::take(&typed, agent, output) => taken,
            (name, status) = signals.next() => {
                if status != INTERRUPT_STATUS {
                    return Ended::Signal(name, status);
                }
                eprintln!("mcp-host: interrupted (SIGINT): `{}` was not sent", excerpt(&typed, LINE_SHOWN));
                continue;
            }
        };
        let Some(taken) = taken else {
            continue;
        };
        // What the notes on stderr quote of the line.
        let line = match &taken {
            Taken::Text(text) => text.as_str(),
            Taken::Turn(_) => typed.as_str(),
        };
        let interrupt = Interrupt::new();
        let sent = {
            let send = match &taken {
                Taken::Text(text) => agent.send(conversation, text),
                Taken::Turn(turn) => agent.send_turn(conversation, turn),
            };
            let send = send
                .interrupt(&interrupt)
                .events(sink.as_ref())
                .into_future();
            tokio::pin!(send);
            loop {
                tokio::select! {
                    sent = &mut send => break sent,
                    (name, status) = signals.next() => {
                        if status != INTERRUPT_STATUS || interrupt.is_interrupted() {
                            return Ended::Signal(name, status);
                        }
                        interrupt.interrupt();
                    }
                }
            }
        };
        let (answer, failure) = match sent {
            Ok(answer) if answer.stop_reason == INTERRUPTED => {
                eprintln!("mcp-host: {}", interrupted_note(line, &answer));
                // Nothing was answered; `--json` and `--events` keep
                // their line per line.
                if matches!(output, Output::Text | Output::Stream) {
                    continue;
                }
                (answer, None)
            }
            Ok(answer) if answer.stop_reason == TIMED_OUT => {
                unanswered += 1;
                let error = timed_out_error(line_timeout);
                eprintln!("mcp-host: {error}: {}", cut_short(line, &answer));
                let failure = Failure {
                    error,
                    calls_kept: answer.tool_calls.len(),
                };
                (answer, Some(failure))
            }
            Ok(answer) => {
                answered += 1;
                (answer, None)
            }
            Err(failed) if failed.error.is_auth() => {
                eprintln!("mcp-host: {}", failed.error);
                return Ended::Status(ExitCode::FAILURE);
            }
            Err(failed) => {
                unanswered += 1;
                let kept = match failed.calls_kept {
                    0 => String::new(),
                    1 => "; 1 tool call ran before the failure and is kept in the history".into(),
                    n => format!(
                        "; {n} tool calls ran before the failure and are kept in the history"
                    ),
                };
                eprintln!("mcp-host: the model request failed: {}{kept}", failed.error);
                let failure = Failure {
                    error: failed.error.to_string(),
                    calls_kept: failed.calls_kept,
                };
                (failed.partial, Some(failure))
            }
        };
        if let Some(trim) = answer.trimmed {
            eprintln!("mcp-host: {}", trim_note(trim));
        }
        if let Err(e) = write_answer(&answer, failure, output) {
            // stdout closed: nobody reads the answers any more.
            eprintln!("mcp-host: stdout: {e}");
            return Ended::Status(ExitCode::FAILURE);
        }
    }
}

/// The stderr line of an interrupted line: which, and what of it stays.
fn interrupted_note(line: &str, answer: &Answer) -> String {
    format!(
        "interrupted (SIGINT): {}; Ctrl-C again while a line runs ends the program",
        cut_short(line, answer)
    )
}

/// The error of a line past `--line-timeout`, on stderr and in `--json`.
fn timed_out_error(limit: Duration) -> String {
    format!(
        "the line timed out after {} s (--line-timeout)",
        limit.as_secs_f64()
    )
}

/// The longest excerpt of a line a note on stderr quotes, in bytes.
const LINE_SHOWN: usize = 80;

/// A line cut short, quoted, and what of it stays in the history.
fn cut_short(line: &str, answer: &Answer) -> String {
    let kept = match answer.tool_calls.len() {
        0 => "the line is dropped from the conversation".to_owned(),
        1 => "its 1 tool call is kept in the history".to_owned(),
        n => format!("its {n} tool calls are kept in the history"),
    };
    format!("`{}`: {kept}", excerpt(line, LINE_SHOWN))
}

/// The stderr line of an overflow's trim.
fn trim_note(trim: Trim) -> String {
    let lines = match trim.turns {
        1 => "line".to_owned(),
        n => format!("{n} lines"),
    };
    let done = if trim.summarized {
        format!(
            "the oldest {lines} ({} messages) were replaced by a summary the model wrote",
            trim.messages + 1
        )
    } else {
        format!(
            "the oldest {lines} were dropped ({} messages, the first question kept)",
            trim.messages
        )
    };
    format!(
        "the conversation did not fit the model's context window: {done}, and the request was sent again"
    )
}
