//! `tools![a, m::b]`, `prompts![…]`, `resources![…]`: the registration
//! lists, one mechanism for the three kinds of declared fn.
//!
//! Each path `p::f` becomes `build::<Item>(probe, p::f)`: the probe is a
//! closure whose type is that of the key const (`__mcp_tool_f`,
//! `__mcp_prompt_f` or `__mcp_resource_f`) the attribute emitted beside `f`
//! when there is one, and a type with no item when `f` is a plain fn (see
//! `mcpfn_runtime::__private::ListKey`), so a plain fn is one error of ours,
//! on its path, instead of rustc's "cannot find `__mcp_tool_f`". A fn listed
//! twice is refused here; two fns that give their items the same name (or
//! URI) are refused by a const check over the names the probes find, since
//! only the compiler knows the names of items declared elsewhere.

use crate::ctxt::Ctxt;
use crate::hidden::Kind;
use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{ToTokens, quote, quote_spanned};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Path, PathArguments, Token};

/// Entry point of the three lists: `[$crate] paths...`, as
/// `mcpfn_runtime::tools!` (and the others) forward it, so that the
/// expansion names the runtime by `$crate`.
pub(crate) fn list(kind: Kind, input: TokenStream) -> TokenStream {
    let mut input = input.into_iter();
    let krate = match input.next() {
        Some(TokenTree::Group(group)) => group.stream(),
        _ => {
            let message = format!("use `mcpfn_runtime::{}!`", kind.list());
            return syn::Error::new(Span::call_site(), message).to_compile_error();
        }
    };
    let pm = quote!(#krate::__private);
    let parser = Punctuated::<Path, Token![,]>::parse_terminated;
    let paths = match syn::parse::Parser::parse2(parser, input.collect()) {
        Ok(paths) => paths,
        Err(err) => return err.to_compile_error(),
    };
    let cx = Ctxt::new();
    let entries: Vec<Entry> = paths
        .iter()
        .filter_map(|p| cx.ok(Entry::new(kind, p, &pm)))
        .collect();
    let mut pairs = Vec::new();
    for (j, later) in entries.iter().enumerate() {
        for earlier in &entries[..j] {
            if earlier.text == later.text {
                cx.error_at(
                    later.span,
                    format!(
                        "`{}` is listed twice; each {} is registered once",
                        later.text,
                        kind.attr()
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
    let declared = entries
        .iter()
        .map(|entry| entry.is_declared_check(kind, &pm));
    let check = unique_names(kind, &pairs, &pm);
    let item = kind.item(&krate);
    let items = entries.iter().map(|entry| {
        let (probe, path) = (&entry.probe, &entry.path);
        quote! {{
            #[allow(unreachable_code, unreachable_patterns, unused_variables, non_upper_case_globals)]
            let __mcp_probe = #probe;
            #pm::build::<#item, _, _, _, _, _>(__mcp_probe, #path)
        }}
    });
    quote! {
        {
            #(#errors)*
            #(#declared)*
            #check
            ::std::vec![#(#items),*]
        }
    }
}

/// One listed fn.
struct Entry {
    /// The fn, as written.
    path: Path,
    /// The closure whose type leads to the item (see the module docs).
    probe: TokenStream,
    /// The path as text, for comparisons and messages.
    text: String,
    /// The whole path, for errors about the entry.
    span: Span,
    /// Its last segment, the fn's name, for "not a #[tool] fn".
    name_span: Span,
}

impl Entry {
    fn new(kind: Kind, path: &Path, pm: &TokenStream) -> syn::Result<Entry> {
        let attr = kind.attr();
        let Some(last) = path.segments.last() else {
            return Err(syn::Error::new(
                path.span(),
                format!("expected the path of a #[{attr}] fn"),
            ));
        };
        if !matches!(last.arguments, PathArguments::None) {
            return Err(syn::Error::new_spanned(
                &last.arguments,
                format!("a #[{attr}] fn is not generic; list it without `<...>`"),
            ));
        }
        let key = kind.key(&last.ident);
        let find = quote!(|| match loop {} { #key => #key });
        let mut prefix = path.clone();
        prefix.segments.pop();
        prefix.segments.pop_punct();
        let probe = match prefix.segments.last() {
            // `f`: the key const, where it is in scope (a module's item or a
            // block's), is the pattern; elsewhere the pattern binds.
            None => find,
            // `Type::f`, an associated fn, cannot be listed (the attribute
            // says so on the fn); its key is named through the type, as a
            // glob import from a type would fail. An inherent item comes
            // before a trait's, so a failed attribute's key is found, and
            // the fallback const of the local trait otherwise. Told apart
            // from a module by the case of its name, as a macro cannot
            // resolve paths: a plain fn in a module named with a capital
            // gets rustc's "cannot find" error, and an associated fn of a
            // lowercase type rustc's error on the `use`.
            Some(segment) if segment.ident == "Self" || starts_upper(&segment.ident) => {
                let mut keyed = path.clone();
                if let Some(last) = keyed.segments.last_mut() {
                    last.ident = key.clone();
                }
                quote! {{
                    #[allow(non_upper_case_globals, non_camel_case_types)]
                    trait __McpNotListed {
                        const #key: #pm::NotListed = #pm::NotListed;
                    }
                    impl<__McpT: ?::core::marker::Sized> __McpNotListed for __McpT {}
                    || #keyed
                }}
            }
            // `m::f`: the module's items come in by a glob import, which
            // brings the key const if `m` has one visible here and nothing
            // otherwise, so nothing fails to resolve. Then the pattern is
            // the outer const, the fallback: never a binding, which could
            // find a key of the same name around the list instead.
            Some(_) => quote! {{
                #[allow(non_upper_case_globals)]
                const #key: #pm::NotListed = #pm::NotListed;
                {
                    #[allow(unused_imports)]
                    use #prefix::*;
                    #find
                }
            }},
        };
        Ok(Entry {
            path: path.clone(),
            probe,
            text: path.to_token_stream().to_string().replace(' ', ""),
            span: path.span(),
            name_span: last.ident.span(),
        })
    }

    /// A const item that fails to evaluate, with one error on the fn's name,
    /// when the entry is a plain fn.
    fn is_declared_check(&self, kind: Kind, pm: &TokenStream) -> TokenStream {
        let probe = &self.probe;
        let attr = kind.attr();
        let message = format!(
            "`{}` is not a #[{attr}] fn; put #[{attr}] on it to list it in {}![...]",
            self.text,
            kind.list()
        );
        let fail = quote_spanned! {self.name_span=>
            ::core::panic!(#message)
        };
        quote! {
            #[allow(unreachable_code, unreachable_patterns, unused_variables, non_upper_case_globals)]
            const _: () = if !#pm::is_declared(#probe) {
                #fail
            };
        }
    }
}

/// Whether `ident` starts with a capital letter: a type, by convention.
fn starts_upper(ident: &syn::Ident) -> bool {
    ident
        .to_string()
        .trim_start_matches("r#")
        .starts_with(|c: char| c.is_uppercase())
}

/// A const item that fails to evaluate, with one error on the later path,
/// when two listed fns give their items the same name (or URI). A plain fn
/// has the name `""` and is left out: its own check reports it.
fn unique_names(kind: Kind, pairs: &[(&Entry, &Entry)], pm: &TokenStream) -> TokenStream {
    if pairs.is_empty() {
        return TokenStream::new();
    }
    let checks = pairs.iter().map(|(earlier, later)| {
        let (a, b) = (&earlier.probe, &later.probe);
        let message = kind.clash(&earlier.text, &later.text);
        quote_spanned! {later.span=>
            if #pm::same_name(#pm::listed_name(#a), #pm::listed_name(#b)) {
                ::core::panic!(#message);
            }
        }
    });
    quote! {
        #[allow(unreachable_code, unreachable_patterns, unused_variables, non_upper_case_globals)]
        const _: () = {
            #(#checks)*
        };
    }
}
