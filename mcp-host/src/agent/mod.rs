//! The tool-use loop a host runs between a user, a model API and the
//! tools: [`Agent::send`] takes one user message and loops until the model
//! is done with it.
//!
//! Each round sends the whole history (the APIs keep nothing). When the
//! response asks for tools, its message goes into the history exactly as
//! the API returned it (text blocks included), every call of that response
//! runs at once through the catalog ([`calls`]), and the results go back
//! the way the API wants them (Anthropic: one user message of
//! `tool_result` blocks in the order of the `tool_use` blocks; OpenAI: one
//! `role: tool` message per call, in order). The `tool_use`/`tool_result`
//! pairs stay in the history for every later line.
//!
//! The turn ends when the model says so (`end_turn`, `stop`) or stops for
//! another reason (`max_tokens`/`length`, `stop_sequence`,
//! `refusal`/`content_filter`), which the [`Answer`] reports. A paused turn
//! (`pause_turn`) is resent as it is, with no new user message. A guard on
//! model requests per line ([`AgentBuilder::max_turns`], default 10) ends a
//! runaway loop, after the results of the last response's calls are in, so
//! the history stays valid.
//!
//! A request that fails ends the line with an [`AnswerError`]. What the
//! history keeps is what is true: when tools ran in the line, every
//! `tool_use` and its `tool_result` stay (their side effects happened, and
//! a model that does not see them would run them again), and only what
//! came after the last results is rolled back; when none ran, the history
//! is as it was before the line. A history may so end with tool results;
//! the next line goes where the API wants it
//! ([`Provider::join_user_line`]).
//!
//! A line can be interrupted ([`Line::interrupt`]) or given a
//! deadline ([`AgentBuilder::line_timeout`]): the request or calls under
//! way are cancelled and the history stays valid ([`interrupt`]); the
//! answer's stop reason is [`interrupt::INTERRUPTED`] or
//! [`interrupt::TIMED_OUT`].
//!
//! A request that does not fit the model's context window
//! ([`ProviderError::ContextOverflow`]) is sent once more after about half
//! of the turns before the current one are dropped (the first user message
//! kept) or, with [`Overflow::Summarize`], replaced by a summary the model
//! writes in one extra request; the [`Answer`] says so ([`Answer::trimmed`]).
//!
//! The tool list is live ([`Catalog::refreshed`]): before each request, a server that
//! said its list changed (or whose `ttlMs` passed) is listed again; every
//! tool keeps its name and place, new ones come last. A definition that
//! changed since it was first offered, or a new tool of a server already
//! pinned, is held back until the approver approves it ([`pins`],
//! [`AgentBuilder::pins`]).
//!
//! What of the tools' results goes to the model, and so into the history
//! every later request resends, is bounded ([`budget`],
//! [`AgentBuilder::result_budget`]): by default 100,000 bytes of text per
//! result and 400,000 per response, cut with a note saying how much was
//! cut. [`Catalog::call`] still returns a result whole.
//!
//! Past the API's tool-count limit, or a budget for tool definitions
//! ([`AgentBuilder::max_tool_tokens`]), tools are offered on demand
//! ([`on_demand`]).
//!
//! ```no_run
//! use mcpfn_host::agent::Agent;
//! use mcpfn_host::provider::Anthropic;
//! use mcpfn_runtime::{tool, tools};
//!
//! /// The weather in a city, right now.
//! #[tool(read_only)]
//! async fn get_weather(city: String) -> String {
//!     format!("{city}今天晴，25°C")
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let agent = Agent::new(Anthropic::from_env()?)
//!     .tools(tools![get_weather])
//!     .system("你是一个专业的天气助手，回答简洁。")
//!     .build()
//!     .await?;
//! let mut chat = agent.conversation();
//! let answer = agent.send(&mut chat, "北京今天天气怎么样").await?;
//! println!("{}", answer.text);
//! # Ok(())
//! # }
//! ```

mod app_calls;
pub mod approval;
pub mod budget;
mod builder;
mod call_round;
pub mod calls;
mod definition;
pub mod events;
pub mod history;
pub mod interrupt;
pub mod kept;
mod line;
mod live_tools;
pub mod on_demand;
mod overflow;
mod pin_gate;
pub mod pins;
mod private_file;
pub mod servers;
pub mod skills;
pub mod summary;
pub mod switch;
pub mod turn;

use crate::catalog::Catalog;
use crate::provider::{Provider, ProviderError, Usage};
use approval::Approver;
use budget::ResultBudget;
pub use builder::{AgentBuilder, AgentError};
use calls::CallRecord;
use history::{History, HistoryPolicy, Trim};
pub use line::Line;
use live_tools::LiveTools;
use on_demand::{FoundTools, Offering};
pub use overflow::Overflow;
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;

/// Model requests per user line when nothing else is said.
pub const DEFAULT_MAX_TURNS: u32 = 10;
/// The `max_tokens` of each request when nothing else is said.
pub const DEFAULT_MAX_TOKENS: u32 = 1024;
/// Calls running at once across the agent when nothing else is said.
pub const DEFAULT_CALLS_IN_FLIGHT: usize = 8;

/// The `stop_reason` of an [`Answer`] the guard on model requests ended.
pub const MAX_TURNS: &str = "max_turns";

/// The `stop_reason` of an [`Answer`] a prompt's own closing assistant
/// message gave ([`Agent::send_turn`]): the model was not asked.
pub const PROMPT_REPLY: &str = "prompt_reply";

/// A model, its tools, and the loop between them. Shareable (`&self`):
/// several conversations can run at once.
#[derive(Debug)]
pub struct Agent {
    provider: Arc<dyn Provider>,
    /// The catalog and the provider's form of its tools, kept current
    /// before each request (the same bytes while nothing changes).
    tools: LiveTools,
    model: String,
    system: Option<String>,
    max_tokens: u32,
    max_turns: u32,
    in_flight: Arc<Semaphore>,
    approver: Arc<dyn Approver>,
    history: Arc<dyn HistoryPolicy>,
    overflow: Overflow,
    result_budget: ResultBudget,
    line_timeout: Option<Duration>,
}

/// One conversation: its history and what it has cost.
#[derive(Clone, Debug, Default)]
pub struct Conversation {
    history: History,
    usage: Usage,
    /// What the host's search tool found for this conversation.
    found: FoundTools,
}

impl Conversation {
    /// The messages so far.
    pub fn history(&self) -> &History {
        &self.history
    }

    /// The history, to edit (a summary of old turns).
    pub fn history_mut(&mut self) -> &mut History {
        &mut self.history
    }

    /// Tokens over every line so far.
    pub fn usage(&self) -> Usage {
        self.usage
    }

    /// The tools the host's search tool found and added to this
    /// conversation's requests ([`on_demand`]).
    pub fn found_tools(&self) -> &FoundTools {
        &self.found
    }
}

/// How one user line ended.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Answer {
    /// The text of the last response, its text blocks concatenated.
    pub text: String,
    /// The last response's reason, [`MAX_TURNS`], or [`PROMPT_REPLY`].
    pub stop_reason: String,
    /// Model responses received for the line (a retried request is one).
    pub responses: u32,
    /// Tokens over those responses.
    pub usage: Usage,
    /// Every call the model asked for, in order, response by response.
    pub tool_calls: Vec<CallRecord>,
    /// What was dropped or summarized of the history when a request did not
    /// fit the model's context window (then sent again); `None` when
    /// nothing was.
    pub trimmed: Option<Trim>,
}

/// A line that ended because the model API failed; `partial` says what
/// happened up to the failure. The history keeps the line's tool calls and
/// their results when any ran (`calls_kept`), else is as it was before the
/// line (an overflow's trim aside, which stays).
#[derive(Clone, Debug, thiserror::Error)]
#[error("{error}")]
pub struct AnswerError {
    /// The responses, usage, calls and trim before the failure (`text`
    /// empty, `stop_reason` `error`).
    pub partial: Answer,
    /// How many of `partial.tool_calls` stay in the history with their
    /// results: all of them when any tool round was answered, else 0.
    pub calls_kept: usize,
    /// What failed.
    #[source]
    pub error: ProviderError,
}

impl Agent {
    /// The tools offered now and the servers left out (a snapshot: the
    /// next request may offer a changed list).
    pub fn catalog(&self) -> Arc<Catalog> {
        Arc::clone(&self.tools.offered().catalog)
    }

    /// The tools offered now, in the provider's form (on demand through the
    /// host's search tool: before what a conversation found).
    pub fn offered_tools(&self) -> Vec<Value> {
        self.tools.offered().tools.clone()
    }

    /// How the tools are offered: all of them, or on demand.
    pub fn offering(&self) -> Offering {
        self.tools.offered().offering.clone()
    }

    /// The model requests go to.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// A new, empty conversation.
    pub fn conversation(&self) -> Conversation {
        Conversation::default()
    }

    /// The user says `text`; the returned [`Line`] loops until the model
    /// is done with it once awaited. The one way to send a line: its
    /// options ([`Line::interrupt`], [`Line::events`]) are set on it
    /// before the `.await`.
    pub fn send<'a>(&'a self, conversation: &'a mut Conversation, text: &'a str) -> Line<'a> {
        Line {
            agent: self,
            conversation,
            input: line::Input::Text(text),
            interrupt: None,
            events: None,
        }
    }

    /// The host puts `turn` into the conversation (a server's prompt, a
    /// line with resources attached: [`turn`]); the returned [`Line`]
    /// loops until the model is done with it, as [`send`](Self::send)'s.
    /// A turn that ends with the assistant's messages (a prompt's) asks no
    /// model: their text is the answer, with `stop_reason`
    /// [`PROMPT_REPLY`], and the model answers the person's next line.
    pub fn send_turn<'a>(
        &'a self,
        conversation: &'a mut Conversation,
        turn: &'a turn::Turn,
    ) -> Line<'a> {
        Line {
            agent: self,
            conversation,
            input: line::Input::Turn(turn),
            interrupt: None,
            events: None,
        }
    }
}
