//! `resources![a, b, path::c]`: the registration list of `#[resource]` fns.
//!
//! Each path `p::f` becomes `p::__mcp_resource_f()`, the hidden fn
//! `#[resource]` emitted beside `f`. A path listed twice is refused here;
//! two resources at one URI are refused by a constant check over the
//! hidden `__MCP_RESOURCE_URI_f` consts, since only the compiler knows the
//! URIs of resources declared elsewhere. Both errors are on the later
//! entry.

use crate::ctxt::Ctxt;
use crate::resource::hidden_names;
use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{ToTokens, quote, quote_spanned};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Path, PathArguments, Token};

/// Entry point of `resources!`: `[$crate] paths...`, as
/// `mcpfn_runtime::resources!` forwards it.
pub(crate) fn resources(input: TokenStream) -> TokenStream {
    let mut input = input.into_iter();
    let krate = match input.next() {
        Some(TokenTree::Group(group)) => group.stream(),
        _ => {
            return syn::Error::new(Span::call_site(), "use `mcpfn_runtime::resources!`")
                .to_compile_error();
        }
    };
    let pm = quote!(#krate::__private);
    let parser = Punctuated::<Path, Token![,]>::parse_terminated;
    let paths = match syn::parse::Parser::parse2(parser, input.collect()) {
        Ok(paths) => paths,
        Err(err) => return err.to_compile_error(),
    };
    let cx = Ctxt::new();
    let mut entries: Vec<Entry> = Vec::new();
    for path in &paths {
        let Some(entry) = cx.ok(Entry::new(path)) else {
            continue;
        };
        if entries.iter().any(|earlier| earlier.text == entry.text) {
            cx.error_at(
                path.span(),
                format!(
                    "`{}` is listed twice; each resource is registered once",
                    entry.text
                ),
            );
            continue;
        }
        entries.push(entry);
    }
    let errors = cx
        .check()
        .err()
        .into_iter()
        .flatten()
        .map(|err| err.to_compile_error());
    let mut checks = Vec::new();
    for (j, later) in entries.iter().enumerate() {
        for earlier in &entries[..j] {
            let (a, b) = (&earlier.uri, &later.uri);
            let message = format!(
                "`{}` is at the same URI as `{}`; each resource is registered at one URI",
                later.text, earlier.text
            );
            checks.push(quote_spanned! {later.span=>
                const _: () = ::core::assert!(!#pm::same_uri(#a, #b), #message);
            });
        }
    }
    let builds = entries.iter().map(|entry| &entry.build);
    quote! {
        {
            #(#errors)*
            #(#checks)*
            ::std::vec![#(#builds()),*]
        }
    }
}

/// One listed resource.
struct Entry {
    /// The path of its hidden build fn.
    build: Path,
    /// The path of its hidden URI const.
    uri: Path,
    /// The path as written, for comparisons and messages.
    text: String,
    span: Span,
}

impl Entry {
    fn new(path: &Path) -> syn::Result<Entry> {
        let Some(last) = path.segments.last() else {
            return Err(syn::Error::new(
                path.span(),
                "expected the path of a #[resource] fn",
            ));
        };
        if !matches!(last.arguments, PathArguments::None) {
            return Err(syn::Error::new(
                last.arguments.span(),
                "a #[resource] fn is not generic; list it without `<...>`",
            ));
        }
        let (build_ident, uri_ident) = hidden_names(&last.ident);
        let with_last = |ident: syn::Ident| {
            let mut hidden = path.clone();
            if let Some(segment) = hidden.segments.last_mut() {
                segment.ident = ident;
            }
            hidden
        };
        Ok(Entry {
            build: with_last(build_ident),
            uri: with_last(uri_ident),
            text: path.to_token_stream().to_string().replace(' ', ""),
            span: path.span(),
        })
    }
}
