//! The stdio transport: a child process, one JSON-RPC message per line on
//! its stdin and stdout, its stderr forwarded to our log (each line cut to
//! [`LOG_LINE_BYTES`](crate::LOG_LINE_BYTES), at most
//! [`LOG_BURST`](crate::LOG_BURST) lines at once and
//! [`LOG_RATE`](crate::LOG_RATE) a second after that, the rest counted).
//!
//! **Environment**: the child gets only [`DEFAULT_INHERITED_ENV_VARS`] of
//! ours (what the official SDKs pass) plus [`StdioConfig::env`], unless
//! [`StdioConfig::inherit_env`] is set.
//!
//! **Process group** (Unix): the child leads a process group of its own,
//! and that group is what is signalled: a child it started goes with it.
//! Its exit is noticed by its exit status, not only by the end of its
//! stdout (which a child it left behind may hold open): the rest of its
//! group is then killed and its pending requests fail naming the status.
//!
//! **Closing** ([`Transport::close`]): its stdin is closed, it gets
//! [`StdioConfig::close_grace`] to exit, then its group gets SIGTERM and
//! another grace, then SIGKILL. A write blocked on a server that stopped
//! reading does not hold this up: its stdin then stays open, and the grace
//! runs all the same. Dropping the transport without closing
//! kills the group at once.

use super::framing::LineReader;
use super::{BoxFuture, Inbox, Outgoing, Transport};
use crate::error::{Cause, ClientError};
use std::collections::VecDeque;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncWriteExt, BufWriter};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::AbortHandle;

/// The default bound on one incoming message (16 MiB).
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// The default grace a server gets to exit after its stdin is closed, and
/// again after SIGTERM ([`StdioConfig::close_grace`]).
pub const DEFAULT_CLOSE_GRACE: Duration = Duration::from_secs(2);

/// The variables of the host's environment a stdio server gets (unless
/// [`StdioConfig::inherit_env`]): the official TypeScript and Python SDKs'
/// `DEFAULT_INHERITED_ENV_VARS`. As there, a value starting with `()` (a
/// shell function) is not passed.
#[cfg(not(windows))]
pub const DEFAULT_INHERITED_ENV_VARS: &[&str] =
    &["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];

/// The variables of the host's environment a stdio server gets (unless
/// [`StdioConfig::inherit_env`]): the official TypeScript and Python SDKs'
/// `DEFAULT_INHERITED_ENV_VARS`. As there, a value starting with `()` (a
/// shell function) is not passed.
#[cfg(windows)]
pub const DEFAULT_INHERITED_ENV_VARS: &[&str] = &[
    "APPDATA",
    "HOMEDRIVE",
    "HOMEPATH",
    "LOCALAPPDATA",
    "PATH",
    "PROCESSOR_ARCHITECTURE",
    "SYSTEMDRIVE",
    "SYSTEMROOT",
    "TEMP",
    "USERNAME",
    "USERPROFILE",
];

/// How to start a stdio server.
#[derive(Debug, Clone)]
pub struct StdioConfig {
    /// The server's name in the configuration (for the log and errors).
    pub name: String,
    /// The program to run.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Variables set for it, over those it inherits.
    pub env: Vec<(String, String)>,
    /// Whether it inherits our whole environment (API keys included);
    /// otherwise only [`DEFAULT_INHERITED_ENV_VARS`]. Default `false`.
    pub inherit_env: bool,
    /// Its working directory; ours when `None`.
    pub cwd: Option<PathBuf>,
    /// The longest line read from its stdout; a longer one is discarded as
    /// it streams past. Default [`DEFAULT_MAX_MESSAGE_BYTES`].
    pub max_message_bytes: usize,
    /// How many incoming messages may wait for the dispatcher before the
    /// child's stdout is no longer read (back-pressure). Default 64.
    pub inbox_capacity: usize,
    /// How long [`Transport::close`] waits for the child to exit after its
    /// stdin is closed, and again after SIGTERM to its process group (on
    /// Unix), before killing the group. Default [`DEFAULT_CLOSE_GRACE`].
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
            inherit_env: false,
            cwd: None,
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            inbox_capacity: 64,
            close_grace: DEFAULT_CLOSE_GRACE,
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

    /// Passes our whole environment (`true`) or only
    /// [`DEFAULT_INHERITED_ENV_VARS`] (`false`, the default).
    pub fn inherit_env(mut self, inherit: bool) -> Self {
        self.inherit_env = inherit;
        self
    }

    /// Sets the grace of [`Transport::close`].
    pub fn close_grace(mut self, grace: Duration) -> Self {
        self.close_grace = grace;
        self
    }

    /// Sets the bound on one incoming message.
    pub fn max_message_bytes(mut self, bytes: usize) -> Self {
        self.max_message_bytes = bytes;
        self
    }
}

/// A running stdio server. Dropping it kills the child's process group.
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
    /// Shared with the reader: this side closed the connection.
    closing: Arc<AtomicBool>,
}

impl StdioTransport {
    /// Starts the server. Must be called inside a tokio runtime.
    pub fn spawn(config: StdioConfig) -> Result<(StdioTransport, Inbox), ClientError> {
        let mut command = Command::new(&config.command);
        if !config.inherit_env {
            command.env_clear();
            for name in DEFAULT_INHERITED_ENV_VARS {
                if let Some(value) = std::env::var_os(name)
                    && !value.as_encoded_bytes().starts_with(b"()")
                {
                    command.env(name, value);
                }
            }
        }
        command
            .args(&config.args)
            .envs(config.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // The last resort when the runtime is torn down before the
            // supervisor task could kill it.
            .kill_on_drop(true);
        // Its own group, so that what it starts can be ended with it, and a
        // Ctrl-C at the terminal reaches the host alone (which then closes
        // the servers in order).
        #[cfg(unix)]
        command.process_group(0);
        if let Some(cwd) = &config.cwd {
            command.current_dir(cwd);
        }
        #[cfg(target_os = "linux")]
        let (spawned, registered) = super::children::spawn_registered(|| {
            let spawned = command.spawn();
            let pid = spawned.as_ref().ok().and_then(Child::id);
            (spawned, pid)
        });
        #[cfg(not(target_os = "linux"))]
        let (spawned, registered) = (command.spawn(), ());
        let mut child = spawned.map_err(|e| ClientError::Spawn {
            server: config.name.clone(),
            command: config.command.clone(),
            reason: e.to_string(),
            cause: Some(Cause::new(e)),
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
                        cause: None,
                    });
                }
            };
        let (inbox_tx, inbox) = Inbox::channel(config.inbox_capacity);
        let (exit_tx, exit_rx) = watch::channel(None);
        let (closed_tx, closed_rx) = watch::channel(None);
        let (kill_tx, kill_rx) = mpsc::channel(1);
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let (stderr_done_tx, stderr_done_rx) = oneshot::channel();
        let closing = Arc::new(AtomicBool::new(false));

        tokio::spawn(supervise(
            config.name.clone(),
            child,
            registered,
            kill_rx,
            exit_tx,
        ));
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
            closing: Arc::clone(&closing),
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
                closing,
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
                        cause: Some(Cause::new(error)),
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
            self.closing.store(true, Ordering::Release);
            let mut exit = self.exit.clone();
            // One deadline for the whole polite phase: a server that stopped
            // reading keeps a write blocked on a full pipe, holding stdin, and
            // that must not hold up the close (it then gets no EOF, only the
            // signals).
            let polite = async {
                if let Some(writer) = self.stdin.lock().await.take() {
                    // Dropped, not shut down: a shutdown flushes, which
                    // blocks on a full pipe. Every write ends with a flush,
                    // so nothing whole is left in the buffer.
                    drop(writer);
                }
                let _ = exit.wait_for(Option::is_some).await;
            };
            let exited = tokio::time::timeout(self.close_grace, polite).await.is_ok()
                && exit.borrow().is_some();
            if !exited {
                tracing::debug!(server = %self.name, "the server did not exit within the grace after its stdin closed; killing it");
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

mod child;
mod reader;

use child::{Stop, supervise};
use reader::{Reader, forward_stderr};

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_failed_spawn_keeps_the_os_error_as_its_source() {
        let config = StdioConfig::new("ghost", "/nonexistent/mcp-server");
        let err = StdioTransport::spawn(config).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("server `ghost` could not be started (`/nonexistent/mcp-server`): "),
            "{err}"
        );
        let source = std::error::Error::source(&err).expect("a source");
        let cause = source.downcast_ref::<Cause>().expect("a Cause");
        let io = cause
            .get()
            .downcast_ref::<std::io::Error>()
            .expect("an io::Error");
        assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
    }
}
