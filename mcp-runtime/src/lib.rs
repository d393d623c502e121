//! Serve plain Rust functions as [Model Context Protocol](https://modelcontextprotocol.io)
//! tools over stdio.
//!
//! Put [`#[tool]`](tool) on an async fn; its name, doc comments, parameters and
//! return type become the tool's name, description, `inputSchema` and
//! `outputSchema`. Register tools with [`tools!`] and serve them:
//!
//! ```no_run
//! use mcp_runtime::{Server, ToolError, tool, tools};
//! use mcp_runtime::{Deserialize, JsonSchema, Serialize};
//!
//! #[derive(Serialize, JsonSchema)]
//! #[serde(crate = "mcp_runtime::serde")]
//! #[schemars(crate = "mcp_runtime::schemars")]
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
//!     Server::new("calc", env!("CARGO_PKG_VERSION"))
//!         .tools(tools![add, divide])
//!         .serve_stdio()
//!         .await
//! }
//! ```
//!
//! The fn stays an ordinary fn: `add(1.0, 2.0).await` works in tests.
//!
//! One process speaks every protocol revision clients send today: the
//! `initialize` handshake (2024-11-05 to 2025-11-25) and the stateless
//! 2026-07-28 era (`server/discover`, a `_meta` envelope on every request).

mod content;
mod context;
mod dump;
mod elicit;
mod error;
mod handles;
mod level;
mod limits;
mod logging;
pub mod protocol;
mod registry;
pub mod schema;
mod server;
mod session;
mod shared;
mod state;
mod strict;
pub mod testing;
mod tool;
mod toolset;
pub mod transport;
mod util;

pub use content::{Audience, Content, IntoContent};
pub use context::{Context, TestContext, TestPeer};
pub use dump::{DumpEntry, DumpFormat, ToolDump};
pub use elicit::{
    DEFAULT_ELICITATION_TIMEOUT, DEFAULT_MAX_SPENT_REQUEST_STATES, ElicitAction, ElicitRequest,
    Elicitation,
};
pub use error::Error;
pub use handles::Handles;
pub use level::Level;
pub use limits::{
    DEFAULT_MAX_CONCURRENT_CALLS, DEFAULT_MAX_PENDING_CALLS, DEFAULT_QUEUE_TIMEOUT,
    DEFAULT_RATE_BURST, DEFAULT_RATE_PER_SECOND,
};
pub use mcp_macros::tool;
pub use protocol::ProtocolVersion;
pub use schemars::{self, JsonSchema};
pub use serde::{self, Deserialize, Serialize};
pub use server::{
    DEFAULT_DRAIN_TIMEOUT, DEFAULT_INPUT_REQUEST_TTL, DEFAULT_LIST_TTL, DEFAULT_MAX_MESSAGE_SIZE,
    Server,
};
pub use state::State;
pub use tool::{BoxFuture, Icon, Tool, ToolBuilder, ToolCall, ToolError, ToolOutcome};
pub use toolset::ToolSet;

// The README's Rust examples compile as doctests, against the dependencies
// (and tokio features) the README tells users to add.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;

/// Collects `#[tool]` fns into a `Vec<Tool>` for [`Server::tools`].
///
/// Each entry is the path of a `#[tool]` fn (`hello`, `weather::lookup`); a
/// trailing comma is allowed. A fn listed twice, or two fns whose tools have
/// the same name, fail to compile with one error naming both.
///
/// ```
/// use mcp_runtime::{tool, tools};
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
        $crate::__private::tools! { $($tokens)* }
    };
}

/// The one channel between `#[tool]`'s generated code and this crate. Not a
/// public API: it changes with the macro, which is pinned to this version.
#[doc(hidden)]
pub mod __private {
    pub use crate::Context;
    pub use crate::schema::{doc_text, input_schema};
    pub use crate::tool::{BoxFuture, Icon, ToolBuilder, ToolCall, ToolOutcome};
    pub use mcp_macros::tools;
    pub use schemars;
    pub use serde;
    pub use serde_json;

    // `Argument` and `StructuredOutput` each bundle two traits behind a
    // `do_not_recommend` blanket impl, so a type that lacks both derives gets
    // one error naming the rule instead of one error per missing trait.

    /// What a `#[tool]` parameter's type must implement.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot be a #[tool] parameter",
        label = "this type must implement Deserialize and JsonSchema",
        note = "derive both on your type: #[derive(Deserialize, JsonSchema)]; String, numbers, bool, Vec<T>, Option<T> and maps have them when their contents do"
    )]
    pub trait Argument: serde::de::DeserializeOwned + schemars::JsonSchema + 'static {}

    #[diagnostic::do_not_recommend]
    impl<T: serde::de::DeserializeOwned + schemars::JsonSchema + 'static> Argument for T {}

    /// A builder whose handler deserializes `A` and passes it, with the
    /// call's context, to `call`; with `A`'s inputSchema.
    pub fn tool_builder<A, C>(name: &'static str, call: C) -> ToolBuilder
    where
        A: serde::de::DeserializeOwned + schemars::JsonSchema + 'static,
        C: Fn(A, crate::Context) -> BoxFuture<ToolOutcome> + Send + Sync + 'static,
    {
        ToolBuilder::new(name, move |tool_call: ToolCall| {
            match tool_call.arguments::<A>() {
                Ok(args) => call(args, tool_call.context().clone()),
                Err(invalid) => Box::pin(async move { invalid }),
            }
        })
        .input_schema_with(input_schema::<A>)
    }

    /// The `State<T>` a tool takes; registration is checked at startup, so
    /// the `Err` (an error result) only guards against misuse of the builder.
    pub fn state<T: Send + Sync + 'static>(
        context: &crate::Context,
    ) -> Result<crate::State<T>, ToolOutcome> {
        context.state::<T>().ok_or_else(|| {
            ToolOutcome::Error(format!(
                "this server has no State<{}> registered",
                core::any::type_name::<T>()
            ))
        })
    }

    /// What a structured `#[tool]` return type must implement.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot be returned from a #[tool]",
        label = "this type must implement Serialize and JsonSchema",
        note = "derive both: #[derive(Serialize, JsonSchema)]; or return String, (), Content or Vec<Content> for plain content"
    )]
    pub trait StructuredOutput: serde::Serialize + schemars::JsonSchema {}

    #[diagnostic::do_not_recommend]
    impl<T: serde::Serialize + schemars::JsonSchema> StructuredOutput for T {}

    /// The outputSchema of a structured return type (generated on first use).
    pub fn output_schema<T: StructuredOutput>() -> serde_json::Value {
        crate::schema::output_schema::<T>()
    }

    /// Serializes a structured return value; a non-finite float in it is an
    /// error result that names the tool.
    pub fn structured<T: StructuredOutput>(value: &T, context: &crate::Context) -> ToolOutcome {
        crate::tool::structured_outcome(value, Some(context.tool_name()))
    }

    /// Converts a content return value.
    pub fn content<T: crate::IntoContent>(value: T) -> ToolOutcome {
        ToolOutcome::Content(value.into_content())
    }

    /// What the error type of a fallible `#[tool]` must implement.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot be the error type of a #[tool]",
        label = "this type must implement Display",
        note = "the model reads the error's Display text; implement Display, or return ToolError (any std::error::Error converts to it with `?`)"
    )]
    pub trait ErrorMessage: core::fmt::Display {}

    impl<T: core::fmt::Display + ?Sized> ErrorMessage for T {}

    /// Converts the `Err` of a fallible tool. `chain` is the error's text by
    /// the one rule of [`ToolError::from_error`](crate::ToolError::from_error)
    /// when its type is a `std::error::Error` (see [`ErrorText`]); otherwise
    /// the alternate Display form is used (anyhow shows its context chain so).
    pub fn tool_error<E: ErrorMessage>(error: &E, chain: Option<String>) -> ToolOutcome {
        ToolOutcome::Error(chain.unwrap_or_else(|| format!("{error:#}")))
    }

    /// The `Err` of a fallible tool, asked for its source chain by method
    /// resolution on `(&&ErrorText(&err)).chain()`: [`SourceChain`] applies
    /// when the type is a `std::error::Error`, [`NoSourceChain`] (one autoref
    /// further, no bound, so a type that is neither gets only the
    /// `ErrorMessage` error) otherwise.
    #[allow(missing_debug_implementations)]
    pub struct ErrorText<'a, E: ?Sized>(pub &'a E);

    /// The chain of a `std::error::Error`: Display, then each distinct source.
    pub trait SourceChain {
        /// The error's text with its sources.
        fn chain(&self) -> Option<String>;
    }

    impl<E: std::error::Error + 'static> SourceChain for &ErrorText<'_, E> {
        fn chain(&self) -> Option<String> {
            Some(crate::ToolError::from_error(self.0).message().to_owned())
        }
    }

    /// Any other error type: no chain to walk.
    pub trait NoSourceChain {
        /// Always `None`.
        fn chain(&self) -> Option<String>;
    }

    impl<E: ?Sized> NoSourceChain for ErrorText<'_, E> {
        fn chain(&self) -> Option<String> {
            None
        }
    }
}
