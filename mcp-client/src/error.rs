//! The one error type of the client machinery.

use std::fmt;
use std::time::Duration;

/// A JSON-RPC error object (`{code, message, data?}`), the protocol
/// crate's own.
pub use mcp_protocol::RpcError;

/// Why a request, a notification or a connection failed.
///
/// `Clone`, because one failure of a connection (the server exited) is
/// reported to every call that was waiting on it and to every later one.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ClientError {
    /// The server's process could not be started.
    Spawn {
        /// The server's name in the configuration.
        server: String,
        /// The command that was run.
        command: String,
        /// The operating system's reason.
        reason: String,
    },
    /// The server's process exited (or closed its stdout and was stopped).
    Exited {
        /// The server's name in the configuration.
        server: String,
        /// How it ended, as the OS reports it (`exit status: 1`,
        /// `signal: 9 (SIGKILL)`), or what was seen instead.
        status: String,
        /// The last lines it wrote to stderr, if any: usually the reason.
        stderr: String,
    },
    /// The connection is gone for a reason other than the process exiting:
    /// a write failed, the HTTP server cannot be reached, the stream broke.
    Disconnected {
        /// The server's name in the configuration.
        server: String,
        /// What happened.
        reason: String,
    },
    /// This side closed the connection; nothing more can be sent on it.
    Closed,
    /// No response came within the request's timeout; the request was
    /// cancelled.
    Timeout {
        /// The request's method.
        method: String,
        /// The timeout that passed.
        after: Duration,
    },
    /// The server answered with a JSON-RPC error object.
    Rpc(RpcError),
    /// The server sent something that is not the JSON-RPC message expected.
    Malformed {
        /// What was wrong.
        reason: String,
    },
    /// A message from the server was larger than the configured bound and
    /// was discarded unread.
    TooLarge {
        /// The server's name in the configuration.
        server: String,
        /// The bound, in bytes.
        limit: usize,
    },
    /// The HTTP server answered a status that carries no JSON-RPC error.
    Http {
        /// The status code.
        status: u16,
        /// The start of the response body, for the log.
        body: String,
    },
    /// The HTTP server no longer knows this session (`404` to a request
    /// that carried `Mcp-Session-Id`): the connection must be made again.
    SessionExpired,
    /// As many requests as the configured bound were waiting for a
    /// response for the whole of this request's timeout: it was never sent.
    TooManyPending {
        /// The server's name in the configuration.
        server: String,
        /// The bound.
        limit: usize,
    },
    /// The server's message would build a JSON tree over the connection's
    /// budget (see `DispatcherConfig::json_budget`); it was dropped unparsed
    /// and the request it answered failed with this.
    AnswerTooLarge {
        /// The server's name in the configuration.
        server: String,
        /// What the budget check found.
        reason: String,
    },
    /// The server stopped reading what this client sends while the replies
    /// owed to it filled their queue; the connection was ended.
    Unresponsive {
        /// The server's name in the configuration.
        server: String,
        /// What it stopped reading (`its stdin`).
        input: &'static str,
        /// How many replies were waiting to be written.
        owed: usize,
    },
    /// The configuration is unusable (a URL that does not parse, a header
    /// that is not valid in HTTP).
    Config {
        /// What is wrong.
        reason: String,
    },
}

impl ClientError {
    /// Whether this error means the connection is unusable, so that the
    /// next use should make a new one.
    pub fn is_connection_lost(&self) -> bool {
        matches!(
            self,
            ClientError::Exited { .. }
                | ClientError::Disconnected { .. }
                | ClientError::Closed
                | ClientError::SessionExpired
                | ClientError::Unresponsive { .. }
        )
    }
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::Spawn {
                server,
                command,
                reason,
            } => write!(
                f,
                "server `{server}` could not be started (`{command}`): {reason}"
            ),
            ClientError::Exited {
                server,
                status,
                stderr,
            } => {
                write!(f, "server `{server}` exited ({status})")?;
                if !stderr.is_empty() {
                    write!(f, "; its last stderr output: {stderr}")?;
                }
                Ok(())
            }
            ClientError::Disconnected { server, reason } => {
                write!(f, "connection to server `{server}` lost: {reason}")
            }
            ClientError::Closed => f.write_str("the connection was closed by this client"),
            ClientError::Timeout { method, after } => write!(
                f,
                "no response to `{method}` within {:.1} s; the request was cancelled",
                after.as_secs_f64()
            ),
            ClientError::Rpc(error) => {
                write!(
                    f,
                    "the server answered an error: {} (code {})",
                    error.message, error.code
                )?;
                if let Some(data) = &error.data {
                    write!(f, "; data: {data}")?;
                }
                Ok(())
            }
            ClientError::Malformed { reason } => {
                write!(f, "the server sent a malformed message: {reason}")
            }
            ClientError::TooLarge { server, limit } => write!(
                f,
                "server `{server}` sent a message larger than the limit of {limit} bytes; it was discarded"
            ),
            ClientError::Http { status, body } => {
                write!(f, "the server answered HTTP {status}")?;
                if !body.is_empty() {
                    write!(f, ": {body}")?;
                }
                Ok(())
            }
            ClientError::SessionExpired => {
                f.write_str("the server no longer knows this session (HTTP 404)")
            }
            ClientError::TooManyPending { server, limit } => write!(
                f,
                "too many calls in flight to server `{server}` ({limit}); try fewer at once"
            ),
            ClientError::AnswerTooLarge { server, reason } => write!(
                f,
                "server `{server}` sent an answer too large to hold: {reason}; it was dropped"
            ),
            ClientError::Unresponsive {
                server,
                input,
                owed,
            } => write!(
                f,
                "server `{server}` stopped reading {input} ({owed} replies owed to it could not be written); ended"
            ),
            ClientError::Config { reason } => write!(f, "invalid configuration: {reason}"),
        }
    }
}

impl std::error::Error for ClientError {}

/// At most `max` bytes of `text` (cut at a character boundary), with
/// control characters replaced: a server's words go into our log and into
/// error messages a terminal shows, where escape sequences must not pass.
pub fn excerpt(text: &str, max: usize) -> String {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let mut out: String = text[..end]
        .trim_end()
        .chars()
        .map(|c| {
            if c.is_control() && c != '\t' {
                '\u{FFFD}'
            } else {
                c
            }
        })
        .collect();
    if end < text.len() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_are_cut_and_cleaned() {
        assert_eq!(excerpt("plain", 100), "plain");
        assert_eq!(excerpt("\u{1b}[31mred\n", 100), "\u{FFFD}[31mred");
        assert_eq!(excerpt("ééé", 3), "é…");
    }
}
