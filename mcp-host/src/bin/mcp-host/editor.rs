//! The line editor at a terminal (rustyline): editing, an in-memory
//! history, and tab completion ([`complete`]). rustyline reads on a
//! blocking thread of its own; its completer runs there too, so a
//! [`Lookup`] that asks a server waits for it there, bounded, never on
//! the runtime's thread.

use crate::complete::{self, Lookup};
use crate::read::Read;
use rustyline::completion::{Completer, Pair};
use rustyline::error::ReadlineError;
use rustyline::history::MemHistory;
use rustyline::{CompletionType, Config, Context, Editor, Helper};
use std::sync::Arc;

/// The prompt shown before each line.
const PROMPT: &str = "> ";
/// The lines the history keeps.
const HISTORY: usize = 1000;

/// rustyline's helper: completion from a [`Lookup`], nothing else.
struct Completion(Arc<dyn Lookup + Send + Sync>);

impl Completer for Completion {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let (start, candidates) = complete::complete(line, pos, self.0.as_ref());
        let pairs = candidates
            .into_iter()
            .map(|c| Pair {
                display: c.display,
                replacement: c.replacement,
            })
            .collect();
        Ok((start, pairs))
    }
}

impl rustyline::hint::Hinter for Completion {
    type Hint = String;
}
impl rustyline::highlight::Highlighter for Completion {}
impl rustyline::validate::Validator for Completion {}
impl Helper for Completion {}

/// The editor, on the terminal that is stdin and stdout.
pub(crate) struct LineEditor {
    /// `None` while a read is under way on its thread (and for good when
    /// that read was abandoned).
    editor: Option<Editor<Completion, MemHistory>>,
    /// The terminal's mode before the editor changed it, put back when the
    /// program ends during a read (the editor's thread never returns).
    #[cfg(unix)]
    saved: Option<rustix::termios::Termios>,
}

impl LineEditor {
    /// The editor completing from `lookup`.
    pub(crate) fn open(lookup: Arc<dyn Lookup + Send + Sync>) -> Result<LineEditor, ReadlineError> {
        let config = Config::builder()
            .auto_add_history(true)
            .max_history_size(HISTORY)?
            .completion_type(CompletionType::List)
            .build();
        let mut editor = Editor::with_history(config, MemHistory::new())?;
        editor.set_helper(Some(Completion(lookup)));
        Ok(LineEditor {
            editor: Some(editor),
            #[cfg(unix)]
            saved: rustix::termios::tcgetattr(std::io::stdin()).ok(),
        })
    }

    /// The next line, read on a blocking thread.
    pub(crate) async fn read(&mut self) -> Read {
        let Some(mut editor) = self.editor.take() else {
            return Read::End;
        };
        let reading = tokio::task::spawn_blocking(move || {
            let read = editor.readline(PROMPT);
            (editor, read)
        });
        let (editor, read) = match reading.await {
            Ok(done) => done,
            Err(e) => return Read::Failed(std::io::Error::other(e)),
        };
        self.editor = Some(editor);
        match read {
            Ok(line) => Read::Line(line),
            Err(ReadlineError::Eof) => Read::End,
            Err(ReadlineError::Interrupted) => Read::Interrupted,
            Err(ReadlineError::Io(e)) => Read::Failed(e),
            Err(e) => Read::Failed(std::io::Error::other(e)),
        }
    }
}

impl Drop for LineEditor {
    fn drop(&mut self) {
        #[cfg(unix)]
        if self.editor.is_none()
            && let Some(saved) = &self.saved
        {
            // Ended during a read: the terminal is still raw.
            let _ = rustix::termios::tcsetattr(
                std::io::stdin(),
                rustix::termios::OptionalActions::Now,
                saved,
            );
        }
    }
}
