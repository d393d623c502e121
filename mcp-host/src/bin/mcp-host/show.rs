//! What `--stream` and `--events` show while a line runs: the sink the
//! agent hands each [`Event`] to, from whichever task it happens on.
//! `--events` writes each as a JSON line (`call_progress` among them);
//! `--stream` writes the text to stdout and the calls to stderr.

use crate::cli::Output;
use mcpfn_client::text::excerpt;
use mcpfn_host::agent::events::{Event, EventSink};
use std::collections::HashMap;
use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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
            let view = Mutex::new(StreamView {
                names: HashMap::new(),
                progress_shown: HashMap::new(),
                open: false,
                terminal: std::io::stderr().is_terminal(),
            });
            Some(Arc::new(move |event: &Event| {
                view.lock().unwrap_or_else(|e| e.into_inner()).show(event);
            }))
        }
    }
}

/// How often a call's progress is redrawn in place on a terminal at most.
const PROGRESS_REDRAW: Duration = Duration::from_millis(100);
/// How often a call's progress gets a line of its own at most where stderr
/// is no terminal (each line stays in a log).
const PROGRESS_LINE: Duration = Duration::from_secs(1);

/// A server's progress number, short whatever it is (`3`, `0.5`, `1e300`).
fn number(value: f64) -> String {
    if value.is_finite() && value.abs() < 1e12 {
        format!("{value}")
    } else {
        format!("{value:e}")
    }
}

/// What `--stream` shows on stderr of the calls: a line per request and
/// end, and their progress (one line updated in place with `\r` when
/// stderr is a terminal; rate-limited plain lines otherwise).
struct StreamView {
    /// Each call's name, from its request to its end.
    names: HashMap<String, String>,
    /// When each running call's progress was last shown.
    progress_shown: HashMap<String, Instant>,
    /// A progress line is on the terminal, not yet ended by a newline.
    open: bool,
    terminal: bool,
}

impl StreamView {
    fn show(&mut self, event: &Event) {
        match event {
            Event::Text { text } => {
                self.close_progress();
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
                self.line(&format!("[{shown} {input}]"));
                self.names.insert(id.clone(), tool.clone());
            }
            Event::CallDeclined { id } => {
                let line = format!("[{}: declined]", self.end(id));
                self.line(&line);
            }
            Event::CallNotRun { id, reason } => {
                let line = format!("[{}: not run: {reason}]", self.end(id));
                self.line(&line);
            }
            Event::CallProgress {
                id,
                progress,
                total,
                message,
            } => self.progress(id, *progress, *total, message.as_deref()),
            Event::CallFinished {
                id,
                duration_ms,
                is_error,
            } => {
                let how = if *is_error { "failed after " } else { "" };
                let line = format!("[{}: {how}{duration_ms} ms]", self.end(id));
                self.line(&line);
            }
            _ => {}
        }
    }

    /// The call `id` is over: its name, and its progress forgotten.
    fn end(&mut self, id: &str) -> String {
        self.progress_shown.remove(id);
        self.names.remove(id).unwrap_or_default()
    }

    fn progress(&mut self, id: &str, progress: f64, total: Option<f64>, message: Option<&str>) {
        let every = if self.terminal {
            PROGRESS_REDRAW
        } else {
            PROGRESS_LINE
        };
        // Reports of a call already over (they travel beside its result)
        // are not shown.
        let Some(name) = self.names.get(id) else {
            return;
        };
        let now = Instant::now();
        if self
            .progress_shown
            .get(id)
            .is_some_and(|at| now.duration_since(*at) < every)
        {
            return;
        }
        self.progress_shown.insert(id.to_owned(), now);
        let mut text = format!("[{name}: {}", number(progress));
        if let Some(total) = total {
            text.push('/');
            text.push_str(&number(total));
        }
        if let Some(message) = message {
            text.push(' ');
            text.push_str(message);
        }
        text.push(']');
        if self.terminal {
            // Back to the line's start, the line cleared, no newline.
            let mut stderr = std::io::stderr().lock();
            let _ = write!(stderr, "\r\x1b[K{text}");
            let _ = stderr.flush();
            self.open = true;
        } else {
            self.line(&text);
        }
    }

    /// One whole line on stderr, over a progress line if one is shown.
    fn line(&mut self, text: &str) {
        self.close_progress();
        eprintln!("{text}");
    }

    /// Clears the progress line on the terminal, if one is shown.
    fn close_progress(&mut self) {
        if self.open {
            let mut stderr = std::io::stderr().lock();
            let _ = write!(stderr, "\r\x1b[K");
            let _ = stderr.flush();
            self.open = false;
        }
    }
}
