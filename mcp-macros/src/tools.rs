//! `tools![a, b, path::c]`: the registration list.
//!
//! Each path `p::f` becomes `p::__mcp_tool_f(p::f)`, the builder `#[tool]`
//! emitted beside `f`, handed the fn itself. A fn listed twice is refused
//! here; two fns that give their tools the same name are refused by a const
//! check over their `__mcp_name_*` consts, since only the compiler knows the
//! names of tools declared elsewhere.

use crate::ctxt::Ctxt;
use crate::hidden::HiddenNames;
use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Path, PathArguments, Token};

/// Entry point of `tools!`.
pub(crate) fn tools(input: TokenStream) -> TokenStream {
    let parser = Punctuated::<Path, Token![,]>::parse_terminated;
    let paths = match syn::parse::Parser::parse2(parser, input) {
        Ok(paths) => paths,
        Err(err) => return err.to_compile_error(),
    };
    let cx = Ctxt::new();
    let entries: Vec<Entry> = paths.iter().filter_map(|p| cx.ok(Entry::new(p))).collect();
    let mut pairs = Vec::new();
    for (j, later) in entries.iter().enumerate() {
        for earlier in &entries[..j] {
            if earlier.text == later.text {
                cx.error_at(
                    later.span,
                    format!(
                        "`{}` is listed twice; each tool is registered once",
                        later.text
                    ),
                );
            } else {
                pairs.push((earlier, later));
            }
        }
    }
    let errors = cx
        .check()
        .err()
        .into_iter()
        .flatten()
        .map(|err| err.to_compile_error());
    let check = unique_names(&pairs);
    let tools = entries.iter().map(|entry| {
        let (builder, path) = (&entry.builder, &entry.path);
        quote!(#builder(#path))
    });
    quote! {
        {
            #(#errors)*
            #check
            ::std::vec![#(#tools),*]
        }
    }
}

/// One listed tool.
struct Entry {
    /// The fn, as written.
    path: Path,
    /// Its builder and its name const, beside it.
    builder: Path,
    name: Path,
    /// The path as text, for comparisons and messages.
    text: String,
    span: Span,
}

impl Entry {
    fn new(path: &Path) -> syn::Result<Entry> {
        let Some(last) = path.segments.last() else {
            return Err(syn::Error::new(
                path.span(),
                "expected the path of a #[tool] fn",
            ));
        };
        if !matches!(last.arguments, PathArguments::None) {
            return Err(syn::Error::new(
                last.arguments.span(),
                "a #[tool] fn is not generic; list it without `<...>`",
            ));
        }
        let names = HiddenNames::of(&last.ident);
        let beside = |ident: syn::Ident| {
            let mut path = path.clone();
            if let Some(last) = path.segments.last_mut() {
                last.ident = ident;
            }
            path
        };
        Ok(Entry {
            path: path.clone(),
            builder: beside(names.builder),
            name: beside(names.name),
            text: path.to_token_stream().to_string().replace(' ', ""),
            span: path.span(),
        })
    }
}

/// A const item that fails to evaluate, with one error on the later path,
/// when two listed tools have the same name.
fn unique_names(pairs: &[(&Entry, &Entry)]) -> TokenStream {
    if pairs.is_empty() {
        return TokenStream::new();
    }
    let checks = pairs.iter().map(|(earlier, later)| {
        let (a, b) = (&earlier.name, &later.name);
        let message = format!(
            "`{}` and `{}` are tools with the same name; give one another name with #[tool(name = \"...\")]",
            earlier.text, later.text
        );
        quote_spanned! {later.span=>
            if __mcp_same(#a, #b) {
                ::core::panic!(#message);
            }
        }
    });
    quote! {
        const _: () = {
            const fn __mcp_same(a: &str, b: &str) -> bool {
                let (a, b) = (a.as_bytes(), b.as_bytes());
                if a.len() != b.len() {
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
}
