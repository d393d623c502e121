//! Why the client failed: [`ClientError`] at the message level (transport,
//! correlation), [`McpError`] at the level of MCP (eras, tool lists,
//! tasks), which carries the former.
//!
//! Both are `Clone`: one failure of a connection (the server exited) is
//! reported to every call that was waiting on it and to every later one.
//! What a server or the operating system said is kept as text, cut and
//! made safe ([`excerpt`](crate::text::excerpt)). The error beneath a
//! spawn failure or a lost connection is also kept whole, as a [`Cause`]
//! reached through `source()`, for a caller that inspects it (an
//! `io::ErrorKind`); [`McpError::Client`] is shown as itself
//! (`transparent`).

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// The underlying error of a [`ClientError`] (the operating system's, the
/// HTTP stack's), reached through `source()`.
///
/// Shared, so that the error stays `Clone`; shown as the error it holds,
/// and its `source()` is that error's, so a walk down the chain reads the
/// same texts as before. [`Cause::get`] gives the error itself, to
/// downcast. Two causes are equal when their texts are: the text is what
/// the variant beside it already reports.
#[derive(Clone)]
pub struct Cause(Arc<dyn std::error::Error + Send + Sync>);

impl Cause {
    /// Keeps `error` as a cause.
    pub fn new(error: impl std::error::Error + Send + Sync + 'static) -> Self {
        Cause(Arc::new(error))
    }

    /// The error kept, e.g. to `downcast_ref` it.
    pub fn get(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
        &*self.0
    }
}

impl fmt::Debug for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl std::error::Error for Cause {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

impl PartialEq for Cause {
    fn eq(&self, other: &Self) -> bool {
        self.0.to_string() == other.0.to_string()
    }
}

/// A JSON-RPC error object (`{code, message, data?}`), the protocol
/// crate's own.
pub use mcpfn_protocol::RpcError;

/// Why a request, a notification or a connection failed.
///
/// `Clone`, because one failure of a connection (the server exited) is
/// reported to every call that was waiting on it and to every later one.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The server's process could not be started.
    #[error("server `{server}` could not be started (`{command}`): {reason}")]
    Spawn {
        /// The server's name in the configuration.
        server: String,
        /// The command that was run.
        command: String,
        /// The operating system's reason.
        reason: String,
        /// The operating system's error, when there is one.
        #[source]
        cause: Option<Cause>,
    },
    /// The server's process exited (or closed its stdout and was stopped).
    #[error("server `{server}` exited ({status}){}", stderr_tail(.stderr))]
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
    #[error("connection to server `{server}` lost: {reason}")]
    Disconnected {
        /// The server's name in the configuration.
        server: String,
        /// What happened.
        reason: String,
        /// The error beneath (a refused connect, a broken stream), when
        /// there is one.
        #[source]
        cause: Option<Cause>,
    },
    /// This side closed the connection; nothing more can be sent on it.
    #[error("the connection was closed by this client")]
    Closed,
    /// No response came within the request's timeout; the request was
    /// cancelled.
    #[error("no response to `{method}` within {:.1} s; the request was cancelled", .after.as_secs_f64())]
    Timeout {
        /// The request's method.
        method: String,
        /// The timeout that passed.
        after: Duration,
    },
    /// The server answered with a JSON-RPC error object (shown whole, so
    /// not also its source).
    #[error("the server answered an error: {}", rpc_text(.0))]
    Rpc(RpcError),
    /// The server sent something that is not the JSON-RPC message expected.
    #[error("the server sent a malformed message: {reason}")]
    Malformed {
        /// What was wrong.
        reason: String,
    },
    /// A message from the server was larger than the configured bound and
    /// was discarded unread.
    #[error(
        "server `{server}` sent a message {}larger than the limit of {limit} bytes; it was discarded", size_of(.size)
    )]
    TooLarge {
        /// The server's name in the configuration.
        server: String,
        /// The bound, in bytes.
        limit: usize,
        /// The message's size in bytes, when it is known (a stdio line
        /// skipped to its end, an HTTP `Content-Length`).
        size: Option<usize>,
    },
    /// The HTTP server answered a status that carries no JSON-RPC error.
    #[error("the server answered HTTP {status}{}", body_tail(.body))]
    Http {
        /// The status code.
        status: u16,
        /// The start of the response body, for the log.
        body: String,
    },
    /// The HTTP server no longer knows this session (`404` to a request
    /// that carried `Mcp-Session-Id`): the connection must be made again.
    #[error("the server no longer knows this session (HTTP 404)")]
    SessionExpired,
    /// As many requests as the configured bound were waiting for a
    /// response for the whole of this request's timeout: it was never sent.
    #[error("too many calls in flight to server `{server}` ({limit}); try fewer at once")]
    TooManyPending {
        /// The server's name in the configuration.
        server: String,
        /// The bound.
        limit: usize,
    },
    /// The server's message would build a JSON tree over the connection's
    /// budget (see `DispatcherConfig::json_budget`); it was dropped unparsed
    /// and the request it answered failed with this.
    #[error("server `{server}` sent an answer too large to hold: {reason}; it was dropped")]
    AnswerTooLarge {
        /// The server's name in the configuration.
        server: String,
        /// What the budget check found.
        reason: String,
    },
    /// The server stopped reading what this client sends while the replies
    /// owed to it filled their queue; the connection was ended.
    #[error(
        "server `{server}` stopped reading {input} ({owed} replies owed to it could not be written); ended"
    )]
    Unresponsive {
        /// The server's name in the configuration.
        server: String,
        /// What it stopped reading (`its stdin`).
        input: &'static str,
        /// How many replies were waiting to be written.
        owed: usize,
    },
    /// The server asks for authorization and none could be had (the
    /// OAuth flow failed, or the server still refuses the token).
    #[error("server `{server}` needs authorization: {reason}")]
    Unauthorized {
        /// The server's name in the configuration.
        server: String,
        /// Why no accepted token could be had.
        reason: String,
    },
    /// The configuration is unusable (a URL that does not parse, a header
    /// that is not valid in HTTP).
    #[error("invalid configuration: {reason}")]
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

/// `; its last stderr output: …` when the server wrote any.
fn stderr_tail(stderr: &str) -> String {
    if stderr.is_empty() {
        String::new()
    } else {
        format!("; its last stderr output: {stderr}")
    }
}

/// `of N bytes, ` when the size is known.
fn size_of(size: &Option<usize>) -> String {
    size.map_or_else(String::new, |n| format!("of {n} bytes, "))
}

/// `: …` with the start of the body, when there is one.
fn body_tail(body: &str) -> String {
    if body.is_empty() {
        String::new()
    } else {
        format!(": {body}")
    }
}

/// A JSON-RPC error as a message says it: `message (code N); data: …`.
fn rpc_text(error: &RpcError) -> String {
    let mut text = format!("{} (code {})", error.message, error.code);
    if let Some(data) = &error.data {
        text.push_str(&format!("; data: {data}"));
    }
    text
}

/// Why the client could not do what was asked.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum McpError {
    /// The message level failed (transport, timeout, a JSON-RPC error).
    #[error(transparent)]
    Client(#[from] ClientError),
    /// The server chose a revision we do not speak.
    #[error(
        "server `{server}` chose protocol revision {version:?}, which this client does not speak (it speaks 2024-11-05 to 2025-11-25 and 2026-07-28)"
    )]
    UnsupportedVersion {
        /// The server's config name.
        server: String,
        /// The revision it chose.
        version: String,
    },
    /// [`Mode::Modern`](crate::Mode::Modern) was asked for and the server does not speak 2026-07-28.
    #[error("server `{server}` does not speak 2026-07-28: {reason}")]
    NotModern {
        /// The server's config name.
        server: String,
        /// What it said.
        reason: String,
    },
    /// The server answered something the protocol does not allow.
    #[error("server `{server}` broke the protocol: {reason}")]
    Protocol {
        /// The server's config name.
        server: String,
        /// What was wrong.
        reason: String,
    },
    /// The task the call became ended without a result: the server
    /// cancelled it, or no longer knows it (`tasks/get` answered `-32602`).
    /// A task that failed is the JSON-RPC error it carries
    /// ([`McpError::Client`] with [`ClientError::Rpc`]), as a direct answer
    /// would have been.
    #[error("server `{server}`: task `{task_id}` {reason}")]
    TaskEnded {
        /// The server's config name.
        server: String,
        /// The task's id.
        task_id: String,
        /// What happened, as a clause ("was cancelled by the server").
        reason: String,
    },
    /// The server passed one of the client's caps ([`ListLimits`](crate::ListLimits)): its
    /// tool list has more tools, bytes, pages or memory than allowed.
    #[error("server `{server}`: {reason}")]
    Limit {
        /// The server's config name.
        server: String,
        /// Which cap it passed ("its tool list passed 1,000 tools (…)").
        reason: String,
    },
    /// A skill's file could not be had as its manifest describes it (the
    /// Skills extension): not one of its files, not under its directory,
    /// a manifest past the extension's limits, or bytes whose size or
    /// SHA-256 digest differ from the manifest's.
    #[error("server `{server}`: skill `{skill}`: {reason}")]
    Skill {
        /// The server's config name.
        server: String,
        /// The skill's name (its frontmatter's, else its `SKILL.md` URI).
        skill: String,
        /// What was wrong.
        reason: String,
    },
    /// The configuration cannot be used by this build (an `https://` URL
    /// without the `https` feature, a `"type": "sse"` server).
    #[error("server `{server}`: {reason}")]
    Config {
        /// The server's config name.
        server: String,
        /// What is wrong.
        reason: String,
    },
}
