//! What a running tool sends its client besides the answer: progress and
//! log messages (sent only while the call is unanswered and not
//! cancelled), and the request to close its SSE stream.

use super::Context;
use crate::conn::peer::{LogMessage, Progress};
use crate::level::Level;
use crate::outcome::ToolError;
use crate::util::lock;
use serde_json::Value;
use std::sync::atomic::Ordering;

impl Context {
    /// The request's `progressToken`, if it carried one.
    fn progress_token(&self) -> Option<&Value> {
        self.meta()?
            .get(crate::protocol::meta::PROGRESS_TOKEN)
            .filter(|t| t.is_string() || t.is_i64() || t.is_u64())
    }

    fn may_send(&self) -> bool {
        !self.inner.done.load(Ordering::SeqCst) && !self.is_cancelled()
    }

    /// Marks the call answered: later progress and log calls send nothing.
    pub(crate) fn finish(&self) {
        self.inner.done.store(true, Ordering::SeqCst);
    }

    /// Reports progress (`notifications/progress`). Sent only when the request
    /// carried a `progressToken`; values that do not increase are skipped, as
    /// the protocol requires progress to grow. Fails once the call is
    /// cancelled, so `?` stops the tool. While the client leaves too much
    /// output unread ([`Server::max_unwritten_output`](crate::Server::max_unwritten_output))
    /// the notification is dropped, not queued.
    pub fn progress(
        &self,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> Result<(), ToolError> {
        if self.is_cancelled() {
            return Err(ToolError::new("the call was cancelled"));
        }
        let peer = self.peer();
        let Some(token) = peer.progress_token(self.progress_token()) else {
            return Ok(());
        };
        {
            let mut last = lock(&self.inner.last_progress);
            if last.is_some_and(|l| progress <= l) || !progress.is_finite() {
                tracing::debug!(progress, "skipped progress that does not increase");
                return Ok(());
            }
            *last = Some(progress);
        }
        if !self.may_send() {
            return Ok(());
        }
        peer.progress(Progress {
            token,
            progress,
            total,
            message,
        });
        Ok(())
    }

    /// The level at and above which [`Context::log`] sends messages, if any:
    /// the request's `logLevel` (2026-07-28) or the session's
    /// `logging/setLevel` (legacy). Without either nothing is sent.
    pub fn log_level(&self) -> Option<Level> {
        self.peer()
            .log_level(self.inner.version, self.inner.request_log_level)
    }

    /// Sends a log message to the client (`notifications/message`) when
    /// `level` reaches the client's threshold. Never put secrets in it.
    /// Dropped, like [`Context::progress`], while the client leaves too much
    /// output unread.
    pub fn log(&self, level: Level, data: impl Into<Value>) {
        let Some(threshold) = self.log_level() else {
            return;
        };
        if level < threshold || !self.may_send() {
            return;
        }
        self.peer().log(LogMessage {
            level,
            logger: &self.inner.tool,
            data: data.into(),
        });
    }

    /// Closes the event stream this call's response goes on, before the
    /// response, so a client that polls comes back for the rest (SSE
    /// polling, SEP-1699): for a long call over legacy Streamable HTTP, to
    /// free a connection a proxy would time out. The stream ends after the
    /// events sent so far with an event carrying `retry`; the call runs on,
    /// and what it sends next (progress, the response) waits for the
    /// client's `GET` with `Last-Event-ID`, which resumes the stream.
    /// Returns whether there was such a stream: `false` on stdio, over
    /// 2026-07-28 HTTP, and in the in-process door, where nothing happens.
    ///
    /// ```no_run
    /// use mcpfn_runtime::{Context, tool};
    /// use std::time::Duration;
    ///
    /// /// Waits a while, letting the client poll.
    /// #[tool]
    /// async fn long_wait(ctx: Context) -> String {
    ///     ctx.close_sse_stream();
    ///     tokio::time::sleep(Duration::from_secs(60)).await;
    ///     "done".to_owned()
    /// }
    /// ```
    pub fn close_sse_stream(&self) -> bool {
        match self.inner.connection.stream_close() {
            Some(close) if self.inner.task.get().is_none() && self.may_send() => {
                close.request();
                true
            }
            _ => false,
        }
    }
}
