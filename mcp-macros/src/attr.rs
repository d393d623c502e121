//! Parsing of `#[tool(...)]` and `#[arg(...)]` into typed values.
//!
//! The first phase: it imports nothing of the others. Keys are
//! `syn::custom_keyword!`s; values are parsed here once (a timeout becomes a
//! `Duration`), keeping the literal they came from for later spans. A
//! repeated key or a bad value is recorded in the [`Ctxt`] and parsing goes
//! on; a syntax error ends the attribute it is in.

use crate::app_ui::{UiAttr, parse_ui};
use crate::ctxt::Ctxt;
pub(crate) use crate::option::{Slot, comma_list, str_option};
use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use std::time::Duration;
use syn::ext::IdentExt;
use syn::parse::{ParseStream, Parser};
use syn::{Attribute, Ident, Lit, LitBool, LitStr, Path, Token};

/// The option keys of `#[tool(...)]`, `icon(...)` and `#[arg(...)]`
/// (`crate` is a Rust keyword, `Token![crate]`).
pub(crate) mod kw {
    syn::custom_keyword!(name);
    syn::custom_keyword!(title);
    syn::custom_keyword!(description);
    syn::custom_keyword!(read_only);
    syn::custom_keyword!(destructive);
    syn::custom_keyword!(idempotent);
    syn::custom_keyword!(open_world);
    syn::custom_keyword!(icon);
    syn::custom_keyword!(meta);
    syn::custom_keyword!(timeout);
    syn::custom_keyword!(replayable_input);
    syn::custom_keyword!(task);
    syn::custom_keyword!(resumable);
    syn::custom_keyword!(scopes);
    syn::custom_keyword!(ui);
    syn::custom_keyword!(src);
    syn::custom_keyword!(mime_type);
    syn::custom_keyword!(sizes);
    syn::custom_keyword!(theme);
    syn::custom_keyword!(rename);
    syn::custom_keyword!(header);
}

/// One `icon(...)` entry.
pub(crate) struct Icon {
    pub(crate) src: LitStr,
    pub(crate) mime_type: Option<LitStr>,
    pub(crate) sizes: Option<LitStr>,
    pub(crate) theme: Option<LitStr>,
}

/// `timeout = "30s"`, parsed.
pub(crate) struct Timeout {
    /// The literal, for errors about the value.
    pub(crate) lit: LitStr,
    pub(crate) duration: Duration,
}

/// `task = "optional" | "required"`, parsed.
pub(crate) struct Task {
    /// `true` for `required`.
    pub(crate) required: bool,
    /// The mode's literal, where an error about it points.
    pub(crate) span: proc_macro2::Span,
}

/// `scopes("files:read", ...)`: the key's span and the literals.
pub(crate) struct Scopes {
    /// The `scopes` keyword, for errors about the list as a whole.
    pub(crate) key: Span,
    pub(crate) lits: Vec<LitStr>,
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
    pub(crate) timeout: Slot<Timeout>,
    pub(crate) replayable_input: Slot<bool>,
    pub(crate) task: Slot<Task>,
    pub(crate) resumable: Slot<(Span, bool)>,
    pub(crate) scopes: Slot<Scopes>,
    pub(crate) ui: Slot<UiAttr>,
    pub(crate) krate: Slot<Path>,
}

impl ToolAttr {
    /// Parses the attribute's argument tokens; what cannot be read is
    /// recorded in `cx` and left at its default.
    pub(crate) fn from_tokens(cx: &Ctxt, args: TokenStream) -> ToolAttr {
        let mut attr = ToolAttr::default();
        let parser = |input: ParseStream| comma_list(input, |input| attr.parse_option(cx, input));
        cx.ok(parser.parse2(args));
        attr
    }

    /// The path generated code reaches the runtime by.
    pub(crate) fn krate(&self) -> TokenStream {
        match self.krate.get() {
            Some(path) => path.to_token_stream(),
            None => quote::quote!(::mcpfn_runtime),
        }
    }

    fn parse_option(&mut self, cx: &Ctxt, input: ParseStream) -> syn::Result<()> {
        if input.peek(kw::name) {
            let (option, lit) = str_option::<kw::name>(input)?;
            self.name.set(cx, "name", option, lit);
        } else if input.peek(kw::title) {
            let (option, lit) = str_option::<kw::title>(input)?;
            self.title.set(cx, "title", option, lit);
        } else if input.peek(kw::description) {
            let (option, lit) = str_option::<kw::description>(input)?;
            self.description.set(cx, "description", option, lit);
        } else if input.peek(kw::read_only) {
            let (option, value) = flag::<kw::read_only>(input)?;
            self.read_only.set(cx, "read_only", option, value);
        } else if input.peek(kw::destructive) {
            let (option, value) = flag::<kw::destructive>(input)?;
            self.destructive.set(cx, "destructive", option, value);
        } else if input.peek(kw::idempotent) {
            let (option, value) = flag::<kw::idempotent>(input)?;
            self.idempotent.set(cx, "idempotent", option, value);
        } else if input.peek(kw::open_world) {
            let (option, value) = flag::<kw::open_world>(input)?;
            self.open_world.set(cx, "open_world", option, value);
        } else if input.peek(kw::replayable_input) {
            let (option, value) = flag::<kw::replayable_input>(input)?;
            self.replayable_input
                .set(cx, "replayable_input", option, value);
        } else if input.peek(kw::task) {
            let (option, lit) = str_option::<kw::task>(input)?;
            match lit.value().as_str() {
                mode @ ("optional" | "required") => {
                    let task = Task {
                        required: mode == "required",
                        span: lit.span(),
                    };
                    self.task.set(cx, "task", option, task);
                }
                other => cx.error_at(
                    lit.span(),
                    format!(
                        "`task = \"{other}\"` is not a task mode; write `task = \"optional\"` (a task when the client supports tasks) or `task = \"required\"` (only as a task), or leave it out (never a task)"
                    ),
                ),
            }
        } else if input.peek(kw::resumable) {
            let span = input.span();
            let (option, value) = flag::<kw::resumable>(input)?;
            self.resumable.set(cx, "resumable", option, (span, value));
        } else if input.peek(kw::scopes) {
            let key: kw::scopes = input.parse()?;
            let content;
            syn::parenthesized!(content in input);
            let mut lits = Vec::new();
            comma_list(&content, |entry| {
                lits.push(entry.parse::<LitStr>()?);
                Ok(())
            })?;
            let option = quote::quote!(#key (#(#lits),*));
            self.scopes.set(
                cx,
                "scopes",
                option,
                Scopes {
                    key: key.span,
                    lits,
                },
            );
        } else if input.peek(kw::ui) {
            let key: kw::ui = input.parse()?;
            let fork = input.fork();
            let ui = parse_ui(cx, key.span, input)?;
            // The option as written, for a second `ui` to point at.
            let option = fork.parse::<proc_macro2::Group>()?;
            self.ui.set(cx, "ui", quote::quote!(#key #option), ui);
        } else if input.peek(kw::timeout) {
            let (option, lit) = str_option::<kw::timeout>(input)?;
            match parse_timeout(&lit) {
                Ok(duration) => self
                    .timeout
                    .set(cx, "timeout", option, Timeout { lit, duration }),
                Err(err) => cx.syn_error(err),
            }
        } else if input.peek(Token![crate]) {
            let key: Token![crate] = input.parse()?;
            let eq: Token![=] = input.parse()?;
            let path: Path = input.call(Path::parse_mod_style)?;
            self.krate
                .set(cx, "crate", quote::quote!(#key #eq #path), path);
        } else if input.peek(kw::icon) {
            let key: kw::icon = input.parse()?;
            let icon = parse_icon(cx, key.span, input)?;
            self.icons.push(icon);
        } else if input.peek(kw::meta) {
            input.parse::<kw::meta>()?;
            let content;
            syn::parenthesized!(content in input);
            comma_list(&content, |entry| {
                let entry_meta = parse_meta_entry(entry)?;
                self.meta.push(entry_meta);
                Ok(())
            })?;
        } else {
            let key = input.call(Ident::parse_any)?;
            return Err(syn::Error::new(
                key.span(),
                format!(
                    "unknown `#[tool]` option `{}`; expected one of: name, title, description, \
                     read_only, destructive, idempotent, open_world, icon, meta, timeout, \
                     replayable_input, task, resumable, scopes, ui, crate",
                    key.unraw()
                ),
            ));
        }
        Ok(())
    }
}

/// `key` alone means true; `key = true|false` says it explicitly.
fn flag<K: syn::parse::Parse + ToTokens>(input: ParseStream) -> syn::Result<(TokenStream, bool)> {
    let key: K = input.parse()?;
    if input.peek(Token![=]) {
        let eq: Token![=] = input.parse()?;
        let lit: LitBool = input.parse()?;
        Ok((quote::quote!(#key #eq #lit), lit.value))
    } else {
        Ok((key.into_token_stream(), true))
    }
}

/// `icon(src = "...", mime_type = "...", sizes = "...", theme = "...")`.
pub(crate) fn parse_icon(cx: &Ctxt, key_span: Span, input: ParseStream) -> syn::Result<Icon> {
    let content;
    syn::parenthesized!(content in input);
    let mut src = Slot::default();
    let mut mime_type = Slot::default();
    let mut sizes = Slot::default();
    let mut theme = Slot::default();
    comma_list(&content, |field| {
        if field.peek(kw::src) {
            let (option, lit) = str_option::<kw::src>(field)?;
            src.set(cx, "src", option, lit);
        } else if field.peek(kw::mime_type) {
            let (option, lit) = str_option::<kw::mime_type>(field)?;
            mime_type.set(cx, "mime_type", option, lit);
        } else if field.peek(kw::sizes) {
            let (option, lit) = str_option::<kw::sizes>(field)?;
            sizes.set(cx, "sizes", option, lit);
        } else if field.peek(kw::theme) {
            let (option, lit) = str_option::<kw::theme>(field)?;
            theme.set(cx, "theme", option, lit);
        } else {
            let key = field.call(Ident::parse_any)?;
            return Err(syn::Error::new(
                key.span(),
                format!(
                    "unknown `icon` field `{}`; expected src, mime_type, sizes or theme",
                    key.unraw()
                ),
            ));
        }
        Ok(())
    })?;
    let Some(src) = src.take() else {
        return Err(syn::Error::new(
            key_span,
            "an `icon(...)` needs `src = \"https://...\"`",
        ));
    };
    Ok(Icon {
        src,
        mime_type: mime_type.take(),
        sizes: sizes.take(),
        theme: theme.take(),
    })
}

/// One `key = literal` of `meta(...)`.
fn parse_meta_entry(input: ParseStream) -> syn::Result<(LitStr, Lit)> {
    let key = input.call(Ident::parse_any)?;
    if input.peek(Token![::]) {
        return Err(syn::Error::new(
            key.span(),
            "a `meta` key is a plain identifier",
        ));
    }
    input.parse::<Token![=]>()?;
    let value: Lit = input.parse()?;
    match value {
        Lit::Str(_) | Lit::Int(_) | Lit::Float(_) | Lit::Bool(_) => {}
        _ => {
            return Err(syn::Error::new(
                value.span(),
                "a `meta` value is a string, integer, float or bool literal",
            ));
        }
    }
    Ok((LitStr::new(&key.unraw().to_string(), key.span()), value))
}

/// `timeout = "30s"`, in humantime's syntax (`500ms`, `2m`, `1h 30m`, `1.5s`).
/// A duration too short to run is parsed; refusing it is a rule of `validate`.
fn parse_timeout(lit: &LitStr) -> syn::Result<Duration> {
    let text = lit.value();
    humantime::parse_duration(&text).map_err(|err| {
        syn::Error::new(
            lit.span(),
            format!(
                "`{text}` is not a timeout: {err} (durations look like \"500ms\", \"30s\" or \"1h 30m\")"
            ),
        )
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
    pub(crate) fn take(cx: &Ctxt, attrs: &mut Vec<Attribute>) -> ArgAttr {
        let mut arg = ArgAttr::default();
        attrs.retain(|attr| {
            if !attr.path().is_ident("arg") {
                return true;
            }
            let parser =
                |input: ParseStream| comma_list(input, |input| arg.parse_option(cx, input));
            cx.ok(attr.parse_args_with(parser));
            false
        });
        arg
    }

    /// Whichever option is given first, for errors about `#[arg]` as a whole.
    pub(crate) fn any(&self) -> Option<&LitStr> {
        self.rename
            .get()
            .or(self.description.get())
            .or(self.header.get())
    }

    fn parse_option(&mut self, cx: &Ctxt, input: ParseStream) -> syn::Result<()> {
        if input.peek(kw::rename) {
            let (option, lit) = str_option::<kw::rename>(input)?;
            self.rename.set(cx, "rename", option, lit);
        } else if input.peek(kw::description) {
            let (option, lit) = str_option::<kw::description>(input)?;
            self.description.set(cx, "description", option, lit);
        } else if input.peek(kw::header) {
            let (option, lit) = str_option::<kw::header>(input)?;
            self.header.set(cx, "header", option, lit);
        } else {
            let key = input.call(Ident::parse_any)?;
            return Err(syn::Error::new(
                key.span(),
                format!(
                    "unknown `#[arg]` option `{}`; expected rename, description or header",
                    key.unraw()
                ),
            ));
        }
        Ok(())
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
