//! The items emitted beside a `#[tool]` fn, which `tools![...]` reads: their
//! names, the probe that tells a free fn from an associated one, and the
//! fallback a failed expansion emits instead of the tool.
//!
//! Part of the last phase, shared by `expand` and `tools`; it makes tokens
//! only from the fn and the collected errors, never from the model.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use std::sync::atomic::{AtomicU64, Ordering};
use syn::ItemFn;
use syn::ext::IdentExt;

/// What a failed expansion emits: the user's fn unchanged, the error, and
/// the hidden items, whose tool is never built, so `tools![f]` and calls of
/// `f` elsewhere do not add errors of their own.
///
/// The first error is spelled inside the key const's type, which makes that
/// type an error type: whatever `tools!` does with it then type-checks
/// silently, even with a generic fn whose type parameters nothing can infer.
pub(crate) fn fallback(item: ItemFn, errors: Vec<syn::Error>, krate: &TokenStream) -> TokenStream {
    let mut errors = errors.into_iter();
    let first = errors.next().map(|e| e.to_compile_error());
    let rest = errors.map(|e| e.to_compile_error());
    let pm = quote!(#krate::__private);
    let hidden = hidden_items(&item, |key| match first {
        Some(first) => quote! {
            const #key: [(); #first] = [];
        },
        // rustc rejects the fn itself: a key that finds a tool that is
        // never built, so that `tools!` adds no error of its own.
        None => {
            let ty = key_type(&item, &pm);
            quote! {
                const #key: #ty = {
                    #[allow(non_camel_case_types, unreachable_pub)]
                    pub struct __McpLocal;
                    impl #pm::ToolInfo<__McpLocal> for #ty {
                        const NAME: &'static ::core::primitive::str = "";
                        const IS_TOOL: ::core::primitive::bool = true;
                    }
                    impl<__McpF> #pm::BuildTool<__McpLocal, __McpF, ()> for #ty {
                        fn build(_: __McpF) -> #krate::Tool {
                            ::core::unreachable!("this #[tool] failed to compile")
                        }
                    }
                    #pm::ToolKey
                };
            }
        }
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
    /// `__mcp_tool_<fn>`: the const whose type leads `tools!` to the tool
    /// (see `mcpfn_runtime::__private::ToolKey`).
    pub(crate) key: syn::Ident,
    /// `__mcp_free_<fn>`: the probe that tells a free fn from an associated one.
    pub(crate) probe: syn::Ident,
}

impl HiddenNames {
    pub(crate) fn of(ident: &syn::Ident) -> HiddenNames {
        let base = ident.unraw();
        let span = ident.span();
        HiddenNames {
            key: format_ident!("__mcp_tool_{}", base, span = span),
            probe: format_ident!("__mcp_free_{}", base, span = span),
        }
    }
}

/// `ToolKey<ID>`, with an `ID` of this expansion's own: a hash of the
/// crate, the fn and a count of the expansions in this compilation. The
/// count alone makes it unique in the crate; the crate's name and version
/// keep it apart from the keys of the crates whose tools it lists. FNV-1a,
/// written here, rather than std's hasher, whose output may change with the
/// toolchain: the `ID` shows in some of rustc's messages.
pub(crate) fn key_type(item: &ItemFn, pm: &TokenStream) -> TokenStream {
    static EXPANSIONS: AtomicU64 = AtomicU64::new(0);
    let count = EXPANSIONS.fetch_add(1, Ordering::Relaxed);
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let text = format!(
        "{}\0{}\0{}\0{count}",
        var("CARGO_CRATE_NAME"),
        var("CARGO_PKG_VERSION"),
        item.sig.ident.unraw()
    );
    const OFFSET: u128 = 0x6c62272e07bb014262b821756295c58d;
    const PRIME: u128 = 0x0000000001000000000000000000013B;
    let id = text.bytes().fold(OFFSET, |hash, byte| {
        (hash ^ u128::from(byte)).wrapping_mul(PRIME)
    });
    let id = proc_macro2::Literal::u128_suffixed(id);
    quote!(#pm::ToolKey<#id>)
}

/// The items emitted beside the fn. Only consts, because those are also
/// valid inside an `impl` block, where `#[tool]` must fail with one error of
/// its own (see [`free_fn_probe`]) and not with one per item.
///
/// The key const (made by `key` from its name) holds the tool: its
/// initializer implements `BuildTool` for its type, so `tools!` reaches the
/// tool through the type and hands it the fn, which an associated fn could
/// not name (without `Self`), nor a free fn (with it).
pub(crate) fn hidden_items(
    item: &ItemFn,
    key: impl FnOnce(&syn::Ident) -> TokenStream,
) -> TokenStream {
    let names = HiddenNames::of(&item.sig.ident);
    let probe_ident = &names.probe;
    let key = key(&names.key);
    // The key is `pub` whatever the fn's visibility: a private fn listed by
    // a path from outside its module is then rustc's one "function is
    // private" error, the glob import of `tools!` finding the key. The key
    // alone builds nothing: `tools!` hands it the fn, which rustc checks.
    quote! {
        #[doc(hidden)]
        #[allow(non_upper_case_globals, dead_code)]
        const #probe_ident: bool = true;
        #[doc(hidden)]
        #[allow(non_upper_case_globals, dead_code, unreachable_pub)]
        pub #key
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
