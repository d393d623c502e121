//! `mcp-host`: the reference host. Reads one user message per line from
//! stdin, answers each through the tool-use loop of [`mcpfn_host::agent`]
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
//! alone ([`Line::interrupt`](mcpfn_host::agent::Line::interrupt)): the model request and the tool
//! calls under way are cancelled, one stderr line says so, and the next
//! line is read. A second one in the same line, or one while the host
//! waits for a line, ends the program as SIGTERM does.
//!
//! However it ends, the servers are closed first: each stdio server's stdin
//! is closed and it gets `--close-grace` to exit (its state saved), then
//! its process group gets SIGTERM and as long again, then SIGKILL. On
//! Linux the host is its servers' subreaper: what they started and left
//! behind, even in a session of its own, is killed when the host ends.

mod answer;
mod apis;
mod approvals;
mod cli;
mod command;
#[cfg(feature = "editor")]
mod complete;
mod converse;
#[cfg(feature = "editor")]
mod editor;
mod input;
mod listing;
mod logging;
#[cfg(feature = "oauth")]
mod login;
#[cfg(feature = "editor")]
mod lookup;
mod mention;
#[cfg(target_os = "linux")]
mod orphans;
mod read;
mod show;
mod signals;
mod typed;
mod usage;
mod web;
mod web_args;

use apis::Api;
use cli::{ApproveKind, Args, HistoryKind, Parsed};
use converse::{Ended, converse};
use mcpfn_client::{ClientOptions, RestartPolicy};
use mcpfn_host::agent::Agent;
use mcpfn_host::agent::approval::{ApproveAll, Approver, AskTerminal, ReadOnly};
use mcpfn_host::agent::history::{HistoryPolicy, LastTurns, MaxBytes, TokenBudget};
use mcpfn_host::agent::on_demand::Offering;
use mcpfn_host::agent::pins::Pins;
use mcpfn_host::catalog::CatalogOptions;
use mcpfn_host::config::McpConfig;
use mcpfn_host::provider::{ApiClient, Provider, ProviderError};
use signals::Signals;
use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;
use usage::usage;

/// What the close of the servers may take beyond their two graces (the
/// SIGKILL and its reaping) before the program stops waiting.
const CLOSE_SLACK: Duration = Duration::from_secs(1);

/// The JSON of the conversation the host keeps and resends: the
/// Anthropic API's request limit (32 MB).
const MAX_HISTORY_BYTES: usize = 32_000_000;

fn main() -> ExitCode {
    let (mut args, web) = match cli::parse(std::env::args().skip(1)) {
        Ok(Parsed::Run(args)) => (*args, None),
        Ok(Parsed::Web(args, web)) => (*args, Some(web)),
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
    let log_fallback = if web.is_some() {
        logging::DEFAULT_FILTER
    } else if std::io::stdin().is_terminal() && std::io::stdout().is_terminal() {
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
    let status = runtime.block_on(run(args, config, web));
    // Not a wait for the blocking read of stdin still under way after a
    // signal: the servers are already closed.
    runtime.shutdown_background();
    #[cfg(target_os = "linux")]
    orphans::end();
    status
}

/// The line editor where stdin and stdout are a terminal (feature
/// `editor`), else stdin as it is: the program's own "at a terminal", and
/// pipes keep the plain reading the tests drive.
fn open_input(agent: &Agent) -> input::Input {
    #[cfg(feature = "editor")]
    if std::io::stdin().is_terminal() && std::io::stdout().is_terminal() {
        let clients = agent
            .servers()
            .into_iter()
            .filter_map(|view| Some((view.name, view.client?)))
            .collect();
        let lookup = lookup::ServerLookup::new(tokio::runtime::Handle::current(), clients);
        match editor::LineEditor::open(Arc::new(lookup)) {
            Ok(editor) => return input::Input::Editor(editor),
            Err(e) => eprintln!("mcp-host: no line editor ({e}): lines are read as they come"),
        }
    }
    #[cfg(not(feature = "editor"))]
    let _ = agent;
    input::Input::plain()
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
/// `pins` (an unusable approvals file is an error naming it), asked on
/// `page` when there is one, else on the terminal.
fn approver(
    kind: ApproveKind,
    pins: Option<&std::path::Path>,
    page: Option<&web::Page>,
) -> Result<Arc<dyn Approver>, String> {
    Ok(match kind {
        ApproveKind::All => Arc::new(ApproveAll),
        ApproveKind::ReadOnly => Arc::new(ReadOnly),
        ApproveKind::Ask { read_only } if let Some(page) = page => {
            let kept = approvals::open(pins)?;
            Arc::new(
                AskTerminal::person(page.person())
                    .ask_read_only(read_only)
                    .keep(kept),
            )
        }
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

async fn run(args: Args, config: McpConfig, web: Option<web_args::WebArgs>) -> ExitCode {
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
    // Served before the servers start: a definition to approve at start
    // is asked on the page.
    let page = match &web {
        Some(web) => match web::Page::start(web).await {
            Ok(page) => Some(page),
            Err(e) => {
                eprintln!("mcp-host: {e}");
                return ExitCode::from(2);
            }
        },
        None => None,
    };
    let approver = match approver(args.approve, args.pins.as_deref(), page.as_ref()) {
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
            // The page renders MCP Apps; a terminal does not.
            apps: page.is_some(),
            ..ClientOptions::default()
        },
        #[cfg(feature = "oauth")]
        authorizers: login::authorizers(&config, page.as_ref().map(web::panel::presenter)),
        // The page asks for a login when the user clicks "Log in".
        login_at_start: page.is_none(),
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
    let agent = Arc::new(agent);
    let ended = match page {
        Some(page) => page.converse(Arc::clone(&agent), &mut signals).await,
        None => {
            let mut conversation = agent.conversation();
            let mut input = open_input(&agent);
            converse(
                &mut input,
                &agent,
                &mut conversation,
                args.output,
                args.line_timeout,
                &mut signals,
            )
            .await
        }
    };
    let status = match ended {
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
