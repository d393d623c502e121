//! How a client connects and how one call is made, and their defaults.

use super::handler::{ElicitFn, ProgressFn, SampleFn};
use crate::limits::{DEFAULT_MAX_PAGES, ListLimits};
use crate::restart::RestartPolicy;
use mcpfn_protocol::model::Implementation;
use std::fmt;
use std::time::Duration;

/// The default timeout of a call (60 s, as `mcp-host --tool-timeout`).
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(60);

/// The default bound on 2026-07-28 `input_required` rounds of one call.
pub const DEFAULT_MAX_INPUT_ROUNDS: usize = 8;

/// How long the handshake (`server/discover`, `initialize`) and each
/// `tools/list` page may take by default ([`ClientOptions::handshake_timeout`]).
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(30);

/// How long the `server/discover` probe of [`Mode::Auto`] waits before
/// deciding the server is legacy (some legacy servers ignore requests that
/// come before `initialize`).
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// The most `tools/list` pages followed by default (a server that never
/// stops handing out cursors is an error, not a hang): the default of
/// [`ListLimits::max_pages`].
pub const MAX_PAGES: usize = DEFAULT_MAX_PAGES;

/// Which era to speak.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// 2026-07-28 when the server speaks it, else the legacy handshake.
    #[default]
    Auto,
    /// The `initialize` handshake only.
    Legacy,
    /// 2026-07-28 only.
    Modern,
}

/// How a client connects and answers the server.
#[derive(Clone)]
pub struct ClientOptions {
    /// The era. Default [`Mode::Auto`].
    pub mode: Mode,
    /// Who we are (`clientInfo`). Default `mcp-host` at this crate's version.
    pub client_info: Implementation,
    /// Answers elicitation; without it the capability is not declared.
    pub elicitation: Option<ElicitFn>,
    /// Whether an accepted form answer gets the `default` of each field of
    /// the `requestedSchema` it leaves out before it is sent (SEP-1034:
    /// the form is pre-filled with the defaults, so a field the user did
    /// not touch keeps its default; the TypeScript SDK's `applyDefaults`).
    /// Default `true`.
    pub elicitation_defaults: bool,
    /// Answers sampling; without it the capability is not declared.
    pub sampling: Option<SampleFn>,
    /// The bound on `input_required` rounds of one call. Default
    /// [`DEFAULT_MAX_INPUT_ROUNDS`].
    pub max_input_rounds: usize,
    /// The timeout of a call whose [`CallOptions`] names none. Default
    /// [`DEFAULT_CALL_TIMEOUT`].
    pub call_timeout: Duration,
    /// Whether 2026-07-28 requests declare the Tasks extension
    /// (`io.modelcontextprotocol/tasks`), so a server may answer
    /// `tools/call` with a task the client then drives to its result.
    /// Default `true`; never declared in a legacy session.
    pub tasks: bool,
    /// Whether the client declares MCP Apps (the extension
    /// `io.modelcontextprotocol/ui` with `text/html;profile=mcp-app`), so a
    /// server may link its tools to HTML apps: for a host that renders
    /// them (a web page), not a terminal. Default `false`.
    pub apps: bool,
    /// How long a stdio server gets to exit after its stdin is closed (and
    /// again after SIGTERM) when the client closes it. Default
    /// [`DEFAULT_CLOSE_GRACE`](crate::DEFAULT_CLOSE_GRACE).
    pub close_grace: Duration,
    /// The caps on what one `tools/list` may build (tools, bytes, pages,
    /// memory). Default [`ListLimits::default`].
    pub list_limits: ListLimits,
    /// Authorization for an HTTP server that asks for it (an
    /// [`OAuthClient`](crate::auth::OAuthClient)). Default none: a 401 is
    /// an error.
    #[cfg(feature = "oauth")]
    pub authorizer: Option<std::sync::Arc<dyn crate::auth::Authorizer>>,
    /// How long the handshake and each `tools/list` page may take (a
    /// server started by `npx -y` on a cold cache needs longer). Default
    /// [`HANDSHAKE_TIMEOUT`].
    pub handshake_timeout: Duration,
    /// How long [`Mode::Auto`]'s `server/discover` probe waits before the
    /// legacy `initialize` follows. A modern server that answers the probe
    /// later than this (one slow to start) and then refuses `initialize`
    /// is asked `server/discover` again, within
    /// [`handshake_timeout`](Self::handshake_timeout). Default
    /// [`PROBE_TIMEOUT`].
    pub probe_timeout: Duration,
    /// How often, and how far apart, a lost connection is made again.
    /// Default [`RestartPolicy::default`].
    pub restart: RestartPolicy,
}

impl fmt::Debug for ClientOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientOptions")
            .field("mode", &self.mode)
            .field("client_info", &self.client_info)
            .field("elicitation", &self.elicitation.is_some())
            .field("elicitation_defaults", &self.elicitation_defaults)
            .field("sampling", &self.sampling.is_some())
            .field("max_input_rounds", &self.max_input_rounds)
            .field("call_timeout", &self.call_timeout)
            .field("tasks", &self.tasks)
            .field("apps", &self.apps)
            .field("close_grace", &self.close_grace)
            .field("list_limits", &self.list_limits)
            .field("handshake_timeout", &self.handshake_timeout)
            .field("probe_timeout", &self.probe_timeout)
            .field("restart", &self.restart)
            .finish_non_exhaustive()
    }
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            mode: Mode::Auto,
            client_info: Implementation::new("mcp-host", env!("CARGO_PKG_VERSION")),
            elicitation: None,
            elicitation_defaults: true,
            sampling: None,
            max_input_rounds: DEFAULT_MAX_INPUT_ROUNDS,
            call_timeout: DEFAULT_CALL_TIMEOUT,
            tasks: true,
            apps: false,
            close_grace: crate::DEFAULT_CLOSE_GRACE,
            list_limits: ListLimits::default(),
            #[cfg(feature = "oauth")]
            authorizer: None,
            handshake_timeout: HANDSHAKE_TIMEOUT,
            probe_timeout: PROBE_TIMEOUT,
            restart: RestartPolicy::default(),
        }
    }
}

impl ClientOptions {
    /// The defaults in `mode`.
    pub fn mode(mode: Mode) -> Self {
        ClientOptions {
            mode,
            ..ClientOptions::default()
        }
    }
}

/// How one call is made.
#[derive(Clone, Default)]
pub struct CallOptions {
    /// The timeout of the whole call (all its rounds); the client's
    /// [`ClientOptions::call_timeout`] when `None`.
    pub timeout: Option<Duration>,
    /// Receives the call's `notifications/progress`.
    pub progress: Option<ProgressFn>,
}

impl fmt::Debug for CallOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallOptions")
            .field("timeout", &self.timeout)
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

impl CallOptions {
    /// The defaults with this timeout.
    pub fn timeout(timeout: Duration) -> Self {
        CallOptions {
            timeout: Some(timeout),
            progress: None,
        }
    }
}
