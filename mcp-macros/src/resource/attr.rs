//! `#[resource("uri", ...)]`'s attribute: the URI first, then its
//! options, each kept with the literal it came from (a repeated or unknown
//! key is an error on it).

use crate::ctxt::Ctxt;
use proc_macro2::TokenStream;
use quote::quote;
use syn::ext::IdentExt;
use syn::parse::ParseStream;
use syn::{Ident, Lit, LitStr, Token};

/// `#[resource(...)]`'s values, each with the literal it came from.
pub(super) struct ResourceAttr {
    pub(super) uri: LitStr,
    pub(super) name: Option<LitStr>,
    pub(super) title: Option<LitStr>,
    pub(super) description: Option<LitStr>,
    pub(super) mime_type: Option<LitStr>,
    pub(super) size: Option<syn::LitInt>,
    pub(super) audience: Vec<(LitStr, &'static str)>,
    pub(super) priority: Option<syn::LitFloat>,
    pub(super) icons: Vec<LitStr>,
    pub(super) krate: Option<syn::Path>,
}

impl ResourceAttr {
    /// Where `mcpfn_runtime` is: `crate = path`, or its usual name.
    pub(super) fn krate(&self) -> TokenStream {
        self.krate
            .as_ref()
            .map_or_else(|| quote!(::mcpfn_runtime), |path| quote!(#path))
    }

    pub(super) fn parse(cx: &Ctxt, input: ParseStream<'_>) -> syn::Result<ResourceAttr> {
        let uri: LitStr = input.parse().map_err(|e| {
            syn::Error::new(
                e.span(),
                "expected the resource's URI (or URI template) first: #[resource(\"file:///{path}\")]",
            )
        })?;
        let mut attr = ResourceAttr {
            uri,
            name: None,
            title: None,
            description: None,
            mime_type: None,
            size: None,
            audience: Vec::new(),
            priority: None,
            icons: Vec::new(),
            krate: None,
        };
        while !input.is_empty() {
            input.parse::<Token![,]>()?;
            if input.is_empty() {
                break;
            }
            if input.peek(Token![crate]) {
                input.parse::<Token![crate]>()?;
                input.parse::<Token![=]>()?;
                attr.krate = Some(input.parse()?);
                continue;
            }
            let key = input.call(Ident::parse_any)?;
            input.parse::<Token![=]>()?;
            let lit: Lit = input.parse()?;
            let key_name = key.to_string();
            let twice = |given: bool| {
                if given {
                    cx.error_at(key.span(), format!("`{key_name}` is given twice; keep one"));
                }
            };
            match (key_name.as_str(), lit) {
                ("name", Lit::Str(s)) => {
                    twice(attr.name.is_some());
                    attr.name = Some(s);
                }
                ("title", Lit::Str(s)) => {
                    twice(attr.title.is_some());
                    attr.title = Some(s);
                }
                ("description", Lit::Str(s)) => {
                    twice(attr.description.is_some());
                    attr.description = Some(s);
                }
                ("mime_type", Lit::Str(s)) => {
                    twice(attr.mime_type.is_some());
                    attr.mime_type = Some(s);
                }
                ("size", Lit::Int(n)) => {
                    twice(attr.size.is_some());
                    attr.size = Some(n);
                }
                ("priority", Lit::Float(f)) => {
                    twice(attr.priority.is_some());
                    attr.priority = Some(f);
                }
                ("audience", Lit::Str(s)) => match s.value().as_str() {
                    "user" => attr.audience.push((s, "User")),
                    "assistant" => attr.audience.push((s, "Assistant")),
                    _ => cx.error_spanned_by(&s, "the audience is \"user\" or \"assistant\"; give `audience` twice for both"),
                },
                ("icon", Lit::Str(s)) => attr.icons.push(s),
                (
                    "name" | "title" | "description" | "mime_type" | "audience" | "icon",
                    lit,
                ) => cx.error_spanned_by(lit, format!("`{key_name}` takes a string literal")),
                ("size", lit) => cx.error_spanned_by(lit, "`size` takes an integer: bytes"),
                ("priority", lit) => {
                    cx.error_spanned_by(lit, "`priority` takes a number from 0.0 to 1.0")
                }
                _ => cx.error_at(
                    key.span(),
                    format!(
                        "unknown `#[resource]` option `{}`; expected name, title, description, mime_type, size, audience, priority, icon or crate",
                        key.unraw()
                    ),
                ),
            }
        }
        Ok(attr)
    }
}
