//! `#[complete(f)]` on a parameter, for `#[prompt]` (an argument) and
//! `#[resource]` (a template variable): taken off the parameter, and
//! expanded into the builder's `.complete(name, ..)` call, which runs
//! `async fn f(&str, &CompletionContext) -> Vec<String>`.

use crate::ctxt::Ctxt;
use proc_macro2::TokenStream;
use quote::quote_spanned;
use syn::spanned::Spanned;
use syn::{Attribute, Path};

/// Takes the `#[complete(path)]` attributes off a parameter: the path of
/// the completer, if there is one (a second one is an error on it).
pub(crate) fn take(cx: &Ctxt, attrs: &mut Vec<Attribute>) -> Option<Path> {
    let mut found: Option<Path> = None;
    attrs.retain(|attr| {
        if !attr.path().is_ident("complete") {
            return true;
        }
        let path = cx.ok(attr.parse_args::<Path>().map_err(|err| {
            syn::Error::new(
                err.span(),
                "write `#[complete(fn_name)]`, naming an `async fn(&str, &CompletionContext) -> Vec<String>`",
            )
        }));
        match (&found, path) {
            (Some(_), Some(path)) => {
                cx.error_spanned_by(&path, "`#[complete]` is given twice; keep one")
            }
            (None, path) => found = path,
            (Some(_), None) => {}
        }
        false
    });
    found
}

/// `.complete(name, ..)` on the builder: calls `path` with what the user
/// typed and the context, spanned on `path` so a fn of the wrong shape is
/// rustc's error there.
pub(crate) fn expand(pm: &TokenStream, name: &str, path: &Path) -> TokenStream {
    quote_spanned! {path.span()=>
        .complete(#name, |__mcp_context: #pm::CompletionContext| {
            ::std::boxed::Box::pin(async move {
                #path(__mcp_context.value(), &__mcp_context).await
            })
        })
    }
}
