//! The representative tools the fuzzed server serves: typed arguments,
//! progress, elicitation, panics, a toggled tool list, and plain ones.

use super::{INTENDED_PANIC, IntendedPanic};
use mcpfn_runtime::{
    Content, ElicitRequest, Level, Tool, ToolBuilder, ToolCall, ToolOutcome, tool, tools,
};
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

/// Arguments of `typed`: required, optional, nested and tagged-enum fields.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TypedArgs {
    name: String,
    count: Option<u32>,
    nested: Option<Nested>,
    mode: Mode,
    tags: Option<Vec<String>>,
    extra: Option<HashMap<String, i64>>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Nested {
    depth: u8,
    label: Option<String>,
    child: Option<Box<Nested>>,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub(crate) enum Mode {
    Fast,
    Slow { ms: u64 },
    Blocks { times: u8 },
}

pub(crate) fn typed_tool() -> Tool {
    ToolBuilder::new("typed", |call: ToolCall| {
        Box::pin(async move {
            let args: TypedArgs = match call.arguments() {
                Ok(args) => args,
                Err(invalid) => return invalid,
            };
            let mut depth = 0u32;
            let mut node = args.nested.as_ref();
            while let Some(n) = node {
                depth += 1;
                node = n.child.as_deref();
            }
            match args.mode {
                Mode::Fast => {}
                Mode::Slow { ms } => tokio::time::sleep(Duration::from_millis(ms.min(10_000))).await,
                Mode::Blocks { times } => {
                    let mut blocks = Vec::new();
                    for i in 0..times.min(8) {
                        blocks.push(match i % 6 {
                            0 => Content::text(args.name.clone()),
                            1 => Content::image(b"hello", "image/png").priority(0.5),
                            2 => Content::audio_base64("aGVsbG8=", "audio/wav"),
                            3 => Content::resource_link(format!("file:///{}", args.name), args.name.clone())
                                .link_details(Some("title"), None, Some(u64::from(i))),
                            4 => Content::embedded_text("mem://x", args.name.clone()).mime_type("text/plain"),
                            _ => Content::embedded_blob("mem://y", b"hello"),
                        });
                    }
                    return ToolOutcome::Content(blocks);
                }
            }
            let label = args.nested.as_ref().and_then(|n| n.label.clone());
            let top = args.nested.as_ref().map(|n| n.depth);
            let extra: BTreeMap<_, _> = args.extra.unwrap_or_default().into_iter().collect();
            let value = json!({
                "name": args.name,
                "count": args.count,
                "depth": depth,
                "top": top,
                "label": label,
                "tags": args.tags.unwrap_or_default().len(),
                "extra": extra,
            });
            ToolOutcome::Structured(value.to_string())
        })
    })
    .description("Typed arguments: Option, nested structs and a tagged enum.")
    .input_schema(json!({
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "count": {"type": ["integer", "null"], "minimum": 0},
            "nested": {"$ref": "#/$defs/Nested"},
            "mode": {"oneOf": [
                {"type": "object", "properties": {"kind": {"const": "fast"}}, "required": ["kind"]},
                {"type": "object", "properties": {"kind": {"const": "slow"}, "ms": {"type": "integer"}}, "required": ["kind", "ms"]},
                {"type": "object", "properties": {"kind": {"const": "blocks"}, "times": {"type": "integer"}}, "required": ["kind", "times"]}
            ]},
            "tags": {"type": "array", "items": {"type": "string"}},
            "extra": {"type": "object", "additionalProperties": {"type": "integer"}}
        },
        "required": ["name", "mode"],
        "additionalProperties": false,
        "$defs": {"Nested": {"type": "object", "properties": {
            "depth": {"type": "integer"}, "label": {"type": "string"}, "child": {"$ref": "#/$defs/Nested"}
        }, "required": ["depth"]}}
    }))
    .output_schema(json!({"type": "object"}))
    .title("Typed")
    .read_only_hint(true)
    .runs_inline(true)
    .build()
}

#[derive(Debug, Deserialize)]
pub(crate) struct ProgressArgs {
    #[serde(default)]
    steps: u8,
    #[serde(default)]
    ms: u64,
    #[serde(default)]
    total: Option<f64>,
}

/// Reports progress and logs at every level, sleeping between steps; has a
/// timeout of its own.
pub(crate) fn progress_tool() -> Tool {
    ToolBuilder::new("progress", |call: ToolCall| {
        Box::pin(async move {
            let args: ProgressArgs = match call.arguments() {
                Ok(args) => args,
                Err(invalid) => return invalid,
            };
            let ctx = call.context().clone();
            for step in 1..=args.steps.min(20) {
                if let Err(err) = ctx.progress(f64::from(step), args.total, Some("working")) {
                    return ToolOutcome::error(err.to_string());
                }
                let _ = ctx.progress(f64::from(step) - 0.5, None, None); // not increasing: skipped
                let _ = ctx.progress(f64::NAN, None, None); // not finite: skipped
                let level = Level::ALL[usize::from(step) % Level::ALL.len()];
                ctx.log(level, json!({"step": step, "of": args.steps}));
                ctx.log(Level::Emergency, format!("step {step}"));
                tokio::time::sleep(Duration::from_millis(args.ms.min(10_000))).await;
                if ctx.is_cancelled() {
                    return ToolOutcome::error("cancelled");
                }
            }
            let _ = (
                ctx.request_id(),
                ctx.tool_name(),
                ctx.protocol_version(),
                ctx.client_info(),
                ctx.meta(),
            );
            ToolOutcome::text(format!("{} steps", args.steps))
        })
    })
    .description("Progress and log notifications.")
    .input_schema(json!({"type": "object", "properties": {
        "steps": {"type": "integer"}, "ms": {"type": "integer"}, "total": {"type": "number"}
    }}))
    .timeout(Duration::from_millis(1500))
    .build()
}

#[derive(Debug, Deserialize)]
pub(crate) struct AskArgs {
    #[serde(default)]
    twice: bool,
}

/// Elicits a form (in both eras), twice on request.
pub(crate) fn ask_tool() -> Tool {
    ToolBuilder::new("ask", |call: ToolCall| {
        Box::pin(async move {
            let args: AskArgs = match call.arguments() {
                Ok(args) => args,
                Err(invalid) => return invalid,
            };
            let ctx = call.context().clone();
            let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]});
            let first = match ctx.elicit("name", ElicitRequest::form("Your name?", schema.clone())).await {
                Ok(answer) => answer,
                Err(err) => return ToolOutcome::error(err.to_string()),
            };
            let mut text = format!("{:?}", first.action);
            if let Ok(content) = first.content_as::<HashMap<String, Value>>() {
                text.push_str(&format!(" {} fields", content.len()));
            }
            if args.twice {
                match ctx.elicit("again", ElicitRequest::form("Again?", schema)).await {
                    Ok(answer) => text.push_str(&format!(" then {:?}", answer.action)),
                    Err(err) => return ToolOutcome::error(err.to_string()),
                }
            }
            ToolOutcome::text(text)
        })
    })
    .description("Asks the user for their name.")
    .input_schema(json!({"type": "object", "properties": {"twice": {"type": "boolean"}}}))
    .build()
}

#[derive(Debug, Deserialize)]
pub(crate) struct BoomArgs {
    #[serde(default)]
    how: u8,
}

/// Panics on purpose, in each of the ways a tool can.
pub(crate) fn boom_tool() -> Tool {
    ToolBuilder::new("boom", |call: ToolCall| {
        let how = call.arguments::<BoomArgs>().map(|a| a.how).unwrap_or(0);
        if how == 0 {
            // In the handler itself, before any future exists.
            panic!("{INTENDED_PANIC}: in the handler");
        }
        Box::pin(async move {
            tokio::time::sleep(Duration::from_millis(u64::from(how))).await;
            match how % 3 {
                0 => std::panic::panic_any(IntendedPanic),
                1 => panic!("{INTENDED_PANIC}: after {how} ms"),
                _ => std::panic::panic_any(format!("{INTENDED_PANIC}: a String payload")),
            }
        })
    })
    .description("Panics.")
    .input_schema(json!({"type": "object", "properties": {"how": {"type": "integer"}}}))
    .destructive_hint(false)
    .runs_inline(true)
    .build()
}

#[derive(Debug, Deserialize)]
pub(crate) struct ToggleArgs {
    op: String,
    name: String,
}

/// Changes the live tool set (list-changed notifications, registry rebuilds).
pub(crate) fn toggle_tool() -> Tool {
    ToolBuilder::new("toggle", |call: ToolCall| {
        Box::pin(async move {
            let args: ToggleArgs = match call.arguments() {
                Ok(args) => args,
                Err(invalid) => return invalid,
            };
            let tools = call.context().tools();
            let done = match args.op.as_str() {
                "disable" => tools.disable(&args.name),
                "enable" => tools.enable(&args.name),
                "remove" => tools.remove(&args.name),
                "add" => {
                    let simple = ToolBuilder::new(args.name.clone(), |_| Box::pin(async { ToolOutcome::text("added") }));
                    match tools.add(simple.build()) {
                        Ok(()) => true,
                        Err(err) => return ToolOutcome::error(err.to_string()),
                    }
                }
                other => return ToolOutcome::error(format!("unknown op {other}")),
            };
            ToolOutcome::text(format!("{} {}: {done}", args.op, args.name))
        })
    })
    .description("Changes the tool set.")
    .input_schema(json!({"type": "object", "properties": {"op": {"type": "string"}, "name": {"type": "string"}}, "required": ["op", "name"]}))
    .build()
}

/// Units for `add`.
#[derive(
    Debug,
    Clone,
    Copy,
    mcpfn_runtime::Deserialize,
    mcpfn_runtime::Serialize,
    mcpfn_runtime::JsonSchema,
)]
#[serde(crate = "mcpfn_runtime::serde", rename_all = "lowercase")]
#[schemars(crate = "mcpfn_runtime::schemars")]
pub enum Unit {
    /// Metres
    Metre,
    /// Feet
    Foot,
}

/// The result of `add`.
#[derive(Debug, mcpfn_runtime::Serialize, mcpfn_runtime::JsonSchema)]
#[serde(crate = "mcpfn_runtime::serde")]
#[schemars(crate = "mcpfn_runtime::schemars")]
pub struct Sum {
    /// a + b
    pub sum: f64,
    /// The unit, if one was given
    pub unit: Option<Unit>,
}

/// Add two numbers (a `#[tool]`, so the macro's generated code is fuzzed too).
#[tool(read_only, idempotent)]
pub async fn add(
    /// First addend
    a: f64,
    /// Second addend; 0 when absent
    b: Option<f64>,
    /// Unit of both
    unit: Option<Unit>,
) -> Sum {
    Sum {
        sum: a + b.unwrap_or(0.0),
        unit,
    }
}

/// Split text into words: a non-object result, wrapped for older sessions.
#[tool]
pub fn split_words(
    /// Text to split
    text: String,
) -> Vec<String> {
    text.split_whitespace().map(str::to_owned).collect()
}

/// Every tool the fuzzed server registers.
pub fn fuzz_tools() -> Vec<Tool> {
    let mut all = tools![add, split_words];
    all.extend([
        typed_tool(),
        progress_tool(),
        ask_tool(),
        boom_tool(),
        toggle_tool(),
    ]);
    all
}
