//! The server builder and its main loop.

use crate::connection::Connection;
use crate::dispatch::{Dispatcher, notify_tools_changed};
use crate::dump::{DumpFormat, ToolDump};
use crate::elicit::{DEFAULT_ELICITATION_TIMEOUT, DEFAULT_MAX_SPENT_REQUEST_STATES, StateSealer};
use crate::error::Error;
use crate::limits::{
    DEFAULT_MAX_CONCURRENT_CALLS, DEFAULT_MAX_PENDING_CALLS, DEFAULT_QUEUE_TIMEOUT,
    DEFAULT_RATE_BURST, DEFAULT_RATE_PER_SECOND, Limits,
};
use crate::protocol::frame::Frame;
use crate::registry::Registry;
use crate::shared::{Identity, Shared};
use crate::state::StateMap;
use crate::tool::Tool;
use crate::toolset::ToolSet;
use crate::transport::writer::FrameWriter;
use crate::transport::{Line, LineReader};
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Weak};
use std::task::Poll;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc;

/// The largest message accepted by default: 8 MiB.
pub(crate) const DEFAULT_MAX_MESSAGE_SIZE: usize = 8 * 1024 * 1024;

/// How long 2026-07-28 clients may cache lists by default: 5 minutes.
pub(crate) const DEFAULT_LIST_TTL: Duration = Duration::from_secs(300);

/// How long calls in flight may finish after input ends, by default: 30 s.
pub(crate) const DEFAULT_DRAIN_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a 2026-07-28 `requestState` stays valid by default: 10 minutes.
pub(crate) const DEFAULT_INPUT_REQUEST_TTL: Duration = Duration::from_secs(600);

/// An MCP server: a name, a version and tools, served over a transport.
///
/// ```
/// use mcp_runtime::{Server, tool, tools};
///
/// /// Add two numbers.
/// #[tool]
/// async fn add(a: f64, b: f64) -> f64 {
///     a + b
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> std::io::Result<()> {
/// let (mut client, server_end) = mcp_runtime::testing::memory();
/// let (read, write) = tokio::io::split(server_end);
/// let server = tokio::spawn(Server::new("calc", "1.0.0").tools(tools![add]).serve(read, write));
///
/// client.send(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"doc","version":"0"}}}"#).await?;
/// assert!(client.recv().await?.unwrap().contains(r#""protocolVersion":"2025-06-18""#));
/// client.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}"#).await?;
/// assert!(client.recv().await?.unwrap().contains(r#""structuredContent":{"result":3.0}"#));
/// client.close().await?;
/// server.await??;
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
#[must_use]
pub struct Server {
    name: String,
    version: String,
    title: Option<String>,
    instructions: Option<String>,
    tools: Vec<Tool>,
    page_size: Option<usize>,
    list_ttl: Duration,
    max_message_size: usize,
    states: StateMap,
    call_timeout: Option<Duration>,
    max_concurrent_calls: usize,
    max_pending_calls: usize,
    queue_timeout: Duration,
    rate_limit: Option<(u32, u32)>,
    drain_timeout: Duration,
    request_state_key: Option<[u8; 32]>,
    input_request_ttl: Duration,
    max_spent_request_states: usize,
    elicitation_timeout: Duration,
    stdout_guard: bool,
}

impl Server {
    /// A server that reports `name` and `version` to clients.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Server {
        Server {
            name: name.into(),
            version: version.into(),
            title: None,
            instructions: None,
            tools: Vec::new(),
            page_size: None,
            list_ttl: DEFAULT_LIST_TTL,
            max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
            states: StateMap::default(),
            call_timeout: None,
            max_concurrent_calls: DEFAULT_MAX_CONCURRENT_CALLS,
            max_pending_calls: DEFAULT_MAX_PENDING_CALLS,
            queue_timeout: DEFAULT_QUEUE_TIMEOUT,
            rate_limit: Some((DEFAULT_RATE_PER_SECOND, DEFAULT_RATE_BURST)),
            drain_timeout: DEFAULT_DRAIN_TIMEOUT,
            request_state_key: None,
            input_request_ttl: DEFAULT_INPUT_REQUEST_TTL,
            max_spent_request_states: DEFAULT_MAX_SPENT_REQUEST_STATES,
            elicitation_timeout: DEFAULT_ELICITATION_TIMEOUT,
            stdout_guard: true,
        }
    }

    /// Whether [`Server::serve_stdio`] guards stdout (on by default, Unix):
    /// frames go to a private duplicate of stdout and what is written to
    /// fd 1 is diverted to stderr (through the same non-blocking path as the
    /// logs), so stray prints cannot corrupt the protocol. Turn it off only
    /// if something else must own fd 1.
    pub fn stdout_guard(mut self, on: bool) -> Server {
        self.stdout_guard = on;
        self
    }

    /// Registers application state; tools ask for it as a `State<T>` parameter.
    /// One value per type; registering a type again replaces it.
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Server {
        self.states.insert(value);
        self
    }

    /// Ends calls that run longer than `timeout` with an `isError` result
    /// ("timed out after …"). Off by default; `#[tool(timeout = "…")]`
    /// overrides it per tool.
    pub fn call_timeout(mut self, timeout: Duration) -> Server {
        self.call_timeout = Some(timeout);
        self
    }

    /// How many calls run at once (256 by default); more wait for a slot, up to [`Server::max_pending_calls`] of them and
    /// each at most [`Server::queue_timeout`].
    pub fn max_concurrent_calls(mut self, calls: usize) -> Server {
        self.max_concurrent_calls = calls;
        self
    }

    /// How many calls may be in flight, running or waiting (65,536 by
    /// default); beyond it calls are refused with an
    /// `isError` result saying the server is busy.
    pub fn max_pending_calls(mut self, calls: usize) -> Server {
        self.max_pending_calls = calls;
        self
    }

    /// How long a call may wait for a run slot (30 s by default, under the
    /// 60 s after which common clients give up) before it is answered with an `isError` result saying the
    /// server was busy for that long and to retry: calls that never end
    /// (say, tools stuck on an unanswered question) must not make every
    /// later call wait forever.
    pub fn queue_timeout(mut self, timeout: Duration) -> Server {
        self.queue_timeout = timeout;
        self
    }

    /// Rate-limits tool calls to `per_second` sustained with bursts of `burst`
    /// (by default 1,000 calls per second with bursts of 2,000);
    /// calls over the limit get an `isError` result saying when to retry.
    pub fn rate_limit(mut self, per_second: u32, burst: u32) -> Server {
        self.rate_limit = Some((per_second, burst));
        self
    }

    /// Turns the rate limit off (for benchmarks and trusted local clients).
    pub fn no_rate_limit(mut self) -> Server {
        self.rate_limit = None;
        self
    }

    /// How long calls in flight may finish once input ends (30 s by
    /// default); the rest are cancelled with an error response.
    pub fn drain_timeout(mut self, timeout: Duration) -> Server {
        self.drain_timeout = timeout;
        self
    }

    /// The key that seals 2026-07-28 `requestState` values (HMAC-SHA256). By
    /// default each process draws a random key, so a restarted server refuses
    /// states from before; set one to share states across restarts or
    /// replicas. Replicas must then also share the set of spent states (see
    /// [`Server::max_spent_request_states`]), or a state answered on one
    /// could be replayed on another.
    pub fn request_state_key(mut self, key: [u8; 32]) -> Server {
        self.request_state_key = Some(key);
        self
    }

    /// How long a `requestState` stays valid (10 minutes by default), and so how long the user has to answer in the
    /// 2026-07-28 era.
    pub fn input_request_ttl(mut self, ttl: Duration) -> Server {
        self.input_request_ttl = ttl;
        self
    }

    /// How many answered `requestState`s the server remembers (10,000 by
    /// default), to accept each once.
    /// Each is kept until it expires. When the set is full and none has
    /// expired, further answered retries get an `isError` result saying the
    /// server is busy and when to retry (their states stay usable); a spent
    /// state is never forgotten early, as that would let it be replayed.
    pub fn max_spent_request_states(mut self, states: usize) -> Server {
        self.max_spent_request_states = states;
        self
    }

    /// How long a legacy `elicitation/create` waits for the user (10
    /// minutes by default, as long as a `requestState` lives, so the user
    /// has the same time in both eras). Then the question is
    /// withdrawn (`notifications/cancelled`) and the tool's `ctx.elicit`
    /// returns an error saying the user did not answer in time, so a
    /// question nobody answers cannot hold a run slot forever.
    pub fn elicitation_timeout(mut self, timeout: Duration) -> Server {
        self.elicitation_timeout = timeout;
        self
    }

    /// Registers tools, e.g. `tools![add, echo]`.
    pub fn tools(mut self, tools: impl IntoIterator<Item = Tool>) -> Server {
        self.tools.extend(tools);
        self
    }

    /// Registers one tool.
    pub fn tool(mut self, tool: Tool) -> Server {
        self.tools.push(tool);
        self
    }

    /// A human-readable display name for the server.
    pub fn title(mut self, title: impl Into<String>) -> Server {
        self.title = Some(title.into());
        self
    }

    /// Guidance for the model on using this server's tools.
    pub fn instructions(mut self, text: impl Into<String>) -> Server {
        self.instructions = Some(text.into());
        self
    }

    /// Splits `tools/list` into pages of `size` tools (off by default: one page).
    pub fn page_size(mut self, size: usize) -> Server {
        self.page_size = Some(size);
        self
    }

    /// How long 2026-07-28 clients may cache `tools/list` and `server/discover`
    /// results (`ttlMs`); 5 minutes by default.
    pub fn list_ttl(mut self, ttl: Duration) -> Server {
        self.list_ttl = ttl;
        self
    }

    /// The largest message accepted, in bytes; longer lines are answered with
    /// an error and discarded. 8 MiB by default.
    pub fn max_message_size(mut self, bytes: usize) -> Server {
        self.max_message_size = bytes;
        self
    }

    /// The registered tools in `format`, without serving; fails like serving
    /// would on a bad registration (duplicate or invalid names), and when a
    /// tool cannot be expressed in `format` ([`Error::NotExpressible`]).
    ///
    /// ```
    /// use mcp_runtime::{DumpFormat, Server, tool, tools};
    ///
    /// /// Say hello.
    /// #[tool]
    /// async fn hello(name: String) -> String {
    ///     format!("Hello, {name}!")
    /// }
    ///
    /// let dump = Server::new("hi", "1.0.0").tools(tools![hello]).dump(DumpFormat::OpenAi).unwrap();
    /// assert_eq!(dump.to_json()[0]["function"]["name"], "hello");
    /// assert!(dump.total_bytes() < 1_000, "{}", dump.size_report());
    /// ```
    ///
    /// Registered state is not needed: schemas do not depend on it, so a
    /// build script can dump tools that take a `State<T>`.
    pub fn dump(&self, format: DumpFormat) -> Result<ToolDump, Error> {
        let registry = Registry::new(self.tools.clone(), None)?;
        let tools: Vec<&Tool> = registry.tools().collect();
        ToolDump::new(format, &tools, self.list_ttl_ms())
    }

    /// Every `State<T>` a tool takes must be registered.
    fn check_states(&self) -> Result<(), Error> {
        for tool in &self.tools {
            if let Some(missing) = tool
                .def
                .states
                .iter()
                .find(|s| !self.states.contains(s.type_id))
            {
                return Err(Error::MissingState {
                    tool: tool.name.clone(),
                    type_name: missing.type_name,
                });
            }
        }
        Ok(())
    }

    /// What `into_shared` checks, without consuming the server.
    pub(crate) fn check_registration(&self) -> Result<(), Error> {
        self.check_states()?;
        Registry::new(self.tools.clone(), None).map(drop)
    }

    fn list_ttl_ms(&self) -> u64 {
        u64::try_from(self.list_ttl.as_millis()).unwrap_or(u64::MAX)
    }

    /// Checks the registration (unique, valid names; object input schemas;
    /// every state a tool needs registered).
    fn into_shared(self) -> Result<(Arc<Shared>, usize, Duration), Error> {
        self.check_states()?;
        let ttl_ms = self.list_ttl_ms();
        let tools = ToolSet::new(self.tools, self.page_size)?;
        let identity = Identity::new(
            self.name,
            self.version,
            self.title,
            self.instructions,
            ttl_ms,
        );
        let shared = Shared {
            tools,
            identity,
            states: Arc::new(self.states),
            sealer: StateSealer::new(
                self.request_state_key,
                self.input_request_ttl,
                self.max_spent_request_states,
            ),
            limits: Limits::new(
                self.max_concurrent_calls,
                self.max_pending_calls,
                self.queue_timeout,
                self.rate_limit,
            ),
            call_timeout: self.call_timeout,
            elicitation_timeout: self.elicitation_timeout,
        };
        Ok((Arc::new(shared), self.max_message_size, self.drain_timeout))
    }

    /// Serves stdin/stdout until stdin closes, logging to stderr.
    ///
    /// Installs a `tracing` subscriber that writes timestamped lines to
    /// stderr unless the program installed its own. Its filter takes
    /// `RUST_LOG` syntax (`info`, `mcp_runtime=debug,warn`, …) from the
    /// `MCP_LOG` environment variable, else `RUST_LOG`, else `warn`; an
    /// invalid value is reported in a warning and `warn` applies. At `info`
    /// a startup line names the server, its version, the transport and the
    /// process id; at `debug` each tool call gets a line with the tool, its
    /// duration and whether it returned `isError`.
    ///
    /// Stderr never holds up the protocol: logs, panic reports (this
    /// replaces the panic hook with one that reports the same details) and
    /// output diverted by the [stdout guard](Server::stdout_guard) go
    /// through a bounded queue written by a thread of its own. What a host
    /// that does not read stderr leaves no room for is dropped, and a later
    /// line says how much ("stderr was not read: N bytes of logs dropped").
    ///
    /// It serves and does nothing else: it reads no command-line arguments
    /// and writes only protocol frames to stdout. For `--dump-tools` and
    /// registration mistakes reported the way a command-line tool reports
    /// them, call [`cli::run`](crate::cli::run) from `main` instead.
    ///
    /// A registration mistake (two tools with one name, an invalid name, a
    /// `State<T>` never registered; see [`Error`]) is returned before
    /// anything is set up, as an [`io::Error`] of kind `InvalidInput` whose
    /// `Display` is the mistake's.
    pub async fn serve_stdio(self) -> io::Result<()> {
        self.check_registration()?;
        crate::logging::init_stderr();
        let output = crate::transport::stdio::stdout(self.stdout_guard)?;
        let input = crate::transport::stdio::stdin()?;
        tracing::info!(
            server = %self.name,
            version = %self.version,
            transport = "stdio",
            pid = std::process::id(),
            "serving"
        );
        let result = self
            .serve_until(input, output.writer, output.closed, termination())
            .await;
        // The stderr writer ends with the process: give it the chance to
        // write what is queued, bounded in case nobody reads stderr.
        crate::transport::stdio::end_stdout_guard(Duration::from_millis(500));
        crate::logging::flush();
        result
    }

    /// Serves one connection until its input ends, then lets the calls in
    /// flight finish and writes their responses, all within the drain
    /// timeout ([`Server::drain_timeout`]), and returns. An output that
    /// fails with `BrokenPipe` or `ConnectionReset` means the client is
    /// gone: the calls in flight are cancelled and `serve` returns `Ok`.
    pub async fn serve<R, W>(self, input: R, output: W) -> io::Result<()>
    where
        R: AsyncRead + Unpin,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        self.serve_until(
            input,
            Box::pin(output),
            std::future::pending(),
            std::future::pending(),
        )
        .await
    }

    /// [`Server::serve`] that also ends, the same graceful way, when
    /// `shutdown` completes, and at once when `output_closed` does.
    async fn serve_until<R: AsyncRead + Unpin>(
        self,
        input: R,
        output: Pin<Box<dyn AsyncWrite + Send>>,
        output_closed: impl Future<Output = ()>,
        shutdown: impl Future<Output = ()>,
    ) -> io::Result<()> {
        let (shared, max, drain) = self.into_shared()?;
        let (out, mut frames) = mpsc::unbounded_channel();
        let connection = Arc::new(Connection::new(out));
        // Weak: the frame channel closes only when every holder of the
        // connection is gone, which ends the drain.
        let calls = Arc::downgrade(&connection);
        let watcher = tokio::spawn(watch_tool_changes(
            shared.tools.changes(),
            Arc::clone(&connection),
        ));
        let mut dispatcher = Dispatcher::new(shared, connection);
        let mut reader = LineReader::new(input, max);
        let mut writer = FrameWriter::new(output);
        let mut output_closed = std::pin::pin!(output_closed);
        let mut shutdown = std::pin::pin!(shutdown);
        // The main loop, in priority order:
        // 1. take the frames that calls have finished;
        // 2. write a full batch (BATCH_SIZE) before reading more, which bounds
        //    latency while input keeps coming;
        // 3. read and dispatch every line that is available (a request is
        //    answered, or its tool polled once and, if it waits, given a task
        //    of its own, so reading never waits on a tool);
        // 4. write the rest only when there is nothing left to read, so one
        //    write carries many responses;
        // 5. when input and output both wait: the client closing its end of
        //    the output, or a termination signal.
        // Back-pressure: past BACKLOG_LIMIT unwritten bytes no line is read
        // until the client has taken some, and the writer frees what it has
        // written segment by segment, so a client that reads slowly or not
        // at all holds the output to that limit plus one frame; its further
        // requests wait in the pipe.
        let end = std::future::poll_fn(|cx| {
            loop {
                while let Poll::Ready(Some(frame)) = frames.poll_recv(cx) {
                    writer.push(frame);
                }
                if writer.backlog() >= BATCH_SIZE {
                    match writer.poll_flush(cx) {
                        Poll::Ready(Ok(())) => continue,
                        Poll::Ready(Err(err)) => return Poll::Ready(End::write_failed(err)),
                        Poll::Pending => {}
                    }
                }
                if writer.backlog() < BACKLOG_LIMIT {
                    match reader.poll_ready(cx) {
                        Poll::Ready(Ok(())) => {
                            match reader.take_ready() {
                                Some(Line::Message(line)) => dispatcher.handle_line(line),
                                Some(Line::Oversized { len, id }) => {
                                    dispatcher.handle_oversized(len, max, id)
                                }
                                None => return Poll::Ready(End::Graceful),
                            }
                            continue;
                        }
                        Poll::Ready(Err(err)) => return Poll::Ready(End::ReadFailed(err)),
                        Poll::Pending => {}
                    }
                }
                if writer.backlog() > 0 {
                    match writer.poll_flush(cx) {
                        Poll::Ready(Ok(())) => continue,
                        Poll::Ready(Err(err)) => return Poll::Ready(End::write_failed(err)),
                        Poll::Pending => {}
                    }
                }
                if output_closed.as_mut().poll(cx).is_ready() {
                    return Poll::Ready(End::ClientGone);
                }
                if shutdown.as_mut().poll(cx).is_ready() {
                    tracing::info!("shutting down on a signal");
                    return Poll::Ready(End::Graceful);
                }
                return Poll::Pending;
            }
        })
        .await;
        watcher.abort();
        let read_error = match end {
            End::Graceful => None,
            End::ReadFailed(err) => Some(err),
            End::ClientGone => {
                client_gone(&calls);
                return Ok(());
            }
            End::WriteFailed(err) => {
                cancel_calls(&calls);
                return Err(err);
            }
        };
        let end = drain_connection(
            dispatcher,
            &mut writer,
            &mut frames,
            output_closed,
            drain,
            &calls,
        )
        .await;
        match end {
            End::ClientGone => client_gone(&calls),
            End::WriteFailed(err) => return Err(err),
            End::Graceful | End::ReadFailed(_) => {}
        }
        read_error.map_or(Ok(()), Err)
    }
}

/// Ends a connection whose input is over, bounded as a whole by `drain`:
/// calls in flight may finish while their responses keep being written; at
/// the deadline the rest are cancelled (with an error response each, written
/// if the output takes it at once) and what is still unwritten is dropped,
/// so a client that does not read cannot keep the process alive. Done early
/// once the frame channel closes (every holder of the connection, the
/// dispatcher, call tasks, contexts and the watcher, is gone) and all is
/// written, or when the client goes away.
async fn drain_connection(
    dispatcher: Dispatcher,
    writer: &mut FrameWriter,
    frames: &mut mpsc::UnboundedReceiver<Frame>,
    mut output_closed: Pin<&mut impl Future<Output = ()>>,
    drain: Duration,
    calls: &Weak<Connection>,
) -> End {
    let deadline = tokio::time::Instant::now() + drain;
    // The dispatcher cancels late calls at the same deadline; it is polled
    // first, so their error responses are queued before the deadline ends
    // the loop.
    let mut draining = std::pin::pin!(dispatcher.shutdown(deadline));
    let mut expired = std::pin::pin!(tokio::time::sleep_until(deadline));
    let mut drained = false;
    let mut closed = false;
    std::future::poll_fn(|cx| {
        loop {
            if !drained && draining.as_mut().poll(cx).is_ready() {
                drained = true;
            }
            while !closed {
                match frames.poll_recv(cx) {
                    Poll::Ready(Some(frame)) => writer.push(frame),
                    Poll::Ready(None) => closed = true,
                    Poll::Pending => break,
                }
            }
            if writer.backlog() > 0 {
                match writer.poll_flush(cx) {
                    Poll::Ready(Ok(())) => continue,
                    Poll::Ready(Err(err)) => return Poll::Ready(End::write_failed(err)),
                    Poll::Pending => {}
                }
            } else if drained && closed {
                return writer.poll_shutdown(cx).map(|result| match result {
                    Ok(()) => End::Graceful,
                    Err(err) => End::write_failed(err),
                });
            }
            if output_closed.as_mut().poll(cx).is_ready() {
                return Poll::Ready(End::ClientGone);
            }
            if expired.as_mut().poll(cx).is_ready() {
                tracing::warn!(
                    unwritten_bytes = writer.backlog(),
                    "the drain timeout ended the shutdown"
                );
                cancel_calls(calls);
                return Poll::Ready(End::Graceful);
            }
            return Poll::Pending;
        }
    })
    .await
}

/// How a phase of the main loop ended.
enum End {
    /// Serving: input ended or a termination signal came, so drain.
    /// Draining: done, or the deadline came.
    Graceful,
    /// Reading input failed: drain, then report it.
    ReadFailed(io::Error),
    /// The client can no longer read the output: nothing is left to do.
    ClientGone,
    /// Writing failed for another reason.
    WriteFailed(io::Error),
}

impl End {
    /// A closed pipe or reset connection is the client leaving, a normal
    /// end; other write errors are failures.
    fn write_failed(err: io::Error) -> End {
        match err.kind() {
            io::ErrorKind::BrokenPipe | io::ErrorKind::ConnectionReset => End::ClientGone,
            _ => End::WriteFailed(err),
        }
    }
}

/// Cancels the calls still running, without responses: nobody reads them.
fn cancel_calls(connection: &Weak<Connection>) -> usize {
    connection.upgrade().map_or(0, |connection| {
        connection.fail_server_requests();
        connection.cancel_all().len()
    })
}

/// The client closed the connection: a normal end, said once.
fn client_gone(connection: &Weak<Connection>) {
    let cancelled = cancel_calls(connection);
    tracing::info!(
        cancelled_calls = cancelled,
        "the client closed the connection; exiting"
    );
}

/// Unwritten output past which the main loop stops reading: 4 MiB.
const BACKLOG_LIMIT: usize = 4 << 20;

/// Unwritten output that is written before anything more is read: 32 KiB.
const BATCH_SIZE: usize = 32 << 10;

/// Completes on SIGTERM or SIGINT (Ctrl-C), the ways clients and terminals
/// stop a stdio server.
async fn termination() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        ) {
            (Ok(mut term), Ok(mut int)) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = int.recv() => {}
                }
            }
            _ => std::future::pending().await,
        }
    }
    #[cfg(not(unix))]
    {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

/// Sends list-changed notifications on this connection after each change.
async fn watch_tool_changes(
    mut changes: tokio::sync::watch::Receiver<u64>,
    connection: Arc<Connection>,
) {
    while changes.changed().await.is_ok() {
        notify_tools_changed(&connection);
    }
}
