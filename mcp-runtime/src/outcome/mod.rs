//! What a tool call gives back (below `tool/` and `context/`, which both
//! name it): [`ToolOutcome`] (structured output, content or
//! an error for the model), [`Structured`] (structured output with more
//! content blocks) and [`ToolError`].

mod finite;

use crate::content::Content;
use std::fmt;

/// What a tool call produced, before it is shaped for the session's revision.
#[derive(Debug)]
#[non_exhaustive]
pub enum ToolOutcome {
    /// A serialized JSON value: `structuredContent` plus a text mirror
    /// (text that is not JSON becomes an `isError` result).
    Structured(String),
    /// A serialized JSON value as in [`ToolOutcome::Structured`], and content
    /// blocks that follow its text mirror in `content` (see [`Structured`]).
    StructuredWith {
        /// The JSON value: `structuredContent`, and the first text block.
        json: String,
        /// The blocks after the text mirror, each shaped for the session's
        /// revision as [`ToolOutcome::Content`]'s are.
        content: Vec<Content>,
    },
    /// Content blocks, without structured output.
    Content(Vec<Content>),
    /// A failure the model should see: `isError: true` with this text.
    Error(String),
    /// A JSON-RPC error instead of a result: a protocol fault, not the
    /// tool's (the spec keeps tool failures in `isError` results, which
    /// the model reads). A call answers with the error; a task ends
    /// `failed` carrying it.
    Protocol(mcpfn_protocol::RpcError),
}

impl ToolOutcome {
    /// A single text block.
    pub fn text(text: impl Into<String>) -> ToolOutcome {
        ToolOutcome::Content(vec![Content::text(text)])
    }

    /// An `isError` result with `message`.
    pub fn error(message: impl Into<String>) -> ToolOutcome {
        ToolOutcome::Error(message.into())
    }

    /// A JSON-RPC error with `code` and `message` instead of a result
    /// (see [`ToolOutcome::Protocol`]).
    pub fn protocol_error(code: i64, message: impl Into<String>) -> ToolOutcome {
        ToolOutcome::Protocol(mcpfn_protocol::RpcError::new(
            mcpfn_protocol::ErrorCode::from_code(code),
            message.into(),
        ))
    }

    /// A structured result: `value` serialized. A value that does not
    /// serialize, or that holds a NaN or infinite float (which JSON cannot
    /// carry: serde_json would write `null`, breaking the outputSchema),
    /// becomes an `isError` result that says where.
    ///
    /// ```
    /// use mcpfn_runtime::ToolOutcome;
    /// use std::collections::BTreeMap;
    ///
    /// let fine = ToolOutcome::structured(&BTreeMap::from([("sum", 3.0)]));
    /// assert!(matches!(fine, ToolOutcome::Structured(json) if json == r#"{"sum":3.0}"#));
    /// let overflow = ToolOutcome::structured(&BTreeMap::from([("sum", f64::INFINITY)]));
    /// assert!(matches!(overflow, ToolOutcome::Error(message) if message.contains("at `sum`")));
    /// ```
    pub fn structured<T: serde::Serialize + ?Sized>(value: &T) -> ToolOutcome {
        structured_outcome(value, None)
    }

    /// A structured result as [`ToolOutcome::structured`] makes it, with
    /// `content` after the text mirror (an error result stays an error,
    /// without them).
    ///
    /// ```
    /// use mcpfn_runtime::{Content, ToolOutcome};
    ///
    /// let outcome = ToolOutcome::structured_with(&[1, 2], vec![Content::image(b"GIF89a", "image/gif")]);
    /// assert!(matches!(outcome, ToolOutcome::StructuredWith { json, content } if json == "[1,2]" && content.len() == 1));
    /// ```
    pub fn structured_with<T: serde::Serialize + ?Sized>(
        value: &T,
        content: Vec<Content>,
    ) -> ToolOutcome {
        structured_outcome(value, None).followed_by(content)
    }

    /// This outcome with `blocks` after what it already has: a structured
    /// result keeps its JSON and gains them, content gains them, an error
    /// stays as it is (the blocks went with the result that failed).
    pub(crate) fn followed_by(self, blocks: impl IntoIterator<Item = Content>) -> ToolOutcome {
        match self {
            ToolOutcome::Structured(json) => ToolOutcome::StructuredWith {
                json,
                content: blocks.into_iter().collect(),
            },
            ToolOutcome::StructuredWith { json, mut content } => {
                content.extend(blocks);
                ToolOutcome::StructuredWith { json, content }
            }
            ToolOutcome::Content(mut content) => {
                content.extend(blocks);
                ToolOutcome::Content(content)
            }
            failed @ (ToolOutcome::Error(_) | ToolOutcome::Protocol(_)) => failed,
        }
    }
}

/// Structured output with content blocks beside it, e.g. the figures of a
/// chart and the chart as an image.
///
/// Return `Structured<T>` from a `#[tool]` (or `Result<Structured<T>, E>`)
/// where you would return `T`: the tool advertises the same `outputSchema`
/// (made from `T`), and its results carry the same `structuredContent` and
/// text mirror, followed in `content` by the blocks added with
/// [`Structured::with`]. Each revision gets what it can read: sessions
/// before 2025-06-18 get the text mirror and the blocks, without
/// `structuredContent`; a block of a kind the revision lacks becomes a text
/// block, as in any content result. A non-finite float in `T` makes the
/// result an `isError` one, without the blocks.
///
/// ```
/// use mcpfn_runtime::{Content, Structured, ToolError, tool};
/// use mcpfn_runtime::{JsonSchema, Serialize};
///
/// #[derive(Serialize, JsonSchema)]
/// #[serde(crate = "mcpfn_runtime::serde")]
/// #[schemars(crate = "mcpfn_runtime::schemars")]
/// struct Plot {
///     points: usize,
/// }
///
/// /// Plot the values.
/// #[tool]
/// async fn plot(values: Vec<f64>) -> Result<Structured<Plot>, ToolError> {
///     if values.is_empty() {
///         return Err(ToolError::new("pass at least one value"));
///     }
///     let svg = format!("<svg xmlns=\"http://www.w3.org/2000/svg\"><!-- {} points --></svg>", values.len());
///     Ok(Structured::new(Plot { points: values.len() })
///         .with(Content::image(svg.as_bytes(), "image/svg+xml")))
/// }
///
/// fn main() {
///     let tools = mcpfn_runtime::tools![plot];
///     // The outputSchema is Plot's.
///     assert_eq!(tools[0].output_schema().unwrap()["required"][0], "points");
/// }
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Structured<T> {
    value: T,
    content: Vec<Content>,
}

impl<T> Structured<T> {
    /// `value` as structured output, with no blocks yet.
    pub fn new(value: T) -> Structured<T> {
        Structured {
            value,
            content: Vec::new(),
        }
    }

    /// Adds a block after the text mirror (and after the blocks added
    /// before it).
    pub fn with(mut self, block: Content) -> Structured<T> {
        self.content.push(block);
        self
    }

    /// The structured value.
    pub fn value(&self) -> &T {
        &self.value
    }

    /// The blocks added so far.
    pub fn content(&self) -> &[Content] {
        &self.content
    }

    /// The value and the blocks.
    pub fn into_parts(self) -> (T, Vec<Content>) {
        (self.value, self.content)
    }
}

/// [`ToolOutcome::structured`], naming `tool` in the non-finite error when
/// it is known (the `#[tool]` expansion passes it).
pub(crate) fn structured_outcome<T: serde::Serialize + ?Sized>(
    value: &T,
    tool: Option<&str>,
) -> ToolOutcome {
    let json = match serde_json::to_string(value) {
        Ok(json) => json,
        Err(err) => {
            return ToolOutcome::Error(format!(
                "{} result could not be serialized: {err}",
                the_tool(tool)
            ));
        }
    };
    // serde_json writes a non-finite float as `null`: only a result
    // with a `null` in it needs the second, checking pass.
    if !json.contains("null") {
        return ToolOutcome::Structured(json);
    }
    match serde_path_to_error::serialize(value, finite::Check) {
        Ok(()) => ToolOutcome::Structured(json),
        Err(err) => {
            let place = match err.path().to_string().as_str() {
                "." => "as its result".to_owned(),
                path => format!("at `{path}`"),
            };
            ToolOutcome::Error(format!(
                "{} returned a non-finite number ({}) {place}; JSON cannot carry NaN or infinity. \
                     The inputs probably overflow or divide by zero: retry with other values.",
                the_tool(tool),
                err.inner()
            ))
        }
    }
}

/// "The tool 'add'" when the name is known, else "The tool".
fn the_tool(tool: Option<&str>) -> String {
    match tool {
        Some(name) => format!("The tool '{name}'"),
        None => "The tool".to_owned(),
    }
}

/// The error a tool returns: its message reaches the model in an `isError`
/// result.
///
/// `?` converts anything that converts into `Box<dyn Error + Send + Sync>`:
/// every `std::error::Error + Send + Sync`, `anyhow::Error`, `String` and
/// `&str`. The message is the error's text, then the text of each error in
/// its `source()` chain that the message does not already contain, joined
/// with `": "` (see [`ToolError::from_error`]). [`ToolError::new`] takes a
/// message. (Like `anyhow::Error`, it does not implement `std::error::Error`
/// itself, which is what makes the blanket conversion possible.)
///
/// ```
/// use mcpfn_runtime::ToolError;
/// fn parse(text: &str) -> Result<u32, ToolError> {
///     let n: u32 = text.parse()?;
///     if n == 0 {
///         return Err(ToolError::new("zero is not allowed; pass a positive number"));
///     }
///     Ok(n)
/// }
/// assert_eq!(parse("0").unwrap_err().to_string(), "zero is not allowed; pass a positive number");
/// assert_eq!(parse("x").unwrap_err().to_string(), "invalid digit found in string");
///
/// fn open(path: &str) -> Result<String, ToolError> {
///     Ok(std::fs::read_to_string(path)?)
/// }
/// let message = open("/no/such/file").unwrap_err().to_string();
/// assert_eq!(message.matches("os error").count(), 1, "{message}");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError {
    message: String,
}

impl ToolError {
    /// An error with this message for the model; say what to do differently.
    pub fn new(message: impl Into<String>) -> ToolError {
        ToolError {
            message: message.into(),
        }
    }

    /// An error whose message is `error`'s text followed by each distinct
    /// text of its `source()` chain: a source whose text the message
    /// already contains (many errors print their source in their own text)
    /// is skipped, so nothing is said twice and nothing is lost.
    pub fn from_error(error: &(dyn std::error::Error + 'static)) -> ToolError {
        let mut message = error.to_string();
        let mut source = error.source();
        while let Some(cause) = source {
            let text = cause.to_string();
            if !text.is_empty() && !message.contains(&text) {
                if !message.is_empty() {
                    message.push_str(": ");
                }
                message.push_str(&text);
            }
            source = cause.source();
        }
        ToolError { message }
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// One conversion for every error type: `Box<dyn Error + Send + Sync>` is
/// what std errors, `anyhow::Error`, `String` and `&str` all convert into,
/// and it keeps the `source()` chain (anyhow's context included).
impl<E: Into<Box<dyn std::error::Error + Send + Sync + 'static>>> From<E> for ToolError {
    fn from(err: E) -> ToolError {
        let boxed: Box<dyn std::error::Error + Send + Sync + 'static> = err.into();
        ToolError::from_error(&*boxed)
    }
}
