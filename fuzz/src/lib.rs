//! The harness shared by the fuzz targets: a server with representative
//! tools, a paced in-memory client, and the invariants every session must
//! keep. `examples/replay.rs` runs the same harness on a file, outside
//! libFuzzer, to read what the server answered.

pub mod generate;

use mcpfn_runtime::{
    Content, ElicitRequest, Level, Server, Tool, ToolBuilder, ToolCall, ToolOutcome, tool, tools,
};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Once};
use std::task::{Context as TaskContext, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The server's message cap: small, so the oversized path is easy to reach.
pub const MAX_MESSAGE_SIZE: usize = 4096;
/// The most bytes one read hands the server: lines longer than this arrive
/// in several reads, so the framer assembles them across buffer refills.
pub const READ_CHUNK: usize = 1531;
/// Virtual time between a line and the next.
pub const LINE_GAP: Duration = Duration::from_millis(1);
/// Virtual time after a blank line: blank lines are the fuzzer's way to let
/// sleeping tools, timeouts and elicitations progress before the next line.
pub const BLANK_LINE_GAP: Duration = Duration::from_millis(50);
/// A fixed key, so sealed `requestState` values in the seed corpus stay valid.
pub const REQUEST_STATE_KEY: [u8; 32] = *b"mcp-runtime fuzz request key 32b";

/// The payload prefix of panics the `boom` tool raises on purpose.
pub const INTENDED_PANIC: &str = "fuzz: intended panic";

/// A non-string panic payload raised on purpose.
#[derive(Debug)]
pub struct IntendedPanic;

/// Lets the panics the `boom` tool raises on purpose through silently (the
/// runtime catches them); any other panic is a finding: print it and abort,
/// as libFuzzer's own hook does, so the input is saved as a crash.
pub fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let payload = info.payload();
            let intended = payload.is::<IntendedPanic>()
                || payload
                    .downcast_ref::<&str>()
                    .is_some_and(|s| s.starts_with(INTENDED_PANIC))
                || payload
                    .downcast_ref::<String>()
                    .is_some_and(|s| s.starts_with(INTENDED_PANIC));
            if intended {
                return;
            }
            previous(info);
            std::process::abort();
        }));
    });
}

// ---------------------------------------------------------------------------
// Tools
// ---------------------------------------------------------------------------

/// Arguments of `typed`: required, optional, nested and tagged-enum fields.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TypedArgs {
    name: String,
    count: Option<u32>,
    nested: Option<Nested>,
    mode: Mode,
    tags: Option<Vec<String>>,
    extra: Option<HashMap<String, i64>>,
}

#[derive(Debug, Deserialize)]
struct Nested {
    depth: u8,
    label: Option<String>,
    child: Option<Box<Nested>>,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
enum Mode {
    Fast,
    Slow { ms: u64 },
    Blocks { times: u8 },
}

fn typed_tool() -> Tool {
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
struct ProgressArgs {
    #[serde(default)]
    steps: u8,
    #[serde(default)]
    ms: u64,
    #[serde(default)]
    total: Option<f64>,
}

/// Reports progress and logs at every level, sleeping between steps; has a
/// timeout of its own.
fn progress_tool() -> Tool {
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
struct AskArgs {
    #[serde(default)]
    twice: bool,
}

/// Elicits a form (in both eras), twice on request.
fn ask_tool() -> Tool {
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
struct BoomArgs {
    #[serde(default)]
    how: u8,
}

/// Panics on purpose, in each of the ways a tool can.
fn boom_tool() -> Tool {
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
struct ToggleArgs {
    op: String,
    name: String,
}

/// Changes the live tool set (list-changed notifications, registry rebuilds).
fn toggle_tool() -> Tool {
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
    Debug, Clone, Copy, mcpfn_runtime::Deserialize, mcpfn_runtime::Serialize, mcpfn_runtime::JsonSchema,
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

/// The fuzzed server: small limits, so every refusal path is reachable.
pub fn fuzz_server() -> Server {
    Server::new("fuzz", "0.0.0")
        .title("Fuzz target")
        .instructions("Tools for fuzzing.")
        .tools(fuzz_tools())
        .max_message_size(MAX_MESSAGE_SIZE)
        .page_size(3)
        .max_concurrent_calls(2)
        .max_pending_calls(6)
        .rate_limit(1, 24)
        .drain_timeout(Duration::from_secs(5))
        .request_state_key(REQUEST_STATE_KEY)
        .input_request_ttl(Duration::from_secs(100 * 365 * 24 * 3600))
        .stdout_guard(false)
}

// ---------------------------------------------------------------------------
// Transport
// ---------------------------------------------------------------------------

/// The client's side of the session: hands the input over at most one line
/// (and at most [`READ_CHUNK`] bytes) per read, and waits [`LINE_GAP`] of
/// virtual time after each newline ([`BLANK_LINE_GAP`] after a blank line), so
/// tool tasks run between lines as they would with a real client.
pub struct PacedReader<'a> {
    data: &'a [u8],
    pos: usize,
    line_start: usize,
    gap: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl<'a> PacedReader<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        PacedReader {
            data,
            pos: 0,
            line_start: 0,
            gap: None,
        }
    }
}

impl AsyncRead for PacedReader<'_> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if let Some(gap) = self.gap.as_mut() {
            if gap.as_mut().poll(cx).is_pending() {
                return Poll::Pending;
            }
            self.gap = None;
        }
        let rest = &self.data[self.pos..];
        let mut n = rest.len().min(READ_CHUNK).min(buf.remaining());
        let newline = rest[..n].iter().position(|&b| b == b'\n');
        if let Some(at) = newline {
            n = at + 1;
        }
        buf.put_slice(&rest[..n]);
        self.pos += n;
        if newline.is_some() {
            let line = &self.data[self.line_start..self.pos];
            let blank = line.iter().all(u8::is_ascii_whitespace);
            let gap = if blank { BLANK_LINE_GAP } else { LINE_GAP };
            self.gap = Some(Box::pin(tokio::time::sleep(gap)));
            self.line_start = self.pos;
        }
        Poll::Ready(Ok(()))
    }
}

/// Collects what the server writes; notes writes after shutdown. Like a
/// pipe, it does not always take everything: every third write takes at most
/// 7 bytes and every fourth is refused for now (`Pending`, woken at once), so
/// the server's partial-write and retry paths run.
#[derive(Clone, Default)]
pub struct Capture {
    bytes: Arc<Mutex<Vec<u8>>>,
    shut: Arc<AtomicBool>,
    written_after_shutdown: Arc<AtomicBool>,
    writes: Arc<std::sync::atomic::AtomicUsize>,
}

impl Capture {
    pub fn bytes(&self) -> Vec<u8> {
        self.bytes.lock().unwrap().clone()
    }
}

impl Capture {
    /// How much of `len` offered bytes this write takes; `None`: not now.
    fn accept(&self, cx: &mut TaskContext<'_>, len: usize) -> Option<usize> {
        if self.shut.load(Ordering::SeqCst) {
            self.written_after_shutdown.store(true, Ordering::SeqCst);
        }
        let n = self.writes.fetch_add(1, Ordering::SeqCst);
        if n % 4 == 3 {
            cx.waker().wake_by_ref();
            return None;
        }
        Some(if n.is_multiple_of(3) { len.min(7) } else { len })
    }
}

impl AsyncWrite for Capture {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let Some(take) = self.accept(cx, buf.len()) else {
            return Poll::Pending;
        };
        self.bytes.lock().unwrap().extend_from_slice(&buf[..take]);
        Poll::Ready(Ok(take))
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let total = bufs.iter().map(|b| b.len()).sum();
        let Some(mut take) = self.accept(cx, total) else {
            return Poll::Pending;
        };
        let written = take;
        let mut bytes = self.bytes.lock().unwrap();
        for buf in bufs {
            let part = take.min(buf.len());
            bytes.extend_from_slice(&buf[..part]);
            take -= part;
        }
        Poll::Ready(Ok(written))
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut TaskContext<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut TaskContext<'_>) -> Poll<io::Result<()>> {
        self.shut.store(true, Ordering::SeqCst);
        Poll::Ready(Ok(()))
    }
}

/// What one session produced.
pub struct Session {
    pub result: io::Result<()>,
    pub output: Vec<u8>,
    pub shut_down: bool,
    pub written_after_shutdown: bool,
}

/// Serves `input` as a whole stdio session on a current-thread runtime with a
/// paused clock (sleeps and timeouts take no real time).
pub fn run_session(input: &[u8]) -> Session {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .expect("a current-thread runtime");
    let capture = Capture::default();
    let result = runtime.block_on(fuzz_server().serve(PacedReader::new(input), capture.clone()));
    drop(runtime);
    Session {
        result,
        output: capture.bytes(),
        shut_down: capture.shut.load(Ordering::SeqCst),
        written_after_shutdown: capture.written_after_shutdown.load(Ordering::SeqCst),
    }
}

// ---------------------------------------------------------------------------
// Invariants
// ---------------------------------------------------------------------------

/// The lines the server reads from `input`, as its framer splits them:
/// newline-separated, a trailing `\r` dropped, blank lines skipped, lines over
/// [`MAX_MESSAGE_SIZE`] (measured before dropping `\r`) marked oversized.
pub fn input_lines(input: &[u8]) -> Vec<(&[u8], bool)> {
    let mut lines = Vec::new();
    for raw in input.split(|&b| b == b'\n') {
        let oversized = raw.len() > MAX_MESSAGE_SIZE;
        let line = raw.strip_suffix(b"\r").unwrap_or(raw);
        if !oversized && line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        lines.push((line, oversized));
    }
    lines
}

/// Absent vs `null`, as the runtime's decoder reads fields.
#[derive(Default)]
struct Present<'a>(Option<&'a RawValue>);

impl<'de: 'a, 'a> Deserialize<'de> for Present<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        <&'a RawValue>::deserialize(deserializer).map(|raw| Present(Some(raw)))
    }
}

/// The runtime's envelope (mcp-protocol/src/incoming.rs), mirrored so
/// the checks classify lines exactly as the decoder does.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(default, borrow)]
    jsonrpc: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    id: Present<'a>,
    #[serde(default, borrow)]
    method: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    params: Present<'a>,
    // Unread, but part of the shape: a duplicate of either fails the parse.
    #[serde(default, borrow)]
    #[allow(dead_code)]
    result: Present<'a>,
    #[serde(default, borrow)]
    #[allow(dead_code)]
    error: Present<'a>,
}

#[derive(Deserialize)]
struct IdOnly<'a> {
    #[serde(borrow)]
    id: &'a RawValue,
}

/// Every top-level `id` member of `line` read before its first syntax
/// error, canonical.
fn top_level_ids(line: &[u8]) -> Vec<String> {
    struct Ids<'c>(&'c std::cell::RefCell<Vec<String>>);
    impl<'de> serde::de::Visitor<'de> for Ids<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                if key == "id" {
                    let id: &'de RawValue = map.next_value()?;
                    self.0.borrow_mut().push(canonical(id.get()));
                } else {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
            Ok(())
        }
    }
    let found = std::cell::RefCell::new(Vec::new());
    let mut reader = serde_json::Deserializer::from_slice(line);
    let _ = serde::Deserializer::deserialize_map(&mut reader, Ids(&found));
    found.into_inner()
}

#[derive(Deserialize)]
struct Cancelled<'a> {
    #[serde(rename = "requestId", borrow)]
    request_id: &'a RawValue,
}

/// The decoder's test for an id, made stricter: a string id must decode
/// (see README.md, "Findings": the decoder lets `"\\ud800"` through today).
fn is_valid_id(raw: &RawValue) -> bool {
    let text = raw.get();
    match text.as_bytes().first() {
        Some(b'"') => serde_json::from_str::<Cow<'_, str>>(text).is_ok(),
        Some(b'-' | b'0'..=b'9') => text.bytes().skip(1).all(|b| b.is_ascii_digit()),
        _ => false,
    }
}

/// The runtime's key for an id: its JSON text re-serialized (read leniently,
/// so an id is keyed alike in the input and in the output).
fn canonical(raw: &str) -> String {
    match parse_lenient(raw.as_bytes()) {
        Some((value, _)) => value.to_string(),
        None => raw.to_owned(),
    }
}

/// `text` with every `\uD800`–`\uDFFF` escape replaced by `\uFFFD`; `None`
/// when it has none.
fn without_surrogate_escapes(text: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len());
    let mut found = false;
    let mut i = 0;
    while i < text.len() {
        if text[i] == b'\\' && i + 1 < text.len() {
            let hex = text
                .get(i + 2..i + 6)
                .and_then(|h| std::str::from_utf8(h).ok());
            let unit = hex.and_then(|h| u16::from_str_radix(h, 16).ok());
            if text[i + 1] == b'u' && unit.is_some_and(|u| (0xD800..=0xDFFF).contains(&u)) {
                out.extend_from_slice(b"\\uFFFD");
                found = true;
                i += 6;
            } else {
                out.extend_from_slice(&text[i..i + 2]);
                i += 2;
            }
        } else {
            out.push(text[i]);
            i += 1;
        }
    }
    found.then_some(out)
}

/// Parses JSON; failing that, the same with surrogate escapes replaced
/// (`true`: the lenient reading was needed).
fn parse_lenient(text: &[u8]) -> Option<(Value, bool)> {
    if let Ok(value) = serde_json::from_slice(text) {
        return Some((value, false));
    }
    let replaced = without_surrogate_escapes(text)?;
    serde_json::from_slice(&replaced)
        .ok()
        .map(|value| (value, true))
}

/// What the input asks of the server, read generously (an id counts if any
/// reading of its line finds it) for the upper bound and strictly (as the
/// decoder reads it) for the lower bound.
#[derive(Default, Debug)]
pub struct Expectations {
    /// How many lines carry each id: no id may be answered more often.
    pub asked: HashMap<String, usize>,
    /// Requests the decoder accepts, each of which must be answered at least
    /// once unless some line cancels that id.
    pub must_answer: Vec<String>,
    /// Ids named by any `requestId` in the input.
    pub cancelled: HashSet<String>,
}

pub fn expectations(input: &[u8]) -> Expectations {
    let mut exp = Expectations::default();
    for (line, oversized) in input_lines(input) {
        let mut ids = HashSet::new();
        let value: Option<Value> = parse_lenient(line).map(|(value, _)| value);
        if let Some(id) = value.as_ref().and_then(|v| v.get("id")) {
            ids.insert(id.to_string());
        }
        if let Ok(only) = serde_json::from_slice::<IdOnly<'_>>(line) {
            ids.insert(canonical(only.id.get()));
        }
        // The server finds the id of a line it cannot decode (too long,
        // duplicate keys, a number out of range elsewhere) by scanning the
        // top level: every `id` member read before the line goes wrong.
        for id in top_level_ids(line) {
            ids.insert(id);
        }
        let envelope = serde_json::from_slice::<Envelope<'_>>(line).ok();
        if let Some(id) = envelope.as_ref().and_then(|e| e.id.0) {
            ids.insert(canonical(id.get()));
        }
        for id in ids {
            *exp.asked.entry(id).or_default() += 1;
        }
        // Cancellations, however the line is read.
        if let Some(id) = value
            .as_ref()
            .and_then(|v| v.get("params"))
            .and_then(|p| p.get("requestId"))
        {
            exp.cancelled.insert(id.to_string());
        }
        if let Some(params) = envelope.as_ref().and_then(|e| e.params.0)
            && let Ok(c) = serde_json::from_str::<Cancelled<'_>>(params.get())
        {
            exp.cancelled.insert(canonical(c.request_id.get()));
        }
        // A request the decoder accepts.
        let Some(envelope) = envelope else { continue };
        let params_ok = envelope
            .params
            .0
            .is_none_or(|p| matches!(p.get().as_bytes().first(), Some(b'{' | b'[' | b'n')));
        if !oversized
            && envelope.jsonrpc.as_deref() == Some("2.0")
            && envelope.method.is_some()
            && params_ok
            && let Some(id) = envelope.id.0.filter(|id| is_valid_id(id))
        {
            exp.must_answer.push(canonical(id.get()));
        }
    }
    exp
}

/// Panics (so libFuzzer records the input) when the session broke a rule:
/// `serve` failed; an output line is not one JSON-RPC 2.0 object; a frame is
/// malformed for its kind; an id was answered more often than the input
/// carried it; or a request the decoder accepted was never answered and
/// never cancelled.
pub fn check(input: &[u8], session: &Session) {
    if let Err(err) = &session.result {
        panic!("serve failed: {err}");
    }
    assert!(session.shut_down, "the output was never shut down");
    assert!(
        !session.written_after_shutdown,
        "frames were written after the output was shut down"
    );
    let out = &session.output;
    assert!(
        out.is_empty() || out.ends_with(b"\n"),
        "the output does not end with a newline"
    );
    let exp = expectations(input);
    let mut answered: HashMap<String, usize> = HashMap::new();
    for line in out.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let text = String::from_utf8_lossy(line);
        // Strictly: a lone surrogate escape (an echoed `"\ud800"` id, as
        // before 653799b) is a finding, though the JSON grammar allows it.
        let frame: Value = match serde_json::from_slice(line) {
            Ok(v) => v,
            Err(err) => panic!("output line is not JSON ({err}): {text}"),
        };
        let Some(object) = frame.as_object() else {
            panic!("output line is not an object: {text}");
        };
        assert_eq!(
            object.get("jsonrpc"),
            Some(&json!("2.0")),
            "no \"jsonrpc\":\"2.0\": {text}"
        );
        let has = |key: &str| object.contains_key(key);
        if let Some(method) = object.get("method") {
            assert!(method.is_string(), "method is not a string: {text}");
            assert!(
                !has("result") && !has("error"),
                "a request or notification with a result: {text}"
            );
            if let Some(id) = object.get("id") {
                // A request of ours to the client.
                assert!(
                    id.as_str().is_some_and(|s| s.starts_with("mcp-server-")),
                    "a server request with a foreign id: {text}"
                );
                assert_eq!(
                    method, "elicitation/create",
                    "an unexpected server request: {text}"
                );
            }
            continue;
        }
        assert!(
            has("result") != has("error"),
            "a response needs exactly one of result and error: {text}"
        );
        if let Some(error) = object.get("error") {
            assert!(
                error.get("code").is_some_and(Value::is_i64),
                "error.code is not an integer: {text}"
            );
            assert!(
                error.get("message").is_some_and(Value::is_string),
                "error.message is not a string: {text}"
            );
        } else {
            assert!(
                object["result"].is_object(),
                "result is not an object: {text}"
            );
        }
        if let Some(id) = object.get("id") {
            assert!(
                id.is_string() || id.is_number(),
                "a response id that is neither string nor number: {text}"
            );
            *answered.entry(id.to_string()).or_default() += 1;
        }
    }
    for (id, &times) in &answered {
        let asked = exp.asked.get(id).copied().unwrap_or(0);
        assert!(
            times <= asked,
            "id {id} was answered {times} times but appears in {asked} input lines"
        );
    }
    for id in &exp.must_answer {
        if exp.cancelled.contains(id) {
            continue;
        }
        assert!(
            answered.contains_key(id),
            "request {id} was never answered (and never cancelled)"
        );
    }
}

/// Runs `input` as a session and checks it.
pub fn fuzz_session(input: &[u8]) {
    install_panic_hook();
    let session = run_session(input);
    check(input, &session);
}

/// The `decode` target: [`generate::decode_input`] turns `data` into a session.
pub fn fuzz_decode(data: &[u8]) {
    install_panic_hook();
    let input = generate::decode_input(data);
    let session = run_session(&input);
    check(&input, &session);
}

#[cfg(test)]
mod tests {
    //! The checks themselves: they pass on the seed corpus and catch what
    //! they are meant to (run with `cargo test --lib` in fuzz/). No panic hook
    //! here: the intended panics are caught by the runtime either way.
    use super::*;

    fn session(output: &str) -> Session {
        Session {
            result: Ok(()),
            output: output.as_bytes().to_vec(),
            shut_down: true,
            written_after_shutdown: false,
        }
    }

    const PING_1: &str = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n";
    const ANSWER_1: &str = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n";

    #[test]
    fn the_seed_corpora_and_regressions_keep_the_invariants() {
        for dir in ["corpus/session", "regressions"] {
            for path in inputs(dir) {
                let input = std::fs::read(&path).unwrap();
                let result = std::panic::catch_unwind(|| check(&input, &run_session(&input)));
                assert!(result.is_ok(), "{} broke an invariant", path.display());
            }
        }
        for path in inputs("corpus/decode") {
            let input = generate::decode_input(&std::fs::read(&path).unwrap());
            check(&input, &run_session(&input));
        }
    }

    /// The files of `dir` (under this crate): a folder missing or empty
    /// fails the replay instead of passing it with nothing replayed.
    fn inputs(dir: &str) -> Vec<std::path::PathBuf> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
        let files: Vec<_> = std::fs::read_dir(&path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .map(|entry| entry.unwrap().path())
            .collect();
        assert!(!files.is_empty(), "{}: no inputs to replay", path.display());
        files
    }

    #[test]
    fn one_answer_per_request_passes() {
        check(PING_1.as_bytes(), &session(ANSWER_1));
    }

    #[test]
    #[should_panic(expected = "answered 2 times but appears in 1 input lines")]
    fn a_second_answer_is_caught() {
        check(PING_1.as_bytes(), &session(&ANSWER_1.repeat(2)));
    }

    #[test]
    fn a_reused_id_may_be_answered_again() {
        check(PING_1.repeat(2).as_bytes(), &session(&ANSWER_1.repeat(2)));
    }

    #[test]
    #[should_panic(expected = "request 1 was never answered")]
    fn a_lost_answer_is_caught() {
        check(PING_1.as_bytes(), &session(""));
    }

    #[test]
    fn a_cancelled_request_need_not_be_answered() {
        let cancel = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":1}}\n";
        check(format!("{PING_1}{cancel}").as_bytes(), &session(""));
    }

    #[test]
    fn oversized_and_malformed_requests_need_no_id() {
        let big = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{{\"x\":\"{}\"}}}}\n",
            "x".repeat(MAX_MESSAGE_SIZE)
        );
        check(big.as_bytes(), &session(""));
        check(
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2,\"method\":\"ping\"}\n",
            &session(""),
        );
    }

    #[test]
    fn a_lone_surrogate_id_is_refused_or_caught() {
        let input = "{\"jsonrpc\":\"2.0\",\"id\":\"\\ud800\",\"method\":\"ping\"}\n";
        // Refused without an id (since 653799b): fine.
        check(
            input.as_bytes(),
            &session("{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32600,\"message\":\"x\"}}\n"),
        );
        // Echoed (before): a finding.
        let echoed = "{\"jsonrpc\":\"2.0\",\"id\":\"\\ud800\",\"result\":{}}\n";
        let result = std::panic::catch_unwind(|| check(input.as_bytes(), &session(echoed)));
        assert!(result.is_err(), "an echoed lone surrogate is caught");
    }

    #[test]
    #[should_panic(expected = "output line is not JSON")]
    fn a_broken_frame_is_caught() {
        check(
            b"",
            &session("{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":{\n}\n"),
        );
    }

    #[test]
    #[should_panic(expected = "exactly one of result and error")]
    fn a_response_with_both_is_caught() {
        check(
            PING_1.as_bytes(),
            &session("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{},\"error\":{}}\n"),
        );
    }
}
