//! Where the typed lines come from: a line editor (feature `editor`:
//! completion, history) when stdin and stdout are a terminal, else stdin
//! read a line at a time as from a pipe.

#[cfg(feature = "editor")]
use crate::editor::LineEditor;
use crate::read::Read;
use tokio::io::AsyncBufReadExt;

/// The source of the typed lines.
pub(crate) enum Input {
    /// Stdin as it is.
    Plain {
        stdin: tokio::io::BufReader<tokio::io::Stdin>,
        buffer: Vec<u8>,
    },
    /// The line editor on the terminal.
    #[cfg(feature = "editor")]
    Editor(LineEditor),
}

impl Input {
    /// Stdin read a line at a time.
    pub(crate) fn plain() -> Input {
        Input::Plain {
            stdin: tokio::io::BufReader::new(tokio::io::stdin()),
            buffer: Vec::new(),
        }
    }

    /// The next line. Cancel-safe only in that a cancelled read ends the
    /// input: the program ends after it.
    pub(crate) async fn read(&mut self) -> Read {
        match self {
            Input::Plain { stdin, buffer } => {
                buffer.clear();
                match stdin.read_until(b'\n', buffer).await {
                    Ok(0) => Read::End,
                    Ok(_) => {
                        let line = String::from_utf8_lossy(buffer);
                        Read::Line(line.trim_end_matches(['\n', '\r']).to_owned())
                    }
                    Err(e) => Read::Failed(e),
                }
            }
            #[cfg(feature = "editor")]
            Input::Editor(editor) => editor.read().await,
        }
    }
}
