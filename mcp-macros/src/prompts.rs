//! `prompts![a, m::b]`: the registration list of `#[prompt]` fns.
//!
//! Each path `m::f` becomes a call of `m::__mcp_prompt_f()`, the builder
//! `#[prompt]` emitted beside `f`. A fn listed twice is refused here; two
//! fns whose prompts have the same name by a const check over the names
//! `#[prompt]` emitted (`__mcp_prompt_name_f`), since only the compiler
//! knows the names of prompts declared elsewhere.

use crate::ctxt::Ctxt;
use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{ToTokens, quote, quote_spanned};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Path, Token};

/// Entry point of `prompts!`: `[$crate] paths...`, as
/// `mcpfn_runtime::prompts!` forwards it.
pub(crate) fn prompts(input: TokenStream) -> TokenStream {
    let mut input = input.into_iter();
    if !matches!(input.next(), Some(TokenTree::Group(_))) {
        return syn::Error::new(Span::call_site(), "use `mcpfn_runtime::prompts!`")
            .to_compile_error();
    }
    let parser = Punctuated::<Path, Token![,]>::parse_terminated;
    let paths = match syn::parse::Parser::parse2(parser, input.collect()) {
        Ok(paths) => paths,
        Err(err) => return err.to_compile_error(),
    };
    let cx = Ctxt::new();
    let text = |path: &Path| path.to_token_stream().to_string().replace(' ', "");
    let mut checks = Vec::new();
    let mut builds = Vec::new();
    for (j, later) in paths.iter().enumerate() {
        let Some((build, name)) = hidden(later) else {
            cx.error_spanned_by(later, "expected the path of a #[prompt] fn");
            continue;
        };
        for earlier in paths.iter().take(j) {
            if text(earlier) == text(later) {
                cx.error_spanned_by(
                    later,
                    format!(
                        "`{}` is listed twice; each prompt is registered once",
                        text(later)
                    ),
                );
            } else if let Some((_, earlier_name)) = hidden(earlier) {
                let message = format!(
                    "`{}` and `{}` are prompts with the same name; give one another name with #[prompt(name = \"...\")]",
                    text(earlier),
                    text(later)
                );
                checks.push(quote_spanned! {later.span()=>
                    if __mcp_same(#earlier_name, #name) {
                        ::core::panic!(#message);
                    }
                });
            }
        }
        builds.push(quote!(#build()));
    }
    let errors = cx
        .check()
        .err()
        .into_iter()
        .flatten()
        .map(|err| err.to_compile_error());
    let check = (!checks.is_empty()).then(|| {
        quote! {
            const _: () = {
                const fn __mcp_same(a: &::core::primitive::str, b: &::core::primitive::str) -> ::core::primitive::bool {
                    let (a, b) = (a.as_bytes(), b.as_bytes());
                    if a.is_empty() || a.len() != b.len() {
                        return false;
                    }
                    let mut i = 0;
                    while i < a.len() {
                        if a[i] != b[i] {
                            return false;
                        }
                        i += 1;
                    }
                    true
                }
                #(#checks)*
            };
        }
    });
    quote! {
        {
            #(#errors)*
            #check
            ::std::vec![#(#builds),*]
        }
    }
}

/// The paths of the builder and the name constant `#[prompt]` put beside
/// the fn `path` names (spanned on its name, where rustc reports a fn
/// without `#[prompt]`).
fn hidden(path: &Path) -> Option<(Path, Path)> {
    let last = path.segments.last()?;
    let (build, name) = crate::prompt::hidden_names(&last.ident);
    let swap = |ident| {
        let mut swapped = path.clone();
        if let Some(segment) = swapped.segments.last_mut() {
            segment.ident = ident;
            segment.arguments = syn::PathArguments::None;
        }
        swapped
    };
    Some((swap(build), swap(name)))
}
