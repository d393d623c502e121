//! What a tool is at run time: its definition (rendered for each revision
//! through [`crate::protocol::tool_def`]) and the entry point of a call.
//! The builder, the call and its arguments, the server's live tool set
//! ([`toolset`]) and the list it reads ([`registry`]) live in the
//! submodules; what a call returns is [`crate::outcome`], below both this
//! and the context.

mod builder;
pub(crate) mod call;
pub(crate) mod registry;
pub(crate) mod toolset;

pub use crate::protocol::tool_def::Icon;
pub use builder::ToolBuilder;
pub use call::ToolCall;

use crate::outcome::ToolOutcome;
use crate::protocol::ProtocolVersion;
use crate::protocol::http::{HeaderKind, HeaderParam, HeaderParams};
use crate::protocol::model::{ToolUi, Visibility};
use crate::protocol::tool_def::{Annotations, ToolDefinition, ToolFields};
use crate::state::StateRequirement;
use crate::util::BoxFuture;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::fmt;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

pub(crate) type Handler = Arc<dyn Fn(ToolCall) -> BoxFuture<ToolOutcome> + Send + Sync>;

/// A registered tool: its name, its shared definition and the handler that
/// runs it. Cloning is cheap, and copies made with [`Tool::renamed`] share
/// their definition (schemas are generated once, on first use).
///
/// `#[tool]` makes these; `tools![a, b]` collects them. [`ToolBuilder`] makes
/// them by hand, for tools whose shape is only known at run time.
#[derive(Clone)]
pub struct Tool {
    pub(crate) name: String,
    pub(crate) def: Arc<Definition>,
    pub(crate) handler: Handler,
}

/// Whether a call of a tool runs as a task of the Tasks extension
/// (`io.modelcontextprotocol/tasks`, 2026-07-28): answered at once with a
/// task the client polls, the tool running on after the request is over.
/// `#[tool(task = "optional" | "required")]` sets it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TaskSupport {
    /// Never a task: every call is answered on its request (the default).
    #[default]
    Never,
    /// A task when the request declares the extension, else a plain call.
    Optional,
    /// Only as a task: a 2026-07-28 request that does not declare the
    /// extension is refused with `-32021`, naming it. (A legacy session has
    /// no extensions; there it is a plain call.)
    Required,
}

/// Everything about a tool but its name.
pub(crate) struct Definition {
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    input_schema: Schema,
    output_schema: Option<Schema>,
    annotations: Annotations,
    icons: Vec<Icon>,
    meta: Map<String, Value>,
    pub(crate) timeout: Option<Duration>,
    /// The OAuth scopes a caller needs (HTTP with authorization).
    pub(crate) scopes: Vec<String>,
    pub(crate) states: Vec<StateRequirement>,
    /// Whether a call is first polled on the connection's loop (see
    /// [`ToolBuilder::runs_inline`]).
    pub(crate) first_poll_inline: bool,
    /// Whether a 2026-07-28 `requestState` may be used more than once (see
    /// [`ToolBuilder::replayable_input`]).
    pub(crate) replayable_input: bool,
    /// Whether a call runs as a task (see [`ToolBuilder::task`]).
    pub(crate) task: TaskSupport,
    /// Whether a task whose worker is gone is run again from the start
    /// (see [`ToolBuilder::resumable`]).
    pub(crate) resumable: bool,
    /// Whether the handler says where its task begins (see
    /// [`ToolBuilder::task_begins_in_body`]).
    pub(crate) task_begins_in_body: bool,
    /// Set when this is a prompt's body (`crate::prompt`): its outcome is a
    /// `GetPromptResult` or a JSON-RPC error, not a `CallToolResult`, and
    /// its answers' frames are made once, here.
    pub(crate) prompt: Option<crate::protocol::outgoing::AnswerTemplates>,
    /// Header-mirrored integer arguments and their bounds, from the inputSchema.
    header_bounds: OnceLock<Vec<HeaderBound>>,
    /// Every header-mirrored argument (`x-mcp-header`), read once from the
    /// inputSchema the macro generated, for the HTTP `Mcp-Param-*` checks
    /// and the bounds of mirrored integers.
    header_params: OnceLock<HeaderParams>,
    /// The schemas as JSON text, serialized once and shared by every
    /// revision and every copy of the tool: the inputSchema, then the
    /// outputSchema as is and wrapped as `{"result": …}`.
    schemas_json: [OnceLock<Option<Box<RawValue>>>; 3],
    /// The outputSchema's root, read once: `(is an object, is a oneOf/anyOf
    /// composition)`, which decide the `{"result": …}` wrapping per call.
    output_root: OnceLock<Option<(bool, bool)>>,
}

/// A schema given as a value, or generated on first use (startup then costs
/// nothing per tool, and a tool registered under many names generates once).
enum Schema {
    Ready(Value),
    Deferred(OnceLock<Value>, fn() -> Value),
}

impl Schema {
    fn get(&self) -> &Value {
        match self {
            Schema::Ready(value) => value,
            Schema::Deferred(cell, make) => cell.get_or_init(*make),
        }
    }

    /// The schema if it was given as a value (deferred ones are generated by
    /// `#[tool]`, whose schemas are valid by construction).
    fn given(&self) -> Option<&Value> {
        match self {
            Schema::Ready(value) => Some(value),
            Schema::Deferred(..) => None,
        }
    }
}

/// An integer argument mirrored into a header, with the range it must stay in.
#[derive(Clone, Debug, PartialEq)]
struct HeaderBound {
    param: HeaderParam,
    minimum: f64,
    maximum: f64,
}

impl HeaderBound {
    /// The mirrored integers of `params` whose property in `schema` gives
    /// both bounds.
    fn of(params: &[HeaderParam], schema: &Value) -> Vec<HeaderBound> {
        params
            .iter()
            .filter(|param| param.kind == HeaderKind::Integer)
            .filter_map(|param| {
                let mut property = schema;
                for key in &param.path {
                    property = property.get("properties")?.get(key)?;
                }
                Some(HeaderBound {
                    param: param.clone(),
                    minimum: property.get("minimum")?.as_f64()?,
                    maximum: property.get("maximum")?.as_f64()?,
                })
            })
            .collect()
    }
}

impl fmt::Debug for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tool")
            .field("name", &self.name)
            .field("title", &self.def.title)
            .field("description", &self.def.description)
            .finish_non_exhaustive()
    }
}

impl Tool {
    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What it is called in the messages of the shared run path (timed
    /// out, failed): a prompt's body is run as a tool but is no tool to
    /// the client that asked for it.
    pub(crate) fn noun(&self) -> &'static str {
        if self.def.prompt.is_some() {
            "prompt"
        } else {
            "tool"
        }
    }

    /// The name a 2026-07-28 `requestState` of its calls is sealed for: a
    /// prompt's apart from a tool's of the same name, so that answers
    /// given to one are never taken by the other.
    pub(crate) fn sealed_name(&self) -> Cow<'_, str> {
        if self.def.prompt.is_some() {
            Cow::Owned(format!(
                "{} {}",
                crate::protocol::model::method::PROMPTS_GET,
                self.name
            ))
        } else {
            Cow::Borrowed(&self.name)
        }
    }

    /// The same tool under another name (say, to register copies of it).
    pub fn renamed(mut self, name: impl Into<String>) -> Tool {
        self.name = name.into();
        self
    }

    /// The OAuth scopes a caller's token must grant to call this tool over
    /// HTTP with authorization (see [`ToolBuilder::scopes`]).
    pub fn scopes(&self) -> &[String] {
        &self.def.scopes
    }

    /// The tool's MCP Apps `_meta.ui` (see [`ToolBuilder::ui`]), if it has
    /// one. Registration refuses a tool whose `_meta.ui` does not parse,
    /// so a registered tool's parses.
    pub fn ui(&self) -> Option<ToolUi> {
        ToolUi::of_tool_meta(&self.def.meta).ok().flatten()
    }

    /// Whether a host lists the tool to its model: not when its `_meta.ui`
    /// makes it visible to the app only.
    pub(crate) fn visible_to_model(&self) -> bool {
        self.ui().is_none_or(|ui| ui.visible_to(Visibility::Model))
    }

    /// The advertised inputSchema.
    pub fn input_schema(&self) -> &Value {
        self.def.input_schema.get()
    }

    /// The advertised outputSchema as a 2026-07-28 session sees it, if any.
    pub fn output_schema(&self) -> Option<&Value> {
        self.def.output_schema.as_ref().map(Schema::get)
    }

    /// The inputSchema if it was given by hand (checked at registration).
    pub(crate) fn given_input_schema(&self) -> Option<&Value> {
        self.def.input_schema.given()
    }

    /// Whether results are wrapped as `{"result": …}` for this session:
    /// revisions that need an object root get other roots wrapped, and no
    /// session gets a bare `oneOf`/`anyOf` at the top of an outputSchema.
    pub(crate) fn wraps_output(&self, version: ProtocolVersion) -> bool {
        let root = self.def.output_root.get_or_init(|| {
            self.output_schema().map(|schema| {
                (
                    schema.get("type").and_then(Value::as_str) == Some("object"),
                    crate::schema::has_root_composition(schema),
                )
            })
        });
        let Some((object_root, composition)) = *root else {
            return false;
        };
        let carries = version.carries();
        carries.structured_output && (composition || (carries.object_output_root && !object_root))
    }

    /// What the definition is made from, for a session of `version`, with
    /// the schemas as given by `schemas(input, output, wrapped)`.
    fn fields<'a, S>(
        &'a self,
        version: ProtocolVersion,
        schemas: impl FnOnce(&'a Tool, bool) -> (S, Option<S>),
    ) -> ToolFields<'a, S> {
        let def = &self.def;
        let (input_schema, output_schema) = schemas(self, self.wraps_output(version));
        ToolFields {
            name: &self.name,
            title: def.title.as_deref(),
            description: def.description.as_deref(),
            input_schema,
            output_schema,
            annotations: &def.annotations,
            icons: &def.icons,
            meta: &def.meta,
        }
    }

    /// The tool's definition as a session of `version` sees it.
    pub(crate) fn definition(&self, version: ProtocolVersion) -> Value {
        let fields = self.fields(version, |tool, wrap| {
            let output = tool.output_schema().map(|schema| {
                if wrap {
                    Cow::Owned(crate::schema::wrap_in_result(schema))
                } else {
                    Cow::Borrowed(schema)
                }
            });
            (Cow::Borrowed(tool.input_schema()), output)
        });
        // Plain data with string keys: it always converts.
        serde_json::to_value(ToolDefinition::new(fields, version)).unwrap_or_default()
    }

    /// [`Tool::definition`] as JSON text, for the registry's cached pages;
    /// the schemas in it are serialized once per tool definition.
    pub(crate) fn definition_json(&self, version: ProtocolVersion) -> Box<RawValue> {
        let fields = self.fields(version, |tool, wrap| {
            let input = tool.schema_json(0, || Some(tool.input_schema().clone()));
            let output = tool.schema_json(if wrap { 2 } else { 1 }, || {
                let schema = tool.output_schema()?;
                Some(if wrap {
                    crate::schema::wrap_in_result(schema)
                } else {
                    schema.clone()
                })
            });
            // The inputSchema is always there.
            (
                input.unwrap_or_else(|| unreachable!("an inputSchema serializes")),
                output,
            )
        });
        serde_json::value::to_raw_value(&ToolDefinition::new(fields, version))
            .unwrap_or_else(|_| unreachable!("a tool definition is plain data with string keys"))
    }

    /// Schema `slot` of [`Definition::schemas_json`], made by `make` once.
    fn schema_json(&self, slot: usize, make: impl FnOnce() -> Option<Value>) -> Option<&RawValue> {
        self.def.schemas_json[slot]
            .get_or_init(|| make().and_then(|schema| serde_json::value::to_raw_value(&schema).ok()))
            .as_deref()
    }

    /// The arguments mirrored into `Mcp-Param-*` headers (read from the
    /// inputSchema once per tool definition).
    pub(crate) fn header_params(&self) -> &[HeaderParam] {
        self.def
            .header_params
            .get_or_init(|| {
                self.input_schema()
                    .as_object()
                    .map(HeaderParams::read)
                    .unwrap_or_default()
            })
            .params()
    }

    pub(crate) fn call(&self, call: ToolCall) -> BoxFuture<ToolOutcome> {
        if let Some(refusal) = self.out_of_header_range(&call.arguments) {
            return Box::pin(async move { refusal });
        }
        (self.handler)(call)
    }

    /// Header-mirrored integers must stay within their advertised bounds
    /// (±(2^53−1) for wide types): beyond, clients render them inexactly.
    fn out_of_header_range(&self, arguments: &call::Arguments) -> Option<ToolOutcome> {
        let bounds = self
            .def
            .header_bounds
            .get_or_init(|| HeaderBound::of(self.header_params(), self.input_schema()));
        if bounds.is_empty() {
            return None;
        }
        let arguments = match arguments.object() {
            Ok(arguments) => arguments?,
            Err(err) => {
                return Some(ToolOutcome::Error(format!(
                    "Invalid arguments for tool '{}': {}.",
                    self.name,
                    crate::protocol::read::without_position(&err)
                )));
            }
        };
        bounds.iter().find_map(|bound| {
            let value = bound.param.value(&arguments)?;
            let number = value.as_f64()?;
            (number < bound.minimum || number > bound.maximum).then(|| {
                ToolOutcome::Error(format!(
                    "Invalid arguments for tool '{}': `{}`: {value} is out of range; it must be between {} and {}.",
                    self.name,
                    bound.param.path.join("."),
                    bound.minimum,
                    bound.maximum
                ))
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::http::HeaderKind;
    use serde_json::json;

    #[test]
    fn header_params_come_from_the_input_schema_once() {
        let tool = ToolBuilder::new("t", |_| Box::pin(async { ToolOutcome::text("") }))
            .input_schema(json!({"type": "object", "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "shard": {"type": ["integer", "null"], "x-mcp-header": "Shard"},
                "plain": {"type": "string"}
            }}))
            .build();
        let params = tool.header_params();
        assert_eq!(params.len(), 2);
        assert_eq!(
            params[0],
            HeaderParam {
                path: vec!["region".into()],
                name: "Region".into(),
                kind: HeaderKind::String
            }
        );
        assert_eq!(params[1].kind, HeaderKind::Integer);
    }

    #[test]
    fn the_bounds_of_mirrored_integers_come_from_their_properties() {
        let schema = json!({"type": "object", "properties": {
            "tenant": {"type": "integer", "x-mcp-header": "Tenant", "minimum": 0, "maximum": 9},
            "unbounded": {"type": "integer", "x-mcp-header": "Free"},
            "region": {"type": "string", "x-mcp-header": "Region"},
            "opts": {"type": "object", "properties": {
                "shard": {"type": "integer", "x-mcp-header": "Shard", "minimum": -1, "maximum": 1}
            }},
            "plain": {"type": "integer", "minimum": 0, "maximum": 1}
        }});
        let read = HeaderParams::read(schema.as_object().unwrap());
        let bounds: Vec<_> = HeaderBound::of(read.params(), &schema)
            .into_iter()
            .map(|b| (b.param.path.join("."), b.minimum, b.maximum))
            .collect();
        assert_eq!(
            bounds,
            [
                ("opts.shard".to_owned(), -1.0, 1.0),
                ("tenant".to_owned(), 0.0, 9.0)
            ]
        );
    }

    #[test]
    fn the_cached_definition_text_and_the_value_agree_in_every_revision() {
        let tool = ToolBuilder::new("t", |_| Box::pin(async { ToolOutcome::text("") }))
            .title("T")
            .output_schema(json!({"type": "number"}))
            .build();
        for version in ProtocolVersion::ALL {
            let text = tool.definition_json(version);
            let parsed: Value = serde_json::from_str(text.get()).unwrap();
            assert_eq!(parsed, tool.definition(version), "{version}");
            // A second rendering reuses the cached schemas and is the same.
            assert_eq!(tool.definition_json(version).get(), text.get());
        }
        let wrapped: Value =
            serde_json::from_str(tool.definition_json(ProtocolVersion::V2025_06_18).get()).unwrap();
        assert_eq!(
            wrapped["outputSchema"]["properties"]["result"]["type"],
            "number"
        );
        let modern: Value =
            serde_json::from_str(tool.definition_json(ProtocolVersion::LATEST).get()).unwrap();
        assert_eq!(modern["outputSchema"], json!({"type": "number"}));
    }
}
