//! The only place that makes tokens: the re-emitted fn, a marker type with the
//! fn's name for `tools![...]`, and the tool's definition and call glue.

use crate::ast::{OutputValue, ToolFn};
use crate::attr::ToolAttr;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::ItemFn;

/// Entry point of `#[tool]`.
pub(crate) fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    let item: ItemFn = match syn::parse2(input.clone()) {
        Ok(item) => item,
        // Not a fn at all: say so and give the tokens back untouched.
        Err(_) => {
            let err = syn::Error::new(
                Span::call_site(),
                "#[tool] goes on a fn, e.g. `#[tool] async fn add(a: f64, b: f64) -> f64`",
            );
            let err = err.to_compile_error();
            return quote!(#err #input);
        }
    };
    let attr = match ToolAttr::parse(args) {
        Ok(attr) => attr,
        Err(err) => return fallback(strip_helpers(item), Some(err), None),
    };
    let krate = krate(&attr);
    let tool = match ToolFn::from_syn(attr, item) {
        Ok(tool) => tool,
        Err((item, err)) => return fallback(strip_helpers(item), Some(err), Some(krate)),
    };
    if crate::validate::rustc_rejects(&tool) {
        return fallback(tool.item, None, Some(krate));
    }
    if let Err(err) = crate::validate::check(&tool) {
        return fallback(tool.item, Some(err), Some(krate));
    }
    expand(&tool, &krate)
}

fn krate(attr: &ToolAttr) -> TokenStream {
    match attr.krate.get() {
        Some(path) => {
            let path = &path.value;
            quote!(#path)
        }
        None => quote!(::mcp_runtime),
    }
}

/// Removes `#[arg]` and doc attributes from parameters, which rustc would reject.
fn strip_helpers(mut item: ItemFn) -> ItemFn {
    for input in item.sig.inputs.iter_mut() {
        if let syn::FnArg::Typed(pat_type) = input {
            pat_type
                .attrs
                .retain(|a| !a.path().is_ident("arg") && !a.path().is_ident("doc"));
        }
    }
    item
}

/// What a failed expansion emits: the user's fn unchanged, the error, and a
/// marker type with a never-run definition, so `tools![f]` and calls of `f`
/// elsewhere do not add errors of their own.
fn fallback(item: ItemFn, err: Option<syn::Error>, krate: Option<TokenStream>) -> TokenStream {
    let krate = krate.unwrap_or_else(|| quote!(::mcp_runtime));
    let err = err.map(|e| e.to_compile_error());
    let marker = marker(&item);
    let ident = &item.sig.ident;
    quote! {
        #err
        #item
        #marker
        const _: () = {
            impl #krate::__private::ToolFn for #ident {
                fn tool() -> #krate::Tool {
                    ::core::unreachable!("this #[tool] failed to compile")
                }
            }
        };
    }
}

/// A braced struct lives only in the type namespace, so it can share the fn's
/// name: `add(1.0, 2.0)` still calls the fn and `tools![add]` finds the tool.
fn marker(item: &ItemFn) -> TokenStream {
    let vis = &item.vis;
    let ident = &item.sig.ident;
    let doc = format!("The MCP tool registered from the fn [`{ident}()`].");
    quote! {
        #[doc = #doc]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #ident {}
    }
}

fn expand(tool: &ToolFn, krate: &TokenStream) -> TokenStream {
    let item = &tool.item;
    let fn_ident = &item.sig.ident;
    let marker = marker(item);
    let pm = quote!(#krate::__private);
    let args_struct = args_struct(tool, &pm);
    let builder = definition(tool, &pm);
    let call = call_glue(tool, &pm);
    quote! {
        #item
        #marker
        const _: () = {
            #args_struct
            impl #pm::ToolFn for #fn_ident {
                fn tool() -> #krate::Tool {
                    #builder
                }
            }
            #call
        };
    }
}

/// The hidden struct the arguments deserialize into; its derives make the
/// inputSchema and the deserializer agree by construction.
fn args_struct(tool: &ToolFn, pm: &TokenStream) -> TokenStream {
    let serde_path = format!("{}::serde", pm.to_string().replace(' ', ""));
    let schemars_path = format!("{}::schemars", pm.to_string().replace(' ', ""));
    let fields = tool.params.iter().map(|param| {
        let ident = param.ident.as_ref().expect("validated: plain bindings");
        let ty = &param.ty;
        let wire = &param.wire_name;
        let docs = &param.docs;
        let description = param.arg.description.get().map(|d| {
            let d = &d.value;
            quote!(#[schemars(description = #d)])
        });
        quote! {
            #(#[doc = #docs])*
            #description
            #[serde(rename = #wire)]
            #ident: #ty
        }
    });
    quote! {
        #[derive(#pm::serde::Deserialize, #pm::schemars::JsonSchema)]
        #[serde(crate = #serde_path, deny_unknown_fields)]
        #[schemars(crate = #schemars_path)]
        #[allow(non_camel_case_types, dead_code)]
        struct __McpArgs {
            #(#fields,)*
        }
    }
}

/// The builder expression that makes the `Tool` value.
fn definition(tool: &ToolFn, pm: &TokenStream) -> TokenStream {
    let attr = &tool.attr;
    let name = &tool.name;
    let description = match attr.description.get() {
        Some(lit) => {
            let lit = &lit.value;
            quote!(.description(#lit))
        }
        None if tool.docs.is_empty() => quote!(),
        None => {
            let docs = &tool.docs;
            quote!(.description(&#pm::doc_text(&[#(#docs),*])))
        }
    };
    let title = attr.title.get().map(|t| {
        let t = &t.value;
        quote!(.title(#t))
    });
    let hint = |slot: &crate::attr::Slot<bool>, setter: &str| {
        slot.get().map(|s| {
            let value = s.value;
            let setter = format_ident!("{}", setter);
            quote!(.#setter(#value))
        })
    };
    let read_only = hint(&attr.read_only, "read_only_hint");
    let destructive = hint(&attr.destructive, "destructive_hint");
    let idempotent = hint(&attr.idempotent, "idempotent_hint");
    let open_world = hint(&attr.open_world, "open_world_hint");
    let icons = attr.icons.iter().map(|icon| {
        let src = &icon.src;
        let mime = icon.mime_type.as_ref().map(|m| quote!(.mime_type(#m)));
        let sizes = icon.sizes.as_ref().map(|s| quote!(.sizes(#s)));
        let theme = icon.theme.as_ref().map(|t| quote!(.theme(#t)));
        quote!(.icon(#pm::Icon::new(#src) #mime #sizes #theme))
    });
    let metas = attr.meta.iter().map(|(key, value)| {
        quote!(.meta(#key, #pm::serde_json::Value::from(#value)))
    });
    let output = match &tool.output.value {
        OutputValue::Structured(ty) => {
            quote_spanned!(syn::spanned::Spanned::span(ty)=> .output_schema(#pm::output_schema::<#ty>()))
        }
        OutputValue::Content(_) => quote!(),
    };
    let arg_checks = tool.params.iter().map(|param| {
        let ty = &param.ty;
        quote_spanned!(syn::spanned::Spanned::span(ty)=> #pm::assert_argument::<#ty>();)
    });
    quote! {
        #(#arg_checks)*
        #pm::ToolBuilder::new(#name, __mcp_call)
            #description
            #title
            .input_schema(#pm::input_schema::<__McpArgs>())
            #output
            #read_only
            #destructive
            #idempotent
            #open_world
            #(#icons)*
            #(#metas)*
            .build()
    }
}

/// The fn the runtime calls: deserialize, call the user's fn, convert the result.
fn call_glue(tool: &ToolFn, pm: &TokenStream) -> TokenStream {
    let fn_ident = &tool.item.sig.ident;
    let idents: Vec<_> = tool
        .params
        .iter()
        .map(|p| p.ident.clone().expect("validated: plain bindings"))
        .collect();
    let awaited = tool.item.sig.asyncness.map(|_| quote!(.await));
    let convert_value = |value: TokenStream| match &tool.output.value {
        OutputValue::Structured(ty) => {
            quote_spanned!(syn::spanned::Spanned::span(ty)=> #pm::structured::<#ty>(&#value))
        }
        OutputValue::Content(ty) => {
            quote_spanned!(syn::spanned::Spanned::span(ty)=> #pm::content::<#ty>(#value))
        }
    };
    let convert = if tool.output.fallible {
        let ok = convert_value(quote!(__mcp_value));
        let err = quote_spanned!(tool.output.span=> #pm::tool_error(&__mcp_error));
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
        fn __mcp_call(__mcp_call: #pm::ToolCall) -> #pm::BoxFuture<#pm::ToolOutcome> {
            ::std::boxed::Box::pin(async move {
                let __McpArgs { #(#idents),* } = match __mcp_call.arguments::<__McpArgs>() {
                    ::core::result::Result::Ok(__mcp_args) => __mcp_args,
                    ::core::result::Result::Err(__mcp_outcome) => return __mcp_outcome,
                };
                let __mcp_out = #fn_ident(#(#idents),*) #awaited;
                #convert
            })
        }
    }
}
