//! How an [`Agent`] is put together: [`AgentBuilder`], from
//! [`Agent::new`], gathers the provider, the tool sources and the loop's
//! settings; [`AgentBuilder::build`] starts the servers and builds the
//! catalog.

use super::approval::{ApproveAll, Approver};
use super::budget::ResultBudget;
use super::history::{FullHistory, HistoryPolicy};
use super::live_tools::LiveTools;
use super::on_demand;
use super::pin_gate::PinGate;
use super::pins::Pins;
use super::{Agent, DEFAULT_CALLS_IN_FLIGHT, DEFAULT_MAX_TOKENS, DEFAULT_MAX_TURNS, Overflow};
use crate::catalog::{Catalog, CatalogError, CatalogOptions, ToolSource};
use crate::config::McpConfig;
use crate::provider::Provider;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;

#[cfg(feature = "local")]
mod door;

/// Why an agent could not be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AgentError {
    /// The in-process tools could not be served (two tools of one name…).
    #[cfg(feature = "local")]
    #[error("the in-process tools cannot be served: {0}")]
    Local(#[source] mcpfn_runtime::Error),
    /// An in-process tool given with [`AgentBuilder::tools`] takes a
    /// `State<T>` that was not given with [`AgentBuilder::state`].
    #[cfg(feature = "local")]
    #[error(
        "in-process tool `{tool}` takes State<{type_name}>, but the agent has no such state; call `AgentBuilder::state(value)` with the {type_name} before `build()`"
    )]
    MissingState {
        /// The tool.
        tool: String,
        /// The state's type.
        type_name: &'static str,
    },
    /// The catalog could not be built (two tools under one model name…).
    #[error("{0}")]
    Catalog(#[source] CatalogError),
}

/// How an [`Agent`] is put together; from [`Agent::new`].
#[derive(Debug)]
pub struct AgentBuilder {
    provider: Arc<dyn Provider>,
    config: Option<McpConfig>,
    /// The in-process tools and servers, served at `build`.
    #[cfg(feature = "local")]
    door: door::Door,
    sources: Vec<Arc<dyn ToolSource>>,
    catalog_options: CatalogOptions,
    model: Option<String>,
    system: Option<String>,
    max_tokens: u32,
    max_turns: u32,
    calls_in_flight: usize,
    approver: Arc<dyn Approver>,
    history: Arc<dyn HistoryPolicy>,
    overflow: Overflow,
    result_budget: ResultBudget,
    max_tool_tokens: Option<usize>,
    always_loaded: Option<Vec<String>>,
    pins: Pins,
    line_timeout: Option<Duration>,
}

impl AgentBuilder {
    /// The servers of an `mcp.json`, started when the agent is built.
    pub fn config(mut self, config: McpConfig) -> AgentBuilder {
        self.config = Some(config);
        self
    }

    /// Any other tool source.
    pub fn source(mut self, source: Arc<dyn ToolSource>) -> AgentBuilder {
        self.sources.push(source);
        self
    }

    /// How servers are started and called (start timeout, call timeout).
    pub fn catalog_options(mut self, options: CatalogOptions) -> AgentBuilder {
        self.catalog_options = options;
        self
    }

    /// How long a tool call may take before it is cancelled and answered
    /// with an error result.
    pub fn tool_timeout(mut self, timeout: Duration) -> AgentBuilder {
        self.catalog_options.call_timeout = Some(timeout);
        self
    }

    /// The model (default: the provider's, [`Provider::default_model`]).
    pub fn model(mut self, model: impl Into<String>) -> AgentBuilder {
        self.model = Some(model.into());
        self
    }

    /// The system prompt.
    pub fn system(mut self, system: impl Into<String>) -> AgentBuilder {
        self.system = Some(system.into());
        self
    }

    /// `max_tokens` of each request (default [`DEFAULT_MAX_TOKENS`]).
    pub fn max_tokens(mut self, max_tokens: u32) -> AgentBuilder {
        self.max_tokens = max_tokens;
        self
    }

    /// Model requests per user line (default [`DEFAULT_MAX_TURNS`]; at
    /// least 1).
    pub fn max_turns(mut self, max_turns: u32) -> AgentBuilder {
        self.max_turns = max_turns.max(1);
        self
    }

    /// A deadline for each line (default none): past it the line is cut
    /// short as an interrupt cuts it ([`interrupt`](super::interrupt): the model request is
    /// dropped, the running calls cancelled) and its answer stops with
    /// [`interrupt::TIMED_OUT`](super::interrupt::TIMED_OUT). An [`Interrupt`](super::interrupt::Interrupt) given a line with a
    /// deadline of its own ([`Interrupt::with_deadline`](super::interrupt::Interrupt::with_deadline)) keeps the earlier.
    pub fn line_timeout(mut self, timeout: Duration) -> AgentBuilder {
        self.line_timeout = Some(timeout);
        self
    }

    /// Tool calls running at once (default [`DEFAULT_CALLS_IN_FLIGHT`]).
    pub fn calls_in_flight(mut self, n: usize) -> AgentBuilder {
        self.calls_in_flight = n.max(1);
        self
    }

    /// Who decides whether each call runs (default [`ApproveAll`]).
    pub fn approve(mut self, approver: impl Approver) -> AgentBuilder {
        self.approver = Arc::new(approver);
        self
    }

    /// [`approve`](Self::approve) with a shared approver.
    pub fn approve_with(mut self, approver: Arc<dyn Approver>) -> AgentBuilder {
        self.approver = approver;
        self
    }

    /// What the history keeps (default [`FullHistory`]).
    pub fn history(mut self, policy: impl HistoryPolicy) -> AgentBuilder {
        self.history = Arc::new(policy);
        self
    }

    /// What to do when a request does not fit the model's context window
    /// (default [`Overflow::Trim`]).
    pub fn on_overflow(mut self, overflow: Overflow) -> AgentBuilder {
        self.overflow = overflow;
        self
    }

    /// [`history`](Self::history) with a shared policy.
    pub fn history_with(mut self, policy: Arc<dyn HistoryPolicy>) -> AgentBuilder {
        self.history = policy;
        self
    }

    /// What of the tools' results goes to the model (default
    /// [`ResultBudget::default`]: 100,000 bytes of text per result, 400,000
    /// per response; see [`budget`](super::budget)).
    pub fn result_budget(mut self, budget: ResultBudget) -> AgentBuilder {
        self.result_budget = budget;
        self
    }

    /// Where approved tool definitions are pinned (default
    /// [`Pins::in_memory`]: for this run only; see [`pins`](super::pins)).
    pub fn pins(mut self, pins: Pins) -> AgentBuilder {
        self.pins = pins;
        self
    }

    /// [`result_budget`](Self::result_budget) with `bytes` of text per
    /// result and four times that per response
    /// ([`ResultBudget::per_result`]).
    pub fn max_result_bytes(self, bytes: usize) -> AgentBuilder {
        self.result_budget(ResultBudget::per_result(bytes))
    }

    /// A budget for the tools' definitions in each request, in tokens
    /// estimated as their JSON bytes / 4: past it, tools are offered on
    /// demand ([`on_demand`]). Default: none (only the API's tool-count
    /// limit, [`Provider::max_tools`], applies).
    pub fn max_tool_tokens(mut self, tokens: usize) -> AgentBuilder {
        self.max_tool_tokens = Some(tokens);
        self
    }

    /// The tools (model names) offered on every request when tools are
    /// offered on demand (default: the first
    /// [`on_demand::DEFAULT_ALWAYS_LOADED`] in-process tools).
    pub fn always_loaded(
        mut self,
        names: impl IntoIterator<Item = impl Into<String>>,
    ) -> AgentBuilder {
        self.always_loaded = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// Starts the config's servers, serves the in-process tools, and
    /// builds the catalog. Servers that fail are left out and listed in
    /// [`Catalog::failures`].
    pub async fn build(mut self) -> Result<Agent, AgentError> {
        #[allow(unused_mut)] // Without the door, nothing adds to them.
        let mut sources = std::mem::take(&mut self.sources);
        #[cfg(feature = "local")]
        sources.extend(self.door.sources()?);
        let catalog = match &self.config {
            Some(config) => Catalog::build(config, sources, self.catalog_options).await,
            None => Catalog::from_sources(sources, self.catalog_options).await,
        }
        .map_err(AgentError::Catalog)?;
        let gate = PinGate::new(self.pins, Arc::clone(&self.approver));
        let settings = on_demand::Settings {
            max_tool_tokens: self.max_tool_tokens,
            always_loaded: self.always_loaded,
        };
        let tools = LiveTools::new(
            catalog,
            &*self.provider,
            gate,
            settings,
            crate::catalog::RELIST_TIMEOUT,
        )
        .await;
        let model = self
            .model
            .unwrap_or_else(|| self.provider.default_model().to_owned());
        Ok(Agent {
            provider: self.provider,
            tools,
            model,
            system: self.system,
            max_tokens: self.max_tokens,
            max_turns: self.max_turns,
            in_flight: Arc::new(Semaphore::new(self.calls_in_flight)),
            approver: self.approver,
            history: self.history,
            overflow: self.overflow,
            result_budget: self.result_budget,
            line_timeout: self.line_timeout,
        })
    }
}

impl Agent {
    /// An agent on `provider`, to be given tools and built.
    #[allow(clippy::new_ret_no_self)]
    pub fn new(provider: impl Provider) -> AgentBuilder {
        Agent::with_provider(Arc::new(provider))
    }

    /// [`new`](Self::new) with a shared provider.
    pub fn with_provider(provider: Arc<dyn Provider>) -> AgentBuilder {
        AgentBuilder {
            provider,
            config: None,
            #[cfg(feature = "local")]
            door: door::Door::new(),
            sources: Vec::new(),
            catalog_options: CatalogOptions::default(),
            model: None,
            system: None,
            max_tokens: DEFAULT_MAX_TOKENS,
            max_turns: DEFAULT_MAX_TURNS,
            calls_in_flight: DEFAULT_CALLS_IN_FLIGHT,
            approver: Arc::new(ApproveAll),
            history: Arc::new(FullHistory),
            overflow: Overflow::Trim,
            result_budget: ResultBudget::default(),
            max_tool_tokens: None,
            always_loaded: None,
            pins: Pins::in_memory(),
            line_timeout: None,
        }
    }
}
