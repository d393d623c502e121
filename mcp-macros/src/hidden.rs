//! The items emitted beside a `#[tool]` fn, which `tools![...]` reads: their
//! names, the probe that tells a free fn from an associated one, and the
//! fallback a failed expansion emits instead of the tool.
//!
//! Part of the last phase, shared by `expand` and `tools`; it makes tokens
//! only from the fn and the collected errors, never from the model.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::ItemFn;
use syn::ext::IdentExt;

/// What a failed expansion emits: the user's fn unchanged, the error, and
/// hidden items whose builder never runs, so `tools![f]` and calls of `f`
/// elsewhere do not add errors of their own.
///
/// The first error is spelled inside the builder's parameter type, which
/// makes that type an error type: whatever `tools!` passes then type-checks
/// silently, even a generic fn whose type parameters nothing can infer.
pub(crate) fn fallback(item: ItemFn, errors: Vec<syn::Error>, krate: &TokenStream) -> TokenStream {
    let mut errors = errors.into_iter();
    let first = errors.next().map(|e| e.to_compile_error());
    let rest = errors.map(|e| e.to_compile_error());
    let name = item.sig.ident.unraw().to_string();
    let hidden = hidden_items(&item, &name, |builder| match first {
        Some(first) => quote! {
            fn #builder(_: [(); #first]) -> #krate::Tool {
                ::core::unreachable!("this #[tool] failed to compile")
            }
        },
        None => quote! {
            fn #builder<__McpF>(_: __McpF) -> #krate::Tool {
                ::core::unreachable!("this #[tool] failed to compile")
            }
        },
    });
    quote! {
        #hidden
        #(#rest)*
        #item
    }
}

/// The names of the hidden items of the fn `ident`. They never take the fn's
/// own name, so a module or a type named like the tool can sit beside it.
pub(crate) struct HiddenNames {
    /// `__mcp_tool_<fn>`: the generic fn that builds the tool from the fn.
    pub(crate) builder: syn::Ident,
    /// `__mcp_name_<fn>`: the tool's name, for the duplicate check of `tools!`.
    pub(crate) name: syn::Ident,
    /// `__mcp_free_<fn>`: the probe that tells a free fn from an associated one.
    pub(crate) probe: syn::Ident,
}

impl HiddenNames {
    pub(crate) fn of(ident: &syn::Ident) -> HiddenNames {
        let base = ident.unraw();
        let span = ident.span();
        HiddenNames {
            builder: format_ident!("__mcp_tool_{}", base, span = span),
            name: format_ident!("__mcp_name_{}", base, span = span),
            probe: format_ident!("__mcp_free_{}", base, span = span),
        }
    }
}

/// The items emitted beside the fn. Only fns and named consts, because those
/// are also valid inside an `impl` block, where `#[tool]` must fail with one
/// error of its own (see [`free_fn_probe`]) and not with one per item.
///
/// The builder (made by `builder` from its name) is handed the fn by `tools!`
/// instead of naming it: an associated fn cannot be named without `Self`, and
/// a free fn cannot be named with it.
pub(crate) fn hidden_items(
    item: &ItemFn,
    name: &str,
    builder: impl FnOnce(&syn::Ident) -> TokenStream,
) -> TokenStream {
    let vis = &item.vis;
    let names = HiddenNames::of(&item.sig.ident);
    let (name_ident, probe_ident) = (&names.name, &names.probe);
    let builder = builder(&names.builder);
    quote! {
        #[doc(hidden)]
        #[allow(non_upper_case_globals, dead_code)]
        #vis const #name_ident: &str = #name;
        #[doc(hidden)]
        #[allow(non_upper_case_globals, dead_code)]
        const #probe_ident: bool = true;
        #[doc(hidden)]
        #[allow(non_snake_case, dead_code)]
        #vis #builder
    }
}

/// Puts a check into the fn's body that fails to compile, with one error on
/// the fn's name, when the fn sits in an `impl` block (which the macro cannot
/// see).
///
/// In the pattern below, `__mcp_free_<fn>` names the probe const when that is
/// in scope, i.e. when the fn is free and the const beside it is a module
/// item; inside an `impl` the const is an associated item, out of scope, and
/// the same identifier is a fresh binding, so the first arm is taken. The
/// array length is evaluated while type checking, so `cargo check` reports it.
pub(crate) fn free_fn_probe(item: &mut ItemFn) {
    let probe = HiddenNames::of(&item.sig.ident).probe;
    let span = item.sig.ident.span();
    let message = crate::validate::FREE_FN;
    let check: syn::Stmt = syn::parse_quote_spanned! {span=>
        #[allow(unreachable_patterns, unused_variables, non_upper_case_globals)]
        let _: [(); match false {
            #probe => ::core::panic!(#message),
            _ => 0,
        }] = [];
    };
    item.block.stmts.insert(0, check);
}
