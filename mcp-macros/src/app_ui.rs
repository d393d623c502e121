//! `ui(resource = "ui://…", visibility = "app")` of `#[tool(...)]`: the
//! MCP App a tool's results are rendered with and who may call it, parsed
//! into typed values (part of the first phase, beside `attr`; its rules are
//! in `validate`, its tokens in `expand`).

use crate::ctxt::Ctxt;
use crate::option::{Slot, comma_list, str_option};
use proc_macro2::{Span, TokenStream};
use syn::ext::IdentExt;
use syn::parse::ParseStream;
use syn::{Ident, LitStr, Token};

mod kw {
    syn::custom_keyword!(resource);
    syn::custom_keyword!(visibility);
}

/// The wire names of the visibilities, as `validate` accepts them.
pub(crate) const VISIBILITIES: [&str; 2] = ["model", "app"];

/// What `ui(...)` says.
pub(crate) struct UiAttr {
    /// The `ui` keyword, for errors about the option as a whole.
    pub(crate) key: Span,
    /// `resource = "ui://…"`.
    pub(crate) resource: Option<LitStr>,
    /// `visibility = "app"` or `visibility = ["model", "app"]`.
    pub(crate) visibility: Option<VisibilityAttr>,
}

/// The visibility as written: one literal, or a bracketed list of them.
pub(crate) struct VisibilityAttr {
    /// The brackets of a list (a list of none is an error there), or the
    /// one literal.
    pub(crate) span: Span,
    pub(crate) lits: Vec<LitStr>,
}

/// Parses the parenthesized fields of `ui`, after its keyword at `key`.
pub(crate) fn parse_ui(cx: &Ctxt, key: Span, input: ParseStream) -> syn::Result<UiAttr> {
    let content;
    syn::parenthesized!(content in input);
    let mut resource = Slot::default();
    let mut visibility = Slot::default();
    comma_list(&content, |field| {
        if field.peek(kw::resource) {
            let (option, lit) = str_option::<kw::resource>(field)?;
            resource.set(cx, "resource", option, lit);
        } else if field.peek(kw::visibility) {
            let key: kw::visibility = field.parse()?;
            let eq: Token![=] = field.parse()?;
            let (value, option) = if field.peek(syn::token::Bracket) {
                let list;
                let brackets = syn::bracketed!(list in field);
                let mut lits = Vec::new();
                comma_list(&list, |entry| {
                    lits.push(entry.parse::<LitStr>()?);
                    Ok(())
                })?;
                let option = quote::quote!(#key #eq [#(#lits),*]);
                let span = brackets.span.join();
                (VisibilityAttr { span, lits }, option)
            } else {
                let lit: LitStr = field.parse()?;
                let option = quote::quote!(#key #eq #lit);
                let span = lit.span();
                let value = VisibilityAttr {
                    span,
                    lits: vec![lit],
                };
                (value, option)
            };
            visibility.set(cx, "visibility", option, value);
        } else {
            let key = field.call(Ident::parse_any)?;
            return Err(syn::Error::new(
                key.span(),
                format!(
                    "unknown `ui` field `{}`; expected resource or visibility",
                    key.unraw()
                ),
            ));
        }
        Ok(())
    })?;
    Ok(UiAttr {
        key,
        resource: resource.take(),
        visibility: visibility.take(),
    })
}

/// The builder call that gives the tool its `_meta.ui`.
pub(crate) fn expand_ui(ui: &UiAttr, pm: &TokenStream) -> TokenStream {
    let start = match &ui.resource {
        Some(uri) => quote::quote!(#pm::ToolUi::resource(#uri)),
        None => quote::quote!(<#pm::ToolUi as ::core::default::Default>::default()),
    };
    let visibility = ui.visibility.as_ref().map(|visibility| {
        let each = visibility
            .lits
            .iter()
            .map(|lit| match lit.value().as_str() {
                "model" => quote::quote!(#pm::Visibility::Model),
                // Validated: `app` is the only other value.
                _ => quote::quote!(#pm::Visibility::App),
            });
        quote::quote!(.visibility([#(#each),*]))
    });
    quote::quote!(.ui(#start #visibility))
}
