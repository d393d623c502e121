//! The stdio transport: a child process, one JSON-RPC message per line on
//! its stdin and stdout, its stderr forwarded to our log.

use super::error::{ClientError, excerpt};
use super::framing::{Line, LineReader};
use super::transport::{BoxFuture, Inbox, InboxSender, Incoming, Outgoing, Transport};
use std::collections::VecDeque;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncWriteExt, BufWriter};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::AbortHandle;

/// The default bound on one incoming message (16 MiB).
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// How many of the child's last stderr lines an exit report quotes.
const STDERR_TAIL_LINES: usize = 5;
/// How much of one stderr line is kept (the log and the exit report).
const STDERR_LINE_BYTES: usize = 4096;

/// How to start a stdio server.
#[derive(Debug, Clone)]
pub struct StdioConfig {
    /// The server's name in the configuration (for the log and errors).
    pub name: String,
    /// The program to run.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Variables added to (or replacing in) the environment it inherits.
    pub env: Vec<(String, String)>,
    /// Its working directory; ours when `None`.
    pub cwd: Option<PathBuf>,
    /// The longest line read from its stdout; a longer one is discarded as
    /// it streams past. Default [`DEFAULT_MAX_MESSAGE_BYTES`].
    pub max_message_bytes: usize,
    /// How many incoming messages may wait for the dispatcher before the
    /// child's stdout is no longer read (back-pressure). Default 64.
    pub inbox_capacity: usize,
    /// How long [`Transport::close`] waits for the child to exit after its
    /// stdin is closed, and again after SIGTERM (on Unix), before killing
    /// it. Default 2 s.
    pub close_grace: Duration,
}

impl StdioConfig {
    /// `command` for the server called `name`, with the defaults.
    pub fn new(name: impl Into<String>, command: impl Into<String>) -> Self {
        StdioConfig {
            name: name.into(),
            command: command.into(),
            args: Vec::new(),
            env: Vec::new(),
            cwd: None,
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            inbox_capacity: 64,
            close_grace: Duration::from_secs(2),
        }
    }

    /// Adds arguments.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Sets an environment variable for the child.
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// Sets the bound on one incoming message.
    pub fn max_message_bytes(mut self, bytes: usize) -> Self {
        self.max_message_bytes = bytes;
        self
    }
}

/// A running stdio server. Dropping it kills the child.
#[derive(Debug)]
pub struct StdioTransport {
    name: String,
    pid: Option<u32>,
    stdin: tokio::sync::Mutex<Option<BufWriter<ChildStdin>>>,
    /// Set once the connection is over, with the reason.
    closed: watch::Receiver<Option<ClientError>>,
    exit: watch::Receiver<Option<ExitStatus>>,
    /// Dropping the last sender (this one and the reader's) kills the child.
    kill: Mutex<Option<mpsc::Sender<Stop>>>,
    tasks: Vec<AbortHandle>,
    close_grace: Duration,
}

impl StdioTransport {
    /// Starts the server. Must be called inside a tokio runtime.
    pub fn spawn(config: StdioConfig) -> Result<(StdioTransport, Inbox), ClientError> {
        let mut command = Command::new(&config.command);
        command
            .args(&config.args)
            .envs(config.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // The last resort when the runtime is torn down before the
            // supervisor task could kill it.
            .kill_on_drop(true);
        if let Some(cwd) = &config.cwd {
            command.current_dir(cwd);
        }
        let mut child = command.spawn().map_err(|e| ClientError::Spawn {
            server: config.name.clone(),
            command: config.command.clone(),
            reason: e.to_string(),
        })?;
        let pid = child.id();
        let (stdin, stdout, stderr) =
            match (child.stdin.take(), child.stdout.take(), child.stderr.take()) {
                (Some(i), Some(o), Some(e)) => (i, o, e),
                _ => {
                    return Err(ClientError::Spawn {
                        server: config.name,
                        command: config.command,
                        reason: "its standard streams could not be piped".into(),
                    });
                }
            };
        let (inbox_tx, inbox) = Inbox::channel(config.inbox_capacity);
        let (exit_tx, exit_rx) = watch::channel(None);
        let (closed_tx, closed_rx) = watch::channel(None);
        let (kill_tx, kill_rx) = mpsc::channel(1);
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let (stderr_done_tx, stderr_done_rx) = oneshot::channel();

        tokio::spawn(supervise(child, kill_rx, exit_tx));
        let stderr_task = tokio::spawn(forward_stderr(
            config.name.clone(),
            stderr,
            Arc::clone(&tail),
            stderr_done_tx,
        ));
        let reader = Reader {
            name: config.name.clone(),
            inbox: inbox_tx,
            exit: exit_rx.clone(),
            closed: closed_tx,
            kill: kill_tx.clone(),
            tail,
            stderr_done: stderr_done_rx,
        };
        let reader_task =
            tokio::spawn(reader.run(LineReader::new(stdout, config.max_message_bytes)));
        Ok((
            StdioTransport {
                name: config.name,
                pid,
                stdin: tokio::sync::Mutex::new(Some(BufWriter::new(stdin))),
                closed: closed_rx,
                exit: exit_rx,
                kill: Mutex::new(Some(kill_tx)),
                tasks: vec![reader_task.abort_handle(), stderr_task.abort_handle()],
                close_grace: config.close_grace,
            },
            inbox,
        ))
    }

    /// The child's process id (while it runs).
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// The reason the connection ended, once it has.
    async fn closed_reason(&self, wait: Duration) -> Option<ClientError> {
        let mut closed = self.closed.clone();
        let reason = tokio::time::timeout(wait, closed.wait_for(Option::is_some)).await;
        match reason {
            Ok(Ok(reason)) => reason.clone(),
            _ => None,
        }
    }

    async fn write(&self, body: &str) -> Result<(), ClientError> {
        if let Some(reason) = self.closed.borrow().clone() {
            return Err(reason);
        }
        if memchr::memchr(b'\n', body.as_bytes()).is_some() {
            return Err(ClientError::Config {
                reason:
                    "a message to send contains a raw newline, which would split it in two on stdio"
                        .into(),
            });
        }
        let mut stdin = self.stdin.lock().await;
        let Some(writer) = stdin.as_mut() else {
            return Err(ClientError::Closed);
        };
        let written = async {
            writer.write_all(body.as_bytes()).await?;
            writer.write_all(b"\n").await?;
            writer.flush().await
        }
        .await;
        match written {
            Ok(()) => Ok(()),
            Err(error) => {
                drop(stdin);
                // A broken pipe means the child is gone: report how it ended.
                Err(self
                    .closed_reason(Duration::from_secs(3))
                    .await
                    .unwrap_or_else(|| ClientError::Disconnected {
                        server: self.name.clone(),
                        reason: format!("writing to its stdin failed: {error}"),
                    }))
            }
        }
    }
}

impl Transport for StdioTransport {
    fn send(&self, message: Outgoing) -> BoxFuture<'_, Result<(), ClientError>> {
        Box::pin(async move { self.write(&message.body).await })
    }

    fn close(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            // EOF on its stdin is the polite request to exit.
            if let Some(mut writer) = self.stdin.lock().await.take() {
                let _ = writer.shutdown().await;
            }
            let mut exit = self.exit.clone();
            let exited = tokio::time::timeout(self.close_grace, exit.wait_for(Option::is_some))
                .await
                .is_ok();
            if !exited {
                tracing::debug!(server = %self.name, "the server did not exit when its stdin closed; killing it");
            }
            let kill = self.kill.lock().unwrap_or_else(|e| e.into_inner()).take();
            if let Some(kill) = kill
                && !exited
            {
                let _ = kill.try_send(Stop::Terminate(self.close_grace));
            }
            let wait = self.close_grace + Duration::from_secs(2);
            let _ = tokio::time::timeout(wait, exit.wait_for(Option::is_some)).await;
        })
    }

    fn terminate(&self) {
        let kill = self.kill.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(kill) = kill {
            let _ = kill.try_send(Stop::Kill);
        }
    }

    fn input(&self) -> &'static str {
        "its stdin"
    }
}

impl Drop for StdioTransport {
    fn drop(&mut self) {
        // Ending the reading tasks drops the last kill senders: the
        // supervisor then kills the child.
        for task in &self.tasks {
            task.abort();
        }
    }
}

/// How the supervisor is asked to stop the child.
#[derive(Debug)]
enum Stop {
    /// SIGTERM (on Unix), then SIGKILL if it still runs after this long.
    Terminate(Duration),
    /// SIGKILL now.
    Kill,
}

/// Owns the child: reports its exit, stops it when asked, kills it when
/// every sender of `stop` is gone (the transport was dropped).
async fn supervise(
    mut child: Child,
    mut stop: mpsc::Receiver<Stop>,
    exit: watch::Sender<Option<ExitStatus>>,
) {
    let status = tokio::select! {
        status = child.wait() => status,
        request = stop.recv() => {
            if let Some(Stop::Terminate(grace)) = request {
                terminate(&child);
                if let Ok(status) = tokio::time::timeout(grace, child.wait()).await {
                    if let Ok(status) = status {
                        let _ = exit.send(Some(status));
                    }
                    return;
                }
            }
            let _ = child.start_kill();
            child.wait().await
        }
    };
    if let Ok(status) = status {
        let _ = exit.send(Some(status));
    }
}

/// Sends SIGTERM: the child has not been reaped (the supervisor alone waits
/// for it), so its pid is still its own.
#[cfg(unix)]
fn terminate(child: &Child) {
    let pid = child
        .id()
        .and_then(|id| i32::try_from(id).ok())
        .and_then(rustix::process::Pid::from_raw);
    if let Some(pid) = pid {
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
    }
}

/// No gentler signal than the kill elsewhere.
#[cfg(not(unix))]
fn terminate(_: &Child) {}

/// Forwards stderr to `tracing`, line by line, keeping the last few lines
/// for the exit report.
async fn forward_stderr(
    name: String,
    stderr: tokio::process::ChildStderr,
    tail: Arc<Mutex<VecDeque<String>>>,
    done: oneshot::Sender<()>,
) {
    let mut lines = LineReader::new(stderr, STDERR_LINE_BYTES);
    while let Ok(Some(line)) = lines.next().await {
        let text = match line {
            Line::Text(bytes) => excerpt(&String::from_utf8_lossy(&bytes), STDERR_LINE_BYTES),
            Line::TooLong { bytes, .. } => format!("[a stderr line of {bytes} bytes, not shown]"),
        };
        tracing::info!(target: "mcp_host::server", server = %name, "{text}");
        let mut tail = tail.lock().unwrap_or_else(|e| e.into_inner());
        if tail.len() == STDERR_TAIL_LINES {
            tail.pop_front();
        }
        tail.push_back(text);
    }
    let _ = done.send(());
}

struct Reader {
    name: String,
    inbox: InboxSender,
    exit: watch::Receiver<Option<ExitStatus>>,
    closed: watch::Sender<Option<ClientError>>,
    kill: mpsc::Sender<Stop>,
    tail: Arc<Mutex<VecDeque<String>>>,
    stderr_done: oneshot::Receiver<()>,
}

impl Reader {
    async fn run(mut self, mut lines: LineReader<tokio::process::ChildStdout>) {
        let end = loop {
            match lines.next().await {
                Ok(Some(Line::Text(bytes))) => {
                    if bytes.iter().all(u8::is_ascii_whitespace) {
                        continue;
                    }
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
        tracing::warn!(server = %self.name, "{reason}");
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
