//! The digest of a call's arguments that a `requestState` is bound to:
//! SHA-256 of their canonical form, computed only when a state is opened
//! or sealed.

use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::borrow::Cow;
use std::sync::Arc;

/// The arguments digest of a 2026-07-28 call, computed when first needed:
/// only a call that opens or seals a `requestState` reads it, and hashing
/// costs more than all the rest of a small call.
pub(crate) enum ArgumentsDigest {
    /// Computed already (or empty: a legacy call never seals).
    Known(String),
    /// The call's arguments (the text the tool reads too, shared, not
    /// copied), hashed on demand.
    Of(Option<Arc<str>>),
}

impl ArgumentsDigest {
    /// The digest ([`arguments_digest`] of the arguments).
    pub(crate) fn get(&self) -> Cow<'_, str> {
        match self {
            ArgumentsDigest::Known(digest) => Cow::Borrowed(digest),
            ArgumentsDigest::Of(arguments) => Cow::Owned(arguments_digest(arguments.as_deref())),
        }
    }
}

/// SHA-256 of the arguments in canonical form (keys sorted), so a client that
/// re-serializes the same arguments still matches.
pub(crate) fn arguments_digest(arguments: Option<&str>) -> String {
    let value: Value = arguments
        .and_then(|text| serde_json::from_str(text).ok())
        .unwrap_or_else(|| json!({}));
    Sha256::digest(mcpfn_protocol::canonical::canonical_json(&value).as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
