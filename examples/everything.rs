//! Run with: cargo run --release --example everything
//!
//! That build serves stdio only. Streamable HTTP needs the `http` feature,
//! Redis `redis`, authorization `auth` (which includes `http`):
//! `cargo run --release --example everything --features http -- --http 127.0.0.1:8931`,
//! `--features http,redis` for `REDIS_URL`, `--features auth` for `MCP_AUTH_*`
//! (`--features http,redis,auth` for all of them).
//!
//! A kitchen-sink MCP server: structured and text results (and structured
//! output with an image beside it, `chart`), errors, a slow tool
//! with progress, logs and cancellation, elicitation, task tools
//! (`build_report`, `crawl`: tasks of the Tasks extension with the `tasks`
//! feature, plain calls without), tool list changes, a prompt whose
//! argument completes (`translate`), a
//! panicking tool, a tool that prints to stdout or stderr, an MCP App
//! (`stats`, rendered by `ui://everything/stats.html`, whose button calls
//! the app-only `stats_sort`), and (with
//! `TOOLS=N`) N extra copies of `add` for load tests (`PAGE_SIZE=N` lists them N to a
//! `tools/list` page). `RATE_LIMIT=off` or `RATE_LIMIT=N` (calls
//! per second) sets the rate limit, `CALL_TIMEOUT_MS=N` the default call timeout,
//! `MAX_CONCURRENT=N` the calls that run at once,
//! `MAX_CONCURRENT_PER_CLIENT=N` those one HTTP client may run,
//! `OPEN_STATES_PER_CLIENT=N` the unanswered input requests one HTTP client
//! may have open, `LEGACY_SESSIONS=N` and `LEGACY_SESSIONS_PER_CLIENT=N` the
//! legacy HTTP sessions kept in all and per client, `QUEUE_TIMEOUT_MS=N` how long
//! a call waits for one of them, `MAX_PENDING=N` the calls in flight before
//! new ones are refused, `ELICIT_TIMEOUT_MS=N` how long a legacy
//! elicitation waits for the user, `INPUT_REQUEST_TTL_MS=N` the lifetime of a
//! 2026-07-28 `requestState`, `DRAIN_TIMEOUT_MS=N` how long shutting down may
//! take, `MCP_SEAL_KEY` (at least 32 bytes) the key sealing 2026-07-28
//! `requestState` (give replicas the same one), `MCP_REPLICA` this replica's
//! tag in legacy session ids (for routing them behind a load balancer; see
//! `deploy/`), `REDIS_URL=redis://…` a Redis keeping the spent request states
//! (so replicas sharing it refuse a replay on any of them; feature `redis`),
//! Resources: `everything://about` (what this server is),
//! `everything://pixel.png` (bytes), `everything://bonus` (whether `bonus`
//! is listed; subscribers hear when `toggle_bonus` changes it), the template
//! `everything://filler/{bytes}` (a text of that many bytes, for load tests
//! and benchmarks) and `everything://greeting/{language}/{name}` (whose
//! variables complete, the name from the language chosen).
//! `HTTP_HEADER_TIMEOUT_MS=N` the
//! HTTP header-read and idle keep-alive timeout. `--http 127.0.0.1:8931`
//! (feature `http`) serves Streamable HTTP at `/mcp` instead of stdio.
//!
//! Authorization (feature `auth`, HTTP only; all four or none): `MCP_AUTH_JWKS` (path of the
//! JWKS file with the token-signing keys), `MCP_AUTH_ISSUER` (the `iss`
//! tokens carry), `MCP_RESOURCE_URL` (this server's canonical URI: the
//! audience tokens must name, and the metadata's `resource`) and
//! `MCP_AUTH_SERVER` (the authorization server the metadata lists).
//! `MCP_AUTH_HIDE_TOOLS=1` leaves out of `tools/list` the tools the caller
//! lacks scopes for. With authorization on, `toggle_bonus` needs scope
//! `tools:admin` and `whoami` tells the caller who the token says they are.

use mcpfn_runtime::{
    Audience, CompletionContext, Content, Context, ElicitRequest, Level, PromptMessage, Server,
    Structured, ToolError, prompt, prompts, resource, resources, tool, tools,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::time::Duration;

// The MCP App (`stats`, `stats_sort` and the HTML they name).
#[path = "apps/stats.rs"]
mod stats;

/// What this server is, and what it serves.
#[resource(
    "everything://about",
    mime_type = "text/plain",
    title = "About everything"
)]
async fn about() -> &'static str {
    "everything: a kitchen-sink MCP server of mcp-runtime. Its tools show structured and \
     text results, errors, progress, logs, cancellation, elicitation and tasks; its \
     resources are this text, a PNG, the bonus tool's state and the templates \
     everything://filler/{bytes} and everything://greeting/{language}/{name}."
}

/// The largest text `filler` makes: 16 MiB.
const MAX_FILLER: usize = 16 << 20;

/// A text of `bytes` bytes (at most 16 MiB), for load tests and benchmarks.
#[resource("everything://filler/{bytes}", mime_type = "text/plain")]
async fn filler(bytes: usize) -> Result<String, String> {
    if bytes > MAX_FILLER {
        return Err(format!("{bytes} bytes is over the {MAX_FILLER}-byte limit"));
    }
    Ok("x".repeat(bytes))
}

/// A 1x1 PNG, for reading bytes (sent base64).
#[resource("everything://pixel.png", mime_type = "image/png")]
async fn pixel() -> Vec<u8> {
    const PNG: [u8; 70] = [
        0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44,
        0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f,
        0x15, 0xc4, 0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0xfc,
        0xcf, 0xc0, 0xf0, 0x1f, 0x00, 0x05, 0x05, 0x02, 0x00, 0x5f, 0xc8, 0xf1, 0xd2, 0x00, 0x00,
        0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
    ];
    PNG.to_vec()
}

/// Whether the `bonus` tool is listed; `toggle_bonus` tells its
/// subscribers when it changes.
#[resource("everything://bonus", mime_type = "text/plain")]
async fn bonus_state(ctx: Context) -> &'static str {
    if ctx.tools().is_enabled("bonus") {
        "listed"
    } else {
        "hidden"
    }
}

/// "Hello" in each language `greeting` speaks.
const HELLOS: &[(&str, &str)] = &[
    ("English", "Hello"),
    ("French", "Bonjour"),
    ("German", "Hallo"),
    ("Spanish", "Hola"),
];

/// A greeting in a language, for a name; both variables complete, the
/// name from the language already chosen.
#[resource("everything://greeting/{language}/{name}", mime_type = "text/plain")]
async fn greeting(
    #[complete(hello_languages)] language: String,
    #[complete(names_in)] name: String,
) -> Result<String, String> {
    let Some((_, hello)) = HELLOS.iter().find(|(known, _)| *known == language) else {
        return Err(format!("no greeting in {language}"));
    };
    Ok(format!("{hello}, {name}!"))
}

/// The languages `greeting` speaks that start with what was typed (any
/// case).
async fn hello_languages(prefix: &str, _: &CompletionContext) -> Vec<String> {
    let prefix = prefix.to_lowercase();
    HELLOS
        .iter()
        .filter(|(language, _)| language.to_lowercase().starts_with(&prefix))
        .map(|(language, _)| (*language).to_owned())
        .collect()
}

/// Names common in the language already chosen (every one when none is),
/// starting with what was typed.
async fn names_in(prefix: &str, context: &CompletionContext) -> Vec<String> {
    let names: &[&str] = match context.argument("language") {
        Some("English") => &["Alice", "Arthur", "Bob"],
        Some("French") => &["Amelie", "Bastien"],
        Some("German") => &["Anna", "Bernd"],
        Some("Spanish") => &["Ana", "Bruno"],
        _ => &[
            "Alice", "Amelie", "Ana", "Anna", "Arthur", "Bastien", "Bernd", "Bob", "Bruno",
        ],
    };
    names
        .iter()
        .filter(|name| name.starts_with(prefix))
        .map(|name| (*name).to_owned())
        .collect()
}

/// The result of `add`.
#[derive(Serialize, JsonSchema)]
struct Sum {
    /// a + b
    sum: f64,
}

/// Add two numbers.
#[tool(read_only, idempotent)]
async fn add(
    /// First addend
    a: f64,
    /// Second addend
    b: f64,
) -> Sum {
    Sum { sum: a + b }
}

/// Echo the text back unchanged.
#[tool(
    read_only,
    idempotent,
    open_world = false,
    icon(
        src = "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4=",
        mime_type = "image/svg+xml",
        sizes = "any"
    )
)]
async fn echo(
    /// Text to echo
    text: String,
) -> String {
    text
}

/// Split text into words (whitespace-separated); a non-object result, which
/// sessions before 2026-07-28 receive wrapped as `{"result": [...]}`.
#[tool(read_only, idempotent, open_world = false)]
fn split_words(
    /// Text to split
    text: String,
) -> Vec<String> {
    text.split_whitespace().map(str::to_owned).collect()
}

/// Always fails, to show how a tool error reaches the model.
#[tool(read_only)]
async fn fail(
    /// Why it should fail; a default reason is used when absent
    reason: Option<String>,
) -> Result<String, ToolError> {
    Err(ToolError::new(
        reason.unwrap_or_else(|| "this tool always fails".to_owned()),
    ))
}

/// How long `slow` slept.
#[derive(Serialize, JsonSchema)]
struct Slept {
    /// Milliseconds slept in total
    ms: u64,
    /// Steps the sleep was split into
    steps: u32,
}

/// Sleep for `ms` milliseconds in `steps` equal steps, reporting progress
/// and logging each step; cancellable at any step.
#[tool(read_only, idempotent, open_world = false)]
async fn slow(
    ctx: Context,
    /// Milliseconds to sleep (at most 600000)
    ms: u64,
    /// Number of steps; 1 when absent
    steps: Option<u32>,
) -> Result<Slept, ToolError> {
    if ms > 600_000 {
        return Err(ToolError::new("ms must be at most 600000 (ten minutes)"));
    }
    let steps = steps.unwrap_or(1).clamp(1, 10_000);
    let mut said = SaysCancelled {
        ctx: &ctx,
        steps_done: 0,
        steps,
    };
    for step in 1..=steps {
        tokio::time::sleep(Duration::from_millis(ms / u64::from(steps))).await;
        ctx.progress(f64::from(step), Some(f64::from(steps)), Some("sleeping"))?;
        ctx.log(Level::Info, format!("slept step {step} of {steps}"));
        said.steps_done = step;
    }
    Ok(Slept { ms, steps })
}

/// Writes a line to stderr (which a host logs) when `slow` is dropped
/// because the client cancelled it (`notifications/cancelled`), so a
/// host's cancellation can be seen from outside.
struct SaysCancelled<'a> {
    ctx: &'a Context,
    steps_done: u32,
    steps: u32,
}

impl Drop for SaysCancelled<'_> {
    fn drop(&mut self) {
        if self.ctx.is_cancelled() {
            eprintln!(
                "slow: cancelled by the client after {} of {} steps",
                self.steps_done, self.steps
            );
        }
    }
}

/// The booking `book_table` made.
#[derive(Serialize, JsonSchema)]
struct Booking {
    /// Whether a table was booked
    booked: bool,
    /// Who the table is booked for, when booked
    name: Option<String>,
    /// Party size
    party: u32,
}

/// The form `book_table` shows the user.
#[derive(Deserialize, JsonSchema)]
struct Guest {
    /// Name for the booking
    name: String,
}

/// The second form `book_table` shows for parties of more than 8.
#[derive(Deserialize, JsonSchema)]
struct Deposit {
    /// Whether to pay the deposit
    pay: bool,
}

/// Book a table, asking the user for the name on the booking.
#[tool(open_world = false)]
async fn book_table(
    ctx: Context,
    /// Number of people, 1 to 20
    party: u32,
) -> Result<Booking, ToolError> {
    if !(1..=20).contains(&party) {
        return Err(ToolError::new("party must be between 1 and 20"));
    }
    let form =
        ElicitRequest::for_type::<Guest>(format!("Whose name is the table for {party} under?"));
    let answer = ctx.elicit("guest", form).await?;
    if !answer.is_accepted() {
        return Ok(Booking {
            booked: false,
            name: None,
            party,
        });
    }
    let guest: Guest = answer.content_as()?;
    // Large parties need a second answer: a round whose requestState already
    // seals the first one (the 2026-07-28 era's multi-round case).
    if party > 8 {
        let form = ElicitRequest::for_type::<Deposit>(format!(
            "A party of {party} needs a deposit. Pay it now for {}?",
            guest.name
        ));
        let answer = ctx.elicit("deposit", form).await?;
        if !answer.is_accepted() || !answer.content_as::<Deposit>()?.pay {
            return Ok(Booking {
                booked: false,
                name: None,
                party,
            });
        }
    }
    Ok(Booking {
        booked: true,
        name: Some(guest.name),
        party,
    })
}

/// What `build_report` built.
#[derive(Serialize, JsonSchema)]
struct Report {
    /// Sections written
    sections: u32,
    /// Whether the appendix is in (the answer to the question asked midway)
    appendix: bool,
    /// The report: a title line, then a line per section (and the appendix)
    text: String,
}

/// The question `build_report` asks midway.
#[derive(Deserialize, JsonSchema)]
struct Appendix {
    /// Whether to include the appendix
    include: bool,
}

/// Crawl 1 to 50 pages, `step_ms` each (at most 10000; 200 when absent),
/// reporting each page. A task when the client declares the Tasks
/// extension; the crawl is idempotent, so when the replica running it dies
/// another starts it again from the first page (`resumable`).
#[tool(
    read_only,
    idempotent,
    open_world = false,
    task = "optional",
    resumable
)]
async fn crawl(
    ctx: Context,
    /// Pages to crawl, 1 to 50
    pages: u32,
    /// Milliseconds per page, at most 10000; 200 when absent
    step_ms: Option<u64>,
) -> Result<String, ToolError> {
    if !(1..=50).contains(&pages) {
        return Err(ToolError::new("pages must be 1 to 50"));
    }
    let step = step_ms.unwrap_or(200);
    if step > 10_000 {
        return Err(ToolError::new("step_ms must be at most 10000"));
    }
    for page in 1..=pages {
        tokio::time::sleep(Duration::from_millis(step)).await;
        ctx.progress(
            f64::from(page),
            Some(f64::from(pages)),
            Some(&format!("page {page} of {pages}")),
        )?;
    }
    Ok(format!("Crawled {pages} pages"))
}

/// Build a report of 1 to 20 sections, `step_ms` per section: progress for
/// each section ("section i of n"), one question midway (whether to include
/// the appendix), cancellable between sections. Runs as a task when the
/// client declares the Tasks extension, else as a plain call.
#[tool(read_only, open_world = false, task = "optional")]
async fn build_report(
    ctx: Context,
    /// Number of sections, 1 to 20
    sections: u32,
    /// Milliseconds each section takes, at most 10000; 500 when absent
    step_ms: Option<u64>,
) -> Result<Report, ToolError> {
    if !(1..=20).contains(&sections) {
        return Err(ToolError::new("sections must be between 1 and 20"));
    }
    let step_ms = step_ms.unwrap_or(500);
    if step_ms > 10_000 {
        return Err(ToolError::new(
            "step_ms must be at most 10000 (ten seconds)",
        ));
    }
    let midway = sections.div_ceil(2);
    let mut text = format!("Report in {sections} sections\n");
    let mut appendix = false;
    for i in 1..=sections {
        // Each section is an await: a cancelled call (`tasks/cancel`, or
        // `notifications/cancelled` for a plain one) drops the future here.
        tokio::time::sleep(Duration::from_millis(step_ms)).await;
        if ctx.is_cancelled() {
            return Err(ToolError::new("the report was cancelled"));
        }
        text.push_str(&format!("{i}. Section {i}\n"));
        // As a task this becomes its statusMessage; `?` stops a cancelled call.
        ctx.progress(
            f64::from(i),
            Some(f64::from(sections)),
            Some(&format!("section {i} of {sections}")),
        )?;
        if i == midway {
            // A task asks through `input_required` and `tasks/update`; a
            // plain 2026-07-28 call ends with an `input_required` round and
            // runs again from the top with the answer; a legacy session
            // asks the client while the call waits.
            let form = ElicitRequest::for_type::<Appendix>(format!(
                "Include the appendix? ({i} of {sections} sections written)"
            ));
            let answer = ctx.elicit("appendix", form).await?;
            appendix = answer.is_accepted() && answer.content_as::<Appendix>()?.include;
        }
    }
    if appendix {
        text.push_str("Appendix\n");
    }
    Ok(Report {
        sections,
        appendix,
        text,
    })
}

/// Show or hide the `bonus` tool, to demonstrate tool list changes.
// It also updates `everything://bonus`, for resource subscriptions.
// Over HTTP with authorization, only callers granted `tools:admin` may;
// stdio ignores scopes (the user who started the server is the caller).
#[tool(open_world = false, scopes("tools:admin"))]
async fn toggle_bonus(ctx: Context) -> String {
    let tools = ctx.tools();
    let said = if tools.is_enabled("bonus") {
        tools.disable("bonus");
        "bonus is now hidden"
    } else {
        tools.enable("bonus");
        "bonus is now listed"
    };
    ctx.notifier().resource_updated("everything://bonus");
    said.to_owned()
}

/// Who is calling: the subject and scopes of the caller's verified token
/// (registered when authorization is on).
#[tool(read_only, open_world = false)]
#[cfg_attr(not(feature = "auth"), allow(dead_code))]
async fn whoami(ctx: Context) -> Caller {
    match ctx.principal() {
        Some(principal) => Caller {
            subject: Some(principal.subject().to_owned()),
            scopes: principal.scopes().to_vec(),
        },
        None => Caller {
            subject: None,
            scopes: Vec::new(),
        },
    }
}

/// The result of `whoami`.
#[derive(Serialize, JsonSchema)]
struct Caller {
    /// The token's subject (`sub`); absent without authorization.
    subject: Option<String>,
    /// The scopes the token grants.
    scopes: Vec<String>,
}

/// A tool that `toggle_bonus` shows and hides.
#[tool(read_only, open_world = false)]
async fn bonus() -> String {
    "You found the bonus tool.".to_owned()
}

/// Return one block of each content kind (text, image, audio, resource link,
/// embedded resource), with annotations; older sessions get text fallbacks.
#[tool(read_only, open_world = false)]
async fn sample_content() -> Vec<Content> {
    // The bytes of a 1x1 transparent PNG and of a WAV file of no samples
    // (its RIFF header only); `Content::image` and `Content::audio` encode
    // them in base64.
    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x04\x00\x00\x00\xb5\x1c\x0c\x02\x00\x00\x00\x0bIDATx\xdacd`\x00\x00\x00\x06\x00\x020\x81\xd0/\x00\x00\x00\x00IEND\xaeB`\x82";
    const WAV: &[u8] = b"RIFF$\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00@\x1f\x00\x00@\x1f\x00\x00\x01\x00\x08\x00data\x00\x00\x00\x00";
    vec![
        Content::text("One block of each kind follows.").audience(Audience::User),
        Content::image(PNG, "image/png").priority(0.2),
        Content::audio(WAV, "audio/wav"),
        Content::resource_link("file:///reports/2026-q3.pdf", "2026-q3.pdf")
            .mime_type("application/pdf")
            .link_details(Some("Q3 report"), Some("Quarterly figures"), Some(48_213)),
        Content::embedded_text("mem://notes/today", "Buy milk.")
            .mime_type("text/plain")
            .last_modified("2026-11-30T09:00:00Z"),
    ]
}

/// The figures of the values `chart` drew.
#[derive(Serialize, JsonSchema)]
struct Figures {
    /// How many values there are.
    count: usize,
    /// The smallest value.
    min: f64,
    /// The largest value.
    max: f64,
    /// Their mean.
    mean: f64,
}

/// Chart 1 to 50 values: their figures as structured output, and beside
/// them a bar chart of the values as an SVG image.
#[tool(read_only, idempotent, open_world = false)]
async fn chart(
    /// The values, one bar each, left to right
    values: Vec<f64>,
) -> Result<Structured<Figures>, ToolError> {
    if values.is_empty() || values.len() > 50 {
        return Err(ToolError::new(format!(
            "pass 1 to 50 values, not {}",
            values.len()
        )));
    }
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    // A sum past f64::MAX makes the mean infinite: the runtime answers with
    // an error result naming `mean`.
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    let figures = Figures {
        count: values.len(),
        min,
        max,
        mean,
    };
    let svg = bar_chart(&values);
    Ok(Structured::new(figures).with(Content::image(svg.as_bytes(), "image/svg+xml")))
}

/// A bar per value, 100 px for the largest magnitude.
fn bar_chart(values: &[f64]) -> String {
    let scale = values.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    let width = 10 * values.len();
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"100\" viewBox=\"0 0 {width} 100\">"
    );
    for (i, value) in values.iter().enumerate() {
        let height = if scale > 0.0 {
            (100.0 * value.abs() / scale).round()
        } else {
            0.0
        };
        svg.push_str(&format!(
            "<rect x=\"{}\" y=\"{}\" width=\"9\" height=\"{height}\"/>",
            10 * i,
            100.0 - height
        ));
    }
    svg.push_str("</svg>");
    svg
}

/// Where `noisy` prints.
#[derive(Deserialize, JsonSchema, Clone, Copy, Default)]
#[serde(rename_all = "lowercase")]
enum Stream {
    /// Standard output (fd 1)
    #[default]
    Stdout,
    /// Standard error (fd 2)
    Stderr,
    /// The client, as log messages (`notifications/message` at level info)
    Log,
}

/// Prints to stdout or stderr, as careless code does (the stdout and stderr
/// guards send it to the bounded stderr queue, so the protocol stream stays
/// clean and a host that does not read stderr cannot block the server), or
/// logs it to the client.
#[tool(read_only, open_world = false)]
async fn noisy(
    ctx: Context,
    /// What to print
    text: String,
    /// Where to print it: stdout (the default), stderr, or log (to the client)
    to: Option<Stream>,
    /// How many times to print it; 1 when absent (at most 100000)
    times: Option<u32>,
) -> String {
    let times = times.unwrap_or(1).clamp(1, 100_000);
    // `println!`/`eprintln!` on purpose: the very writes the guards catch.
    for _ in 0..times {
        match to.unwrap_or_default() {
            Stream::Stdout => println!("noisy says: {text}"),
            Stream::Stderr => eprintln!("noisy says: {text}"),
            Stream::Log => ctx.log(Level::Info, format!("noisy says: {text}")),
        }
    }
    format!("printed {} bytes", text.len() * times as usize)
}

/// Panics, to show that a crashing tool does not take the server down.
#[tool(title = "Crash on purpose", destructive = false)]
async fn panic() -> String {
    panic!("the `panic` tool panicked, as it always does")
}

/// Unit system of a weather report.
#[derive(Deserialize, Serialize, JsonSchema, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum Units {
    /// Celsius, km/h
    Metric,
    /// Fahrenheit, mph
    Imperial,
}

/// Current weather at a location.
#[derive(Serialize, JsonSchema)]
struct Weather {
    /// The location as given
    location: String,
    /// Temperature in the requested units
    temperature: f64,
    /// Wind speed in the requested units
    wind_speed: f64,
    /// A short description, e.g. "partly cloudy"
    conditions: String,
    /// The unit system of the numbers
    units: Units,
}

/// Get current weather data for a location.
#[tool(title = "Weather Data Retriever", read_only, open_world)]
async fn get_weather_data(
    /// City name or zip code
    location: String,
    /// Unit system; metric when absent
    units: Option<Units>,
) -> Result<Weather, ToolError> {
    let location = location.trim().to_owned();
    if location.is_empty() {
        return Err(ToolError::new(
            "location is empty; pass a city name or zip code",
        ));
    }
    // A deterministic stand-in for a weather service: the same place always
    // gets the same weather.
    let seed = location
        .bytes()
        .fold(7u32, |h, b| h.wrapping_mul(31).wrapping_add(u32::from(b)));
    let celsius = f64::from(seed % 35) - 5.0;
    let kmh = f64::from(seed % 40);
    let units = units.unwrap_or(Units::Metric);
    let (temperature, wind_speed) = match units {
        Units::Metric => (celsius, kmh),
        Units::Imperial => (celsius * 9.0 / 5.0 + 32.0, (kmh / 1.609).round()),
    };
    let conditions =
        ["clear", "partly cloudy", "overcast", "light rain", "windy"][(seed % 5) as usize];
    Ok(Weather {
        location,
        temperature,
        wind_speed,
        conditions: conditions.to_owned(),
        units,
    })
}

/// Where `locate` found a request.
#[derive(Serialize, JsonSchema)]
struct Location {
    /// The region asked for.
    region: String,
    /// The shard asked for, if any.
    shard: Option<i64>,
}

/// Echo a region and an optional shard; both are mirrored into HTTP headers
/// (`Mcp-Param-Region`, `Mcp-Param-Shard`) so gateways can route on them.
#[tool(read_only, idempotent, open_world = false)]
async fn locate(
    /// Region to route to, e.g. "eu-west1"
    #[arg(header = "Region")]
    region: String,
    /// Shard within the region
    #[arg(header = "Shard")]
    shard: Option<i64>,
) -> Location {
    Location { region, shard }
}

/// The languages `translate` offers, for its completion.
const LANGUAGES: &[&str] = &[
    "Danish",
    "Dutch",
    "English",
    "Finnish",
    "French",
    "German",
    "Greek",
    "Italian",
    "Japanese",
    "Norwegian",
    "Polish",
    "Portuguese",
    "Spanish",
    "Swedish",
];

/// Translate a text, keeping its tone
#[prompt(title = "Translate")]
async fn translate(
    /// The language to translate into
    #[complete(languages)]
    language: String,
    /// The text to translate
    text: String,
    /// The tone to keep, e.g. "formal" (the text's own when absent)
    tone: Option<String>,
) -> Vec<PromptMessage> {
    let tone = tone.map_or_else(String::new, |tone| format!(", in a {tone} tone"));
    vec![
        PromptMessage::user(format!(
            "Translate the text below into {language}{tone}. Answer with the translation only."
        )),
        PromptMessage::user(text),
    ]
}

/// The languages starting with what was typed (any case); when the text
/// is already given, its own language is not offered (a toy rule, to show
/// the context of the other arguments).
async fn languages(prefix: &str, context: &CompletionContext) -> Vec<String> {
    let prefix = prefix.to_lowercase();
    let written_in_english = context.argument("text").is_some_and(|text| {
        text.split_whitespace()
            .any(|w| w.eq_ignore_ascii_case("the"))
    });
    LANGUAGES
        .iter()
        .filter(|language| language.to_lowercase().starts_with(&prefix))
        .filter(|language| !(written_in_english && **language == "English"))
        .map(|language| (*language).to_owned())
        .collect()
}

/// The environment variable `name` as a number, if set and valid.
fn env_number(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let extra_adds: usize = std::env::var("TOOLS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let copies = (0..extra_adds).map(|i| tools![add].remove(0).renamed(format!("add_{i}")));
    let mut server = Server::new("everything", env!("CARGO_PKG_VERSION"));
    // RATE_LIMIT=off (load tests, benchmarks) or RATE_LIMIT=N calls per second.
    match std::env::var("RATE_LIMIT").as_deref() {
        Ok("off") => server = server.no_rate_limit(),
        Ok(n) => {
            if let Ok(per_second) = n.parse::<u32>() {
                server = server.rate_limit(per_second, per_second.saturating_mul(2));
            }
        }
        Err(_) => {}
    }
    // PAGE_SIZE=N: tools per tools/list page (clients' pagination tests).
    if let Some(n) = env_number("PAGE_SIZE") {
        server = server.page_size(usize::try_from(n).unwrap_or(usize::MAX));
    }
    // CALL_TIMEOUT_MS=N: the server's default call timeout.
    if let Some(ms) = std::env::var("CALL_TIMEOUT_MS")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        server = server.call_timeout(Duration::from_millis(ms));
    }
    // MAX_CONCURRENT=N: calls that run at once.
    if let Some(n) = env_number("MAX_CONCURRENT") {
        server = server.max_concurrent_calls(usize::try_from(n).unwrap_or(usize::MAX));
    }
    // MAX_PENDING=N: calls in flight (HTTP: requests being answered) before
    // new ones are refused.
    // MAX_CONCURRENT_PER_CLIENT=N: run slots one HTTP client may hold.
    if let Some(n) = env_number("MAX_CONCURRENT_PER_CLIENT") {
        server = server.max_concurrent_calls_per_client(usize::try_from(n).unwrap_or(usize::MAX));
    }
    // OPEN_STATES_PER_CLIENT=N: unanswered 2026-07-28 input requests one
    // HTTP client may have open.
    if let Some(n) = env_number("OPEN_STATES_PER_CLIENT") {
        server =
            server.max_open_request_states_per_client(usize::try_from(n).unwrap_or(usize::MAX));
    }
    if let Some(n) = env_number("MAX_PENDING") {
        server = server.max_pending_calls(usize::try_from(n).unwrap_or(usize::MAX));
    }
    // QUEUE_TIMEOUT_MS=N: how long a call waits for a run slot.
    if let Some(ms) = env_number("QUEUE_TIMEOUT_MS") {
        server = server.queue_timeout(Duration::from_millis(ms));
    }
    // ELICIT_TIMEOUT_MS=N: how long a legacy elicitation waits for the user.
    if let Some(ms) = env_number("ELICIT_TIMEOUT_MS") {
        server = server.elicitation_timeout(Duration::from_millis(ms));
    }
    // INPUT_REQUEST_TTL_MS=N: how long a 2026-07-28 requestState stays valid.
    if let Some(ms) = env_number("INPUT_REQUEST_TTL_MS") {
        server = server.input_request_ttl(Duration::from_millis(ms));
    }
    // DRAIN_TIMEOUT_MS=N: how long shutting down may take (calls finishing,
    // responses written).
    if let Some(ms) = env_number("DRAIN_TIMEOUT_MS") {
        server = server.drain_timeout(Duration::from_millis(ms));
    }
    // LEGACY_SESSIONS=N, LEGACY_SESSIONS_PER_CLIENT=N: legacy HTTP sessions
    // kept, in all and per client.
    #[cfg(feature = "http")]
    if let Some(n) = env_number("LEGACY_SESSIONS") {
        server = server.max_legacy_sessions(usize::try_from(n).unwrap_or(usize::MAX));
    }
    #[cfg(feature = "http")]
    if let Some(n) = env_number("LEGACY_SESSIONS_PER_CLIENT") {
        server = server.max_legacy_sessions_per_client(usize::try_from(n).unwrap_or(usize::MAX));
    }
    // HTTP_HEADER_TIMEOUT_MS=N: how long an HTTP client may take to send its
    // headers, and how long an idle keep-alive connection stays open.
    #[cfg(feature = "http")]
    if let Some(ms) = env_number("HTTP_HEADER_TIMEOUT_MS") {
        server = server.http_header_timeout(Duration::from_millis(ms));
    }
    // HTTP_BODY_TIMEOUT_MS, HTTP_BODY_BUDGET (bytes), HTTP_WRITE_TIMEOUT_MS,
    // HTTP_MAX_CONNECTIONS, HTTP_CONNECTIONS_PER_ADDRESS,
    // HTTP_STREAMS_PER_CLIENT: the HTTP front door's
    // limits against slow or greedy clients (docs/remote-servers.md).
    #[cfg(feature = "http")]
    {
        if let Some(ms) = env_number("HTTP_BODY_TIMEOUT_MS") {
            server = server.http_body_timeout(Duration::from_millis(ms));
        }
        if let Some(bytes) = env_number("HTTP_BODY_BUDGET") {
            server = server.http_body_budget(usize::try_from(bytes).unwrap_or(usize::MAX));
        }
        if let Some(ms) = env_number("HTTP_WRITE_TIMEOUT_MS") {
            server = server.http_write_timeout(Duration::from_millis(ms));
        }
        if let Some(n) = env_number("HTTP_MAX_CONNECTIONS") {
            server = server.max_http_connections(usize::try_from(n).unwrap_or(usize::MAX));
        }
        if let Some(n) = env_number("HTTP_CONNECTIONS_PER_ADDRESS") {
            server =
                server.max_http_connections_per_address(usize::try_from(n).unwrap_or(usize::MAX));
        }
        if let Some(n) = env_number("HTTP_STREAMS_PER_CLIENT") {
            server = server.max_streams_per_client(usize::try_from(n).unwrap_or(usize::MAX));
        }
    }
    // MCP_SEAL_KEY, MCP_REPLICA, REDIS_URL, MCP_AUTH_*: running as one of
    // several replicas, possibly OAuth-protected (docs/deployment.md).
    let (mut server, auth) =
        examples::deployment(server, "everything", "Everything (mcp-runtime example)");
    if auth {
        server = server.tools(tools![whoami]);
    }
    let server = server
        .title("Everything (mcp-runtime example)")
        .instructions("Demonstration tools: add, echo, fail, slow (progress, logs, cancellation), panic, noisy, split_words, get_weather_data, locate (header-mirrored arguments), book_table (elicitation), build_report (a task with progress, a question and cancellation), crawl (a resumable task), toggle_bonus and bonus (list changes), sample_content, chart (structured output with an image).")
        .tools(tools![add, echo, fail, slow, panic, noisy, split_words, get_weather_data])
        .tools(tools![locate])
        .tools(tools![stats::stats, stats::stats_sort])
        .resources([stats::app().map_err(std::io::Error::other)?])
        .tools(tools![book_table, build_report, crawl, toggle_bonus, bonus, sample_content, chart])
        .tools(copies)
        .resources(resources![about, pixel, bonus_state, filler, greeting])
        .prompts(prompts![translate]);
    // Serves stdio, Streamable HTTP with `--http ADDR`, or prints the tools
    // for `--dump-tools`.
    mcpfn_runtime::cli::run(server).await
}
