//! `#[prompt]`: an async fn whose parameters are a prompt's arguments, read,
//! checked and expanded in the phases `#[tool]` uses (attribute, typed view,
//! rules, tokens), smaller because a prompt's arguments are strings.
//!
//! Beside the fn it emits the key const `__mcp_prompt_<fn>` that
//! `prompts!` reads (see `hidden`): the prompt's name, for the list's
//! duplicate-name check, and the impl that builds the prompt. A failed
//! expansion emits the fn, the errors and a key that builds nothing, so a
//! list naming it adds no error.

use crate::attr::{Icon, Slot, comma_list, kw, parse_icon, str_option};
use crate::ctxt::Ctxt;
use crate::hidden::{self, fallback, hidden_items, key_type};
use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::parse::{ParseStream, Parser};
use syn::spanned::Spanned;
use syn::{FnArg, GenericArgument, Ident, ItemFn, LitStr, Pat, Path, PathArguments, Token, Type};

/// Everything `#[prompt(...)]` can say.
#[derive(Default)]
struct PromptAttr {
    name: Slot<LitStr>,
    title: Slot<LitStr>,
    description: Slot<LitStr>,
    icons: Vec<Icon>,
    krate: Slot<Path>,
}

impl PromptAttr {
    fn from_tokens(cx: &Ctxt, args: TokenStream) -> PromptAttr {
        let mut attr = PromptAttr::default();
        let parser = |input: ParseStream| comma_list(input, |input| attr.parse_option(cx, input));
        cx.ok(parser.parse2(args));
        attr
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
        } else if input.peek(kw::icon) {
            let key: kw::icon = input.parse()?;
            self.icons.push(parse_icon(cx, key.span, input)?);
        } else if input.peek(Token![crate]) {
            let key: Token![crate] = input.parse()?;
            let eq: Token![=] = input.parse()?;
            let path: Path = input.call(Path::parse_mod_style)?;
            self.krate.set(cx, "crate", quote!(#key #eq #path), path);
        } else {
            let key = input.call(Ident::parse_any)?;
            return Err(syn::Error::new(
                key.span(),
                format!(
                    "unknown `#[prompt]` option `{}`; expected one of: name, title, description, icon, crate",
                    key.unraw()
                ),
            ));
        }
        Ok(())
    }

    fn krate(&self) -> TokenStream {
        match self.krate.get() {
            Some(path) => path.to_token_stream(),
            None => quote!(::mcpfn_runtime),
        }
    }
}

/// What a parameter is.
enum Kind {
    /// A prompt argument: `String` (required) or `Option<String>`.
    Argument { required: bool },
    /// The request's `Context`.
    Context,
    /// `State<T>`.
    State(Box<Type>),
    /// Anything else: refused (prompt arguments are strings).
    Unfit,
}

/// One parameter of the fn.
struct Param {
    kind: Kind,
    ident: Option<Ident>,
    ty: Type,
    wire_name: String,
    docs: Vec<syn::Expr>,
    description: Option<LitStr>,
    /// `#[complete(path)]`: the fn that completes it.
    complete: Option<Path>,
}

/// A `#[prompt]` fn, read.
struct PromptFn {
    attr: PromptAttr,
    item: ItemFn,
    name: String,
    docs: Vec<syn::Expr>,
    params: Vec<Param>,
}

/// Entry point of `#[prompt]`.
pub(crate) fn prompt(args: TokenStream, input: TokenStream) -> TokenStream {
    let item: ItemFn = match syn::parse2(input.clone()) {
        Ok(item) => item,
        Err(_) => {
            let err = syn::Error::new(
                Span::call_site(),
                "#[prompt] goes on an async fn, e.g. `#[prompt] async fn review(file: String) -> String { .. }`",
            )
            .to_compile_error();
            return quote!(#err #input);
        }
    };
    let cx = Ctxt::new();
    let attr = PromptAttr::from_tokens(&cx, args);
    let prompt = read(&cx, attr, item);
    check(&cx, &prompt);
    let krate = prompt.attr.krate();
    match cx.check() {
        Ok(()) => expand(&prompt, &krate),
        Err(errors) => fallback(hidden::Kind::Prompt, prompt.item, errors, &krate),
    }
}

/// Reads the fn, taking the helper attributes off its parameters.
fn read(cx: &Ctxt, attr: PromptAttr, mut item: ItemFn) -> PromptFn {
    let docs = crate::attr::docs(&item.attrs);
    let name = match attr.name.get() {
        Some(lit) => lit.value(),
        None => item.sig.ident.unraw().to_string(),
    };
    let mut params = Vec::new();
    for input in item.sig.inputs.iter_mut() {
        let FnArg::Typed(pat_type) = input else {
            continue;
        };
        let docs = crate::attr::take_docs(&mut pat_type.attrs);
        let arg = crate::attr::ArgAttr::take(cx, &mut pat_type.attrs);
        if let Some(header) = arg.header.get() {
            cx.error_spanned_by(
                header,
                "a prompt argument has no HTTP header; remove `header`",
            );
        }
        let complete = crate::complete::take(cx, &mut pat_type.attrs);
        let ident = match &*pat_type.pat {
            Pat::Ident(pat) if pat.by_ref.is_none() && pat.subpat.is_none() => {
                Some(pat.ident.clone())
            }
            _ => None,
        };
        let wire_name = match (arg.rename.get(), &ident) {
            (Some(lit), _) => lit.value(),
            (None, Some(ident)) => ident.unraw().to_string(),
            (None, None) => String::new(),
        };
        params.push(Param {
            kind: kind_of(&pat_type.ty),
            ident,
            ty: (*pat_type.ty).clone(),
            wire_name,
            docs,
            description: arg.description.get().cloned(),
            complete,
        });
    }
    item.attrs.retain(|a| !a.path().is_ident("prompt"));
    PromptFn {
        attr,
        item,
        name,
        docs,
        params,
    }
}

/// A parameter's kind by its type's spelling (a macro cannot resolve
/// paths; the injected types are checked by their use in the glue).
fn kind_of(ty: &Type) -> Kind {
    let Type::Path(path) = ty else {
        return Kind::Unfit;
    };
    let Some(last) = path.path.segments.last() else {
        return Kind::Unfit;
    };
    match (&last.arguments, last.ident.to_string().as_str()) {
        (PathArguments::None, "String") => Kind::Argument { required: true },
        (PathArguments::None, "Context") => Kind::Context,
        (PathArguments::AngleBracketed(args), "Option") if args.args.len() == 1 => {
            match args.args.first() {
                Some(GenericArgument::Type(inner))
                    if matches!(kind_of(inner), Kind::Argument { required: true }) =>
                {
                    Kind::Argument { required: false }
                }
                _ => Kind::Unfit,
            }
        }
        (PathArguments::AngleBracketed(args), "State") if args.args.len() == 1 => {
            match args.args.first() {
                Some(GenericArgument::Type(inner)) => Kind::State(Box::new(inner.clone())),
                _ => Kind::Unfit,
            }
        }
        _ => Kind::Unfit,
    }
}

/// The rules, each error on the user's token, all reported together.
fn check(cx: &Ctxt, prompt: &PromptFn) {
    let sig = &prompt.item.sig;
    if sig.asyncness.is_none() {
        cx.error_spanned_by(sig.fn_token, "a #[prompt] fn is async: write `async fn`");
    }
    if let Some(FnArg::Receiver(receiver)) = sig.inputs.first() {
        cx.error_spanned_by(
            receiver,
            "#[prompt] goes on a free fn; use `State<T>` for shared data",
        );
    }
    if !sig.generics.params.is_empty() {
        cx.error_spanned_by(
            &sig.generics,
            "a #[prompt] fn cannot be generic; its arguments are strings",
        );
    }
    if prompt.name.is_empty()
        && let Some(lit) = prompt.attr.name.get()
    {
        cx.error_spanned_by(lit, "a prompt's name cannot be empty");
    }
    let mut seen: Vec<&str> = Vec::new();
    for param in &prompt.params {
        match &param.kind {
            Kind::Unfit => cx.error_spanned_by(
                &param.ty,
                "a prompt argument is a string: take `String` (required) or `Option<String>` (optional), and parse it in the body",
            ),
            Kind::Argument { .. } if param.ident.is_none() => cx.error_spanned_by(
                &param.ty,
                "a prompt argument is bound to a plain name (`file: String`), which names it",
            ),
            Kind::Argument { .. } => {
                if seen.contains(&param.wire_name.as_str()) {
                    cx.error_spanned_by(
                        param.ident.as_ref(),
                        format!("two arguments are named `{}`; rename one", param.wire_name),
                    );
                }
                seen.push(&param.wire_name);
            }
            Kind::Context | Kind::State(_) => {
                if let Some(path) = &param.complete {
                    cx.error_spanned_by(path, "only a prompt argument (a `String` parameter) is completed");
                }
            }
        }
    }
}

fn expand(prompt: &PromptFn, krate: &TokenStream) -> TokenStream {
    let pm = quote!(#krate::__private);
    let item = &prompt.item;
    let fn_ident = &item.sig.ident;
    let name = &prompt.name;
    let description = match prompt.attr.description.get() {
        Some(lit) => quote!(.description(#lit)),
        None if prompt.docs.is_empty() => quote!(),
        None => {
            let docs = &prompt.docs;
            quote!(.description(&#pm::doc_text(&[#(#docs),*])))
        }
    };
    let title = prompt.attr.title.get().map(|t| quote!(.title(#t)));
    let icons = prompt.attr.icons.iter().map(|icon| {
        let src = &icon.src;
        let mime = icon.mime_type.as_ref().map(|m| quote!(.mime_type(#m)));
        let sizes = icon.sizes.as_ref().map(|s| quote!(.sizes(#s)));
        let theme = icon.theme.as_ref().map(|t| quote!(.theme(#t)));
        quote!(.icon(#pm::Icon::new(#src) #mime #sizes #theme))
    });
    let mut fields = Vec::new();
    let mut arguments = Vec::new();
    let mut completers = Vec::new();
    let mut fetch = Vec::new();
    let mut passed = Vec::new();
    let mut states = Vec::new();
    for (i, param) in prompt.params.iter().enumerate() {
        let ty = &param.ty;
        match &param.kind {
            Kind::Argument { required } => {
                let ident = param.ident.as_ref().expect("checked: plain bindings");
                let wire = &param.wire_name;
                fields.push(quote!(#[serde(rename = #wire)] #ident: #ty));
                passed.push(quote!(__mcp_args.#ident));
                let text = match (&param.description, param.docs.is_empty()) {
                    (Some(lit), _) => quote!(#lit),
                    (None, true) => quote!(""),
                    (None, false) => {
                        let docs = &param.docs;
                        quote!(&#pm::doc_text(&[#(#docs),*]))
                    }
                };
                arguments.push(quote!(.argument(#wire, #text, #required)));
                if let Some(path) = &param.complete {
                    completers.push(crate::complete::expand(&pm, wire, path));
                }
            }
            Kind::Context => passed.push(quote_spanned! {ty.span()=>
                <#ty as ::core::clone::Clone>::clone(#pm::prompt_context(&__mcp_call))
            }),
            Kind::State(inner) => {
                let local = format_ident!("__mcp_state_{}", i);
                fetch.push(quote_spanned! {ty.span()=>
                    let #local: #ty = #pm::prompt_state::<#inner>(&__mcp_call)?;
                });
                passed.push(quote!(#local));
                states.push(quote!(.requires_state::<#inner>()));
            }
            Kind::Unfit => unreachable!("checked: every parameter is fit"),
        }
    }
    let inline = !prompt
        .params
        .iter()
        .any(|p| matches!(p.kind, Kind::Context));
    let ret = match &item.sig.output {
        syn::ReturnType::Default => quote!(()),
        syn::ReturnType::Type(_, ty) => quote!(#ty),
    };
    let ret_span = item.sig.output.span();
    let convert = quote_spanned! {ret_span=>
        <#ret as #pm::PromptReturn>::prompt_result(__mcp_out)
    };
    let serde_path = format!("{}::serde", pm.to_string().replace(' ', ""));
    let ty = key_type(item, &pm);
    let hidden = hidden_items(hidden::Kind::Prompt, item, |key| {
        quote! {
            const #key: #ty = {
                // The impls' own type, so that the user's crate may write
                // them; `pub`, as `prompts!` in another module infers it.
                #[allow(non_camel_case_types, unreachable_pub)]
                pub struct __McpLocal;
                impl #pm::KeyInfo<__McpLocal> for #ty {
                    const NAME: &'static ::core::primitive::str = #name;
                    const DECLARED: ::core::primitive::bool = true;
                }
                // The list hands over the fn so that rustc checks the path
                // it wrote (a private fn is its one error); the prompt calls
                // the fn by its name, in scope here.
                impl<__McpF> #pm::BuildListed<__McpLocal, #krate::Prompt, __McpF, ()> for #ty {
                    fn build(_: __McpF) -> #krate::Prompt {
                        #[derive(#pm::serde::Deserialize)]
                        #[serde(crate = #serde_path)]
                        #[allow(non_camel_case_types, dead_code)]
                        struct __McpArgs {
                            #(#fields,)*
                        }
                        #pm::PromptBuilder::new(#name, |__mcp_call: #pm::ToolCall| {
                            ::std::boxed::Box::pin(async move {
                                let __mcp_args: __McpArgs = #pm::prompt_arguments(&__mcp_call)?;
                                #(#fetch)*
                                let __mcp_out = #fn_ident(#(#passed),*).await;
                                #convert
                            })
                        })
                        .runs_inline(#inline)
                        #description
                        #title
                        #(#icons)*
                        #(#arguments)*
                        #(#completers)*
                        #(#states)*
                        .build()
                    }
                }
                #pm::ListKey
            };
        }
    });
    quote! {
        #item
        #hidden
    }
}
