//! The rules a `#[tool]` declaration must follow, one small function each.
//!
//! The third phase: it reads the model of `ast` (and the values of `attr` in
//! it) and changes nothing. Every rule reports into the [`Ctxt`] on the
//! user's offending token with a sentence that says what to do, and all
//! rules run, so independent mistakes show up together.

use crate::ast::{Param, ToolFn};
use crate::ctxt::Ctxt;
use std::collections::HashMap;
use syn::spanned::Spanned;
use syn::{FnArg, Type};

mod header;
mod ui;
use header::{header_type_rule, header_value, unique_headers};

/// The longest tool name the specification allows.
const MAX_NAME_LEN: usize = 128;

/// Runs every rule.
pub(crate) fn check(cx: &Ctxt, tool: &ToolFn) {
    let rules: [fn(&ToolFn) -> syn::Result<()>; 4] =
        [tool_name, no_receiver, no_generics, plain_signature];
    for rule in rules {
        cx.ok(rule(tool));
    }
    let param_rules: [fn(&Param) -> syn::Result<()>; 5] = [
        plain_binding,
        owned_type,
        injected_without_arg,
        header_value,
        header_type_rule,
    ];
    for param in &tool.params {
        for rule in param_rules {
            cx.ok(rule(param));
        }
    }
    unique_param_names(cx, &tool.params);
    unique_headers(cx, &tool.params);
    cx.ok(timeout_positive(tool));
    cx.ok(resumable_needs_task(tool));
    scope_tokens(cx, tool);
    if let Some(ui) = tool.attr.ui.get() {
        ui::check(cx, ui);
    }
}

/// Whether rustc itself will reject the signature (a name bound twice); the
/// expansion then emits only the fn, so the user sees rustc's one error.
pub(crate) fn rustc_rejects(tool: &ToolFn) -> bool {
    let idents: Vec<_> = tool
        .params
        .iter()
        .filter_map(|p| p.ident.as_ref())
        .collect();
    idents
        .iter()
        .enumerate()
        .any(|(i, a)| idents[..i].contains(a))
}

/// `#[tool]` turns a fn into a tool; on anything else it says so, on the
/// item's keyword (`struct`, `impl`, ...) when there is one.
pub(crate) fn not_a_fn(input: proc_macro2::TokenStream) -> syn::Error {
    let example = "e.g. `#[tool] async fn add(a: f64, b: f64) -> f64 { a + b }`";
    let keyword = |stream: syn::parse::ParseStream| {
        stream.call(syn::Attribute::parse_outer)?;
        stream.parse::<syn::Visibility>()?;
        let keyword: proc_macro2::TokenTree = stream.parse()?;
        stream.parse::<proc_macro2::TokenStream>()?;
        Ok(keyword)
    };
    match syn::parse::Parser::parse2(keyword, input) {
        Ok(proc_macro2::TokenTree::Ident(ident))
            if !matches!(
                ident.to_string().as_str(),
                "fn" | "async" | "const" | "unsafe" | "extern"
            ) =>
        {
            syn::Error::new(
                ident.span(),
                format!("#[tool] goes on a fn, not on `{ident}`; {example}"),
            )
        }
        _ => syn::Error::new(
            proc_macro2::Span::call_site(),
            format!("#[tool] goes on a fn with a body; {example}"),
        ),
    }
}

/// Tool names are 1–128 characters of `A-Z a-z 0-9 _ - .` (MCP 2025-11-25, "Tool names").
fn tool_name(tool: &ToolFn) -> syn::Result<()> {
    let (name, span) = (&tool.name, tool.name_span);
    let rule = "tool names are 1 to 128 characters of A-Z, a-z, 0-9, `_`, `-` and `.`";
    if name.is_empty() {
        return Err(syn::Error::new(
            span,
            format!("the tool name is empty; {rule}"),
        ));
    }
    let len = name.chars().count();
    if len > MAX_NAME_LEN {
        return Err(syn::Error::new(
            span,
            format!("the tool name is {len} characters long; {rule}"),
        ));
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        return Err(syn::Error::new(
            span,
            format!("the tool name contains {bad:?}; {rule}"),
        ));
    }
    Ok(())
}

/// The message for a `#[tool]` in an `impl`; the expansion repeats it for an
/// associated fn without `self`, which only the compiler can place.
pub(crate) const FREE_FN: &str = "#[tool] goes on a free fn; use `State<T>` for shared data";

/// A tool is a free fn: there is no value to call a method on.
fn no_receiver(tool: &ToolFn) -> syn::Result<()> {
    match tool.item.sig.inputs.first() {
        Some(FnArg::Receiver(receiver)) => Err(syn::Error::new_spanned(receiver, FREE_FN)),
        _ => Ok(()),
    }
}

/// The schema is fixed at compile time, so there is nothing to instantiate generics with.
fn no_generics(tool: &ToolFn) -> syn::Result<()> {
    let generics = &tool.item.sig.generics;
    if !generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            generics,
            "a #[tool] fn cannot be generic; its input schema is fixed at compile time, so use concrete types",
        ));
    }
    if let Some(clause) = &generics.where_clause {
        return Err(syn::Error::new_spanned(
            clause,
            "a #[tool] fn cannot have a where clause; use concrete types",
        ));
    }
    for input in &tool.item.sig.inputs {
        if let FnArg::Typed(pat_type) = input
            && let Type::ImplTrait(impl_trait) = &*pat_type.ty
        {
            return Err(syn::Error::new_spanned(
                impl_trait,
                "a #[tool] parameter cannot be `impl Trait`; use a concrete type that implements Deserialize and JsonSchema",
            ));
        }
    }
    Ok(())
}

/// `unsafe`, `extern` and variadic fns cannot be called from generated safe code.
fn plain_signature(tool: &ToolFn) -> syn::Result<()> {
    let sig = &tool.item.sig;
    if let syn::Safety::Unsafe(token) = &sig.safety {
        return Err(syn::Error::new(
            token.span(),
            "a #[tool] fn cannot be `unsafe`; wrap the unsafe part in a safe fn",
        ));
    }
    if let Some(abi) = &sig.abi {
        return Err(syn::Error::new_spanned(
            abi,
            "a #[tool] fn cannot declare an ABI; remove the `extern`",
        ));
    }
    if let Some(variadic) = &sig.variadic {
        return Err(syn::Error::new(
            variadic.span(),
            "a #[tool] fn cannot be variadic",
        ));
    }
    Ok(())
}

/// Each parameter becomes a named property, so it needs a name.
fn plain_binding(param: &Param) -> syn::Result<()> {
    if param.ident.is_some() {
        return Ok(());
    }
    Err(syn::Error::new_spanned(
        &param.pat,
        "a #[tool] parameter must be a plain name like `city: String`, because the name becomes the argument's name; destructure inside the body",
    ))
}

/// Arguments are deserialized into owned values; a borrow has nothing to borrow from.
fn owned_type(param: &Param) -> syn::Result<()> {
    match &param.ty {
        Type::Reference(reference) => Err(syn::Error::new_spanned(
            reference,
            "a #[tool] parameter must be an owned type (e.g. `String` instead of `&str`), because arguments are deserialized into owned values",
        )),
        _ => Ok(()),
    }
}

/// Two parameters with the same wire name would make one property shadow the other.
///
/// Two bindings with the same identifier are left to rustc, which already
/// reports them on the second one; repeating that would be a second error.
fn unique_param_names(cx: &Ctxt, params: &[Param]) {
    let mut seen: HashMap<&str, &syn::Ident> = HashMap::new();
    for param in params {
        let Some(ident) = &param.ident else { continue };
        if let Some(first) = seen.insert(&param.wire_name, ident)
            && first != ident
        {
            cx.error_at(
                param.wire_span,
                format!(
                    "two parameters are named `{}`; each argument needs its own name (use #[arg(rename = \"...\")])",
                    param.wire_name
                ),
            );
        }
    }
}

/// `Context` and `State<T>` come from the runtime, not the client: there is
/// no argument for `#[arg]` to describe.
fn injected_without_arg(param: &Param) -> syn::Result<()> {
    if param.is_argument() {
        return Ok(());
    }
    match param.arg.any() {
        Some(lit) => Err(syn::Error::new(
            lit.span(),
            "this parameter is injected by the runtime (Context or State<T>), not sent by the client; `#[arg]` does not apply to it",
        )),
        None => Ok(()),
    }
}

/// A timeout of zero would end every call before it starts; the runtime
/// counts in milliseconds, so anything shorter is zero to it.
fn timeout_positive(tool: &ToolFn) -> syn::Result<()> {
    let Some(timeout) = tool.attr.timeout.get() else {
        return Ok(());
    };
    let message = if timeout.duration.is_zero() {
        "a timeout of zero would fail every call; give a positive duration"
    } else if timeout.duration < std::time::Duration::from_millis(1) {
        "a timeout under a millisecond would fail every call; give at least \"1ms\""
    } else {
        return Ok(());
    };
    Err(syn::Error::new(timeout.lit.span(), message))
}

/// Each scope is an OAuth scope token (RFC 6749 §3.3): one or more visible
/// ASCII characters but `"` and `\\`; a space would make two scopes of one.
/// The list names at least one, each once.
fn scope_tokens(cx: &Ctxt, tool: &ToolFn) {
    let Some(scopes) = tool.attr.scopes.get() else {
        return;
    };
    if scopes.lits.is_empty() {
        cx.error_at(
            scopes.key,
            "`scopes()` names no scope; list the OAuth scopes a caller needs, e.g. `scopes(\"files:write\")`, or leave the option out",
        );
    }
    let mut seen: Vec<String> = Vec::new();
    for lit in &scopes.lits {
        let scope = lit.value();
        let problem = if scope.is_empty() {
            Some("the scope is empty".to_owned())
        } else if scope.contains(' ') {
            Some("the scope contains a space, which separates scopes; give each scope as its own string".to_owned())
        } else {
            scope
                .chars()
                .find(|&c| !matches!(c, '!' | '#'..='[' | ']'..='~'))
                .map(|c| format!("the scope contains {c:?}"))
        };
        if let Some(problem) = problem {
            cx.error_at(
                lit.span(),
                format!(
                    "{problem}; an OAuth scope is one or more visible ASCII characters other than `\"` and `\\` (RFC 6749)"
                ),
            );
        } else if seen.contains(&scope) {
            cx.error_at(
                lit.span(),
                format!("the scope `{scope}` is listed twice; keep one"),
            );
        }
        seen.push(scope);
    }
}

/// `resumable` says what happens to a task whose worker is gone: without
/// `task = …` the tool never runs as one, and the flag would mean nothing.
fn resumable_needs_task(tool: &ToolFn) -> syn::Result<()> {
    match (tool.attr.resumable.get(), tool.attr.task.get()) {
        (Some((span, true)), None) => Err(syn::Error::new(
            *span,
            "`resumable` applies to task tools; add `task = \"optional\"` or `task = \"required\"`, or remove it",
        )),
        _ => Ok(()),
    }
}
