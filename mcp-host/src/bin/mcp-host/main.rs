//! `mcp-host`: the reference host. Reads one user message per line from
//! stdin, answers each through the tool-use loop of [`mcp_host::agent`]
//! with the tools of the servers of an `mcp.json`, and writes one answer
//! per line (with `--json`, one JSON object). Logs, progress and warnings
//! go to stderr; approvals are asked on the terminal, never on stdin.
//!
//! Exit status: 0 at the end of stdin; 2 for a usage error, an unusable
//! config, an unusable `--pins` or approvals file or no API key in the environment; 1
//! when the model API refuses the key (401/403), since every later line
//! would fail the same way, and at the end of stdin when lines were read
//! and none was answered (each failed or timed out); 130 after SIGINT, 143
//! after SIGTERM.
//!
//! At a terminal (stdin and stdout both) the answers are streamed and the
//! calls shown as `--stream` does, and the log is at warn, unless the flags
//! (or `RUST_LOG`) say otherwise; pipes and files get the whole answers and
//! the info log.
//!
//! The first SIGINT (Ctrl-C) while a line is answered interrupts that line
//! alone ([`Line::interrupt`](mcp_host::agent::Line::interrupt)): the model request and the tool
//! calls under way are cancelled, one stderr line says so, and the next
//! line is read. A second one in the same line, or one while the host
//! waits for a line, ends the program as SIGTERM does.
//!
//! However it ends, the servers are closed first: each stdio server's stdin
//! is closed and it gets `--close-grace` to exit (its state saved), then
//! its process group gets SIGTERM and as long again, then SIGKILL. On
//! Linux the host is its servers' subreaper: what they started and left
//! behind, even in a session of its own, is killed when the host ends.

mod apis;
mod approvals;
mod cli;
mod logging;
#[cfg(feature = "oauth")]
mod login;
mod show;

use apis::Api;
use cli::{ApproveKind, Args, HistoryKind, Output, Parsed, usage};
use mcp_client::text::excerpt;
use mcp_client::{ClientOptions, RestartPolicy};
use mcp_host::agent::approval::{ApproveAll, Approver, AskTerminal, ReadOnly};
use mcp_host::agent::calls::CallRecord;
use mcp_host::agent::history::{HistoryPolicy, LastTurns, MaxBytes, TokenBudget, Trim};
use mcp_host::agent::interrupt::{INTERRUPTED, Interrupt, TIMED_OUT};
use mcp_host::agent::on_demand::Offering;
use mcp_host::agent::pins::Pins;
use mcp_host::agent::{Agent, Answer, Conversation};
use mcp_host::catalog::CatalogOptions;
use mcp_host::config::McpConfig;
use mcp_host::provider::{ApiClient, Provider, ProviderError, Usage};
use serde::Serialize;
use std::future::IntoFuture;
use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::AsyncBufReadExt;

/// One `--json` output line.
#[derive(Serialize)]
struct Line<'a> {
    text: &'a str,
    stop_reason: &'a str,
    turns: u32,
    usage: Usage,
    tool_calls: &'a [CallRecord],
    /// What of the history was dropped or summarized to fit the window.
    #[serde(skip_serializing_if = "Option::is_none")]
    trimmed: Option<Trim>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    /// With `error`: how many of `tool_calls` ran and stay in the history.
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_calls_kept: Option<usize>,
}

/// What the close of the servers may take beyond their two graces (the
/// SIGKILL and its reaping) before the program stops waiting.
const CLOSE_SLACK: Duration = Duration::from_secs(1);

/// The JSON of the conversation the host keeps and resends: the
/// Anthropic API's request limit (32 MB).
const MAX_HISTORY_BYTES: usize = 32_000_000;

fn main() -> ExitCode {
    let mut args = match cli::parse(std::env::args().skip(1)) {
        Ok(Parsed::Run(args)) => *args,
        Ok(Parsed::Help) => {
            println!("{}", usage());
            return ExitCode::SUCCESS;
        }
        Ok(Parsed::Login(args)) => return auth_command(args, true),
        Ok(Parsed::Logout(args)) => return auth_command(args, false),
        Ok(Parsed::Approvals(args)) => return approvals::run(args),
        Err(e) => {
            eprintln!("mcp-host: {e}\n\n{}", usage());
            return ExitCode::from(2);
        }
    };
    let log_fallback = if std::io::stdin().is_terminal() && std::io::stdout().is_terminal() {
        args.at_terminal()
    } else {
        logging::DEFAULT_FILTER
    };
    logging::init(args.log_level, log_fallback);
    // Said before a server starts or a line is read: every line would fail.
    let key = args.provider.key_variable;
    if std::env::var_os(key).is_none_or(|value| value.is_empty()) {
        eprintln!(
            "mcp-host: {key} is not set: the {} API needs a key (--provider chooses the API)",
            args.provider.name
        );
        return ExitCode::from(2);
    }
    let config = match McpConfig::load(&args.config) {
        Ok(config) => config,
        Err(e) => {
            eprintln!("mcp-host: {}: {e}", args.config.display());
            return ExitCode::from(2);
        }
    };
    for warning in config.warnings() {
        eprintln!("mcp-host: {}: {warning}", args.config.display());
    }
    #[cfg(target_os = "linux")]
    orphans::adopt();
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("mcp-host: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    #[cfg(target_os = "linux")]
    runtime.spawn(orphans::reap());
    let status = runtime.block_on(run(args, config));
    // Not a wait for the blocking read of stdin still under way after a
    // signal: the servers are already closed.
    runtime.shutdown_background();
    #[cfg(target_os = "linux")]
    orphans::end();
    status
}

/// `mcp-host login` (`login`) or `mcp-host logout`.
fn auth_command(args: cli::AuthArgs, login: bool) -> ExitCode {
    #[cfg(feature = "oauth")]
    {
        tracing_subscriber::fmt()
            .with_writer(std::io::stderr)
            .with_max_level(tracing::Level::INFO)
            .without_time()
            .init();
        login::run(args, login)
    }
    #[cfg(not(feature = "oauth"))]
    {
        let _ = (args, login);
        eprintln!("mcp-host: this build leaves OAuth out (feature `oauth`)");
        ExitCode::from(2)
    }
}

/// A server's process group ends with it, but a process that left the group
/// (`setsid`, as a daemon does) would outlive the host. As the servers'
/// subreaper the host becomes the parent of every such orphan: it reaps
/// each as it exits (else each stays a zombie until the host ends), and
/// kills what of them still runs when it ends.
#[cfg(target_os = "linux")]
mod orphans {
    use mcp_client::orphans::{live_children, reap_orphans};
    use rustix::process::{Pid, Signal, getpid, kill_process, set_child_subreaper};
    use std::time::Duration;

    /// Makes the host the parent of its servers' orphans.
    pub(crate) fn adopt() {
        if let Err(e) = set_child_subreaper(Some(getpid())) {
            eprintln!("mcp-host: cannot adopt the servers' orphans: {e}");
        }
    }

    /// Reaps the adopted orphans that exit, on each `SIGCHLD` and, should
    /// one be missed, every few seconds; runs until the runtime ends.
    pub(crate) async fn reap() {
        use tokio::signal::unix::{SignalKind, signal};
        let mut exits = signal(SignalKind::child()).ok();
        let mut tick = tokio::time::interval(Duration::from_secs(5));
        loop {
            match exits.as_mut() {
                Some(exits) => tokio::select! {
                    _ = exits.recv() => {}
                    _ = tick.tick() => {}
                },
                None => {
                    tick.tick().await;
                }
            }
            let reaped = reap_orphans();
            if reaped > 0 {
                tracing::debug!(reaped, "reaped adopted orphans");
            }
        }
    }

    /// SIGKILLs the host's live children, again while more come (an orphan
    /// whose parent was just killed is adopted a moment later), for at most
    /// about a second.
    pub(crate) fn end() {
        for _ in 0..20 {
            let children = live_children();
            if children.is_empty() {
                return;
            }
            for pid in children.into_iter().filter_map(Pid::from_raw) {
                let _ = kill_process(pid, Signal::KILL);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

fn provider(
    api: &Api,
    api_timeout: Option<Duration>,
    cache: bool,
) -> Result<Arc<dyn Provider>, ProviderError> {
    // Without --api-timeout each request's deadline follows its max_tokens.
    let mut http = ApiClient::new();
    if let Some(deadline) = api_timeout {
        http = http.deadline(deadline);
    }
    (api.connect)(http, cache)
}

/// The history policy of `--history`, each within the API's request limit.
fn history_policy(kind: HistoryKind) -> Arc<dyn HistoryPolicy> {
    let bound = MaxBytes(MAX_HISTORY_BYTES);
    match kind {
        HistoryKind::All => Arc::new(bound),
        HistoryKind::LastTurns(n) => Arc::new((LastTurns(n), bound)),
        HistoryKind::Tokens(n) => Arc::new((TokenBudget(n), bound)),
    }
}

/// The approver of `--approve`; `ask` with the approvals kept beside
/// `pins` (an unusable approvals file is an error naming it).
fn approver(
    kind: ApproveKind,
    pins: Option<&std::path::Path>,
) -> Result<Arc<dyn Approver>, String> {
    Ok(match kind {
        ApproveKind::All => Arc::new(ApproveAll),
        ApproveKind::ReadOnly => Arc::new(ReadOnly),
        ApproveKind::Ask { read_only } => {
            let kept = approvals::open(pins)?;
            let ask = AskTerminal::open().unwrap_or_else(|e| {
                // Said once, here: each call not run says so to the model.
                let still = if read_only {
                    ""
                } else {
                    "; tools a trusted server marks read-only still run"
                };
                eprintln!(
                    "mcp-host: --approve ask: no terminal to ask on ({e}); calls that need approval are not run, and the model is told no one could be asked{still}"
                );
                AskTerminal::nobody()
            });
            Arc::new(ask.ask_read_only(read_only).keep(kept))
        }
    })
}

async fn run(args: Args, config: McpConfig) -> ExitCode {
    // Listened for from the start: the servers run in process groups of
    // their own, so a Ctrl-C reaches the host alone, which must end them.
    let mut signals = Signals::new();
    let provider = match provider(args.provider, args.api_timeout, args.cache) {
        Ok(provider) => provider,
        Err(e) => {
            eprintln!("mcp-host: {e}");
            return ExitCode::from(2);
        }
    };
    let pins = match &args.pins {
        Some(path) => match Pins::open(path) {
            Ok(pins) => pins,
            Err(e) => {
                eprintln!("mcp-host: {e}");
                return ExitCode::from(2);
            }
        },
        None => Pins::in_memory(),
    };
    let approver = match approver(args.approve, args.pins.as_deref()) {
        Ok(approver) => approver,
        Err(e) => {
            eprintln!("mcp-host: {e}");
            return ExitCode::from(2);
        }
    };
    let catalog_options = CatalogOptions {
        client: ClientOptions {
            close_grace: args.close_grace,
            restart: RestartPolicy::max_restarts(args.restarts),
            list_limits: args.list_limits,
            ..ClientOptions::default()
        },
        #[cfg(feature = "oauth")]
        authorizers: login::authorizers(&config),
        start_timeout: args.start_timeout,
        ..CatalogOptions::default()
    };
    // `catalog_options` first: `tool_timeout` then sets its call timeout.
    let mut builder = Agent::with_provider(provider)
        .catalog_options(catalog_options)
        .config(config)
        .max_turns(args.max_turns)
        .line_timeout(args.line_timeout)
        .max_tokens(args.max_tokens)
        .tool_timeout(args.tool_timeout)
        .max_result_bytes(args.max_result_bytes)
        .history_with(history_policy(args.history))
        .on_overflow(args.on_overflow)
        .pins(pins)
        // The contract: "every call of that response runs concurrently",
        // however many there are; the library's default bound (8) would
        // queue the ninth. Each server still bounds its own calls.
        .calls_in_flight(tokio::sync::Semaphore::MAX_PERMITS)
        .approve_with(approver);
    if let Some(tokens) = args.max_tool_tokens {
        builder = builder.max_tool_tokens(tokens);
    }
    if let Some(model) = &args.model {
        builder = builder.model(model);
    }
    if let Some(system) = &args.system {
        builder = builder.system(system);
    }
    let built = tokio::select! {
        built = builder.build() => built,
        (name, status) = signals.next() => {
            // The servers being started are dropped, which kills them.
            eprintln!("mcp-host: {name} while the servers started: killing them");
            return ExitCode::from(status);
        }
    };
    let agent = match built {
        Ok(agent) => agent,
        Err(e) => {
            eprintln!("mcp-host: {e}");
            return ExitCode::FAILURE;
        }
    };
    // Each server left out is already on stderr: the catalog logs it
    // (`WARN … server left out server=… reason=…`) as it happens.
    // Info lines: `--quiet` leaves them out with the others.
    if tracing::enabled!(tracing::Level::INFO) {
        for name in agent.catalog().disabled() {
            eprintln!("mcp-host: server `{name}` not started: disabled in the config");
        }
        let on_demand = match agent.offering() {
            Offering::All => String::new(),
            Offering::ApiSearch { loaded, deferred } => {
                format!(" on demand ({deferred} through the API's tool search, {loaded} loaded)")
            }
            Offering::LocalSearch { tool, loaded, .. } => {
                format!(" on demand (through `{tool}`, {loaded} loaded)")
            }
        };
        eprintln!(
            "mcp-host: {} tools offered to {}{on_demand}",
            agent.catalog().tools().len(),
            agent.model()
        );
    }
    let mut conversation = agent.conversation();
    let status = match converse(
        &agent,
        &mut conversation,
        args.output,
        args.line_timeout,
        &mut signals,
    )
    .await
    {
        Ended::Status(status) => status,
        Ended::Signal(name, status) => {
            eprintln!("mcp-host: {name}: closing the servers (again to kill them at once)");
            ExitCode::from(status)
        }
    };
    // Not left to the runtime's teardown, which would SIGKILL each server
    // with no chance to save its state. A second signal cuts the grace
    // short: the servers are then killed as the catalog is dropped.
    let catalog = agent.catalog();
    // Each server's close is bounded (its grace, SIGTERM, its grace,
    // SIGKILL); this deadline bounds what no server controls, so the
    // program ends on time whatever its servers do. What is still open then
    // is killed as the catalog is dropped.
    let deadline = args.close_grace * 2 + CLOSE_SLACK;
    tokio::select! {
        () = catalog.close() => {}
        () = tokio::time::sleep(deadline) => eprintln!("mcp-host: the servers did not close within {} ms: killing them", deadline.as_millis()),
        (name, _) = signals.next() => eprintln!("mcp-host: {name} again: killing the servers"),
    }
    drop((catalog, agent));
    status
}

/// SIGINT and SIGTERM, once listened for: no longer the default of
/// ending the process on the spot.
struct Signals {
    #[cfg(unix)]
    interrupt: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    terminate: Option<tokio::signal::unix::Signal>,
}

impl Signals {
    fn new() -> Signals {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Signals {
                interrupt: signal(SignalKind::interrupt()).ok(),
                terminate: signal(SignalKind::terminate()).ok(),
            }
        }
        #[cfg(not(unix))]
        Signals {}
    }

    /// The name of the next signal and the status to exit with (never,
    /// when they could not be listened for).
    #[cfg(unix)]
    async fn next(&mut self) -> (&'static str, u8) {
        let (Some(interrupt), Some(terminate)) = (&mut self.interrupt, &mut self.terminate) else {
            return std::future::pending().await;
        };
        tokio::select! {
            _ = interrupt.recv() => ("SIGINT", 130),
            _ = terminate.recv() => ("SIGTERM", 143),
        }
    }

    /// Ctrl-C, where there are no Unix signals.
    #[cfg(not(unix))]
    async fn next(&mut self) -> (&'static str, u8) {
        if tokio::signal::ctrl_c().await.is_err() {
            return std::future::pending().await;
        }
        ("Ctrl-C", 130)
    }
}

/// How [`converse`] ended.
enum Ended {
    /// On its own: the end of stdin, or a failure.
    Status(ExitCode),
    /// On a signal, with its name and the status to exit with.
    Signal(&'static str, u8),
}

/// The status [`Signals::next`] gives SIGINT (Ctrl-C): it interrupts a
/// line before it ends the program.
const INTERRUPT_STATUS: u8 = 130;

/// Answers stdin's lines until its end or a signal; the first SIGINT
/// during a line interrupts that line alone. At the end of stdin, fails
/// when lines were read and none was answered.
async fn converse(
    agent: &Agent,
    conversation: &mut Conversation,
    output: Output,
    line_timeout: Duration,
    signals: &mut Signals,
) -> Ended {
    let sink = show::sink(output);
    let mut stdin = tokio::io::BufReader::new(tokio::io::stdin());
    let mut buffer = Vec::new();
    // Lines answered, and lines that failed or timed out.
    let (mut answered, mut unanswered) = (0_u64, 0_u64);
    loop {
        buffer.clear();
        let read = tokio::select! {
            read = stdin.read_until(b'\n', &mut buffer) => read,
            (name, status) = signals.next() => return Ended::Signal(name, status),
        };
        match read {
            Ok(0) if answered == 0 && unanswered > 0 => {
                eprintln!("mcp-host: no line was answered ({unanswered} failed or timed out)");
                return Ended::Status(ExitCode::FAILURE);
            }
            Ok(0) => return Ended::Status(ExitCode::SUCCESS),
            Ok(_) => {}
            Err(e) => {
                eprintln!("mcp-host: stdin: {e}");
                return Ended::Status(ExitCode::FAILURE);
            }
        }
        let line = String::from_utf8_lossy(&buffer);
        let line = line.trim_end_matches(['\n', '\r']);
        if line.trim().is_empty() {
            continue;
        }
        let interrupt = Interrupt::new();
        let sent = {
            let send = agent
                .send(conversation, line)
                .interrupt(&interrupt)
                .events(sink.as_ref())
                .into_future();
            tokio::pin!(send);
            loop {
                tokio::select! {
                    sent = &mut send => break sent,
                    (name, status) = signals.next() => {
                        if status != INTERRUPT_STATUS || interrupt.is_interrupted() {
                            return Ended::Signal(name, status);
                        }
                        interrupt.interrupt();
                    }
                }
            }
        };
        let (answer, failure) = match sent {
            Ok(answer) if answer.stop_reason == INTERRUPTED => {
                eprintln!("mcp-host: {}", interrupted_note(line, &answer));
                // Nothing was answered; `--json` and `--events` keep
                // their line per line.
                if matches!(output, Output::Text | Output::Stream) {
                    continue;
                }
                (answer, None)
            }
            Ok(answer) if answer.stop_reason == TIMED_OUT => {
                unanswered += 1;
                let error = timed_out_error(line_timeout);
                eprintln!("mcp-host: {error}: {}", cut_short(line, &answer));
                let failure = Failure {
                    error,
                    calls_kept: answer.tool_calls.len(),
                };
                (answer, Some(failure))
            }
            Ok(answer) => {
                answered += 1;
                (answer, None)
            }
            Err(failed) if failed.error.is_auth() => {
                eprintln!("mcp-host: {}", failed.error);
                return Ended::Status(ExitCode::FAILURE);
            }
            Err(failed) => {
                unanswered += 1;
                let kept = match failed.calls_kept {
                    0 => String::new(),
                    1 => "; 1 tool call ran before the failure and is kept in the history".into(),
                    n => format!(
                        "; {n} tool calls ran before the failure and are kept in the history"
                    ),
                };
                eprintln!("mcp-host: the model request failed: {}{kept}", failed.error);
                let failure = Failure {
                    error: failed.error.to_string(),
                    calls_kept: failed.calls_kept,
                };
                (failed.partial, Some(failure))
            }
        };
        if let Some(trim) = answer.trimmed {
            eprintln!("mcp-host: {}", trim_note(trim));
        }
        if let Err(e) = write_answer(&answer, failure, output) {
            // stdout closed: nobody reads the answers any more.
            eprintln!("mcp-host: stdout: {e}");
            return Ended::Status(ExitCode::FAILURE);
        }
    }
}

/// The stderr line of an interrupted line: which, and what of it stays.
fn interrupted_note(line: &str, answer: &Answer) -> String {
    format!(
        "interrupted (SIGINT): {}; Ctrl-C again while a line runs ends the program",
        cut_short(line, answer)
    )
}

/// The error of a line past `--line-timeout`, on stderr and in `--json`.
fn timed_out_error(limit: Duration) -> String {
    format!(
        "the line timed out after {} s (--line-timeout)",
        limit.as_secs_f64()
    )
}

/// The longest excerpt of a line a note on stderr quotes, in bytes.
const LINE_SHOWN: usize = 80;

/// A line cut short, quoted, and what of it stays in the history.
fn cut_short(line: &str, answer: &Answer) -> String {
    let kept = match answer.tool_calls.len() {
        0 => "the line is dropped from the conversation".to_owned(),
        1 => "its 1 tool call is kept in the history".to_owned(),
        n => format!("its {n} tool calls are kept in the history"),
    };
    format!("`{}`: {kept}", excerpt(line, LINE_SHOWN))
}

/// A line's failure as the output says it.
struct Failure {
    error: String,
    calls_kept: usize,
}

/// The stderr line of an overflow's trim.
fn trim_note(trim: Trim) -> String {
    let lines = match trim.turns {
        1 => "line".to_owned(),
        n => format!("{n} lines"),
    };
    let done = if trim.summarized {
        format!(
            "the oldest {lines} ({} messages) were replaced by a summary the model wrote",
            trim.messages + 1
        )
    } else {
        format!(
            "the oldest {lines} were dropped ({} messages, the first question kept)",
            trim.messages
        )
    };
    format!(
        "the conversation did not fit the model's context window: {done}, and the request was sent again"
    )
}

fn write_answer(answer: &Answer, failure: Option<Failure>, output: Output) -> std::io::Result<()> {
    let mut stdout = std::io::stdout().lock();
    if let Output::Json | Output::Events = output {
        let (error, tool_calls_kept) = match failure {
            Some(failure) => (Some(failure.error), Some(failure.calls_kept)),
            None => (None, None),
        };
        let line = Line {
            text: &answer.text,
            stop_reason: &answer.stop_reason,
            turns: answer.responses,
            usage: answer.usage,
            tool_calls: &answer.tool_calls,
            trimmed: answer.trimmed,
            error,
            tool_calls_kept,
        };
        if output == Output::Events {
            let mut tagged = serde_json::to_value(&line)?;
            tagged["event"] = "answer".into();
            serde_json::to_writer(&mut stdout, &tagged)?;
        } else {
            serde_json::to_writer(&mut stdout, &line)?;
        }
        stdout.write_all(b"\n")?;
    } else if output == Output::Stream {
        // The text has been written as it came.
        writeln!(stdout, "\n")?;
    } else {
        writeln!(stdout, "{}\n", answer.text)?;
    }
    stdout.flush()
}
