//! The parsing pieces every attribute's options share (`#[tool]`,
//! `#[prompt]`, `ui(...)`): a value given at most once ([`Slot`]), a
//! comma-separated list ([`comma_list`]) and `key = "..."`
//! ([`str_option`]).

use crate::ctxt::Ctxt;
use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::parse::ParseStream;
use syn::{LitStr, Token};

/// An optional value that may be given once.
pub(crate) struct Slot<T>(Option<T>);

impl<T> Default for Slot<T> {
    fn default() -> Self {
        Slot(None)
    }
}

impl<T> Slot<T> {
    /// Sets the value; a second `key` is reported on `option` (the key and
    /// its value as written) and the first value is kept.
    pub(crate) fn set(&mut self, cx: &Ctxt, key: &str, option: impl ToTokens, value: T) {
        if self.0.is_some() {
            cx.error_spanned_by(option, format!("`{key}` is given twice; keep one"));
        } else {
            self.0 = Some(value);
        }
    }

    pub(crate) fn get(&self) -> Option<&T> {
        self.0.as_ref()
    }

    pub(crate) fn take(self) -> Option<T> {
        self.0
    }
}

/// Parses `item, item, ...` (a trailing comma allowed) with `item`.
pub(crate) fn comma_list(
    input: ParseStream,
    mut item: impl FnMut(ParseStream) -> syn::Result<()>,
) -> syn::Result<()> {
    while !input.is_empty() {
        item(input)?;
        if input.is_empty() {
            break;
        }
        input.parse::<Token![,]>()?;
    }
    Ok(())
}

/// `key = "..."`: the option's tokens and its literal.
pub(crate) fn str_option<K: syn::parse::Parse + ToTokens>(
    input: ParseStream,
) -> syn::Result<(TokenStream, LitStr)> {
    let key: K = input.parse()?;
    let eq: Token![=] = input.parse()?;
    let lit: LitStr = input.parse()?;
    Ok((quote::quote!(#key #eq #lit), lit))
}
