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

use mcpfn_runtime::{Server, prompts, resources, tools};
use std::time::Duration;

// The MCP App (`stats`, `stats_sort` and the HTML they name).
#[path = "../apps/stats.rs"]
mod stats;

mod interactive;
mod prompts;
mod resources;
mod tools;

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
    let copies = (0..extra_adds).map(|i| tools![tools::add].remove(0).renamed(format!("add_{i}")));
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
        server = server.tools(tools![tools::whoami]);
    }
    let server = server
        .title("Everything (mcp-runtime example)")
        .instructions("Demonstration tools: add, echo, fail, slow (progress, logs, cancellation), panic, noisy, split_words, get_weather_data, locate (header-mirrored arguments), book_table (elicitation), build_report (a task with progress, a question and cancellation), crawl (a resumable task), toggle_bonus and bonus (list changes), sample_content, chart (structured output with an image).")
        .tools(tools![tools::add, tools::echo, tools::fail, tools::slow, tools::panic, tools::noisy, tools::split_words, tools::get_weather_data])
        .tools(tools![tools::locate])
        .tools(tools![stats::stats, stats::stats_sort])
        .resources([stats::app().map_err(std::io::Error::other)?])
        .tools(tools![interactive::book_table, interactive::build_report, interactive::crawl, tools::toggle_bonus, tools::bonus, interactive::sample_content, interactive::chart])
        .tools(copies)
        .resources(resources![resources::about, resources::pixel, resources::bonus_state, resources::filler, resources::greeting])
        .prompts(prompts![prompts::translate]);
    // Serves stdio, Streamable HTTP with `--http ADDR`, or prints the tools
    // for `--dump-tools`.
    mcpfn_runtime::cli::run(server).await
}
