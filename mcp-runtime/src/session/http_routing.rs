//! What the HTTP transport asks about a request before the session serves
//! it, answered here so that the transport needs to know neither tools
//! nor which methods call them: the arguments a call mirrors into
//! `Mcp-Param-*` headers (the ladder's step 7), the scopes a request
//! needs (a `401`'s `scope`, before the body is read) and every scope
//! a request may need (the authorization metadata document).

use crate::protocol::http::HeaderParam;
use crate::protocol::model::method;
use crate::shared::Shared;
use crate::tool::Tool;
use std::sync::Arc;

/// The arguments a request mirrors into headers, held with the tool they
/// are read from (the one the session will look up by the same name).
pub(crate) struct Mirrored(Arc<Tool>);

impl Mirrored {
    /// Each mirrored argument; never empty.
    pub(crate) fn params(&self) -> &[HeaderParam] {
        self.0.header_params()
    }
}

/// The arguments a request of `method` naming `name` mirrors into
/// headers; `None` when it mirrors none (then its arguments need not be
/// parsed).
pub(crate) fn mirrored(shared: &Shared, method: &str, name: &str) -> Option<Mirrored> {
    if method != method::TOOLS_CALL {
        return None;
    }
    let (_, tool) = shared.tools.lookup(name)?;
    (!tool.header_params().is_empty()).then_some(Mirrored(tool))
}

/// The scopes a request of `method` naming `name` needs: a call's tool's;
/// none for anything else, or a tool that does not exist.
pub(crate) fn required_scopes(shared: &Shared, method: &str, name: &str) -> Vec<String> {
    if method != method::TOOLS_CALL {
        return Vec::new();
    }
    shared
        .tools
        .lookup(name)
        .map(|(_, tool)| tool.scopes().to_vec())
        .unwrap_or_default()
}

/// Every scope some request may need (each tool's), with repeats: what
/// the authorization metadata document lists when no list is configured.
pub(crate) fn every_scope(shared: &Shared) -> Vec<String> {
    let registry = shared.tools.registry();
    registry
        .tools()
        .flat_map(|tool| tool.scopes())
        .cloned()
        .collect()
}
