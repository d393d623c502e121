//! Serve plain Rust functions as [Model Context Protocol](https://modelcontextprotocol.io)
//! tools, over stdio or Streamable HTTP.
//!
//! Put [`#[tool]`](tool) on an async fn; its name, doc comments, parameters and
//! return type become the tool's name, description, `inputSchema` and
//! `outputSchema`, checked at compile time. Register tools with [`tools!`] and
//! serve them:
//!
//! ```no_run
//! use mcpfn_runtime::{Server, ToolError, tool, tools};
//! use mcpfn_runtime::{Deserialize, JsonSchema, Serialize};
//!
//! #[derive(Serialize, JsonSchema)]
//! #[serde(crate = "mcpfn_runtime::serde")]
//! #[schemars(crate = "mcpfn_runtime::schemars")]
//! struct Sum {
//!     sum: f64,
//! }
//!
//! /// Add two numbers.
//! #[tool(read_only, idempotent)]
//! async fn add(
//!     /// First addend
//!     a: f64,
//!     /// Second addend
//!     b: f64,
//! ) -> Sum {
//!     Sum { sum: a + b }
//! }
//!
//! /// Divide a by b.
//! #[tool]
//! async fn divide(a: f64, b: f64) -> Result<f64, ToolError> {
//!     if b == 0.0 {
//!         return Err(ToolError::new("b must not be zero"));
//!     }
//!     Ok(a / b)
//! }
//!
//! #[tokio::main(flavor = "current_thread")]
//! async fn main() -> std::io::Result<()> {
//!     let server = Server::new("calc", env!("CARGO_PKG_VERSION")).tools(tools![add, divide]);
//!     mcpfn_runtime::cli::run(server).await
//! }
//! ```
//!
//! The fn stays an ordinary fn: `add(1.0, 2.0).await` works in tests. One
//! process speaks every protocol revision clients send today: the
//! `initialize` handshake (2024-11-05 to 2025-11-25) and the stateless
//! 2026-07-28 era (`server/discover`, a `_meta` envelope on every request).
//!
//! # The program
//!
//! [`cli::run`] is the whole program: it serves stdin/stdout (or Streamable
//! HTTP with `--http ADDR` and the `http` feature), or, with `--dump-tools
//! [FORMAT]` on the command line, prints the tools (see [`DumpFormat`])
//! instead, and reports a registration mistake with an exit status. Nothing
//! else in the library reads the command line, prints or exits:
//! [`Server::serve_stdio`] only serves, [`Server::serve`] serves any reader
//! and writer, [`Server::dump`] returns the dump.
//!
//! # Where to go next
//!
//! | to… | use |
//! | --- | --- |
//! | declare a tool, its options and annotations | [`#[tool]`](tool) (every option is in its table), [`tools!`] |
//! | return structured output, content blocks or an error | `T: Serialize + JsonSchema`, [`Structured`], [`Content`], [`ToolError`], [`ToolOutcome`] |
//! | report progress and logs, see cancellation, ask the user or the client's model | [`Context`] ([`Context::progress`], [`Context::log`], [`Context::elicit`] with [`ElicitRequest`], [`Context::sample`] with [`SampleRequest`]) |
//! | share data between calls | [`State`] (registered with [`Server::state`]), [`Handles`] for values behind handles, [`store`] for replicas |
//! | add, remove or disable tools while serving | [`ToolSet`], from [`Context::tools`] |
//! | build a tool at run time, without the macro | [`ToolBuilder`] |
//! | set limits, timeouts and the state store | the builder methods of [`Server`] |
//! | print the tools for the Anthropic or OpenAI API, or check a byte budget | [`Server::dump`], [`DumpFormat`], [`ToolDump`] |
//! | call the tools from the same process (an agent loop, a host) | [`Server::local`], [`LocalClient`] |
//! | test a tool | call the fn; [`State::new`], [`Context::for_test`], [`Context::test_builder`]; `mcpfn_runtime::testing` (feature `testing`) for a test client and the snapshot gate |
//! | serve over HTTP, behind your own router | `Server::serve_http`, `Server::http_service` (feature `http`) |
//! | check OAuth bearer tokens | `mcpfn_runtime::auth` (feature `jwt`, or `http` with your own verifier) |
//!
//! # Features
//!
//! All off by default, so a stdio-only build stays lean:
//!
//! | feature | adds |
//! | --- | --- |
//! | `testing` | `mcpfn_runtime::testing`: the test client of tools (over the in-process door), the wire test client, the in-memory transport and the tool-surface snapshot gate; for `[dev-dependencies]` |
//! | `http` | Streamable HTTP: `Server::serve_http`, `Server::http_service`, `--http ADDR` in [`cli::run`], `mcpfn_runtime::auth` with a verifier of your own |
//! | `jwt` | `http` plus `auth::JwtVerifier` and `auth::Jwks`: JWT bearer tokens (RS256, ES256) checked against a JWKS |
//! | `redis` | `store::RedisStore`: the state replicas share (spent request states, handles, tasks) |
//! | `opentelemetry` | each call's span parented to the caller's W3C trace context |
//! | `tasks` | the Tasks extension (`io.modelcontextprotocol/tasks`): `#[tool(task = "optional" \| "required")]`, `tasks/*` |
//! | `skills` | the Skills extension (`io.modelcontextprotocol/skills`): `Server::skills_dir` serves a folder of Agent Skills |
//!
//! The guide in the repository's `docs/` folder goes further, by topic:
//! `tools.md`, `resources.md`, `prompts.md`, `context.md`, `tool-dumps.md`, `testing.md`,
//! `protocol.md`, `subscriptions.md`, `skills.md`,
//! `remote-servers.md`, `authorization.md` and `deployment.md`.

#![forbid(unsafe_code)]

#[cfg(feature = "http")]
pub mod auth;
mod changes;
pub mod cli;
mod complete;
mod conn;
mod content;
mod context;
mod dump;
mod error;
mod handles;
mod level;
mod limits;
mod local;
mod logging;
mod outcome;
mod principal;
mod prompt;
mod protocol;
mod quota;
pub mod resource;
pub mod schema;
mod server;
mod session;
mod shared;
#[cfg(feature = "skills")]
pub mod skills;
mod state;
pub mod store;
mod task;
mod test_context;
#[cfg(feature = "testing")]
pub mod testing;
mod tool;
mod transport;
mod util;

pub use changes::Notifier;
pub use complete::CompletionContext;
pub use content::{Audience, Content, IntoContent};
pub use context::Context;
pub use context::ask::{Ask, Asks, FromAnswer, MAX_ROOTS};
pub use context::elicit::{
    ElicitAction, ElicitRequest, Elicitation, FormField, SampleRequest, SampleResult,
};
pub use dump::{DumpEntry, DumpFormat, ToolDump, UnknownDumpFormat};
pub use error::Error;
pub use handles::Handles;
pub use level::{Level, UnknownLevel};
pub use local::{CallOptions, LocalClient};
pub use mcpfn_macros::{prompt, resource, tool};
pub use mcpfn_protocol::ProtocolVersion;
pub use mcpfn_protocol::model::PromptMessage;
pub use mcpfn_protocol::model::ResourceContents;
pub use mcpfn_protocol::model::Root;
pub use mcpfn_protocol::model::{APP_MIME_TYPE, Csp, Permissions, ResourceUi, ToolUi, Visibility};
pub use mcpfn_protocol::sampling::{MessageContent, Role, SamplingContent, SamplingMessage};
pub use outcome::{Structured, ToolError, ToolOutcome};
pub use principal::Principal;
pub use prompt::{Prompt, PromptBuilder, PromptResult};
pub use resource::{Resource, ResourceBuilder, ResourceError, ResourceRead};
pub use schemars::{self, JsonSchema};
pub use serde::{self, Deserialize, Serialize};
pub use server::Server;
pub use state::State;
pub use task::MAX_TASK_RESUMES;
pub use test_context::{TestContext, TestPeer};
pub use tool::toolset::ToolSet;
pub use tool::{Icon, TaskSupport, Tool, ToolBuilder, ToolCall};
#[cfg(feature = "http")]
pub use transport::http::{HttpBody, HttpService};
pub use util::BoxFuture;

// The Rust examples of the README, of mcp-macros' crate docs and of the
// server's guide in docs/ compile as doctests, against the dependencies (and
// tokio features) the README tells users to add. The host's guide
// (docs/host.md) needs mcp-host, so its example is compiled there instead.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;
#[cfg(doctest)]
#[doc = include_str!("../../mcp-macros/README.md")]
struct MacrosCrateDocs;
#[cfg(doctest)]
#[doc = include_str!("../../docs/install.md")]
struct InstallGuide;
#[cfg(doctest)]
#[doc = include_str!("../../docs/tools.md")]
struct ToolsGuide;
#[cfg(doctest)]
#[doc = include_str!("../../docs/resources.md")]
struct ResourcesGuide;
#[cfg(doctest)]
#[doc = include_str!("../../docs/context.md")]
struct ContextGuide;
#[cfg(doctest)]
#[doc = include_str!("../../docs/prompts.md")]
struct PromptsGuide;
#[cfg(doctest)]
#[doc = include_str!("../../docs/apps.md")]
struct AppsGuide;
#[cfg(doctest)]
#[doc = include_str!("../../docs/tool-dumps.md")]
struct ToolDumpsGuide;
#[cfg(doctest)]
#[doc = include_str!("../../docs/testing.md")]
struct TestingGuide;
#[cfg(doctest)]
#[doc = include_str!("../../docs/protocol.md")]
struct ProtocolGuide;
#[cfg(doctest)]
#[doc = include_str!("../../docs/subscriptions.md")]
struct SubscriptionsGuide;
#[cfg(doctest)]
#[doc = include_str!("../../docs/remote-servers.md")]
struct RemoteServersGuide;
#[cfg(doctest)]
#[doc = include_str!("../../docs/authorization.md")]
struct AuthorizationGuide;
#[cfg(doctest)]
#[doc = include_str!("../../docs/deployment.md")]
struct DeploymentGuide;
#[cfg(doctest)]
#[doc = include_str!("../../docs/examples.md")]
struct ExamplesGuide;
#[cfg(all(doctest, feature = "skills"))]
#[doc = include_str!("../../docs/skills.md")]
struct SkillsGuide;

/// Collects `#[tool]` fns into a `Vec<Tool>` for [`Server::tools`].
///
/// Each entry is the path of a `#[tool]` fn (`hello`, `weather::lookup`,
/// `crate::weather::lookup`, `super::hello`), declared anywhere in a module
/// or a fn body, before or after the list; a trailing comma is allowed. A
/// fn listed twice, or two fns whose tools have the same name, fail to
/// compile with one error naming both; a fn without `#[tool]` with one
/// error on its name, ``` `f` is not a #[tool] fn ```.
///
/// The list finds a tool through a hidden item `#[tool]` puts beside the fn,
/// which a `use` of the fn alone (`use weather::lookup;`) does not bring:
/// list such a fn by its path, or import its module's items with a glob
/// (`use weather::*;`, which a `pub use` re-export may do as well).
///
/// ```
/// use mcpfn_runtime::{tool, tools};
///
/// /// Say hello.
/// #[tool]
/// async fn hello(name: String) -> String {
///     format!("Hello, {name}!")
/// }
///
/// let tools = tools![hello];
/// assert_eq!(tools[0].name(), "hello");
/// ```
#[macro_export]
macro_rules! tools {
    // Forwarded to the proc macro, which reads the hidden items `#[tool]`
    // puts beside each fn; this shim keeps the docs and their test here.
    ($($tokens:tt)*) => {
        $crate::__private::tools! { [$crate] $($tokens)* }
    };
}

/// Collects `#[resource]` fns into a `Vec<Resource>` for
/// [`Server::resources`].
///
/// Each entry is the path of a `#[resource]` fn. A fn listed twice, or two
/// resources at one URI (or one URI template), fail to compile with one
/// error on the later entry; a fn without `#[resource]` with one error on
/// its name. As with [`tools!`], the list finds a resource through a hidden
/// item beside the fn: list it by its path, or glob-import its module.
///
/// ```
/// use mcpfn_runtime::{resource, resources};
///
/// /// The greeting.
/// #[resource("test://greeting", mime_type = "text/plain")]
/// async fn greeting() -> String {
///     "Hello!".to_owned()
/// }
///
/// let resources = resources![greeting];
/// assert_eq!(resources[0].uri(), "test://greeting");
/// ```
#[macro_export]
macro_rules! resources {
    ($($tokens:tt)*) => {
        $crate::__private::resources! { [$crate] $($tokens)* }
    };
}

/// Collects `#[prompt]` fns into a `Vec<Prompt>` for [`Server::prompts`].
///
/// Each entry is the path of a `#[prompt]` fn, as in [`tools!`]; a fn
/// listed twice, or two fns whose prompts have the same name, fail to
/// compile with one error naming both; a fn without `#[prompt]` with one
/// error on its name.
///
/// ```
/// use mcpfn_runtime::{prompt, prompts};
///
/// /// Ask for a code review.
/// #[prompt]
/// async fn review(
///     /// The file to review.
///     file: String,
/// ) -> String {
///     format!("Please review {file}.")
/// }
///
/// let prompts = prompts![review];
/// assert_eq!(prompts[0].name(), "review");
/// assert!(prompts[0].arguments()[0].required);
/// ```
#[macro_export]
macro_rules! prompts {
    ($($tokens:tt)*) => {
        $crate::__private::prompts! { [$crate] $($tokens)* }
    };
}

/// The one channel between `#[tool]`'s generated code and this crate. Not a
/// public API: it changes with the macro, which is pinned to this version.
#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;
