//! What `--stream` and `--events` show while a line runs: the sink the
//! agent hands each [`Event`] to, from whichever task it happens on.

use crate::cli::Output;
use mcp_client::text::excerpt;
use mcp_host::agent::events::{Event, EventSink};
use std::collections::HashMap;
use std::io::Write;
use std::sync::{Arc, Mutex};

/// The longest input shown for a call on stderr, in bytes.
const INPUT_SHOWN: usize = 80;

/// The sink of `output` (`None` for the outputs that stream nothing).
pub(crate) fn sink(output: Output) -> Option<EventSink> {
    match output {
        Output::Text | Output::Json => None,
        Output::Events => Some(Arc::new(|event: &Event| {
            let mut stdout = std::io::stdout().lock();
            // A closed stdout ends the program at the answer's line.
            if serde_json::to_writer(&mut stdout, event).is_ok() {
                let _ = stdout.write_all(b"\n");
                let _ = stdout.flush();
            }
        })),
        Output::Stream => {
            // Each call's name, from its request to its end.
            let names: Mutex<HashMap<String, String>> = Mutex::default();
            Some(Arc::new(move |event: &Event| {
                let mut names = names.lock().unwrap_or_else(|e| e.into_inner());
                let mut name = |id: &str| names.remove(id).unwrap_or_default();
                match event {
                    Event::Text { text } => {
                        let mut stdout = std::io::stdout().lock();
                        let _ = stdout.write_all(text.as_bytes());
                        let _ = stdout.flush();
                    }
                    Event::CallRequested {
                        id,
                        tool,
                        server,
                        input,
                    } => {
                        let input = excerpt(&input.to_string(), INPUT_SHOWN);
                        // The host's own search tool has no server.
                        let shown = if server.is_empty() {
                            tool.clone()
                        } else {
                            format!("{server}/{tool}")
                        };
                        eprintln!("[{shown} {input}]");
                        names.insert(id.clone(), tool.clone());
                    }
                    Event::CallDeclined { id } => eprintln!("[{}: declined]", name(id)),
                    Event::CallNotRun { id, reason } => {
                        eprintln!("[{}: not run: {reason}]", name(id));
                    }
                    Event::CallFinished {
                        id,
                        duration_ms,
                        is_error,
                    } => {
                        let how = if *is_error { "failed after " } else { "" };
                        eprintln!("[{}: {how}{duration_ms} ms]", name(id));
                    }
                    _ => {}
                }
            }))
        }
    }
}
