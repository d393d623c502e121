//! `tools![a, b, path::c]`: the registration list.
//!
//! Each path `p::f` becomes `build_tool(probe, p::f)`: the probe is a
//! closure whose type is that of `__mcp_tool_f`, the key const `#[tool]`
//! emitted beside `f`, when there is one, and a type with no tool when `f`
//! is a plain fn (see `mcpfn_runtime::__private::ToolKey`), so a plain fn is
//! one error of ours, on its path, instead of rustc's "cannot find
//! `__mcp_tool_f`". A fn listed twice is refused here; two fns that give
//! their tools the same name are refused by a const check over the names the
//! probes find, since only the compiler knows the names of tools declared
//! elsewhere.

use crate::ctxt::Ctxt;
use crate::hidden::HiddenNames;
use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{ToTokens, quote, quote_spanned};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Path, PathArguments, Token};

/// Entry point of `tools!`: `[$crate] paths...`, as `mcpfn_runtime::tools!`
/// forwards it, so that the expansion names the runtime by `$crate`.
pub(crate) fn tools(input: TokenStream) -> TokenStream {
    let mut input = input.into_iter();
    let krate = match input.next() {
        Some(TokenTree::Group(group)) => group.stream(),
        _ => {
            return syn::Error::new(Span::call_site(), "use `mcpfn_runtime::tools!`")
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
    let entries: Vec<Entry> = paths
        .iter()
        .filter_map(|p| cx.ok(Entry::new(p, &pm)))
        .collect();
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
    let are_tools = entries.iter().map(|entry| entry.is_tool_check(&pm));
    let check = unique_names(&pairs, &pm);
    let tools = entries.iter().map(|entry| {
        let (probe, path) = (&entry.probe, &entry.path);
        quote! {{
            #[allow(unreachable_code, unreachable_patterns, unused_variables, non_upper_case_globals)]
            let __mcp_probe = #probe;
            #pm::build_tool(__mcp_probe, #path)
        }}
    });
    quote! {
        {
            #(#errors)*
            #(#are_tools)*
            #check
            ::std::vec![#(#tools),*]
        }
    }
}

/// One listed tool.
struct Entry {
    /// The fn, as written.
    path: Path,
    /// The closure whose type leads to the tool (see the module docs).
    probe: TokenStream,
    /// The path as text, for comparisons and messages.
    text: String,
    /// The whole path, for errors about the entry.
    span: Span,
    /// Its last segment, the fn's name, for "not a #[tool] fn".
    name_span: Span,
}

impl Entry {
    fn new(path: &Path, pm: &TokenStream) -> syn::Result<Entry> {
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
        let key = HiddenNames::of(&last.ident).key;
        let find = quote!(|| match loop {} { #key => #key });
        let mut prefix = path.clone();
        prefix.segments.pop();
        prefix.segments.pop_punct();
        let probe = match prefix.segments.last() {
            // `f`: the key const, where it is in scope (a module's item or a
            // block's), is the pattern; elsewhere the pattern binds.
            None => find,
            // `Type::f`, an associated fn, cannot be a tool (`#[tool]` says
            // so on the fn); its key is named through the type, silently, as
            // a glob import from a type would fail. Told apart by the case
            // of its name, as a macro cannot resolve paths: a plain fn in a
            // module named with a capital gets rustc's "cannot find" error,
            // and an associated fn of a lowercase type rustc's error on the
            // `use` (an extra one, beside `#[tool]`'s).
            Some(segment) if segment.ident == "Self" || starts_upper(&segment.ident) => {
                let mut keyed = path.clone();
                if let Some(last) = keyed.segments.last_mut() {
                    last.ident = key.clone();
                }
                quote!(|| #keyed)
            }
            // `m::f`: the module's items come in by a glob import, which
            // brings the key const if `m` has one visible here and nothing
            // otherwise, so nothing fails to resolve. Then the pattern is
            // the outer const, the fallback: never a binding, which could
            // find a key of the same name around the `tools!` call instead.
            Some(_) => quote! {{
                #[allow(non_upper_case_globals)]
                const #key: #pm::NotATool = #pm::NotATool;
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
    fn is_tool_check(&self, pm: &TokenStream) -> TokenStream {
        let probe = &self.probe;
        let message = format!("`{}` is not a #[tool] fn", self.text);
        let fail = quote_spanned! {self.name_span=>
            ::core::panic!(#message)
        };
        quote! {
            #[allow(unreachable_code, unreachable_patterns, unused_variables, non_upper_case_globals)]
            const _: () = if !#pm::is_tool(#probe) {
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
/// when two listed tools have the same name. A plain fn has the name `""`
/// and is left out: its own check reports it.
fn unique_names(pairs: &[(&Entry, &Entry)], pm: &TokenStream) -> TokenStream {
    if pairs.is_empty() {
        return TokenStream::new();
    }
    let checks = pairs.iter().map(|(earlier, later)| {
        let (a, b) = (&earlier.probe, &later.probe);
        let message = format!(
            "`{}` and `{}` are tools with the same name; give one another name with #[tool(name = \"...\")]",
            earlier.text, later.text
        );
        quote_spanned! {later.span=>
            if __mcp_same(#pm::tool_name(#a), #pm::tool_name(#b)) {
                ::core::panic!(#message);
            }
        }
    });
    quote! {
        #[allow(unreachable_code, unreachable_patterns, unused_variables, non_upper_case_globals)]
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
}
