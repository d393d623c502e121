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

use super::framing::{Line, LineReader};
use super::{BoxFuture, Inbox, InboxSender, Incoming, Outgoing, Transport};
use crate::error::{Cause, ClientError};
use crate::log_limit::{LOG_LINE_BYTES, LogLimiter, cut_line};
use std::collections::VecDeque;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt, BufWriter};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::AbortHandle;

/// The default bound on one incoming message (16 MiB).
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// How many of the child's last stderr lines an exit report quotes.
const STDERR_TAIL_LINES: usize = 5;

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

/// How long the end of stdout is waited for once the child has exited
/// (what it wrote before exiting is still read).
const DRAIN_AFTER_EXIT: Duration = Duration::from_millis(500);

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

/// A server's entry in the table of the pids tokio waits for (Linux).
#[cfg(target_os = "linux")]
type Registered = super::children::Registered;
/// No orphans are reaped elsewhere: nothing to enter.
#[cfg(not(target_os = "linux"))]
type Registered = ();

/// How the supervisor is asked to stop the child.
#[derive(Debug)]
enum Stop {
    /// SIGTERM (on Unix), then SIGKILL if it still runs after this long.
    Terminate(Duration),
    /// SIGKILL now.
    Kill,
}

/// Owns the child: reports its exit, stops it when asked, kills its group
/// when every sender of `stop` is gone (the transport was dropped). Once
/// it has exited, what is left of its group is killed: a child it started
/// could hold its stdout open and hide its end.
async fn supervise(
    name: String,
    mut child: Child,
    // Kept while tokio may still wait for the child (its entry in the
    // table of pids the orphan reaper leaves alone).
    _registered: Registered,
    mut stop: mpsc::Receiver<Stop>,
    exit: watch::Sender<Option<ExitStatus>>,
) {
    let mut group = Group::of(&child);
    let status = tokio::select! {
        status = child.wait() => status,
        request = stop.recv() => {
            let mut status = None;
            if let Some(Stop::Terminate(grace)) = request {
                tracing::debug!(server = %name, "SIGTERM to the server's process group");
                group.signal(Signal::Term);
                if let Ok(waited) = tokio::time::timeout(grace, child.wait()).await {
                    status = Some(waited);
                } else {
                    tracing::warn!(server = %name, grace_ms = grace.as_millis() as u64, "the server outlived SIGTERM; killing its process group");
                }
            }
            match status {
                Some(status) => status,
                None => {
                    group.signal(Signal::Kill);
                    let _ = child.start_kill();
                    child.wait().await
                }
            }
        }
    };
    group.signal(Signal::Kill);
    group.disarm();
    if let Ok(status) = status {
        let _ = exit.send(Some(status));
    }
}

/// The signals sent to a child's group.
#[derive(Clone, Copy, Debug)]
enum Signal {
    Term,
    Kill,
}

/// A child's process group (its pid: it leads the group it was started
/// in). Dropped armed (the supervisor was dropped with the runtime before
/// the child ended), it kills the group.
#[derive(Debug)]
struct Group {
    #[cfg(unix)]
    id: Option<rustix::process::Pid>,
    armed: bool,
}

impl Group {
    fn of(child: &Child) -> Group {
        #[cfg(not(unix))]
        let _ = child;
        Group {
            #[cfg(unix)]
            id: child
                .id()
                .and_then(|id| i32::try_from(id).ok())
                .and_then(rustix::process::Pid::from_raw),
            armed: true,
        }
    }

    /// Signals every process of the group. The leader has not been reaped
    /// when this is called before its exit is reported, so the id is still
    /// its group's; after, the group's id stays reserved while any of its
    /// processes lives, and signalling an empty group does nothing.
    #[cfg(unix)]
    fn signal(&self, signal: Signal) {
        let signal = match signal {
            Signal::Term => rustix::process::Signal::TERM,
            Signal::Kill => rustix::process::Signal::KILL,
        };
        if let Some(id) = self.id {
            let _ = rustix::process::kill_process_group(id, signal);
        }
    }

    /// No groups: the child alone is killed, through its handle.
    #[cfg(not(unix))]
    fn signal(&self, _: Signal) {}

    fn disarm(&mut self) {
        self.armed = false;
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        if self.armed {
            self.signal(Signal::Kill);
        }
    }
}

/// Forwards stderr to `tracing`, line by line (each cut to
/// [`LOG_LINE_BYTES`], rate-limited by a [`LogLimiter`]), keeping the last
/// few lines for the exit report. It reads on whatever the rate: a server
/// blocked on a full stderr pipe would stop answering.
async fn forward_stderr(
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

struct Reader {
    name: String,
    inbox: InboxSender,
    exit: watch::Receiver<Option<ExitStatus>>,
    closed: watch::Sender<Option<ClientError>>,
    kill: mpsc::Sender<Stop>,
    tail: Arc<Mutex<VecDeque<String>>>,
    stderr_done: oneshot::Receiver<()>,
    /// Set by [`StdioTransport::close`]: the exit that follows was asked
    /// for, not news worth a warning.
    closing: Arc<AtomicBool>,
}

impl Reader {
    async fn run(mut self, mut lines: LineReader<tokio::process::ChildStdout>) {
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
