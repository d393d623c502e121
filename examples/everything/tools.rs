//! The plain tools: arithmetic and text, errors, a slow tool with progress,
//! logs and cancellation, a panic, output on stdout and stderr, list changes,
//! header-mirrored arguments and the caller's identity.

use mcpfn_runtime::{Context, Level, ToolError, tool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The result of `add`.
#[derive(Serialize, JsonSchema)]
pub(crate) struct Sum {
    /// a + b
    sum: f64,
}

/// Add two numbers.
#[tool(read_only, idempotent)]
pub(crate) async fn add(
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
pub(crate) async fn echo(
    /// Text to echo
    text: String,
) -> String {
    text
}

/// Split text into words (whitespace-separated); a non-object result, which
/// sessions before 2026-07-28 receive wrapped as `{"result": [...]}`.
#[tool(read_only, idempotent, open_world = false)]
pub(crate) fn split_words(
    /// Text to split
    text: String,
) -> Vec<String> {
    text.split_whitespace().map(str::to_owned).collect()
}

/// Always fails, to show how a tool error reaches the model.
#[tool(read_only)]
pub(crate) async fn fail(
    /// Why it should fail; a default reason is used when absent
    reason: Option<String>,
) -> Result<String, ToolError> {
    Err(ToolError::new(
        reason.unwrap_or_else(|| "this tool always fails".to_owned()),
    ))
}

/// How long `slow` slept.
#[derive(Serialize, JsonSchema)]
pub(crate) struct Slept {
    /// Milliseconds slept in total
    ms: u64,
    /// Steps the sleep was split into
    steps: u32,
}

/// Sleep for `ms` milliseconds in `steps` equal steps, reporting progress
/// and logging each step; cancellable at any step.
#[tool(read_only, idempotent, open_world = false)]
pub(crate) async fn slow(
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
pub(crate) struct SaysCancelled<'a> {
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

/// Show or hide the `bonus` tool, to demonstrate tool list changes.
// It also updates `everything://bonus`, for resource subscriptions.
// Over HTTP with authorization, only callers granted `tools:admin` may;
// stdio ignores scopes (the user who started the server is the caller).
#[tool(open_world = false, scopes("tools:admin"))]
pub(crate) async fn toggle_bonus(ctx: Context) -> String {
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
pub(crate) async fn whoami(ctx: Context) -> Caller {
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
pub(crate) struct Caller {
    /// The token's subject (`sub`); absent without authorization.
    subject: Option<String>,
    /// The scopes the token grants.
    scopes: Vec<String>,
}

/// A tool that `toggle_bonus` shows and hides.
#[tool(read_only, open_world = false)]
pub(crate) async fn bonus() -> String {
    "You found the bonus tool.".to_owned()
}

/// Where `noisy` prints.
#[derive(Deserialize, JsonSchema, Clone, Copy, Default)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Stream {
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
pub(crate) async fn noisy(
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
pub(crate) async fn panic() -> String {
    panic!("the `panic` tool panicked, as it always does")
}

/// Unit system of a weather report.
#[derive(Deserialize, Serialize, JsonSchema, Clone, Copy)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Units {
    /// Celsius, km/h
    Metric,
    /// Fahrenheit, mph
    Imperial,
}

/// Current weather at a location.
#[derive(Serialize, JsonSchema)]
pub(crate) struct Weather {
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
pub(crate) async fn get_weather_data(
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
pub(crate) struct Location {
    /// The region asked for.
    region: String,
    /// The shard asked for, if any.
    shard: Option<i64>,
}

/// Echo a region and an optional shard; both are mirrored into HTTP headers
/// (`Mcp-Param-Region`, `Mcp-Param-Shard`) so gateways can route on them.
#[tool(read_only, idempotent, open_world = false)]
pub(crate) async fn locate(
    /// Region to route to, e.g. "eu-west1"
    #[arg(header = "Region")]
    region: String,
    /// Shard within the region
    #[arg(header = "Shard")]
    shard: Option<i64>,
) -> Location {
    Location { region, shard }
}
