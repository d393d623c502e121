//! `mcp-host web`: the same agent as the terminal program, with a page on
//! a loopback port instead of stdin.
//!
//! The server starts before the agent is built (so a definition that needs
//! approval at start is asked on the page), prints one line on stdout,
//! `mcp-host web: http://ADDR:PORT/?token=TOKEN`, and serves the page to
//! whoever brings that one-time token (exchanged for a session cookie;
//! [`guard`]). The page sends lines ([`routes`]); they are answered here
//! one at a time, their events published to every open page ([`stream`]),
//! approvals asked there ([`approve`]).

mod approve;
mod apps;
mod guard;
pub(crate) mod panel;
mod reply;
mod routes;
mod stream;

use crate::converse::Ended;
use crate::signals::{INTERRUPT_STATUS, Signals};
use crate::web_args::WebArgs;
use approve::PagePerson;
use guard::Guard;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use mcpfn_host::agent::interrupt::{INTERRUPTED, Interrupt, TIMED_OUT};
use mcpfn_host::agent::turn::Turn;
use mcpfn_host::agent::{Agent, Conversation};
use serde_json::json;
use std::future::IntoFuture;
use std::io::Write;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use stream::Stream;
use tokio::net::TcpListener;
use tokio::sync::mpsc;

/// How long a request's headers may take to arrive.
const HEADER_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// What a line of the page is doing.
#[derive(Debug, Default)]
enum Running {
    /// Nothing: a line may be sent.
    #[default]
    Idle,
    /// A line was sent and waits for the agent (still starting).
    Queued,
    /// A line runs; Stop interrupts it.
    Line(Interrupt),
}

/// What the routes share: the guard, the conversation's events, the line
/// under way, the questions asked, the agent once built.
pub(crate) struct Web {
    pub(crate) guard: Guard,
    pub(crate) stream: Arc<Stream>,
    pub(crate) person: PagePerson,
    running: Mutex<Running>,
    lines: mpsc::UnboundedSender<Input>,
    /// The agent, once its servers have started.
    pub(crate) agent: std::sync::OnceLock<Arc<Agent>>,
    /// MCP Apps: the apps open on the page and their sandbox's listener.
    pub(crate) apps: Arc<apps::Apps>,
}

/// What the page sends the agent: a line the user typed, or a turn the
/// host wrote from it (a prompt run, a line with resources attached:
/// [`panel`]).
#[derive(Debug)]
pub(crate) enum Input {
    /// A typed line.
    Text(String),
    /// A host-written turn.
    Turn(Turn),
}

/// Why a line was not taken.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// Another line runs (or waits for the agent).
    Busy,
    /// The program is ending.
    Closing,
}

impl Web {
    /// Takes `text` as the next line, unless one runs.
    pub(crate) fn send(&self, text: String) -> Result<(), Refused> {
        self.queue(text.clone(), Input::Text(text))
    }

    /// Takes `input` as the next line, shown on the page as `shown`,
    /// unless one runs.
    pub(crate) fn queue(&self, shown: String, input: Input) -> Result<(), Refused> {
        let mut running = lock(&self.running);
        if !matches!(*running, Running::Idle) {
            return Err(Refused::Busy);
        }
        self.stream
            .publish(&json!({"event": "line", "text": shown}));
        self.lines.send(input).map_err(|_| Refused::Closing)?;
        *running = Running::Queued;
        Ok(())
    }

    /// Interrupts the line under way (the terminal's Ctrl-C); whether one
    /// was.
    pub(crate) fn stop(&self) -> bool {
        match &*lock(&self.running) {
            Running::Line(interrupt) if !interrupt.is_interrupted() => {
                interrupt.interrupt();
                true
            }
            _ => false,
        }
    }
}

/// A poisoned lock's data is still sound here.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// The page's server, listening; its lines come to [`Page::converse`].
pub(crate) struct Page {
    web: Arc<Web>,
    lines: mpsc::UnboundedReceiver<Input>,
}

impl Page {
    /// Binds `args`' address, prints the URL line and serves the page;
    /// an error names the address.
    pub(crate) async fn start(args: &WebArgs) -> Result<Page, String> {
        let listener = TcpListener::bind(SocketAddr::new(args.bind, args.port))
            .await
            .map_err(|e| format!("web: cannot listen on {}:{}: {e}", args.bind, args.port))?;
        let bound = listener
            .local_addr()
            .map_err(|e| format!("web: the listening socket: {e}"))?;
        let guard = Guard::new(bound);
        if !guard.is_loopback() {
            eprintln!(
                "mcp-host: web: serving on {bound}, not a loopback address: whoever reaches it with the token gets the conversation"
            );
        }
        let url = guard.url();
        let apps = apps::Apps::start(bound).await?;
        let stream = Arc::new(Stream::new());
        let (lines, receiver) = mpsc::unbounded_channel();
        let web = Arc::new(Web {
            guard,
            person: PagePerson::new(Arc::clone(&stream)),
            stream,
            running: Mutex::new(Running::Idle),
            lines,
            agent: std::sync::OnceLock::new(),
            apps,
        });
        // The one line tests and scripts read: flushed before anything is
        // served.
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "mcp-host web: {url}")
            .and_then(|()| stdout.flush())
            .map_err(|e| format!("web: stdout: {e}"))?;
        tokio::spawn(accept(listener, Arc::clone(&web)));
        Ok(Page {
            web,
            lines: receiver,
        })
    }

    /// Who the page's approvals ask.
    pub(crate) fn person(&self) -> PagePerson {
        self.web.person.clone()
    }

    /// Answers the page's lines until a signal; the first SIGINT during a
    /// line interrupts that line alone, as on the terminal.
    pub(crate) async fn converse(mut self, agent: Arc<Agent>, signals: &mut Signals) -> Ended {
        let _ = self.web.agent.set(Arc::clone(&agent));
        self.web.stream.publish(&json!({"event": "ready"}));
        let mut conversation = agent.conversation();
        loop {
            let line = tokio::select! {
                line = self.lines.recv() => line,
                (name, status) = signals.next() => return Ended::Signal(name, status),
            };
            let Some(line) = line else {
                return Ended::Status(ExitCode::SUCCESS);
            };
            if let Some(ended) = self
                .run_line(&agent, &mut conversation, &line, signals)
                .await
            {
                return ended;
            }
        }
    }

    /// Runs one line, its events published; `Some` when a signal ends the
    /// program.
    async fn run_line(
        &self,
        agent: &Agent,
        conversation: &mut Conversation,
        line: &Input,
        signals: &mut Signals,
    ) -> Option<Ended> {
        let interrupt = Interrupt::new();
        *lock(&self.web.running) = Running::Line(interrupt.clone());
        let sink = self.web.stream.sink();
        let sent = {
            // What apps said for the model goes ahead of the line or the
            // host-written turn.
            let contexts = &self.web.apps.contexts;
            let line = match line {
                Input::Text(text) => Input::Text(contexts.line_with_context(text)),
                Input::Turn(turn) => match contexts.line_with_context("") {
                    context if context.is_empty() => Input::Turn(turn.clone()),
                    context => Input::Turn(Turn::line(context.trim_end()).then(turn)),
                },
            };
            let send = match &line {
                Input::Text(text) => agent.send(conversation, text),
                Input::Turn(turn) => agent.send_turn(conversation, turn),
            };
            let send = send.interrupt(&interrupt).events(&sink).into_future();
            tokio::pin!(send);
            loop {
                tokio::select! {
                    sent = &mut send => break sent,
                    (name, status) = signals.next() => {
                        if status != INTERRUPT_STATUS || interrupt.is_interrupted() {
                            return Some(Ended::Signal(name, status));
                        }
                        interrupt.interrupt();
                    }
                }
            }
        };
        let done = match sent {
            Ok(answer) if answer.stop_reason == INTERRUPTED || answer.stop_reason == TIMED_OUT => {
                json!({"event": "line_stopped", "stop_reason": answer.stop_reason, "calls_kept": answer.tool_calls.len()})
            }
            Ok(answer) => json!({"event": "line_done", "stop_reason": answer.stop_reason}),
            Err(failed) => {
                json!({"event": "line_failed", "error": failed.error.to_string(), "calls_kept": failed.calls_kept})
            }
        };
        self.web.stream.publish(&done);
        *lock(&self.web.running) = Running::Idle;
        None
    }
}

/// Serves each connection on a task of its own, for as long as the
/// program runs.
async fn accept(listener: TcpListener, web: Arc<Web>) {
    loop {
        let (socket, _) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(e) => {
                // Out of file descriptors, say: wait, then go on.
                tracing::warn!(error = %e, "web: accept failed");
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                continue;
            }
        };
        let web = Arc::clone(&web);
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let web = Arc::clone(&web);
                async move { Ok::<_, std::convert::Infallible>(routes::serve(web, request).await) }
            });
            let _ = http1::Builder::new()
                // A client that never finishes its headers does not hold
                // a task for ever.
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT)
                .serve_connection(TokioIo::new(socket), service)
                .await;
        });
    }
}
