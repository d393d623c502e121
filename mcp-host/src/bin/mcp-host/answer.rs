//! One answer on stdout: its text (after the streamed text, a blank
//! line), or one JSON line with `--json` and `--events`.

use crate::cli::Output;
use mcpfn_host::agent::Answer;
use mcpfn_host::agent::calls::CallRecord;
use mcpfn_host::agent::history::Trim;
use mcpfn_host::provider::Usage;
use serde::Serialize;
use std::io::Write;

/// One `--json` output line.
#[derive(Serialize)]
struct Line<'a> {
    text: &'a str,
    stop_reason: &'a str,
    turns: u32,
    usage: Usage,
    tool_calls: &'a [CallRecord],
    /// What of the history was dropped or summarized to fit the window.
    #[serde(skip_serializing_if = "Option::is_none")]
    trimmed: Option<Trim>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    /// With `error`: how many of `tool_calls` ran and stay in the history.
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_calls_kept: Option<usize>,
}

/// A line's failure as the output says it.
pub(crate) struct Failure {
    pub(crate) error: String,
    pub(crate) calls_kept: usize,
}

/// Writes `answer` (with its `failure`, if any) as `output` says.
pub(crate) fn write_answer(
    answer: &Answer,
    failure: Option<Failure>,
    output: Output,
) -> std::io::Result<()> {
    let mut stdout = std::io::stdout().lock();
    if let Output::Json | Output::Events = output {
        let (error, tool_calls_kept) = match failure {
            Some(failure) => (Some(failure.error), Some(failure.calls_kept)),
            None => (None, None),
        };
        let line = Line {
            text: &answer.text,
            stop_reason: &answer.stop_reason,
            turns: answer.responses,
            usage: answer.usage,
            tool_calls: &answer.tool_calls,
            trimmed: answer.trimmed,
            error,
            tool_calls_kept,
        };
        if output == Output::Events {
            let mut tagged = serde_json::to_value(&line)?;
            tagged["event"] = "answer".into();
            serde_json::to_writer(&mut stdout, &tagged)?;
        } else {
            serde_json::to_writer(&mut stdout, &line)?;
        }
        stdout.write_all(b"\n")?;
    } else if output == Output::Stream {
        // The text has been written as it came.
        writeln!(stdout, "\n")?;
    } else {
        writeln!(stdout, "{}\n", answer.text)?;
    }
    stdout.flush()
}
