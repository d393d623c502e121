//! The typed view of an annotated fn: what the tool is called, what it takes and
//! what it returns, with references to the user's tokens for spans.
//!
//! The second phase: built from `attr`'s values and the fn; everything
//! `expand` needs is decided here (which parameters are injected, what a
//! header carries and its bounds), so no later phase looks at spellings again.

use crate::attr::{ArgAttr, ToolAttr};
use crate::ctxt::Ctxt;
use proc_macro2::Span;
use syn::{FnArg, GenericArgument, ItemFn, LitStr, Pat, PathArguments, ReturnType, Type};

/// A `#[tool]` fn, read but not yet validated.
pub(crate) struct ToolFn {
    pub(crate) attr: ToolAttr,
    /// The fn as it is re-emitted: helper attributes stripped.
    pub(crate) item: ItemFn,
    /// The tool's name and the token it came from.
    pub(crate) name: String,
    pub(crate) name_span: Span,
    pub(crate) docs: Vec<syn::Expr>,
    pub(crate) params: Vec<Param>,
    pub(crate) output: Output,
}

/// What a parameter is: an argument from the client, or something the
/// runtime injects (never in the inputSchema).
pub(crate) enum ParamKind {
    /// One property of the inputSchema.
    Argument,
    /// The call's `Context`.
    Context,
    /// `State<T>`: application state registered on the server.
    State(Box<Type>),
}

/// One parameter of the fn.
pub(crate) struct Param {
    pub(crate) kind: ParamKind,
    /// The binding, or `None` when the pattern is not a plain identifier.
    pub(crate) ident: Option<syn::Ident>,
    pub(crate) pat: Pat,
    pub(crate) ty: Type,
    /// The property name on the wire.
    pub(crate) wire_name: String,
    pub(crate) wire_span: Span,
    pub(crate) docs: Vec<syn::Expr>,
    pub(crate) arg: ArgAttr,
    /// `#[arg(header = "...")]`, with what the type carries.
    pub(crate) header: Option<Header>,
}

/// An argument mirrored into the HTTP header `Mcp-Param-<name>`.
pub(crate) struct Header {
    pub(crate) name: LitStr,
    /// What the parameter's type is on the wire, or why it cannot carry a header.
    pub(crate) ty: Result<HeaderType, Unfit>,
}

/// Why a type cannot carry a header.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unfit {
    /// `f32` or `f64` (or an `Option` of one): the spec bans `number`.
    Float,
    /// Anything else that is not a string, an integer or a bool.
    Other,
}

/// What a header parameter's type is on the wire, judged by its spelling.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum HeaderType {
    String,
    Boolean,
    /// An integer; `range` bounds a type that can leave ±(2^53−1) to the
    /// integers every JSON number reader keeps exactly (the runtime enforces
    /// the bound at call time).
    Integer {
        range: Option<(i64, i64)>,
    },
}

/// The largest integer every JSON number reader keeps exactly: 2^53 − 1.
const MAX_SAFE_INTEGER: i64 = 9_007_199_254_740_991;

impl HeaderType {
    /// The header type of `ty` (or of `T` in `Option<T>`), if it may carry a header.
    fn of(ty: &Type) -> Result<HeaderType, Unfit> {
        let Type::Path(path) = ty else {
            return Err(Unfit::Other);
        };
        let Some(last) = path.path.segments.last() else {
            return Err(Unfit::Other);
        };
        let name = last.ident.to_string();
        match (&last.arguments, name.as_str()) {
            (PathArguments::AngleBracketed(args), "Option") if args.args.len() == 1 => {
                match args.args.first() {
                    Some(GenericArgument::Type(inner)) => HeaderType::of(inner),
                    _ => Err(Unfit::Other),
                }
            }
            (PathArguments::None, "String") => Ok(HeaderType::String),
            (PathArguments::None, "bool") => Ok(HeaderType::Boolean),
            (PathArguments::None, "i8" | "i16" | "i32" | "u8" | "u16" | "u32") => {
                Ok(HeaderType::Integer { range: None })
            }
            (PathArguments::None, "i64" | "i128" | "isize") => Ok(HeaderType::Integer {
                range: Some((-MAX_SAFE_INTEGER, MAX_SAFE_INTEGER)),
            }),
            (PathArguments::None, "u64" | "u128" | "usize") => Ok(HeaderType::Integer {
                range: Some((0, MAX_SAFE_INTEGER)),
            }),
            (PathArguments::None, "f32" | "f64") => Err(Unfit::Float),
            _ => Err(Unfit::Other),
        }
    }
}

/// What the fn returns, as far as the conversion into a result cares.
pub(crate) struct Output {
    /// Whether the fn returns a `Result` (any path ending in `Result`).
    pub(crate) fallible: bool,
    /// The `E` of `Result<T, E>`, when it is spelled out (an alias such as
    /// `io::Result<T>` hides it); errors about it point there.
    pub(crate) error: Option<Type>,
    pub(crate) value: OutputValue,
    /// The span errors about the return type point at.
    pub(crate) span: Span,
}

/// The success value of a tool.
pub(crate) enum OutputValue {
    /// Content the runtime turns into content blocks: `()`, `String`, `&str`,
    /// `Content`, `Vec<Content>`. No outputSchema.
    Content(Type),
    /// Any other type: serialized into `structuredContent`, with an outputSchema.
    Structured(Type),
}

impl ToolFn {
    /// Reads the fn, taking the helper attributes off its parameters (rustc
    /// would reject them). Only `#[arg]` syntax errors are recorded here,
    /// never the fn's meaning: that is `validate`'s job.
    pub(crate) fn from_syn(cx: &Ctxt, attr: ToolAttr, mut item: ItemFn) -> ToolFn {
        let docs = crate::attr::docs(&item.attrs);
        let (name, name_span) = match attr.name.get() {
            Some(lit) => (lit.value(), lit.span()),
            None => (item.sig.ident.to_string(), item.sig.ident.span()),
        };
        let mut params = Vec::new();
        for input in item.sig.inputs.iter_mut() {
            let FnArg::Typed(pat_type) = input else {
                continue;
            };
            let param_docs = crate::attr::take_docs(&mut pat_type.attrs);
            let arg = ArgAttr::take(cx, &mut pat_type.attrs);
            let ident = match &*pat_type.pat {
                Pat::Ident(pat) if pat.by_ref.is_none() && pat.subpat.is_none() => {
                    Some(pat.ident.clone())
                }
                _ => None,
            };
            let (wire_name, wire_span) = match (arg.rename.get(), &ident) {
                (Some(lit), _) => (lit.value(), lit.span()),
                (None, Some(ident)) => (unraw(ident), ident.span()),
                (None, None) => (String::new(), syn::spanned::Spanned::span(&pat_type.pat)),
            };
            let header = arg.header.get().map(|name| Header {
                name: name.clone(),
                ty: HeaderType::of(&pat_type.ty),
            });
            params.push(Param {
                kind: ParamKind::of(&pat_type.ty),
                ident,
                pat: (*pat_type.pat).clone(),
                ty: (*pat_type.ty).clone(),
                wire_name,
                wire_span,
                docs: param_docs,
                arg,
                header,
            });
        }
        let output = Output::from_return(&item.sig.output);
        item.attrs.retain(|a| !a.path().is_ident("tool"));
        ToolFn {
            attr,
            item,
            name,
            name_span,
            docs,
            params,
            output,
        }
    }
}

impl ParamKind {
    /// Injected parameters are recognised by their type's last path segment:
    /// `Context` and `State<T>`, however they are imported. A macro cannot
    /// resolve paths, so `expand` asserts, on the parameter's type, that it
    /// is the runtime's type: a user's own `Context` fails to compile with one
    /// error instead of being silently replaced.
    fn of(ty: &Type) -> ParamKind {
        let Type::Path(path) = ty else {
            return ParamKind::Argument;
        };
        let Some(last) = path.path.segments.last() else {
            return ParamKind::Argument;
        };
        match (&last.arguments, last.ident.to_string().as_str()) {
            (PathArguments::None, "Context") => ParamKind::Context,
            (PathArguments::AngleBracketed(args), "State") if args.args.len() == 1 => {
                match args.args.first() {
                    Some(GenericArgument::Type(inner)) => ParamKind::State(Box::new(inner.clone())),
                    _ => ParamKind::Argument,
                }
            }
            _ => ParamKind::Argument,
        }
    }
}

impl Param {
    /// Whether the client sends this parameter (it is in the inputSchema).
    pub(crate) fn is_argument(&self) -> bool {
        matches!(self.kind, ParamKind::Argument)
    }
}

fn unraw(ident: &syn::Ident) -> String {
    let text = ident.to_string();
    text.strip_prefix("r#").map(str::to_owned).unwrap_or(text)
}

impl Output {
    fn from_return(ret: &ReturnType) -> Output {
        match ret {
            ReturnType::Default => Output {
                fallible: false,
                error: None,
                value: OutputValue::Content(syn::parse_quote!(())),
                span: Span::call_site(),
            },
            ReturnType::Type(_, ty) => {
                let span = syn::spanned::Spanned::span(&**ty);
                match result_types(ty) {
                    Some((ok, error)) => Output {
                        fallible: true,
                        error: error.cloned(),
                        value: OutputValue::classify(ok),
                        span,
                    },
                    None => Output {
                        fallible: false,
                        error: None,
                        value: OutputValue::classify(ty),
                        span,
                    },
                }
            }
        }
    }
}

impl OutputValue {
    fn classify(ty: &Type) -> OutputValue {
        if is_content_type(ty) {
            OutputValue::Content(ty.clone())
        } else {
            OutputValue::Structured(ty.clone())
        }
    }
}

/// `T` and, if given, `E` of a type spelled `...::Result<T, E>`, which covers
/// `std::io::Result<T>` and `anyhow::Result<T>` aliases too.
fn result_types(ty: &Type) -> Option<(&Type, Option<&Type>)> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    if last.ident != "Result" {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    let mut types = args.args.iter().filter_map(|arg| match arg {
        GenericArgument::Type(ty) => Some(ty),
        _ => None,
    });
    let ok = types.next()?;
    Some((ok, types.next()))
}

/// Types the runtime renders as content blocks instead of structured output.
fn is_content_type(ty: &Type) -> bool {
    match ty {
        Type::Tuple(tuple) => tuple.elems.is_empty(),
        Type::Reference(reference) => is_named(&reference.elem, "str"),
        Type::Paren(inner) => is_content_type(&inner.elem),
        Type::Path(path) => {
            let Some(last) = path.path.segments.last() else {
                return false;
            };
            match last.ident.to_string().as_str() {
                "String" | "Content" => true,
                "Vec" => match &last.arguments {
                    PathArguments::AngleBracketed(args) => matches!(
                        args.args.first(),
                        Some(GenericArgument::Type(inner)) if is_named(inner, "Content")
                    ),
                    _ => false,
                },
                _ => false,
            }
        }
        _ => false,
    }
}

fn is_named(ty: &Type, name: &str) -> bool {
    match ty {
        Type::Path(path) => path.path.segments.last().is_some_and(|s| s.ident == name),
        _ => false,
    }
}
