//! The `Tool` value's definition: the builder expression that a key's
//! `BuildListed::build` evaluates once, with the tool's name, description,
//! schemas, annotations, options and the call glue of its parent module.

use super::call_glue;
use crate::ast::{OutputValue, ParamKind, ToolFn};
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

/// The builder expression that makes the `Tool` value.
pub(super) fn definition(tool: &ToolFn, pm: &TokenStream) -> TokenStream {
    let attr = &tool.attr;
    let name = &tool.name;
    let description = match attr.description.get() {
        Some(lit) => quote!(.description(#lit)),
        None if tool.docs.is_empty() => quote!(),
        None => {
            let docs = &tool.docs;
            quote!(.description(&#pm::doc_text(&[#(#docs),*])))
        }
    };
    let title = attr.title.get().map(|t| quote!(.title(#t)));
    let hint = |slot: &crate::attr::Slot<bool>, setter: &str| {
        slot.get().map(|value| {
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
    let metas = attr
        .meta
        .iter()
        .map(|(key, value)| quote!(.meta(#key, #pm::serde_json::Value::from(#value))));
    // Spanned on the return type and in the same body as `structured::<T>`
    // below, so rustc reports an unfit return type once.
    let output = match &tool.output.value {
        OutputValue::Structured(ty) => {
            quote_spanned!(syn::spanned::Spanned::span(ty)=> .output_schema_with(#pm::output_schema::<#ty>))
        }
        OutputValue::Content(_) => quote!(),
    };
    // The user's own type tokens: rustc points a failed bound at them.
    let param_types = tool
        .params
        .iter()
        .filter(|p| p.is_argument())
        .map(|param| &param.ty);
    let timeout = attr.timeout.get().map(|t| {
        let (secs, nanos) = (t.duration.as_secs(), t.duration.subsec_nanos());
        quote!(.timeout(::core::time::Duration::new(#secs, #nanos)))
    });
    let replayable = attr
        .replayable_input
        .get()
        .map(|replayable| quote!(.replayable_input(#replayable)));
    let task = attr.task.get().map(|task| {
        if task.required {
            // A constant: without mcp-runtime's `tasks` feature its
            // evaluation fails, one error on the `"required"`.
            quote_spanned!(task.span=> .task({
                const REQUIRED: #pm::TaskSupport = #pm::required_task();
                REQUIRED
            }))
        } else {
            quote!(.task(#pm::TaskSupport::Optional))
        }
    });
    // A task tool that calls `begin_task` in its body becomes a task there,
    // after the questions it asks on the request; one that does not, before
    // its first line. Seen in the tokens: a call in a helper fn is not, and
    // the task then begins at the start (the helper's call does nothing).
    let begins_in_body = attr.task.get().is_some()
        && mentions(
            quote::ToTokens::to_token_stream(&tool.item.block),
            "begin_task",
        );
    let begins_in_body = begins_in_body.then(|| quote!(.task_begins_in_body(true)));
    let resumable = attr
        .resumable
        .get()
        .map(|(_, resumable)| quote!(.resumable(#resumable)));
    let ui = attr.ui.get().map(|ui| crate::app_ui::expand_ui(ui, pm));
    let scopes = attr.scopes.get().map(|scopes| {
        let lits = &scopes.lits;
        quote!(.scopes([#(#lits),*]))
    });
    // A tool without a Context cannot watch for cancellation or report
    // progress while computing, so polling it first on the loop changes
    // nothing for it and saves a task per call.
    let inline = !tool
        .params
        .iter()
        .any(|p| matches!(p.kind, ParamKind::Context));
    let call = call_glue(tool, pm);
    // Without a bound on `T` (see `state_checks`).
    let start = quote!(__mcp_build::<#(#param_types,)* _>(#name, #call).runs_inline(#inline));
    let start = tool
        .params
        .iter()
        .fold(start, |builder, param| match &param.kind {
            ParamKind::State(inner) => quote!(#pm::requires_state::<#inner>(#builder)),
            _ => builder,
        });
    quote! {
        #start
            #timeout
            #replayable
            #task
            #begins_in_body
            #resumable
            #scopes
            #ui
            #description
            #title
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

/// Whether `tokens` contain the identifier `name` anywhere, in groups too.
fn mentions(tokens: proc_macro2::TokenStream, name: &str) -> bool {
    tokens.into_iter().any(|tree| match tree {
        proc_macro2::TokenTree::Ident(ident) => ident == name,
        proc_macro2::TokenTree::Group(group) => mentions(group.stream(), name),
        _ => false,
    })
}
