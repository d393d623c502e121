//! The `#[tool]` attribute behind [`mcp-runtime`](https://docs.rs/mcp-runtime).
//!
//! Use it through `mcp_runtime::tool`; the generated code only names paths under
//! `::mcp_runtime::__private`, so this crate is never a direct dependency. Its
//! options are listed on [`macro@tool`].

#![forbid(unsafe_code)]

mod ast;
mod attr;
mod ctxt;
mod expand;
mod hidden;
mod tools;
mod validate;

use proc_macro::TokenStream;

/// Turns a plain (async) fn into an MCP tool, registered with `tools![...]`.
///
/// The fn's name, doc comments, parameters and return type become the tool's
/// name, description, `inputSchema` and `outputSchema`; the fn itself stays an
/// ordinary fn. It must be a free fn (not in an `impl`); shared data reaches it
/// through a `State<T>` parameter.
///
#[doc = include_str!("../tool-options.md")]
#[proc_macro_attribute]
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::tool(args.into(), input.into()).into()
}

/// The list behind `mcp_runtime::tools!`, which documents it.
#[doc(hidden)]
#[proc_macro]
pub fn tools(input: TokenStream) -> TokenStream {
    tools::tools(input.into()).into()
}
