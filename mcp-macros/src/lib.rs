// The crate docs are the README, whose example uses `mcpfn_runtime` (this
// crate is only ever used through it): it compiles as one of mcp-runtime's
// doctests (mcp-runtime/src/lib.rs), so this crate runs none of its own.
#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

mod app_ui;
mod ast;
mod attr;
mod complete;
mod ctxt;
mod expand;
mod hidden;
mod list;
mod option;
mod prompt;
mod resource;
mod uri_template;
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

/// Turns a plain async fn into an MCP resource, registered with
/// `resources![...]`.
///
/// `#[resource("uri", ...)]`: a fixed URI, or an RFC 6570 template
/// (`{var}`, `{+var}`, `{/var}`, a last `{?a,b}`) whose variables are the
/// fn's parameters (`String` or any `FromStr` type; `Option<T>` for a query
/// variable), besides `Context` and `State<T>`. The doc comment is the
/// description. Options: `name`, `title`, `description`, `mime_type`,
/// `size` (bytes), `audience` (`"user"` or `"assistant"`, repeatable),
/// `priority` (0.0 to 1.0), `icon` (a URL, repeatable), `crate`. The fn
/// returns `String` (text), `Vec<u8>` (bytes), `ResourceContents`,
/// `Vec<ResourceContents>`, or a `Result` of one of them. `#[complete(f)]`
/// on a variable's parameter completes it (`completion/complete` with
/// `ref/resource`) with `async fn f(&str, &CompletionContext) -> Vec<String>`.
#[proc_macro_attribute]
pub fn resource(args: TokenStream, input: TokenStream) -> TokenStream {
    resource::resource(args.into(), input.into()).into()
}

/// The list behind `mcpfn_runtime::resources!`, which documents it.
#[doc(hidden)]
#[proc_macro]
pub fn resources(input: TokenStream) -> TokenStream {
    list::list(hidden::Kind::Resource, input.into()).into()
}

/// The list behind `mcpfn_runtime::tools!`, which documents it.
#[doc(hidden)]
#[proc_macro]
pub fn tools(input: TokenStream) -> TokenStream {
    list::list(hidden::Kind::Tool, input.into()).into()
}

/// Turns an async fn into an MCP prompt, registered with `prompts![...]`.
///
/// The fn's name, doc comments and parameters become the prompt's name,
/// description and arguments (each a `String`, or an `Option<String>` when
/// optional; a parameter's doc comment describes it). It returns `String`
/// (one user message), a `PromptMessage`, a `Vec<PromptMessage>`, or a
/// `Result` of one whose error becomes a JSON-RPC error. `Context` and
/// `State<T>` parameters are injected as in `#[tool]`.
///
/// | Option | On | Effect |
/// |---|---|---|
/// | `name = "..."` | fn | the prompt's name (default: the fn's) |
/// | `title = "..."` | fn | a title for display |
/// | `description = "..."` | fn | instead of the doc comment |
/// | `icon(src = "...", mime_type, sizes, theme)` | fn | an icon, repeatable |
/// | `crate = path` | fn | where `mcpfn_runtime` is |
/// | `#[arg(rename = "...", description = "...")]` | parameter | its wire name, its description |
/// | `#[complete(f)]` | parameter | completes it with `async fn f(&str, &CompletionContext) -> Vec<String>` |
#[proc_macro_attribute]
pub fn prompt(args: TokenStream, input: TokenStream) -> TokenStream {
    prompt::prompt(args.into(), input.into()).into()
}

/// The list behind `mcpfn_runtime::prompts!`, which documents it.
#[doc(hidden)]
#[proc_macro]
pub fn prompts(input: TokenStream) -> TokenStream {
    list::list(hidden::Kind::Prompt, input.into()).into()
}
