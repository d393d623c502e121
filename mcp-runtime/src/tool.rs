//! What a tool is at run time: its definition, the call it receives, and what
//! it gives back.

use crate::content::Content;
use crate::context::Context;
use crate::protocol::ProtocolVersion;
use crate::state::StateRequirement;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

/// A boxed, sendable future, the shape every tool handler returns.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

type Handler = Arc<dyn Fn(ToolCall) -> BoxFuture<ToolOutcome> + Send + Sync>;

/// A registered tool: its advertised definition and the handler that runs it.
///
/// `#[tool]` makes these; `tools![a, b]` collects them. [`ToolBuilder`] makes
/// them by hand, for tools whose shape is only known at run time.
#[derive(Clone)]
pub struct Tool {
    pub(crate) name: String,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) input_schema: Value,
    pub(crate) output_schema: Option<Value>,
    pub(crate) annotations: Annotations,
    pub(crate) icons: Vec<Icon>,
    pub(crate) meta: Map<String, Value>,
    pub(crate) timeout: Option<Duration>,
    pub(crate) states: Vec<StateRequirement>,
    /// Header-mirrored integer arguments and their bounds, from the inputSchema.
    pub(crate) header_bounds: Vec<HeaderBound>,
    /// Whether a call is first polled on the connection's loop (see
    /// [`ToolBuilder::runs_inline`]).
    pub(crate) first_poll_inline: bool,
    pub(crate) handler: Handler,
}

/// An integer argument mirrored into a header, with the range it must stay in.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct HeaderBound {
    property: String,
    minimum: f64,
    maximum: f64,
}

impl HeaderBound {
    /// Top-level integer properties with `x-mcp-header` and bounds.
    fn from_schema(schema: &Value) -> Vec<HeaderBound> {
        let Some(props) = schema.get("properties").and_then(Value::as_object) else {
            return Vec::new();
        };
        props
            .iter()
            .filter(|(_, p)| {
                p.get("x-mcp-header").is_some() && p.get("type") == Some(&Value::from("integer"))
            })
            .filter_map(|(name, p)| {
                Some(HeaderBound {
                    property: name.clone(),
                    minimum: p.get("minimum")?.as_f64()?,
                    maximum: p.get("maximum")?.as_f64()?,
                })
            })
            .collect()
    }
}

impl fmt::Debug for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tool")
            .field("name", &self.name)
            .field("title", &self.title)
            .field("description", &self.description)
            .finish_non_exhaustive()
    }
}

impl Tool {
    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The same tool under another name (say, to register copies of it).
    pub fn renamed(mut self, name: impl Into<String>) -> Tool {
        self.name = name.into();
        self
    }

    /// The advertised inputSchema.
    pub fn input_schema(&self) -> &Value {
        &self.input_schema
    }

    /// The advertised outputSchema as a 2026-07-28 session sees it, if any.
    pub fn output_schema(&self) -> Option<&Value> {
        self.output_schema.as_ref()
    }

    /// Whether results are wrapped as `{"result": …}` for this session:
    /// 2025-06-18 and 2025-11-25 need an object root, and no session gets a
    /// bare `oneOf`/`anyOf` at the top of an outputSchema.
    pub(crate) fn wraps_output(&self, version: ProtocolVersion) -> bool {
        let Some(schema) = &self.output_schema else {
            return false;
        };
        if !version.has_structured_output() {
            return false;
        }
        let object_root = schema.get("type").and_then(Value::as_str) == Some("object");
        crate::schema::has_root_composition(schema) || (!version.is_modern() && !object_root)
    }

    /// The tool's definition as a session of `version` sees it.
    pub(crate) fn definition(&self, version: ProtocolVersion) -> Value {
        let mut def = Map::new();
        def.insert("name".into(), self.name.clone().into());
        if version.has_structured_output()
            && let Some(title) = &self.title
        {
            def.insert("title".into(), title.clone().into());
        }
        if let Some(description) = &self.description {
            def.insert("description".into(), description.clone().into());
        }
        def.insert("inputSchema".into(), self.input_schema.clone());
        if version.has_structured_output()
            && let Some(schema) = &self.output_schema
        {
            let schema = if self.wraps_output(version) {
                crate::schema::wrap_in_result(schema)
            } else {
                schema.clone()
            };
            def.insert("outputSchema".into(), schema);
        }
        if version.has_annotations() {
            // Before `title` existed on tools, `annotations.title` carried it.
            let legacy_title = self
                .title
                .as_deref()
                .filter(|_| !version.has_structured_output());
            if let Some(annotations) = self.annotations.to_json(legacy_title) {
                def.insert("annotations".into(), annotations);
            }
        }
        if version.has_icons() && !self.icons.is_empty() {
            let icons = self.icons.iter().map(Icon::to_json).collect();
            def.insert("icons".into(), Value::Array(icons));
        }
        if version.has_structured_output() && !self.meta.is_empty() {
            def.insert("_meta".into(), Value::Object(self.meta.clone()));
        }
        Value::Object(def)
    }

    pub(crate) fn call(&self, call: ToolCall) -> BoxFuture<ToolOutcome> {
        if let Some(refusal) = self.out_of_header_range(call.arguments.as_deref()) {
            return Box::pin(async move { refusal });
        }
        (self.handler)(call)
    }

    /// Header-mirrored integers must stay within their advertised bounds
    /// (±(2^53−1) for wide types): beyond, clients render them inexactly.
    fn out_of_header_range(&self, arguments: Option<&RawValue>) -> Option<ToolOutcome> {
        if self.header_bounds.is_empty() {
            return None;
        }
        let arguments: Map<String, Value> = serde_json::from_str(arguments?.get()).ok()?;
        self.header_bounds.iter().find_map(|bound| {
            let value = arguments.get(&bound.property)?;
            let number = value.as_f64()?;
            (number < bound.minimum || number > bound.maximum).then(|| {
                ToolOutcome::Error(format!(
                    "Invalid arguments for tool '{}': `{}`: {value} is out of range; it must be between {} and {}.",
                    self.name, bound.property, bound.minimum, bound.maximum
                ))
            })
        })
    }
}

/// Builds a [`Tool`]; what `#[tool]` expands to, and the way to make tools
/// whose shape is only known at run time.
///
/// ```
/// use mcp_runtime::{ToolBuilder, ToolOutcome};
/// let tool = ToolBuilder::new("shout", |call| {
///     Box::pin(async move {
///         match call.arguments::<std::collections::HashMap<String, String>>() {
///             Ok(args) => ToolOutcome::text(args.get("text").cloned().unwrap_or_default().to_uppercase()),
///             Err(invalid) => invalid,
///         }
///     })
/// })
/// .description("Repeat the text, louder.")
/// .read_only_hint(true)
/// .build();
/// assert_eq!(tool.name(), "shout");
/// ```
#[must_use]
pub struct ToolBuilder {
    tool: Tool,
}

impl fmt::Debug for ToolBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ToolBuilder").field(&self.tool).finish()
    }
}

impl ToolBuilder {
    /// A tool named `name` that runs `handler`; it takes no arguments until
    /// [`ToolBuilder::input_schema`] says otherwise.
    pub fn new<F>(name: impl Into<String>, handler: F) -> ToolBuilder
    where
        F: Fn(ToolCall) -> BoxFuture<ToolOutcome> + Send + Sync + 'static,
    {
        ToolBuilder {
            tool: Tool {
                name: name.into(),
                title: None,
                description: None,
                input_schema: serde_json::json!({"type": "object", "additionalProperties": false}),
                output_schema: None,
                annotations: Annotations::default(),
                icons: Vec::new(),
                meta: Map::new(),
                timeout: None,
                states: Vec::new(),
                header_bounds: Vec::new(),
                first_poll_inline: false,
                handler: Arc::new(handler),
            },
        }
    }

    /// The description shown to the model.
    pub fn description(mut self, text: impl Into<String>) -> Self {
        let text = text.into();
        self.tool.description = (!text.is_empty()).then_some(text);
        self
    }

    /// The human-readable display name.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.tool.title = Some(title.into());
        self
    }

    /// The inputSchema; its root must be `type: object`.
    pub fn input_schema(mut self, schema: Value) -> Self {
        self.tool.input_schema = schema;
        self
    }

    /// The outputSchema, as 2026-07-28 sessions see it (any root); older
    /// sessions get a non-object root wrapped as `{"result": …}`.
    pub fn output_schema(mut self, schema: Value) -> Self {
        self.tool.output_schema = Some(schema);
        self
    }

    /// `readOnlyHint`: the tool does not modify its environment.
    pub fn read_only_hint(mut self, value: bool) -> Self {
        self.tool.annotations.read_only = Some(value);
        self
    }

    /// `destructiveHint`: updates may destroy data (meaningful when not read-only).
    pub fn destructive_hint(mut self, value: bool) -> Self {
        self.tool.annotations.destructive = Some(value);
        self
    }

    /// `idempotentHint`: repeating a call with the same arguments has no further effect.
    pub fn idempotent_hint(mut self, value: bool) -> Self {
        self.tool.annotations.idempotent = Some(value);
        self
    }

    /// `openWorldHint`: the tool reaches entities outside a closed domain.
    pub fn open_world_hint(mut self, value: bool) -> Self {
        self.tool.annotations.open_world = Some(value);
        self
    }

    /// Adds an icon.
    pub fn icon(mut self, icon: Icon) -> Self {
        self.tool.icons.push(icon);
        self
    }

    /// Adds an entry to the tool's `_meta`.
    pub fn meta(mut self, key: impl Into<String>, value: Value) -> Self {
        self.tool.meta.insert(key.into(), value);
        self
    }

    /// Ends calls that run longer than `timeout` with an `isError` result
    /// (overrides the server's default).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.tool.timeout = Some(timeout);
        self
    }

    /// Polls the handler once on the connection's loop before giving it a
    /// task of its own: for tools that usually finish without waiting (most
    /// do), this saves a task, a wakeup and a thread hop per call. A handler
    /// that waits continues on its own task as usual. Keep it off for tools
    /// that compute for long before their first `.await`, and for tools that
    /// rely on cooperative cancellation while computing: until the first
    /// `.await` the loop reads nothing else. `#[tool]` turns it on for fns
    /// that take no `Context`.
    pub fn runs_inline(mut self, inline: bool) -> Self {
        self.tool.first_poll_inline = inline;
        self
    }

    /// Declares that the tool reads `State<T>`: serving fails at startup when
    /// no such state was registered.
    pub fn requires_state<T: Send + Sync + 'static>(mut self) -> Self {
        self.tool.states.push(StateRequirement {
            type_id: std::any::TypeId::of::<T>(),
            type_name: std::any::type_name::<T>(),
        });
        self
    }

    /// The finished tool.
    pub fn build(mut self) -> Tool {
        self.tool.header_bounds = HeaderBound::from_schema(&self.tool.input_schema);
        self.tool
    }
}

/// The four behaviour hints of a tool; `None` leaves the client's default.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Annotations {
    read_only: Option<bool>,
    destructive: Option<bool>,
    idempotent: Option<bool>,
    open_world: Option<bool>,
}

impl Annotations {
    fn to_json(&self, title: Option<&str>) -> Option<Value> {
        let mut map = Map::new();
        if let Some(title) = title {
            map.insert("title".into(), title.into());
        }
        let hints = [
            ("readOnlyHint", self.read_only),
            ("destructiveHint", self.destructive),
            ("idempotentHint", self.idempotent),
            ("openWorldHint", self.open_world),
        ];
        for (key, value) in hints {
            if let Some(value) = value {
                map.insert(key.into(), value.into());
            }
        }
        (!map.is_empty()).then_some(Value::Object(map))
    }
}

/// An icon a client may show for the tool (2025-11-25 and later).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Icon {
    src: String,
    mime_type: Option<String>,
    sizes: Vec<String>,
    theme: Option<String>,
}

impl Icon {
    /// An icon at `src`, an `https:` or `data:` URI.
    pub fn new(src: impl Into<String>) -> Icon {
        Icon {
            src: src.into(),
            mime_type: None,
            sizes: Vec::new(),
            theme: None,
        }
    }

    /// The image's MIME type, e.g. `image/png`.
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Icon {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// Space-separated sizes, e.g. `"48x48 96x96"` or `"any"`.
    pub fn sizes(mut self, sizes: &str) -> Icon {
        self.sizes = sizes.split_whitespace().map(str::to_owned).collect();
        self
    }

    /// `light` or `dark`: the background the icon is drawn for.
    pub fn theme(mut self, theme: impl Into<String>) -> Icon {
        self.theme = Some(theme.into());
        self
    }

    fn to_json(&self) -> Value {
        let mut map = Map::new();
        map.insert("src".into(), self.src.clone().into());
        if let Some(mime) = &self.mime_type {
            map.insert("mimeType".into(), mime.clone().into());
        }
        if !self.sizes.is_empty() {
            map.insert("sizes".into(), self.sizes.clone().into());
        }
        if let Some(theme) = &self.theme {
            map.insert("theme".into(), theme.clone().into());
        }
        Value::Object(map)
    }
}

/// Longest argument path quoted in an error message; deeper paths are cut.
const MAX_PATH_IN_MESSAGE: usize = 60;

/// One call of a tool, as its handler receives it.
#[derive(Debug)]
pub struct ToolCall {
    pub(crate) name: Arc<str>,
    pub(crate) arguments: Option<Box<RawValue>>,
    pub(crate) version: ProtocolVersion,
    pub(crate) context: Context,
}

impl ToolCall {
    /// The call's context: progress, logging, cancellation, elicitation, state.
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// The name the tool was called by.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The protocol revision of the calling session or request.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.version
    }

    /// Deserializes the arguments (absent arguments read as `{}`). On failure
    /// the `Err` is the `isError` result to return: it names the field and what
    /// was expected, so a model can correct itself.
    pub fn arguments<T: DeserializeOwned>(&self) -> Result<T, ToolOutcome> {
        let text = self.arguments.as_deref().map_or("{}", RawValue::get);
        let mut de = serde_json::Deserializer::from_str(text);
        serde_path_to_error::deserialize(&mut de).map_err(|err| {
            let mut path = err.path().to_string();
            if path.len() > MAX_PATH_IN_MESSAGE {
                let cut = path.floor_char_boundary(MAX_PATH_IN_MESSAGE);
                path.truncate(cut);
                path.push('…');
            }
            let mut inner = crate::protocol::incoming::without_position(err.inner());
            if inner.starts_with("recursion limit exceeded") {
                inner = "nested more than 128 levels deep".to_owned();
            }
            let message = if path == "." {
                format!("Invalid arguments for tool '{}': {inner}.", self.name)
            } else {
                format!(
                    "Invalid arguments for tool '{}': `{path}`: {inner}.",
                    self.name
                )
            };
            ToolOutcome::Error(message)
        })
    }
}

/// What a tool call produced, before it is shaped for the session's revision.
#[derive(Debug)]
#[non_exhaustive]
pub enum ToolOutcome {
    /// A serialized JSON value: `structuredContent` plus a text mirror.
    Structured(String),
    /// Content blocks, without structured output.
    Content(Vec<Content>),
    /// A failure the model should see: `isError: true` with this text.
    Error(String),
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
}

/// The error a tool returns: its message reaches the model in an `isError`
/// result.
///
/// Any `std::error::Error` converts with `?`; [`ToolError::new`] takes a
/// message. (Like `anyhow::Error`, it does not implement `std::error::Error`
/// itself, which is what makes the blanket conversion possible.)
///
/// ```
/// use mcp_runtime::ToolError;
/// fn parse(text: &str) -> Result<u32, ToolError> {
///     let n: u32 = text.parse()?;
///     if n == 0 {
///         return Err(ToolError::new("zero is not allowed; pass a positive number"));
///     }
///     Ok(n)
/// }
/// assert_eq!(parse("0").unwrap_err().to_string(), "zero is not allowed; pass a positive number");
/// assert!(parse("x").is_err());
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

impl<E: std::error::Error + Send + Sync + 'static> From<E> for ToolError {
    fn from(err: E) -> ToolError {
        let mut message = err.to_string();
        let mut source = err.source();
        while let Some(cause) = source {
            message.push_str(": ");
            message.push_str(&cause.to_string());
            source = cause.source();
        }
        ToolError { message }
    }
}
