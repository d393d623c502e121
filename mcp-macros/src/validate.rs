//! The rules a `#[tool]` declaration must follow, one small function each.
//!
//! Every rule reports on the user's offending token with a sentence that says
//! what to do, and all rules run, so independent mistakes show up together.

use crate::ast::{Param, ToolFn};
use std::collections::HashMap;
use syn::spanned::Spanned;
use syn::{FnArg, Type};

/// The longest tool name the specification allows.
const MAX_NAME_LEN: usize = 128;

/// Adds `err` to the errors collected so far.
pub(crate) fn combine(errors: &mut Option<syn::Error>, err: syn::Error) {
    match errors {
        Some(existing) => existing.combine(err),
        None => *errors = Some(err),
    }
}

/// Runs every rule; `Err` carries all the mistakes found.
pub(crate) fn check(tool: &ToolFn) -> Result<(), syn::Error> {
    let mut errors = None;
    let mut report = |result: syn::Result<()>| {
        if let Err(err) = result {
            combine(&mut errors, err);
        }
    };
    report(tool_name(&tool.name, tool.name_span));
    report(no_receiver(tool));
    report(no_generics(tool));
    report(plain_signature(tool));
    for param in &tool.params {
        report(plain_binding(param));
        report(owned_type(&param.ty));
        report(injected_without_arg(param));
        report(header_value(param));
        report(header_type_rule(param));
    }
    report(unique_param_names(&tool.params));
    report(unique_headers(&tool.params));
    if let Some(timeout) = tool.attr.timeout.get() {
        report(timeout_millis(&timeout.value).map(|_| ()));
    }
    match errors {
        Some(err) => Err(err),
        None => Ok(()),
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
fn tool_name(name: &str, span: proc_macro2::Span) -> syn::Result<()> {
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
fn owned_type(ty: &Type) -> syn::Result<()> {
    match ty {
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
fn unique_param_names(params: &[Param]) -> syn::Result<()> {
    let mut seen: HashMap<&str, &syn::Ident> = HashMap::new();
    let mut errors = None;
    for param in params {
        let Some(ident) = &param.ident else { continue };
        if let Some(first) = seen.insert(&param.wire_name, ident)
            && first != ident
        {
            combine(
                &mut errors,
                syn::Error::new(
                    param.wire_span,
                    format!(
                        "two parameters are named `{}`; each argument needs its own name (use #[arg(rename = \"...\")])",
                        param.wire_name
                    ),
                ),
            );
        }
    }
    match errors {
        Some(err) => Err(err),
        None => Ok(()),
    }
}

/// `Context` and `State<T>` come from the runtime, not the client: there is
/// no argument for `#[arg]` to describe.
fn injected_without_arg(param: &Param) -> syn::Result<()> {
    if param.is_argument() {
        return Ok(());
    }
    let arg = &param.arg;
    let lit = arg
        .rename
        .get()
        .or(arg.description.get())
        .or(arg.header.get());
    match lit {
        Some(lit) => Err(syn::Error::new(
            lit.value.span(),
            "this parameter is injected by the runtime (Context or State<T>), not sent by the client; `#[arg]` does not apply to it",
        )),
        None => Ok(()),
    }
}

/// RFC 9110 `tchar`: the characters of a header field name.
fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// `x-mcp-header` values are non-empty RFC 9110 tokens (no spaces, no
/// control characters, no separators).
fn header_value(param: &Param) -> syn::Result<()> {
    let Some(header) = param.arg.header.get() else {
        return Ok(());
    };
    let lit = &header.value;
    let value = lit.value();
    let rule = "a header name is one or more RFC 9110 token characters: letters, digits and !#$%&'*+-.^_`|~";
    if value.is_empty() {
        return Err(syn::Error::new(
            lit.span(),
            format!("the header name is empty; {rule}"),
        ));
    }
    if let Some(bad) = value.chars().find(|c| c.is_control()) {
        return Err(syn::Error::new(
            lit.span(),
            format!("the header name contains the control character {bad:?}; {rule}"),
        ));
    }
    if let Some(bad) = value.chars().find(|c| !is_tchar(*c)) {
        return Err(syn::Error::new(
            lit.span(),
            format!("the header name contains {bad:?}; {rule}"),
        ));
    }
    Ok(())
}

/// What a header parameter's type is on the wire, judged by its spelling.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum HeaderType {
    String,
    Boolean,
    /// An integer type whose values fit in ±(2^53−1).
    SafeInteger,
    /// A signed integer type that can leave ±(2^53−1).
    WideSigned,
    /// An unsigned integer type that can exceed 2^53−1.
    WideUnsigned,
}

/// The header type of `ty` (or of `T` in `Option<T>`), if it may carry a header.
pub(crate) fn header_type(ty: &Type) -> Option<HeaderType> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    let name = last.ident.to_string();
    if name == "Option" {
        let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
            return None;
        };
        return match args.args.first()? {
            syn::GenericArgument::Type(inner) => {
                header_type(inner).filter(|_| args.args.len() == 1)
            }
            _ => None,
        };
    }
    if !last.arguments.is_empty() {
        return None;
    }
    Some(match name.as_str() {
        "String" => HeaderType::String,
        "bool" => HeaderType::Boolean,
        "i8" | "i16" | "i32" | "u8" | "u16" | "u32" => HeaderType::SafeInteger,
        "i64" | "i128" | "isize" => HeaderType::WideSigned,
        "u64" | "u128" | "usize" => HeaderType::WideUnsigned,
        _ => return None,
    })
}

/// Only string, integer and boolean arguments can be mirrored into a header
/// (`number` is banned: `1.0` and `1` would render differently).
fn header_type_rule(param: &Param) -> syn::Result<()> {
    if param.arg.header.get().is_none() || !param.is_argument() || header_type(&param.ty).is_some()
    {
        return Ok(());
    }
    let spelled = quote::ToTokens::to_token_stream(&param.ty).to_string();
    let is_float = spelled.contains("f32") || spelled.contains("f64");
    let why = if is_float {
        "floating-point numbers cannot be mirrored into a header (the spec bans `number`); use an integer or a String"
    } else {
        "a header can only mirror a String, an integer, a bool, or an Option of one"
    };
    Err(syn::Error::new_spanned(
        &param.ty,
        format!("this argument has a header, but {why}"),
    ))
}

/// Two headers equal up to case would be the same HTTP header.
fn unique_headers(params: &[Param]) -> syn::Result<()> {
    let mut seen: Vec<String> = Vec::new();
    let mut errors = None;
    for param in params {
        let Some(header) = param.arg.header.get() else {
            continue;
        };
        let value = header.value.value();
        if seen.iter().any(|s| s.eq_ignore_ascii_case(&value)) {
            combine(
                &mut errors,
                syn::Error::new(
                    header.value.span(),
                    format!(
                        "the header `{value}` is used twice in this tool (header names are case-insensitive); give each argument its own"
                    ),
                ),
            );
        }
        seen.push(value);
    }
    match errors {
        Some(err) => Err(err),
        None => Ok(()),
    }
}

/// `timeout = "30s"`: a whole number and a unit (`ms`, `s`, `m`, `h`).
pub(crate) fn timeout_millis(lit: &syn::LitStr) -> syn::Result<u64> {
    let text = lit.value();
    let rule = "a timeout is a whole number and a unit, like \"500ms\", \"30s\", \"2m\" or \"1h\"";
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let factor = match unit {
        "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        _ => {
            return Err(syn::Error::new(
                lit.span(),
                format!("`{text}` is not a timeout; {rule}"),
            ));
        }
    };
    let number: u64 = number
        .parse()
        .map_err(|_| syn::Error::new(lit.span(), format!("`{text}` is not a timeout; {rule}")))?;
    match number.checked_mul(factor) {
        Some(0) => Err(syn::Error::new(
            lit.span(),
            "a timeout of zero would fail every call; give a positive duration",
        )),
        Some(ms) => Ok(ms),
        None => Err(syn::Error::new(
            lit.span(),
            format!("`{text}` is too long a timeout"),
        )),
    }
}
