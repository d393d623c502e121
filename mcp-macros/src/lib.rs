//! The `#[tool]` attribute behind [`mcp-runtime`](https://docs.rs/mcp-runtime).
//!
//! Use it through `mcp_runtime::tool`; the generated code only names paths under
//! `::mcp_runtime::__private`, so this crate is never a direct dependency.
//!
//! # Options of `#[tool(...)]`
//!
//! | option | meaning |
//! | --- | --- |
//! | `name = "..."` | the tool's name (default: the fn's name); 1–128 of `A-Z a-z 0-9 _ - .` |
//! | `title = "..."` | human-readable display name |
//! | `description = "..."` | replaces the doc comment as the description |
//! | `read_only`, `destructive`, `idempotent`, `open_world` | the four annotation hints; each also takes `= true` / `= false` |
//! | `icon(src = "...", mime_type = "...", sizes = "48x48 96x96", theme = "light")` | an icon; repeatable |
//! | `meta(key = value, ...)` | entries of the tool's `_meta` (string, integer, float or bool literals) |
//! | `timeout = "30s"` | calls running longer end with an `isError` result |
//! | `replayable_input` | a 2026-07-28 `requestState` may be used more than once (default: once) |
//! | `crate = path` | where `mcp_runtime` lives, when it is renamed |
//!
//! Each parameter may carry one `#[arg(rename = "...", description = "...")]`.

mod ast;
mod attr;
mod expand;
mod validate;

use proc_macro::TokenStream;

/// Turns a plain (async) fn into an MCP tool; see the crate docs for the options.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::tool(args.into(), input.into()).into()
}
