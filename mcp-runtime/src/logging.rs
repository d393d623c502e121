//! Logging to stderr without ever blocking the protocol.
//!
//! Everything the process means for stderr under [`Server::serve_stdio`]
//! (`tracing` events, panic reports, and what the stdout guard diverts) goes
//! into one bounded in-memory queue that a dedicated thread writes to the
//! real stderr (fd 2, or, once the stdio guard has pointed fd 2 at its pipe,
//! the duplicate of the original fd 2 kept by [`real_stderr`]).
//! Producers never wait for stderr: when the queue is full the bytes are
//! dropped and counted, and a later line says how many ("stderr was not read:
//! N bytes of logs dropped"). A host that never reads stderr therefore costs
//! log lines, never answers. Only the writer thread blocks on stderr; fd 2
//! stays a blocking file description because it is shared with the host, and
//! making it non-blocking would change the host's own stderr under it.
//!
//! The filter follows `RUST_LOG`'s directive syntax (`level`,
//! `target=level`, comma-separated) and is read from `MCP_LOG`, else
//! `RUST_LOG`, else `warn`. It is tracing-subscriber's `Targets`, not
//! `EnvFilter`: `EnvFilter`'s span and field matching brings a regex engine
//! that grows the binary, the resident memory and the clean build of a
//! stdio server by a large share (BENCHMARKS.md), and stdio servers are
//! filtered by target and level. A span or field directive is
//! refused with a warning, never silently ignored.
//!
//! [`Server::serve_stdio`]: crate::Server::serve_stdio

use crate::util::{lock, unpoisoned};
use std::io::{self, Write};
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::SubscriberExt;

/// Unwritten stderr bytes held at most; more are dropped and counted. With
/// the pipe's own buffer (64 KiB on Linux) this absorbs bursts from a host
/// that reads stderr late, while bounding memory for one that never does.
const QUEUE_CAPACITY: usize = 64 << 10;

/// The filter when neither variable is set, or the one set is invalid.
const DEFAULT_FILTER: &str = "warn";

/// The environment variables read for the filter, the first set one wins.
const FILTER_VARS: [&str; 2] = ["MCP_LOG", "RUST_LOG"];

/// How long [`flush`] waits for the writer to make progress before it
/// concludes that nobody reads stderr.
const FLUSH_STALL: Duration = Duration::from_millis(250);

/// The longest [`flush`] waits in all, even while stderr is being read slowly.
const FLUSH_LIMIT: Duration = Duration::from_secs(5);

/// Sets up logging for a stdio server: routes panic reports through the
/// stderr queue and installs a `tracing` subscriber that writes to it,
/// unless the program installed its own subscriber, which wins. The writer
/// thread starts with the first write: a quiet server never needs it.
pub(crate) fn init_stderr() {
    install_panic_hook();
    // A subscriber the program installed wins, and then MCP_LOG means nothing.
    if tracing::dispatcher::has_been_set() {
        return;
    }
    let (filter, problem) = filter_from_env(|name| std::env::var(name));
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(|| QueueWriter)
        .with_ansi(false)
        .finish()
        .with(filter);
    if tracing::subscriber::set_global_default(subscriber).is_ok()
        && let Some(problem) = problem
    {
        tracing::warn!("{problem}");
    }
}

/// The filter from the first of [`FILTER_VARS`] that is set and not empty,
/// and, when that value is unusable, the warning to log about it (the filter
/// is then [`DEFAULT_FILTER`]).
fn filter_from_env(
    var: impl Fn(&str) -> Result<String, std::env::VarError>,
) -> (Targets, Option<String>) {
    let default = || default_filter();
    for name in FILTER_VARS {
        match var(name) {
            Ok(value) if value.trim().is_empty() => {}
            Ok(value) => {
                return match parse_filter(&value) {
                    Ok(filter) => (filter, None),
                    Err(err) => (
                        default(),
                        Some(format!(
                            "{name}={value:?} is not a valid log filter ({err}); logging at the \
                             default level, {DEFAULT_FILTER}. The syntax is RUST_LOG's \
                             directives, e.g. {name}=debug or {name}=mcpfn_runtime=debug,warn"
                        )),
                    ),
                };
            }
            Err(std::env::VarError::NotPresent) => {}
            Err(std::env::VarError::NotUnicode(value)) => {
                return (
                    default(),
                    Some(format!(
                        "{name}={value:?} is not valid UTF-8; logging at the default level, \
                         {DEFAULT_FILTER}"
                    )),
                );
            }
        }
    }
    (default(), None)
}

fn default_filter() -> Targets {
    DEFAULT_FILTER
        .parse()
        .unwrap_or_else(|_| Targets::new().with_default(tracing::Level::WARN))
}

/// `level` or `target=level` directives, comma-separated. Targets are Rust
/// paths (`mcpfn_runtime::call`); anything else, such as the span and field
/// selectors `[span{field=value}]` of `EnvFilter`, is refused by name.
fn parse_filter(value: &str) -> Result<Targets, String> {
    for directive in value.split(',') {
        let target = directive.split('=').next().unwrap_or_default().trim();
        if let Some(bad) = target
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | ':' | '-')))
        {
            return Err(format!(
                "`{}` in `{}`: only `level` and `target=level` directives are supported, \
                 no span or field filters",
                bad,
                directive.trim()
            ));
        }
    }
    value
        .parse()
        .map_err(|err: tracing_subscriber::filter::ParseError| err.to_string())
}

/// Queues `bytes` for stderr, or drops and counts them when the queue is
/// full. Never waits for stderr.
pub(crate) fn write(bytes: &[u8]) {
    sink().push(bytes);
}

/// Waits until everything queued has reached stderr, or until nothing has
/// been written for [`FLUSH_STALL`] (nobody reads stderr), at most
/// [`FLUSH_LIMIT`]: the writer thread does not outlive the process, so what
/// is still queued at exit is lost.
pub(crate) fn flush() {
    let Some(sink) = SINK.get() else { return };
    let deadline = Instant::now() + FLUSH_LIMIT;
    let mut queue = sink.lock();
    let mut written = queue.written;
    while !queue.is_idle() && Instant::now() < deadline {
        let (next, wait) = unpoisoned(sink.progress.wait_timeout(queue, FLUSH_STALL));
        queue = next;
        if wait.timed_out() && queue.written == written {
            return;
        }
        written = queue.written;
    }
}

/// The original stderr, duplicated the first time this is called (the stdio
/// guard calls it before it points fd 2 at its pipe), so the writer thread
/// keeps writing to the host's stderr rather than into the guard's pipe,
/// which would feed its own output back into the queue.
#[cfg(unix)]
pub(crate) fn real_stderr() -> io::Result<&'static std::fs::File> {
    if let Some(real) = REAL_STDERR.get() {
        return Ok(real);
    }
    let dup = std::fs::File::from(rustix::io::dup(rustix::stdio::stderr())?);
    Ok(REAL_STDERR.get_or_init(|| dup))
}

/// See [`real_stderr`].
#[cfg(unix)]
static REAL_STDERR: OnceLock<std::fs::File> = OnceLock::new();

/// Where the writer thread writes: the kept original stderr once there is
/// one, else fd 2. Looked up per write, as the guard may divert fd 2 after
/// the thread started.
struct RealStderr;

impl Write for RealStderr {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        #[cfg(unix)]
        if let Some(mut real) = REAL_STDERR.get() {
            return real.write(bytes);
        }
        io::stderr().write(bytes)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The `tracing` writer: one formatted event arrives as one `write`, so an
/// event is queued or dropped whole.
struct QueueWriter;

impl Write for QueueWriter {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        write(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The queue and the writer thread's signals.
#[derive(Default)]
struct Sink {
    queue: Mutex<Queue>,
    /// Wakes the writer: there is something to write.
    ready: Condvar,
    /// Wakes [`flush`]: the writer wrote something or went idle.
    progress: Condvar,
}

#[derive(Default)]
struct Queue {
    /// Bytes waiting for the writer, at most [`QUEUE_CAPACITY`].
    pending: Vec<u8>,
    /// Bytes dropped since the writer last took the count.
    dropped: u64,
    /// Whether the writer holds a batch it has not finished writing.
    writing: bool,
    /// Bytes written (or discarded on a write error) so far, the progress
    /// [`flush`] watches.
    written: u64,
    /// Whether there is no writer thread (it could not be started): then
    /// everything is dropped.
    no_writer: bool,
}

impl Queue {
    fn is_idle(&self) -> bool {
        self.pending.is_empty() && !self.writing && (self.dropped == 0 || self.no_writer)
    }
}

static SINK: OnceLock<Sink> = OnceLock::new();

/// The process's stderr queue, its writer thread started on first use.
fn sink() -> &'static Sink {
    SINK.get_or_init(|| {
        let spawned = std::thread::Builder::new()
            .name("mcp-stderr".into())
            // The thread may start before this closure has returned: it
            // waits for the OnceLock to hold the sink.
            .spawn(|| SINK.wait().drain(RealStderr));
        Sink {
            queue: Mutex::new(Queue {
                no_writer: spawned.is_err(),
                ..Queue::default()
            }),
            ..Sink::default()
        }
    })
}

impl Sink {
    /// The queue (see [`crate::util`] on poisoning).
    fn lock(&self) -> MutexGuard<'_, Queue> {
        lock(&self.queue)
    }

    fn push(&self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        let mut queue = self.lock();
        if queue.no_writer || queue.pending.len() + bytes.len() > QUEUE_CAPACITY {
            // Still a wake-up: a write larger than the whole queue may find
            // the writer idle, and the drop must be reported all the same.
            queue.dropped += bytes.len() as u64;
        } else {
            queue.pending.extend_from_slice(bytes);
        }
        drop(queue);
        self.ready.notify_one();
    }

    /// The writer thread: takes everything queued, writes it with blocking
    /// writes, then reports what was dropped meanwhile. Runs for the life of
    /// the process.
    fn drain(&self, mut out: impl Write) {
        let mut batch = Vec::new();
        loop {
            let dropped = {
                let mut queue = self.lock();
                while queue.pending.is_empty() && queue.dropped == 0 {
                    queue = unpoisoned(self.ready.wait(queue));
                }
                // Swapping keeps both buffers' capacity: no allocation per batch.
                std::mem::swap(&mut batch, &mut queue.pending);
                queue.writing = true;
                std::mem::take(&mut queue.dropped)
            };
            let mut rest = &batch[..];
            while !rest.is_empty() {
                let step = match out.write(rest) {
                    Ok(0) | Err(_) => rest.len(),
                    Ok(n) => n,
                };
                rest = &rest[step..];
                self.lock().written += step as u64;
                self.progress.notify_all();
            }
            batch.clear();
            self.lock().writing = false;
            if dropped > 0 {
                // A log event of its own, so it is formatted and filtered
                // like any other and queued behind what was written.
                tracing::warn!("stderr was not read: {dropped} bytes of logs dropped");
            }
            self.progress.notify_all();
        }
    }
}

/// Replaces the panic hook by one that reports what the default hook does
/// (thread, message, location, and a backtrace when `RUST_BACKTRACE` asks
/// for one) through the queue: the default hook writes to stderr directly
/// and would block a tool's thread, often the runtime's only one, while the
/// host does not read stderr.
fn install_panic_hook() {
    use std::sync::atomic::{AtomicBool, Ordering};
    static FIRST_PANIC: AtomicBool = AtomicBool::new(true);
    std::panic::set_hook(Box::new(|info| {
        use std::backtrace::Backtrace;
        use std::fmt::Write as _;
        let thread = std::thread::current();
        let name = thread.name().unwrap_or("<unnamed>");
        let message = info.payload_as_str().unwrap_or("Box<dyn Any>");
        let mut report = String::new();
        let _ = match info.location() {
            Some(location) => writeln!(report, "thread '{name}' panicked at {location}:"),
            None => writeln!(report, "thread '{name}' panicked:"),
        };
        let _ = writeln!(report, "{message}");
        // RUST_BACKTRACE as the default hook reads it (`Backtrace::capture`
        // would also obey RUST_LIB_BACKTRACE, which is for errors).
        let style = std::env::var_os("RUST_BACKTRACE").filter(|v| v != "0");
        if let Some(style) = style {
            let backtrace = Backtrace::force_capture();
            let _ = if style == "full" {
                writeln!(report, "stack backtrace:\n{backtrace:#}")
            } else {
                writeln!(report, "stack backtrace:\n{backtrace}")
            };
        } else if FIRST_PANIC.swap(false, Ordering::Relaxed) {
            report.push_str(
                "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n",
            );
        }
        write(report.as_bytes());
        // With panic = "abort" the process ends right after this hook.
        if cfg!(panic = "abort") {
            flush();
        }
    }));
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::env::VarError;

    fn filter(vars: &[(&str, &str)]) -> (String, Option<String>) {
        let (filter, problem) = filter_from_env(|name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (*v).to_owned())
                .ok_or(VarError::NotPresent)
        });
        (filter.to_string(), problem)
    }

    #[test]
    fn the_filter_comes_from_mcp_log_then_rust_log_then_warn() {
        assert_eq!(filter(&[]), ("warn".to_owned(), None));
        assert_eq!(filter(&[("RUST_LOG", "debug")]).0, "debug");
        // The values the former single-level MCP_LOG took still work.
        assert_eq!(filter(&[("MCP_LOG", "INFO")]), ("info".to_owned(), None));
        assert_eq!(
            filter(&[("MCP_LOG", "info"), ("RUST_LOG", "debug")]).0,
            "info"
        );
        assert_eq!(
            filter(&[("MCP_LOG", " "), ("RUST_LOG", "debug")]).0,
            "debug"
        );
        assert_eq!(
            filter(&[("MCP_LOG", "mcpfn_runtime=debug,warn")]).0,
            "mcpfn_runtime=debug,warn"
        );
    }

    #[test]
    fn span_and_field_filters_are_refused_by_name() {
        for value in [
            "mcpfn_runtime[call]=debug",
            "[{tool=add}]=debug",
            "a{b}=info",
        ] {
            let (filter, problem) = filter(&[("RUST_LOG", value)]);
            assert_eq!(filter, "warn", "{value}");
            let problem = problem.expect("a warning");
            assert!(problem.contains("no span or field filters"), "{problem}");
            assert!(problem.contains(value), "{problem}");
        }
        assert_eq!(filter(&[("RUST_LOG", "mcpfn_runtime::call=debug")]).1, None);
    }

    #[test]
    fn an_invalid_filter_is_named_and_falls_back_to_warn() {
        let (filter, problem) = filter(&[("MCP_LOG", "bogus["), ("RUST_LOG", "debug")]);
        assert_eq!(filter, "warn");
        let problem = problem.expect("a warning");
        assert!(problem.contains(r#"MCP_LOG="bogus[""#), "{problem}");
    }

    #[test]
    fn a_full_queue_drops_whole_writes_and_counts_them() {
        let sink = Sink::default();
        sink.push(&[b'a'; QUEUE_CAPACITY - 10]);
        sink.push(&[b'b'; 11]);
        sink.push(&[b'c'; 10]);
        let queue = sink.lock();
        assert_eq!(queue.pending.len(), QUEUE_CAPACITY);
        assert_eq!(queue.pending.last(), Some(&b'c'));
        assert_eq!(queue.dropped, 11);
    }

    /// A writer that shares what it was given.
    #[derive(Clone, Default)]
    struct Shared(std::sync::Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn the_writer_writes_what_is_queued_and_takes_the_count_of_any_drop() {
        let sink: &'static Sink = Box::leak(Box::default());
        let out = Shared::default();
        let writer = out.clone();
        std::thread::spawn(move || sink.drain(writer));
        let wait_idle = |what: &str| {
            let deadline = Instant::now() + Duration::from_secs(10);
            while !sink.lock().is_idle() {
                assert!(Instant::now() < deadline, "the writer did not take {what}");
                std::thread::sleep(Duration::from_millis(1));
            }
        };
        sink.push(b"one line\n");
        wait_idle("the line");
        assert_eq!(out.0.lock().unwrap().as_slice(), b"one line\n");
        assert_eq!(sink.lock().written, 9);
        // Larger than the whole queue, into an idle writer: dropped, and the
        // writer still wakes up to take the count (and report it).
        sink.push(&vec![b'x'; QUEUE_CAPACITY + 1]);
        wait_idle("the count of the drop");
        assert_eq!(sink.lock().written, 9);
    }
}
