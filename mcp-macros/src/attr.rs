//! Parsing of `#[tool(...)]` and `#[arg(...)]` into typed slots.
//!
//! Every slot remembers the token it came from, so later phases can span their
//! errors on it, and a repeated key is reported on its second occurrence.

use proc_macro2::TokenStream;
use syn::meta::ParseNestedMeta;
use syn::{Attribute, Lit, LitBool, LitStr, Path};

/// A value set by an attribute key.
pub(crate) struct Spanned<T> {
    pub(crate) value: T,
}

/// An optional attribute slot that refuses to be set twice.
pub(crate) struct Slot<T>(Option<Spanned<T>>);

impl<T> Default for Slot<T> {
    fn default() -> Self {
        Slot(None)
    }
}

impl<T> Slot<T> {
    fn set(&mut self, meta: &ParseNestedMeta, value: T) -> syn::Result<()> {
        if self.0.is_some() {
            let key = path_text(&meta.path);
            return Err(meta.error(format!("`{key}` is given twice; keep one")));
        }
        self.0 = Some(Spanned { value });
        Ok(())
    }

    pub(crate) fn get(&self) -> Option<&Spanned<T>> {
        self.0.as_ref()
    }
}

/// One `icon(...)` entry.
pub(crate) struct Icon {
    pub(crate) src: LitStr,
    pub(crate) mime_type: Option<LitStr>,
    pub(crate) sizes: Option<LitStr>,
    pub(crate) theme: Option<LitStr>,
}

/// Everything `#[tool(...)]` can say.
#[derive(Default)]
pub(crate) struct ToolAttr {
    pub(crate) name: Slot<LitStr>,
    pub(crate) title: Slot<LitStr>,
    pub(crate) description: Slot<LitStr>,
    pub(crate) read_only: Slot<bool>,
    pub(crate) destructive: Slot<bool>,
    pub(crate) idempotent: Slot<bool>,
    pub(crate) open_world: Slot<bool>,
    pub(crate) icons: Vec<Icon>,
    pub(crate) meta: Vec<(LitStr, Lit)>,
    pub(crate) timeout: Slot<LitStr>,
    pub(crate) replayable_input: Slot<bool>,
    pub(crate) krate: Slot<Path>,
}

impl ToolAttr {
    /// Parses the attribute's argument tokens.
    pub(crate) fn parse(args: TokenStream) -> syn::Result<ToolAttr> {
        let mut attr = ToolAttr::default();
        let parser = syn::meta::parser(|meta| attr.parse_one(meta));
        syn::parse::Parser::parse2(parser, args)?;
        Ok(attr)
    }

    fn parse_one(&mut self, meta: ParseNestedMeta) -> syn::Result<()> {
        let key = path_text(&meta.path);
        match key.as_str() {
            "name" => self.name.set(&meta, meta.value()?.parse()?),
            "title" => self.title.set(&meta, meta.value()?.parse()?),
            "description" => self.description.set(&meta, meta.value()?.parse()?),
            "read_only" => self.read_only.set(&meta, flag(&meta)?),
            "destructive" => self.destructive.set(&meta, flag(&meta)?),
            "idempotent" => self.idempotent.set(&meta, flag(&meta)?),
            "open_world" => self.open_world.set(&meta, flag(&meta)?),
            "crate" => self.krate.set(&meta, meta.value()?.parse()?),
            "timeout" => self.timeout.set(&meta, meta.value()?.parse()?),
            "replayable_input" => self.replayable_input.set(&meta, flag(&meta)?),
            "icon" => {
                let icon = parse_icon(&meta)?;
                self.icons.push(icon);
                Ok(())
            }
            "meta" => meta.parse_nested_meta(|entry| {
                let key = match entry.path.get_ident() {
                    Some(ident) => LitStr::new(&ident.to_string(), ident.span()),
                    None => return Err(entry.error("a `meta` key is a plain identifier")),
                };
                let value: Lit = entry.value()?.parse()?;
                match value {
                    Lit::Str(_) | Lit::Int(_) | Lit::Float(_) | Lit::Bool(_) => {}
                    _ => {
                        return Err(syn::Error::new(
                            value.span(),
                            "a `meta` value is a string, integer, float or bool literal",
                        ));
                    }
                }
                self.meta.push((key, value));
                Ok(())
            }),
            _ => Err(meta.error(format!(
                "unknown `#[tool]` option `{key}`; expected one of: name, title, description, \
                 read_only, destructive, idempotent, open_world, icon, meta, timeout, \
                 replayable_input, crate"
            ))),
        }
    }
}

/// `key` alone means true; `key = true|false` says it explicitly.
fn flag(meta: &ParseNestedMeta) -> syn::Result<bool> {
    if meta.input.peek(syn::Token![=]) {
        let lit: LitBool = meta.value()?.parse()?;
        Ok(lit.value)
    } else {
        Ok(true)
    }
}

fn parse_icon(meta: &ParseNestedMeta) -> syn::Result<Icon> {
    let mut src = None;
    let mut mime_type = None;
    let mut sizes = None;
    let mut theme = None;
    meta.parse_nested_meta(|entry| {
        let key = path_text(&entry.path);
        let slot = match key.as_str() {
            "src" => &mut src,
            "mime_type" => &mut mime_type,
            "sizes" => &mut sizes,
            "theme" => &mut theme,
            _ => {
                return Err(entry.error(format!(
                    "unknown `icon` field `{key}`; expected src, mime_type, sizes or theme"
                )));
            }
        };
        if slot.is_some() {
            return Err(entry.error(format!("`{key}` is given twice; keep one")));
        }
        *slot = Some(entry.value()?.parse::<LitStr>()?);
        Ok(())
    })?;
    let Some(src) = src else {
        return Err(meta.error("an `icon(...)` needs `src = \"https://...\"`"));
    };
    Ok(Icon {
        src,
        mime_type,
        sizes,
        theme,
    })
}

/// Everything `#[arg(...)]` on a parameter can say.
#[derive(Default)]
pub(crate) struct ArgAttr {
    pub(crate) rename: Slot<LitStr>,
    pub(crate) description: Slot<LitStr>,
    pub(crate) header: Slot<LitStr>,
}

impl ArgAttr {
    /// Takes the `#[arg]` attributes off a parameter and parses them; any other
    /// attribute but doc comments stays where it is.
    pub(crate) fn take(attrs: &mut Vec<Attribute>) -> syn::Result<ArgAttr> {
        let mut arg = ArgAttr::default();
        let mut errors: Option<syn::Error> = None;
        attrs.retain(|attr| {
            if !attr.path().is_ident("arg") {
                return true;
            }
            if let Err(err) = attr.parse_nested_meta(|meta| arg.parse_one(meta)) {
                crate::validate::combine(&mut errors, err);
            }
            false
        });
        match errors {
            Some(err) => Err(err),
            None => Ok(arg),
        }
    }

    fn parse_one(&mut self, meta: ParseNestedMeta) -> syn::Result<()> {
        let key = path_text(&meta.path);
        match key.as_str() {
            "rename" => self.rename.set(&meta, meta.value()?.parse()?),
            "description" => self.description.set(&meta, meta.value()?.parse()?),
            "header" => self.header.set(&meta, meta.value()?.parse()?),
            _ => Err(meta.error(format!(
                "unknown `#[arg]` option `{key}`; expected rename, description or header"
            ))),
        }
    }
}

/// Takes the doc comments off a list of attributes, keeping their expressions
/// (so `#[doc = include_str!("...")]` works).
pub(crate) fn take_docs(attrs: &mut Vec<Attribute>) -> Vec<syn::Expr> {
    let mut docs = Vec::new();
    attrs.retain(|attr| {
        if let syn::Meta::NameValue(nv) = &attr.meta
            && nv.path.is_ident("doc")
        {
            docs.push(nv.value.clone());
            return false;
        }
        true
    });
    docs
}

/// The doc comments of a list of attributes, left in place.
pub(crate) fn docs(attrs: &[Attribute]) -> Vec<syn::Expr> {
    let mut copy = attrs.to_vec();
    take_docs(&mut copy)
}

fn path_text(path: &Path) -> String {
    quote::ToTokens::to_token_stream(path)
        .to_string()
        .replace(' ', "")
}
