//! What one read of a typed line gave, from stdin or from the line
//! editor alike.

/// What one read gave.
pub(crate) enum Read {
    /// A line, without its line end.
    Line(String),
    /// The end of the input (a pipe's end, Ctrl-D).
    End,
    /// Ctrl-C at the line editor's prompt: ends the program as SIGINT
    /// between lines does.
    #[cfg_attr(not(feature = "editor"), allow(dead_code))]
    Interrupted,
    /// The input failed.
    Failed(std::io::Error),
}
