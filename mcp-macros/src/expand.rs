//! The only place that makes tokens: the re-emitted fn and, next to it, the
//! hidden items `tools![...]` reads (see [`hidden_items`]), with the tool's
//! definition and call glue.
//!
//! The last phase: [`tool`] runs `attr` → `ast` → `validate` with one
//! [`Ctxt`], then emits the tool from the model, or the fallback when any
//! error was recorded. Nothing here parses a value again.

use crate::ast::{HeaderType, OutputValue, ParamKind, ToolFn};
use crate::attr::ToolAttr;
use crate::ctxt::Ctxt;
use crate::hidden::{Kind, fallback, free_fn_probe, hidden_items, key_type};
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::ItemFn;

mod definition;
use definition::definition;

/// Entry point of `#[tool]`.
pub(crate) fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    let item: ItemFn = match syn::parse2(input.clone()) {
        Ok(item) => item,
        // Not a fn at all: say so and give the tokens back untouched.
        Err(_) => {
            let err = crate::validate::not_a_fn(input.clone()).to_compile_error();
            return quote!(#err #input);
        }
    };
    let cx = Ctxt::new();
    let attr = ToolAttr::from_tokens(&cx, args);
    let tool = ToolFn::from_syn(&cx, attr, item);
    // A name bound twice is rustc's one error; our rules would add more.
    let rustc_rejects = crate::validate::rustc_rejects(&tool);
    if !rustc_rejects {
        crate::validate::check(&cx, &tool);
    }
    let krate = tool.attr.krate();
    match cx.check() {
        Ok(()) if !rustc_rejects => expand(&tool, &krate),
        Ok(()) => fallback(Kind::Tool, tool.item, Vec::new(), &krate),
        Err(errors) => fallback(Kind::Tool, tool.item, errors, &krate),
    }
}

fn expand(tool: &ToolFn, krate: &TokenStream) -> TokenStream {
    let mut item = tool.item.clone();
    free_fn_probe(&mut item);
    let pm = quote!(#krate::__private);
    let args_struct = args_struct(tool, &pm);
    let build_fn = build_fn(tool, &pm);
    let definition = definition(tool, &pm);
    let injection = injection_traits(tool, krate, &pm);
    let (generics, bounds) = fn_bounds(tool, &pm);
    let sync_state_check = sync_state_check(tool, &pm);
    let ty = key_type(&tool.item, &pm);
    let name = &tool.name;
    let fut = match tool.item.sig.asyncness {
        Some(_) => quote!(__McpFut),
        None => quote!(()),
    };
    let hidden = hidden_items(Kind::Tool, &tool.item, |key| {
        quote! {
            const #key: #ty = {
                // The impls' own type, so that the user's crate may write
                // them; `pub`, as `tools!` in another module infers it.
                #[allow(non_camel_case_types, unreachable_pub)]
                pub struct __McpLocal;
                impl #pm::KeyInfo<__McpLocal> for #ty {
                    const NAME: &'static ::core::primitive::str = #name;
                    const DECLARED: ::core::primitive::bool = true;
                }
                impl #generics #pm::BuildListed<__McpLocal, #krate::Tool, __McpF, #fut> for #ty
                where
                    #bounds
                {
                    fn build(__mcp_fn: __McpF) -> #krate::Tool {
                        #sync_state_check
                        #args_struct
                        #build_fn
                        #injection
                        // Built once: copies share the definition and its schemas.
                        static TOOL: ::std::sync::OnceLock<#krate::Tool> = ::std::sync::OnceLock::new();
                        ::core::clone::Clone::clone(TOOL.get_or_init(|| #definition))
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

/// The type parameters of the key's `BuildListed` impl and what they must be:
/// the fn `tools!` hands it takes the user's parameter types and returns the
/// user's return type (through a future when the fn is async), as written.
///
/// With `State<T>` parameters, the future's `Send` is asked as
/// `SendFuture<[(); checks]>` (see [`state_checks`]): a `T` that is not
/// `Sync` makes the future not `Send` too, and this keeps that to the one
/// error of the check.
fn fn_bounds(tool: &ToolFn, pm: &TokenStream) -> (TokenStream, TokenStream) {
    let inputs = tool.params.iter().map(|param| &param.ty);
    let output = match &tool.item.sig.output {
        syn::ReturnType::Default => quote!(()),
        syn::ReturnType::Type(_, ty) => quote!(#ty),
    };
    let traits = quote! {
        ::core::marker::Copy + ::core::marker::Send + ::core::marker::Sync + 'static
    };
    if tool.item.sig.asyncness.is_some() {
        let send = match state_checks(tool, pm) {
            Some(checks) => quote!(#pm::SendFuture<[(); #checks]>),
            None => quote!(::core::marker::Send),
        };
        let bounds = quote! {
            __McpF: ::core::ops::Fn(#(#inputs),*) -> __McpFut + #traits,
            __McpFut: ::core::future::Future<Output = #output> + #send + 'static,
        };
        (quote!(<__McpF, __McpFut>), bounds)
    } else {
        let bounds = quote! {
            __McpF: ::core::ops::Fn(#(#inputs),*) -> #output + #traits,
        };
        (quote!(<__McpF>), bounds)
    }
}

/// `0 + <T as SharedState>::CHECKED + ...`, one term per `State<T>`
/// parameter, each spelled on the user's `T`: an unfit `T` is one error
/// there, with `SharedState`'s message, and makes this constant an error.
/// `None` when the fn takes no state.
fn state_checks(tool: &ToolFn, pm: &TokenStream) -> Option<TokenStream> {
    let terms: Vec<TokenStream> = tool
        .params
        .iter()
        .filter_map(|param| match &param.kind {
            ParamKind::State(inner) => Some(quote_spanned! {syn::spanned::Spanned::span(inner)=>
                <#inner as #pm::SharedState>::CHECKED
            }),
            _ => None,
        })
        .collect();
    (!terms.is_empty()).then(|| quote!(0 #(+ #terms)*))
}

/// The state check of a sync fn, which has no future to bound: a constant
/// in the body of `BuildListed::build`.
fn sync_state_check(tool: &ToolFn, pm: &TokenStream) -> Option<TokenStream> {
    if tool.item.sig.asyncness.is_some() {
        return None;
    }
    let checks = state_checks(tool, pm)?;
    Some(quote!(const _: usize = #checks;))
}

/// `__McpT0`, `__McpT1`, ...: the args struct's type parameters, one per
/// argument (injected parameters are not arguments).
fn type_params(tool: &ToolFn) -> Vec<syn::Ident> {
    (0..tool.params.iter().filter(|p| p.is_argument()).count())
        .map(|i| format_ident!("__McpT{}", i))
        .collect()
}

/// The hidden struct the arguments deserialize into; its derives make the
/// inputSchema and the deserializer agree by construction.
///
/// Its fields are type parameters rather than the parameters' types, so the
/// derives never see a type that lacks `Deserialize` or `JsonSchema`: such a
/// type is reported once, by `__mcp_build`'s bound, instead of once per place
/// the derived code uses it.
fn args_struct(tool: &ToolFn, pm: &TokenStream) -> TokenStream {
    let serde_path = format!("{}::serde", pm.to_string().replace(' ', ""));
    let schemars_path = format!("{}::schemars", pm.to_string().replace(' ', ""));
    let type_params = type_params(tool);
    let arguments = tool.params.iter().filter(|p| p.is_argument());
    let fields = arguments.zip(&type_params).map(|(param, ty)| {
        let ident = param.ident.as_ref().expect("validated: plain bindings");
        let wire = &param.wire_name;
        let docs = &param.docs;
        let description = param
            .arg
            .description
            .get()
            .map(|d| quote!(#[schemars(description = #d)]));
        // `x-mcp-header` mirrors the argument into an HTTP header, with the
        // bounds `ast` decided for wide integers.
        let header = param.header.as_ref().map(|h| {
            let name = &h.name;
            let range = match h.ty {
                Ok(HeaderType::Integer {
                    range: Some((min, max)),
                }) => quote!(#[schemars(range(min = #min, max = #max))]),
                _ => quote!(),
            };
            quote!(#[schemars(extend("x-mcp-header" = #name))] #range)
        });
        quote! {
            #(#[doc = #docs])*
            #description
            #header
            #[serde(rename = #wire)]
            #ident: #ty
        }
    });
    quote! {
        #[derive(#pm::serde::Deserialize, #pm::schemars::JsonSchema)]
        #[serde(crate = #serde_path, deny_unknown_fields)]
        #[schemars(crate = #schemars_path)]
        #[allow(non_camel_case_types, dead_code)]
        struct __McpArgs<#(#type_params),*> {
            #(#fields,)*
        }
    }
}

/// The generic half of the tool: the handler that deserializes `__McpArgs`
/// and the inputSchema. `tool()` instantiates it with the parameters' types
/// written by the user, so an unfit type fails this fn's `Argument` bound,
/// once, on the user's token.
fn build_fn(tool: &ToolFn, pm: &TokenStream) -> TokenStream {
    let type_params = type_params(tool);
    quote! {
        fn __mcp_build<#(#type_params: #pm::Argument,)* __McpC>(
            name: &'static str,
            call: __McpC,
        ) -> #pm::ToolBuilder
        where
            __McpC: ::core::ops::Fn(__McpArgs<#(#type_params),*>, #pm::Context) -> #pm::BoxFuture<#pm::ToolOutcome>
                + ::core::marker::Send
                + ::core::marker::Sync
                + 'static,
        {
            #pm::tool_builder::<__McpArgs<#(#type_params),*>, __McpC>(name, call)
        }
    }
}

/// The traits injected parameters are fetched through, implemented only for
/// the runtime's `Context` and `State<T>`.
///
/// `ast` injects any parameter whose type is spelled `...Context` or
/// `...State<T>`, since a macro cannot resolve paths; a user's own type of
/// that name then fails these traits' bound with one error on its spelling
/// that says what to do, instead of being silently replaced.
fn injection_traits(tool: &ToolFn, krate: &TokenStream, pm: &TokenStream) -> TokenStream {
    let has = |f: fn(&ParamKind) -> bool| tool.params.iter().any(|p| f(&p.kind));
    let context = has(|k| matches!(k, ParamKind::Context)).then(|| {
        quote! {
            #[diagnostic::on_unimplemented(
                message = "`{Self}` is not `mcpfn_runtime::Context`: #[tool] injects every parameter whose type is named `Context`",
                label = "not the runtime's `Context`",
                note = "to take your own type as an argument, rename it or import it under another name (`use my::Context as MyContext;`)"
            )]
            trait __McpInjectContext: ::core::marker::Sized {
                fn __mcp_inject(context: &#pm::Context) -> Self;
            }
            impl __McpInjectContext for #pm::Context {
                fn __mcp_inject(context: &#pm::Context) -> Self {
                    ::core::clone::Clone::clone(context)
                }
            }
        }
    });
    let state = has(|k| matches!(k, ParamKind::State(_))).then(|| {
        quote! {
            #[diagnostic::on_unimplemented(
                message = "`{Self}` is not `mcpfn_runtime::State<T>`: #[tool] injects every parameter whose type is named `State<T>`",
                label = "not the runtime's `State<T>`",
                note = "to take your own type as an argument, rename it or import it under another name (`use my::State as MyState;`)"
            )]
            trait __McpInjectState: ::core::marker::Sized {
                fn __mcp_inject(context: &#pm::Context) -> ::core::result::Result<Self, #pm::ToolOutcome>;
            }
            // No `Send + Sync` here: that is the one check of `state_checks`.
            impl<T: 'static> __McpInjectState for #krate::State<T> {
                fn __mcp_inject(context: &#pm::Context) -> ::core::result::Result<Self, #pm::ToolOutcome> {
                    #pm::state::<T>(context)
                }
            }
        }
    });
    quote!(#context #state)
}

/// The closure the handler calls with deserialized arguments: call the user's
/// fn (the builder's `__mcp_fn`, a copy of it moves into the closure), convert
/// the result. Arguments are passed as fields, never bound to
/// locals, so a parameter cannot shadow the fn it is passed to.
fn call_glue(tool: &ToolFn, pm: &TokenStream) -> TokenStream {
    // Injected values are fetched first; arguments are passed as fields.
    let mut fetch = Vec::new();
    let mut passed = Vec::new();
    for (i, param) in tool.params.iter().enumerate() {
        match &param.kind {
            ParamKind::Argument => {
                let ident = param.ident.as_ref().expect("validated: plain bindings");
                passed.push(quote!(__mcp_args.#ident));
            }
            // Through the traits of `injection_traits`, spanned on the
            // user's type: the one place a wrong type is reported.
            ParamKind::Context => {
                let ty = &param.ty;
                passed.push(quote_spanned! {syn::spanned::Spanned::span(ty)=>
                    <#ty as __McpInjectContext>::__mcp_inject(&__mcp_context)
                });
            }
            ParamKind::State(_) => {
                let ty = &param.ty;
                let local = format_ident!("__mcp_state_{}", i);
                let inject = quote_spanned! {syn::spanned::Spanned::span(ty)=>
                    <#ty as __McpInjectState>::__mcp_inject(&__mcp_context)
                };
                fetch.push(quote! {
                    let #local = match #inject {
                        ::core::result::Result::Ok(__mcp_state) => __mcp_state,
                        ::core::result::Result::Err(__mcp_missing) => return __mcp_missing,
                    };
                });
                passed.push(quote!(#local));
            }
        }
    }
    let awaited = tool.item.sig.asyncness.map(|_| quote!(.await));
    let convert_value = |value: TokenStream| match &tool.output.value {
        OutputValue::Structured(ty) => {
            quote_spanned!(syn::spanned::Spanned::span(ty)=> #pm::structured::<#ty>(&#value, &__mcp_context))
        }
        OutputValue::Content(ty) => {
            quote_spanned!(syn::spanned::Spanned::span(ty)=> #pm::content::<#ty>(#value))
        }
    };
    let convert = if tool.output.fallible {
        let ok = convert_value(quote!(__mcp_value));
        // The source chain is picked by autoref (see `__private::ErrorText`);
        // only `tool_error` bounds the type, so a type without Display gets
        // one error, on the type.
        let chain = quote! {{
            #[allow(unused_imports)]
            use #pm::{NoSourceChain as _, SourceChain as _};
            (&&#pm::ErrorText(&__mcp_error)).chain()
        }};
        let err = match &tool.output.error {
            Some(ty) => {
                quote_spanned!(syn::spanned::Spanned::span(ty)=> #pm::tool_error::<#ty>(&__mcp_error, #chain))
            }
            None => quote_spanned!(tool.output.span=> #pm::tool_error(&__mcp_error, #chain)),
        };
        quote! {
            match __mcp_out {
                ::core::result::Result::Ok(__mcp_value) => #ok,
                ::core::result::Result::Err(__mcp_error) => #err,
            }
        }
    } else {
        convert_value(quote!(__mcp_out))
    };
    quote! {
        move |__mcp_args, __mcp_context| {
            ::std::boxed::Box::pin(async move {
                #(#fetch)*
                let __mcp_out = __mcp_fn(#(#passed),*) #awaited;
                #convert
            })
        }
    }
}
