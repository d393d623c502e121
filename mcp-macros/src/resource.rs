//! `#[resource("uri", ...)]`: a plain async fn becomes a resource, at a
//! fixed URI or at every URI its RFC 6570 template matches, the template's
//! variables being the fn's parameters.
//!
//! The phases of `#[tool]`, in two files as a resource has few options:
//! [`ResourceAttr::parse`] (in `attr`) reads the attribute (a repeated or
//! unknown key is an error on it), [`ResourceFn::from_syn`] reads the fn
//! and checks it against the template (one spanned error per mistake, all
//! reported together through the [`Ctxt`]), and [`expand`] makes the
//! tokens: the user's fn (less its parameters' `#[complete(f)]`) and the
//! hidden key const `__mcp_resource_<fn>` that `resources![...]` reads (see
//! `hidden`): the URI, which the list compares, and the impl that builds
//! the resource. A failed expansion emits the fn, the errors and a key
//! that builds nothing, so a list naming it adds no error.

use crate::ctxt::Ctxt;
use crate::hidden::{Kind, fallback, hidden_items, key_type};
use crate::uri_template::{Variable, variables};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::parse::{ParseStream, Parser};
use syn::spanned::Spanned;
use syn::{FnArg, GenericArgument, ItemFn, LitStr, Pat, PathArguments, Type};

mod attr;
use attr::ResourceAttr;

/// Entry point of `#[resource]`.
pub(crate) fn resource(args: TokenStream, input: TokenStream) -> TokenStream {
    let mut item: ItemFn = match syn::parse2(input.clone()) {
        Ok(item) => item,
        Err(_) => {
            let err = syn::Error::new(
                Span::call_site(),
                "#[resource] goes on an async fn that returns the resource's contents",
            )
            .to_compile_error();
            return quote!(#err #input);
        }
    };
    let cx = Ctxt::new();
    // Taken off first, so the fn is re-emitted without them even when the
    // attribute fails to parse.
    let completes: Vec<Option<syn::Path>> = item
        .sig
        .inputs
        .iter_mut()
        .map(|input| match input {
            FnArg::Typed(pat_type) => crate::complete::take(&cx, &mut pat_type.attrs),
            FnArg::Receiver(_) => None,
        })
        .collect();
    let attr = match Parser::parse2(
        |input: ParseStream<'_>| ResourceAttr::parse(&cx, input),
        args,
    ) {
        Ok(attr) => Some(attr),
        Err(err) => {
            cx.syn_error(err);
            None
        }
    };
    let resource = attr.map(|attr| ResourceFn::from_syn(&cx, attr, &item, completes));
    match (cx.check(), resource) {
        (Ok(()), Some(resource)) => expand(&resource, &item),
        (Err(errors), resource) => {
            let krate = resource.map_or_else(|| quote!(::mcpfn_runtime), |r| r.attr.krate());
            fallback(Kind::Resource, item, errors, &krate)
        }
        // Not reached: a failed parse records its error.
        (Ok(()), None) => quote!(#item),
    }
}

/// How a parameter gets its value.
enum ParamKind {
    /// From the template variable of its name; `optional` for `Option<T>`.
    Variable { name: String, optional: bool },
    /// The read's `Context`.
    Context,
    /// `State<T>`.
    State(Box<Type>),
}

struct Param {
    ty: Type,
    kind: ParamKind,
    /// `#[complete(path)]`: the fn that completes its variable.
    complete: Option<syn::Path>,
}

/// A `#[resource]` fn, read and checked.
struct ResourceFn {
    attr: ResourceAttr,
    name: String,
    docs: Vec<syn::Expr>,
    params: Vec<Param>,
}

impl ResourceFn {
    /// `completes` are the parameters' `#[complete]` paths, in order.
    fn from_syn(
        cx: &Ctxt,
        attr: ResourceAttr,
        item: &ItemFn,
        completes: Vec<Option<syn::Path>>,
    ) -> ResourceFn {
        let sig = &item.sig;
        if sig.asyncness.is_none() {
            cx.error_spanned_by(sig.fn_token, "a #[resource] fn is async: write `async fn`");
        }
        if !sig.generics.params.is_empty() {
            cx.error_spanned_by(&sig.generics, "a #[resource] fn is not generic");
        }
        // A malformed template is the one error: its parameters are not
        // checked against it.
        let template = match variables(&attr.uri.value()) {
            Ok(variables) => Some(variables),
            Err(reason) => {
                cx.error_spanned_by(&attr.uri, format!("malformed URI template: {reason}"));
                None
            }
        };
        if attr.uri.value().is_empty() {
            cx.error_spanned_by(&attr.uri, "the URI is empty");
        }
        if let Some(priority) = &attr.priority
            && !priority
                .base10_parse::<f64>()
                .is_ok_and(|p| (0.0..=1.0).contains(&p))
        {
            cx.error_spanned_by(priority, "`priority` is from 0.0 to 1.0");
        }
        let mut params = Vec::new();
        for (input, complete) in sig.inputs.iter().zip(completes) {
            let pat_type = match input {
                FnArg::Receiver(receiver) => {
                    cx.error_spanned_by(receiver, "a #[resource] fn is a free fn, without `self`; share data through a State<T> parameter");
                    continue;
                }
                FnArg::Typed(pat_type) => pat_type,
            };
            let Pat::Ident(pat) = &*pat_type.pat else {
                cx.error_spanned_by(
                    &pat_type.pat,
                    "name this parameter after its template variable: `id: String`",
                );
                continue;
            };
            let ident = pat.ident.clone();
            let kind = match injected(&pat_type.ty) {
                Some(kind) => kind,
                None => {
                    let name = ident.unraw().to_string();
                    if let Some(template) = &template
                        && !template.iter().any(|v: &Variable| v.name == name)
                    {
                        cx.error_spanned_by(
                            &ident,
                            format!(
                                "`{name}` is not a variable of the URI template {:?}; add `{{{name}}}` to it, or remove the parameter",
                                attr.uri.value()
                            ),
                        );
                    }
                    ParamKind::Variable {
                        optional: option_inner(&pat_type.ty).is_some(),
                        name,
                    }
                }
            };
            if let (Some(path), ParamKind::Context | ParamKind::State(_)) = (&complete, &kind) {
                cx.error_spanned_by(
                    path,
                    "only a template variable is completed; put `#[complete]` on a parameter named after one",
                );
            }
            params.push(Param {
                ty: (*pat_type.ty).clone(),
                kind,
                complete,
            });
        }
        for variable in template.iter().flatten() {
            let taken = params.iter().any(
                |p| matches!(&p.kind, ParamKind::Variable { name, .. } if *name == variable.name),
            );
            if !taken {
                cx.error_spanned_by(
                    &attr.uri,
                    format!(
                        "the template variable `{0}` has no parameter; add `{0}: String` (or any FromStr type{1}) to the fn",
                        variable.name,
                        if variable.query { ", in an Option" } else { "" }
                    ),
                );
            }
        }
        let name = attr
            .name
            .as_ref()
            .map_or_else(|| sig.ident.unraw().to_string(), LitStr::value);
        ResourceFn {
            attr,
            name,
            docs: crate::attr::docs(&item.attrs),
            params,
        }
    }
}

/// `Context` and `State<T>`, by their last path segment (as for tools).
fn injected(ty: &Type) -> Option<ParamKind> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    match (&last.arguments, last.ident.to_string().as_str()) {
        (PathArguments::None, "Context") => Some(ParamKind::Context),
        (PathArguments::AngleBracketed(args), "State") if args.args.len() == 1 => {
            match args.args.first() {
                Some(GenericArgument::Type(inner)) => {
                    Some(ParamKind::State(Box::new(inner.clone())))
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// The `T` of a type spelled `Option<T>`.
fn option_inner(ty: &Type) -> Option<&Type> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.first() {
        Some(GenericArgument::Type(inner)) if args.args.len() == 1 => Some(inner),
        _ => None,
    }
}

fn expand(resource: &ResourceFn, item: &ItemFn) -> TokenStream {
    let attr = &resource.attr;
    let krate = attr.krate();
    let pm = quote!(#krate::__private);
    let fn_ident = &item.sig.ident;
    let uri = &attr.uri;
    let name = &resource.name;
    let read = quote!(__mcp_read);
    // Bound to names of ours: a parameter named like the fn would shadow it.
    let hidden = |at: usize| format_ident!("__mcp_arg_{}", at);
    let bindings = resource.params.iter().enumerate().map(|(at, param)| {
        let (ident, ty) = (hidden(at), &param.ty);
        let value = match &param.kind {
            ParamKind::Variable {
                name,
                optional: true,
            } => {
                let inner = option_inner(ty);
                quote_spanned!(ty.span()=> #pm::optional_variable::<#inner>(&#read, #name)?)
            }
            ParamKind::Variable { name, .. } => {
                quote_spanned!(ty.span()=> #pm::variable::<#ty>(&#read, #name)?)
            }
            ParamKind::Context => quote!(::core::clone::Clone::clone(#read.context())),
            ParamKind::State(inner) => quote!(#pm::resource_state::<#inner>(&#read)?),
        };
        quote!(let #ident: #ty = #value;)
    });
    let args = (0..resource.params.len()).map(hidden);
    let output_span = match &item.sig.output {
        syn::ReturnType::Default => item.sig.ident.span(),
        syn::ReturnType::Type(_, ty) => ty.span(),
    };
    let convert =
        quote_spanned!(output_span=> #pm::IntoReadResult::into_read_result(__mcp_out, &#read));
    let mut options = Vec::new();
    if let Some(title) = &attr.title {
        options.push(quote!(.title(#title)));
    }
    match (&attr.description, resource.docs.as_slice()) {
        (Some(description), _) => options.push(quote!(.description(#description))),
        (None, []) => {}
        (None, docs) => options.push(quote!(.description(#pm::doc_text(&[#(#docs),*])))),
    }
    if let Some(mime_type) = &attr.mime_type {
        options.push(quote!(.mime_type(#mime_type)));
    }
    if let Some(size) = &attr.size {
        options.push(quote!(.size(#size)));
    }
    for (_, role) in &attr.audience {
        let role = format_ident!("{}", role);
        options.push(quote!(.audience(#krate::Role::#role)));
    }
    if let Some(priority) = &attr.priority {
        options.push(quote!(.priority(#priority)));
    }
    for icon in &attr.icons {
        options.push(quote!(.icon(#krate::Icon::new(#icon))));
    }
    for param in &resource.params {
        if let (ParamKind::Variable { name, .. }, Some(path)) = (&param.kind, &param.complete) {
            options.push(crate::complete::expand(&pm, name, path));
        }
    }
    // A fn that cannot ask anything of its read's context is polled once
    // on the connection's loop, as a `#[tool]` fn without one is.
    let inline = !resource
        .params
        .iter()
        .any(|p| matches!(p.kind, ParamKind::Context));
    options.push(quote!(.runs_inline(#inline)));
    let ty = key_type(item, &pm);
    let hidden = hidden_items(Kind::Resource, item, |key| {
        quote! {
            const #key: #ty = {
                // The impls' own type, so that the user's crate may write
                // them; `pub`, as `resources!` in another module infers it.
                #[allow(non_camel_case_types, unreachable_pub)]
                pub struct __McpLocal;
                impl #pm::KeyInfo<__McpLocal> for #ty {
                    const NAME: &'static ::core::primitive::str = #uri;
                    const DECLARED: ::core::primitive::bool = true;
                }
                // The list hands over the fn so that rustc checks the path
                // it wrote (a private fn is its one error); the resource
                // calls the fn by its name, in scope here.
                impl<__McpF> #pm::BuildListed<__McpLocal, #krate::Resource, __McpF, ()> for #ty {
                    #[allow(clippy::needless_question_mark)]
                    fn build(_: __McpF) -> #krate::Resource {
                        #pm::built(
                            #pm::ResourceBuilder::new(#uri, #name, |#read: #krate::ResourceRead| {
                                ::std::boxed::Box::pin(async move {
                                    #(#bindings)*
                                    let __mcp_out = #fn_ident(#(#args),*).await;
                                    #convert
                                })
                            })
                            #(#options)*
                        )
                    }
                }
                #pm::ListKey
            };
        }
    });
    quote! {
        #item
        #hidden
    }
}
