//! The byte-stream half of the builder: serving stdio (with its guard,
//! logging and signals) or any reader/writer pair.

use super::Server;
use crate::transport::signal::termination;
use std::future::Future;
use std::io;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};

impl Server {
    /// Serves stdin/stdout until stdin closes, logging to stderr.
    ///
    /// Installs a `tracing` subscriber that writes timestamped lines to
    /// stderr unless the program installed its own. Its filter takes
    /// `RUST_LOG` syntax (`info`, `mcpfn_runtime=debug,warn`, …) from the
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
    /// `State<T>` never registered; see [`Error`](crate::Error)) is returned before
    /// anything is set up, as an [`io::Error`] of kind `InvalidInput` whose
    /// `Display` is the mistake's.
    pub async fn serve_stdio(self) -> io::Result<()> {
        self.check_registration()?;
        crate::logging::init_stderr();
        let output = crate::transport::stdio::stdout(self.stdout_guard)?;
        let input = crate::transport::stdio::stdin()?;
        // The startup line's target is `mcpfn_runtime::server` for every
        // transport, whichever file of the module serves it.
        tracing::info!(
            target: "mcpfn_runtime::server",
            server = %self.name,
            version = %self.version,
            transport = "stdio",
            pid = std::process::id(),
            "serving"
        );
        let result = self.serve_until(input, output, termination()).await;
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
        let output = crate::transport::lines::Output::plain(Box::pin(output));
        self.serve_until(input, output, std::future::pending())
            .await
    }

    /// [`Server::serve`] that also ends, the same graceful way, when
    /// `shutdown` completes, and at once when the output's `closed` does.
    async fn serve_until<R: AsyncRead + Unpin>(
        self,
        input: R,
        output: crate::transport::lines::Output,
        shutdown: impl Future<Output = ()>,
    ) -> io::Result<()> {
        let (shared, max, drain) = self.into_shared(false)?;
        crate::transport::lines::serve(shared, max, drain, input, output, shutdown).await
    }
}
