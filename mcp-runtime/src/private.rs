//! What `#[tool]`'s expansion names, and only that: the one channel between
//! the macro's generated code and this crate (`::mcpfn_runtime::__private::…`);
//! besides, the hidden halves of the public `Asks` trait's methods.
//! Not a public API: it changes with the macro, which is pinned to this
//! version.

pub use crate::Context;
pub use crate::context::ask::{Answer, Pending};
pub use crate::outcome::ToolOutcome;
pub use crate::schema::input_schema;
pub use crate::tool::{Icon, TaskSupport, ToolBuilder, ToolCall};
pub use crate::util::BoxFuture;
pub use mcpfn_macros::{prompts, resources, tools};
pub use mcpfn_protocol::model::{ToolUi, Visibility};
// `#[resource]`'s glue.
pub use crate::resource::ResourceBuilder;
pub use crate::resource::glue::{
    IntoContents, IntoReadResult, Variable, built, optional_variable, resource_state, variable,
};
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

/// What the `T` of a `State<T>` parameter must be: calls run at once on
/// several threads and share the one registered value.
///
/// `#[tool]` checks it once per `State<T>` parameter, as
/// `<T as SharedState>::CHECKED` spelled on the user's `T`, inside the array
/// length of the `BuildListed` impl's bound on the fn's future
/// ([`SendFuture`]`<[(); …]>`). So an unfit `T` is this one error, on the
/// `T`: the failed constant makes that bound an error type, which rustc
/// does not report again at `tools![]` ("future cannot be sent between
/// threads safely"); and the glue that fetches the state ([`state`],
/// [`requires_state`]) has no bound on `T` to fail a second time.
#[diagnostic::on_unimplemented(
    message = "`State<{Self}>` needs `{Self}: Send + Sync + 'static`, because calls run at once on several threads and share the one value",
    label = "this type is not `Send + Sync`",
    note = "wrap it in a Mutex: take `State<Mutex<{Self}>>`, registered with `.state(Mutex::new(value))` (a RefCell or Cell inside can then go, and an Rc must become an Arc); State<T> is already an Arc<T>, so no Arc<Mutex<..>> is needed"
)]
// No supertraits: rustc would report the failed `Sync` of one of them
// (its own message) instead of this trait's.
pub trait SharedState {
    /// `0`: a constant that exists only when `Self` is fit.
    const CHECKED: usize = 0;
}

#[diagnostic::do_not_recommend]
impl<T: Send + Sync + 'static> SharedState for T {}

/// `Send`, for the future of a tool fn that takes a `State<T>`; `Checks`
/// is `[(); n]`, whose length is the [`SharedState`] check of each `T`.
pub trait SendFuture<Checks>: Send {}

#[diagnostic::do_not_recommend]
impl<F: Send, Checks> SendFuture<Checks> for F {}

/// Declares the `State<T>` a tool takes (see [`SharedState`] for why `T` has
/// no bound).
pub fn requires_state<T: 'static>(builder: ToolBuilder) -> ToolBuilder {
    builder.requires_state_unbounded::<T>()
}

/// The `State<T>` a tool takes; registration is checked at startup, so
/// the `Err` (an error result) only guards against misuse of the builder.
/// `T` has no bound: see [`SharedState`].
pub fn state<T: 'static>(context: &crate::Context) -> Result<crate::State<T>, ToolOutcome> {
    context.state_unbounded::<T>().ok_or_else(|| {
        ToolOutcome::Error(format!(
            "this server has no State<{}> registered",
            core::any::type_name::<T>()
        ))
    })
}

/// What a structured `#[tool]` return type must implement: every
/// `Serialize + JsonSchema` type, and [`Structured<T>`](crate::Structured)
/// of one (see [`StructuredReturn`]).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a #[tool]",
    label = "this type must implement Serialize and JsonSchema",
    note = "derive both: #[derive(Serialize, JsonSchema)]; or return String, (), Content or Vec<Content> for plain content"
)]
pub trait StructuredOutput {
    /// The outputSchema the tool advertises.
    fn output_schema() -> serde_json::Value;
    /// The outcome of a returned value; `tool` names the tool in errors.
    fn outcome(&self, tool: &str) -> ToolOutcome;
}

// One impl only, so that an unfit type's error names the rule above and
// lists no other implementor; the two shapes are `StructuredReturn`'s.
#[diagnostic::do_not_recommend]
impl<T: StructuredReturn> StructuredOutput for T {
    fn output_schema() -> serde_json::Value {
        T::schema()
    }

    fn outcome(&self, tool: &str) -> ToolOutcome {
        self.structured(tool)
    }
}

/// The two shapes of a structured return value: a `Serialize + JsonSchema`
/// value, and a [`Structured<T>`](crate::Structured) of one (`T`'s
/// outputSchema; `T`'s outcome followed by the blocks).
pub trait StructuredReturn {
    /// The outputSchema.
    fn schema() -> serde_json::Value;
    /// The outcome; `tool` names the tool in errors.
    fn structured(&self, tool: &str) -> ToolOutcome;
}

impl<T: serde::Serialize + schemars::JsonSchema> StructuredReturn for T {
    fn schema() -> serde_json::Value {
        crate::schema::output_schema::<T>()
    }

    fn structured(&self, tool: &str) -> ToolOutcome {
        crate::outcome::structured_outcome(self, Some(tool))
    }
}

/// No overlap with the impl above: `Structured` is neither `Serialize` nor
/// `JsonSchema`.
impl<T: StructuredReturn> StructuredReturn for crate::Structured<T> {
    fn schema() -> serde_json::Value {
        T::schema()
    }

    // The expansion hands the value over by reference, so the blocks are
    // cloned: one copy of bytes that are written out right after.
    fn structured(&self, tool: &str) -> ToolOutcome {
        self.value()
            .structured(tool)
            .followed_by(self.content().iter().cloned())
    }
}

/// The outputSchema of a structured return type (generated on first use).
pub fn output_schema<T: StructuredOutput>() -> serde_json::Value {
    T::output_schema()
}

/// Serializes a structured return value; a non-finite float in it is an
/// error result that names the tool.
pub fn structured<T: StructuredOutput>(value: &T, context: &crate::Context) -> ToolOutcome {
    value.outcome(context.tool_name())
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

/// Joins doc-comment lines the way rustdoc does: one leading space dropped
/// per line, surrounding blank lines trimmed.
pub fn doc_text(lines: &[&str]) -> String {
    let joined: Vec<&str> = lines
        .iter()
        .flat_map(|chunk| chunk.split('\n'))
        .map(|line| {
            line.strip_prefix(' ')
                .unwrap_or(line)
                .trim_end_matches('\r')
        })
        .collect();
    joined.join("\n").trim().to_owned()
}

/// `TaskSupport::Required`, as the constant `#[tool(task = "required")]`
/// evaluates.
#[cfg(feature = "tasks")]
pub const fn required_task() -> TaskSupport {
    TaskSupport::Required
}

/// What the constant `#[tool(task = "required")]` evaluates is, without the
/// `tasks` feature, this panic: a compile-time error with its message, on
/// the attribute's `"required"`.
#[cfg(not(feature = "tasks"))]
pub const fn required_task() -> TaskSupport {
    panic!(
        "`task = \"required\"` needs mcp-runtime's Tasks extension: add `features = [\"tasks\"]` to the mcp-runtime dependency (a `task = \"optional\"` tool needs none: without it, it is a plain tool)"
    )
}

// The key beside each declared fn and how the lists read it.
#[path = "private/list.rs"]
mod list;
pub use list::{
    BuildListed, FnOutput, KeyInfo, ListKey, Never, NotListed, build, is_declared, listed_name,
    same_name,
};

// ---- `#[prompt]` ----

pub use crate::complete::CompletionContext;
pub use crate::prompt::{PromptBuilder, PromptResult};
pub use mcpfn_protocol::model::PromptMessage;

/// The call's context, for a `Context` parameter of a `#[prompt]` fn.
pub fn prompt_context(call: &ToolCall) -> &crate::Context {
    call.context()
}

/// A `#[prompt]` fn's arguments (checked present and strings before the
/// body runs); a failure is the body's error.
pub fn prompt_arguments<A: serde::de::DeserializeOwned>(
    call: &ToolCall,
) -> Result<A, crate::ToolError> {
    call.arguments::<A>().map_err(|invalid| match invalid {
        ToolOutcome::Error(message) => crate::ToolError::new(message),
        _ => crate::ToolError::new("the prompt's arguments could not be read"),
    })
}

/// The `State<T>` a `#[prompt]` fn takes (registration is checked at
/// startup: see [`state`]).
pub fn prompt_state<T: 'static>(call: &ToolCall) -> Result<crate::State<T>, crate::ToolError> {
    call.context().state_unbounded::<T>().ok_or_else(|| {
        crate::ToolError::new(format!(
            "this server has no State<{}> registered",
            core::any::type_name::<T>()
        ))
    })
}

/// What a `#[prompt]` fn may return: its messages, or a `Result` of them
/// whose error becomes the prompt's JSON-RPC error.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a #[prompt]",
    label = "return the prompt's messages",
    note = "return String (one user message), PromptMessage or Vec<PromptMessage>, or a Result of one whose error implements Display"
)]
pub trait PromptReturn {
    /// The prompt's messages, or why there are none.
    fn prompt_result(self) -> PromptResult;
}

/// A value that is a prompt's messages.
pub trait IntoMessages {
    /// The messages.
    fn into_messages(self) -> Vec<PromptMessage>;
}

impl IntoMessages for String {
    fn into_messages(self) -> Vec<PromptMessage> {
        vec![PromptMessage::user(self)]
    }
}

impl IntoMessages for &'static str {
    fn into_messages(self) -> Vec<PromptMessage> {
        vec![PromptMessage::user(self)]
    }
}

impl IntoMessages for PromptMessage {
    fn into_messages(self) -> Vec<PromptMessage> {
        vec![self]
    }
}

impl IntoMessages for Vec<PromptMessage> {
    fn into_messages(self) -> Vec<PromptMessage> {
        self
    }
}

macro_rules! prompt_return {
    ($($ty:ty),*) => {$(
        impl PromptReturn for $ty {
            fn prompt_result(self) -> PromptResult {
                Ok(self.into_messages())
            }
        }
    )*};
}

prompt_return!(String, &'static str, PromptMessage, Vec<PromptMessage>);

impl<T: IntoMessages, E: std::fmt::Display> PromptReturn for Result<T, E> {
    fn prompt_result(self) -> PromptResult {
        self.map(IntoMessages::into_messages)
            .map_err(|error| crate::ToolError::new(error.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn structured_with_blocks_keeps_the_schema_and_adds_the_blocks() {
        type Plain = std::collections::BTreeMap<String, f64>;
        assert_eq!(
            output_schema::<crate::Structured<Plain>>(),
            output_schema::<Plain>()
        );
        let image = crate::Content::image(b"GIF89a", "image/gif");
        let value = Plain::from([("sum".to_owned(), 3.0)]);
        let outcome = crate::Structured::new(value.clone())
            .with(image.clone())
            .outcome("add");
        assert!(
            matches!(&outcome, ToolOutcome::StructuredWith { json, content }
                if json == r#"{"sum":3.0}"# && content == std::slice::from_ref(&image)),
            "{outcome:?}"
        );
        // A value JSON cannot carry is an error, without the blocks.
        let overflow = Plain::from([("sum".to_owned(), f64::INFINITY)]);
        let outcome = crate::Structured::new(overflow).with(image).outcome("add");
        assert!(
            matches!(&outcome, ToolOutcome::Error(message) if message.starts_with("The tool 'add' returned a non-finite number")),
            "{outcome:?}"
        );
    }

    #[test]
    fn doc_text_follows_rustdoc() {
        assert_eq!(
            doc_text(&[" Add two numbers.", "", " More."]),
            "Add two numbers.\n\nMore."
        );
        assert_eq!(doc_text(&[]), "");
    }
}
