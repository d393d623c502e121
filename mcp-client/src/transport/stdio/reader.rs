//! What comes out of the child: its stdout read into the inbox, line by line,
//! and its stderr forwarded to our log.

use super::super::framing::{Line, LineReader};
use super::super::{InboxSender, Incoming};
use super::child::Stop;
use crate::error::ClientError;
use crate::log_limit::{LOG_LINE_BYTES, LogLimiter, cut_line};
use std::collections::VecDeque;
use std::process::ExitStatus;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::AsyncReadExt;
use tokio::sync::{mpsc, oneshot, watch};

/// How many of the child's last stderr lines an exit report quotes.
const STDERR_TAIL_LINES: usize = 5;

/// How long the end of stdout is waited for once the child has exited
/// (what it wrote before exiting is still read).
const DRAIN_AFTER_EXIT: Duration = Duration::from_millis(500);

/// Forwards stderr to `tracing`, line by line (each cut to
/// [`LOG_LINE_BYTES`], rate-limited by a [`LogLimiter`]), keeping the last
/// few lines for the exit report. It reads on whatever the rate: a server
/// blocked on a full stderr pipe would stop answering.
pub(super) async fn forward_stderr(
    name: String,
    mut stderr: tokio::process::ChildStderr,
    tail: Arc<Mutex<VecDeque<String>>>,
    done: oneshot::Sender<()>,
) {
    let mut limiter = LogLimiter::new(name.clone(), "stderr");
    let mut chunk = vec![0u8; 64 * 1024];
    let mut line = Vec::with_capacity(LOG_LINE_BYTES);
    let mut cut = 0usize;
    let mut emit = |line: &mut Vec<u8>, cut: &mut usize| {
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        let text = cut_line(line, *cut);
        line.clear();
        *cut = 0;
        if limiter.admit() {
            tracing::info!(target: "mcpfn_host::server", server = %name, "{text}");
        }
        let mut tail = tail.lock().unwrap_or_else(|e| e.into_inner());
        if tail.len() == STDERR_TAIL_LINES {
            tail.pop_front();
        }
        tail.push_back(text);
    };
    loop {
        let read = match stderr.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(read) => read,
        };
        let mut rest = &chunk[..read];
        loop {
            let (piece, ends) = match memchr::memchr(b'\n', rest) {
                Some(at) => (&rest[..at], Some(at)),
                None => (rest, None),
            };
            let take = piece.len().min(LOG_LINE_BYTES - line.len());
            line.extend_from_slice(&piece[..take]);
            cut += piece.len() - take;
            match ends {
                Some(at) => {
                    emit(&mut line, &mut cut);
                    rest = &rest[at + 1..];
                }
                None => break,
            }
        }
    }
    if !line.is_empty() || cut > 0 {
        emit(&mut line, &mut cut);
    }
    // The count of dropped lines goes out before the exit report.
    drop(limiter);
    let _ = done.send(());
}

pub(super) struct Reader {
    pub(super) name: String,
    pub(super) inbox: InboxSender,
    pub(super) exit: watch::Receiver<Option<ExitStatus>>,
    pub(super) closed: watch::Sender<Option<ClientError>>,
    pub(super) kill: mpsc::Sender<Stop>,
    pub(super) tail: Arc<Mutex<VecDeque<String>>>,
    pub(super) stderr_done: oneshot::Receiver<()>,
    /// Set by [`StdioTransport::close`]: the exit that follows was asked
    /// for, not news worth a warning.
    pub(super) closing: Arc<AtomicBool>,
}

impl Reader {
    pub(super) async fn run(mut self, mut lines: LineReader<tokio::process::ChildStdout>) {
        let mut exit = self.exit.clone();
        // Set once the child has exited: its stdout is still read until
        // then (what it wrote before exiting counts), however long a child
        // it left behind would keep the pipe open.
        let mut drain_until = None;
        let end = loop {
            let next = match drain_until {
                None => tokio::select! {
                    biased;
                    next = lines.next() => next,
                    // Nothing read is lost here: the reader keeps its
                    // progress between calls.
                    _ = exit.wait_for(Option::is_some) => {
                        drain_until = Some(tokio::time::Instant::now() + DRAIN_AFTER_EXIT);
                        continue;
                    }
                },
                Some(deadline) => match tokio::time::timeout_at(deadline, lines.next()).await {
                    Ok(next) => next,
                    Err(_) => break None,
                },
            };
            match next {
                Ok(Some(Line::Text(bytes))) => {
                    let incoming = match String::from_utf8(bytes) {
                        Ok(text) => Incoming::Message(text),
                        Err(_) => {
                            tracing::warn!(server = %self.name, "skipped a stdout line that is not UTF-8");
                            continue;
                        }
                    };
                    if !self.inbox.send(incoming).await {
                        return;
                    }
                }
                Ok(Some(Line::TooLong { id, bytes })) => {
                    tracing::warn!(server = %self.name, bytes, request = ?id, "discarded a message over the size limit");
                    if let Some(id) = id {
                        let error = ClientError::TooLarge {
                            server: self.name.clone(),
                            limit: lines.limit(),
                            size: Some(bytes),
                        };
                        if !self.inbox.send(Incoming::Failed { id, error }).await {
                            return;
                        }
                    }
                }
                Ok(None) => break None,
                Err(error) => break Some(error.to_string()),
            }
        };
        let reason = self.end_reason(end).await;
        if self.closing.load(Ordering::Acquire) {
            tracing::debug!(server = %self.name, "{reason}");
        } else {
            tracing::warn!(server = %self.name, "{reason}");
        }
        let _ = self.closed.send(Some(reason.clone()));
        let _ = self.inbox.send(Incoming::Closed(reason)).await;
    }

    /// After stdout ended: how the child ended, with its last stderr lines.
    async fn end_reason(&mut self, read_error: Option<String>) -> ClientError {
        let mut exit = self.exit.clone();
        let status = match tokio::time::timeout(
            Duration::from_secs(2),
            exit.wait_for(Option::is_some),
        )
        .await
        {
            Ok(Ok(status)) => status.map(|s| s.to_string()),
            _ => None,
        };
        let status = match status {
            Some(status) => status,
            None => {
                // Its stdout closed but it runs on: it cannot be talked to.
                let _ = self.kill.try_send(Stop::Kill);
                match read_error {
                    Some(error) => format!("reading its stdout failed ({error}); it was killed"),
                    None => "it closed its stdout; it was killed".to_owned(),
                }
            }
        };
        // Its last words on stderr may still be in the pipe.
        let _ = tokio::time::timeout(Duration::from_millis(500), &mut self.stderr_done).await;
        let stderr = self
            .tail
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join(" | ");
        ClientError::Exited {
            server: self.name.clone(),
            status,
            stderr,
        }
    }
}
