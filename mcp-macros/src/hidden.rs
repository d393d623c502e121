//! The items emitted beside a `#[tool]`, `#[prompt]` or `#[resource]` fn,
//! which the lists (`tools![...]` and the others) read: their names, the
//! probe that tells a free fn from an associated one, and the fallback a
//! failed expansion emits instead of the item.
//!
//! Part of the last phase, shared by the three attributes and `list`; it
//! makes tokens only from the fn and the collected errors, never from the
//! model.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use std::sync::atomic::{AtomicU64, Ordering};
use syn::ItemFn;
use syn::ext::IdentExt;

/// The three kinds of declared fn, each with its attribute, its list and
/// the key const that list finds.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `#[tool]`, listed by `tools!`.
    Tool,
    /// `#[prompt]`, listed by `prompts!`.
    Prompt,
    /// `#[resource]`, listed by `resources!`.
    Resource,
}

impl Kind {
    /// The attribute's name: `tool`, `prompt`, `resource`.
    pub(crate) fn attr(self) -> &'static str {
        match self {
            Kind::Tool => "tool",
            Kind::Prompt => "prompt",
            Kind::Resource => "resource",
        }
    }

    /// The list's name: `tools`, `prompts`, `resources`.
    pub(crate) fn list(self) -> &'static str {
        match self {
            Kind::Tool => "tools",
            Kind::Prompt => "prompts",
            Kind::Resource => "resources",
        }
    }

    /// The runtime's type of the listed item.
    pub(crate) fn item(self, krate: &TokenStream) -> TokenStream {
        match self {
            Kind::Tool => quote!(#krate::Tool),
            Kind::Prompt => quote!(#krate::Prompt),
            Kind::Resource => quote!(#krate::Resource),
        }
    }

    /// `__mcp_<kind>_<fn>`: the const whose type leads the list to the
    /// item (see `mcpfn_runtime::__private::ListKey`). Never the fn's own
    /// name, so a module or a type named like the fn can sit beside it; one
    /// name per kind, so a list finds no fn of another kind.
    pub(crate) fn key(self, ident: &syn::Ident) -> syn::Ident {
        let base = ident.unraw();
        format_ident!("__mcp_{}_{}", self.attr(), base, span = ident.span())
    }

    /// The error when the fns `earlier` and `later` (as written in the
    /// list) give their items the same name, or URI.
    pub(crate) fn clash(self, earlier: &str, later: &str) -> String {
        match self {
            Kind::Resource => format!(
                "`{later}` is at the same URI as `{earlier}`; each resource is registered at one URI"
            ),
            _ => {
                let attr = self.attr();
                format!(
                    "`{earlier}` and `{later}` are {attr}s with the same name; give one another name with #[{attr}(name = \"...\")]"
                )
            }
        }
    }
}

/// What a failed expansion emits: the user's fn unchanged, the error, and
/// the hidden items, whose item is never built, so `tools![f]` (or the
/// kind's list) and calls of `f` elsewhere do not add errors of their own.
///
/// The first error is spelled inside the key const's type, which makes that
/// type an error type: whatever the list does with it then type-checks
/// silently, even with a generic fn whose type parameters nothing can infer.
pub(crate) fn fallback(
    kind: Kind,
    item: ItemFn,
    errors: Vec<syn::Error>,
    krate: &TokenStream,
) -> TokenStream {
    let mut errors = errors.into_iter();
    let first = errors.next().map(|e| e.to_compile_error());
    let rest = errors.map(|e| e.to_compile_error());
    let pm = quote!(#krate::__private);
    let hidden = hidden_items(kind, &item, |key| match first {
        Some(first) => quote! {
            const #key: [(); #first] = [];
        },
        // rustc rejects the fn itself: a key that finds an item that is
        // never built, so that the list adds no error of its own.
        None => {
            let ty = key_type(&item, &pm);
            quote! {
                const #key: #ty = {
                    #[allow(non_camel_case_types, unreachable_pub)]
                    pub struct __McpLocal;
                    impl #pm::KeyInfo<__McpLocal> for #ty {
                        const NAME: &'static ::core::primitive::str = "";
                        const DECLARED: ::core::primitive::bool = true;
                    }
                    impl<__McpItem, __McpF> #pm::BuildListed<__McpLocal, __McpItem, __McpF, ()> for #ty {
                        fn build(_: __McpF) -> __McpItem {
                            ::core::unreachable!("this fn's attribute failed to compile")
                        }
                    }
                    #pm::ListKey
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

/// `__mcp_free_<fn>`: the const beside a `#[tool]` fn that tells a free fn
/// from an associated one (see [`free_fn_probe`]).
fn free_probe(ident: &syn::Ident) -> syn::Ident {
    format_ident!("__mcp_free_{}", ident.unraw(), span = ident.span())
}

/// `ListKey<ID>`, with an `ID` of this expansion's own: a hash of the
/// crate, the fn and a count of the expansions in this compilation. The
/// count alone makes it unique in the crate; the crate's name and version
/// keep it apart from the keys of the crates whose fns it lists. FNV-1a,
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
    quote!(#pm::ListKey<#id>)
}

/// The items emitted beside the fn. Only consts, because those are also
/// valid inside an `impl` block, where `#[tool]` must fail with one error of
/// its own (see [`free_fn_probe`]) and not with one per item.
///
/// The key const (made by `key` from its name) holds the item: its
/// initializer implements `BuildListed` for its type, so the list reaches
/// the item through the type and hands it the fn, which an associated fn
/// could not name (without `Self`), nor a free fn (with it). A `#[tool]`
/// fn also gets the probe of [`free_fn_probe`].
pub(crate) fn hidden_items(
    kind: Kind,
    item: &ItemFn,
    key: impl FnOnce(&syn::Ident) -> TokenStream,
) -> TokenStream {
    let ident = &item.sig.ident;
    let key = key(&kind.key(ident));
    let probe = (kind == Kind::Tool).then(|| {
        let probe_ident = free_probe(ident);
        quote! {
            #[doc(hidden)]
            #[allow(non_upper_case_globals, dead_code)]
            const #probe_ident: bool = true;
        }
    });
    // The key is `pub` whatever the fn's visibility: a private fn listed by
    // a path from outside its module is then rustc's one "function is
    // private" error, the glob import of the list finding the key. The key
    // alone builds nothing: the list hands it the fn, which rustc checks.
    quote! {
        #probe
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
    let probe = free_probe(&item.sig.ident);
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
