//! The digest of a call's arguments that a `requestState` is bound to:
//! SHA-256 of their canonical form, computed only when a state is opened
//! or sealed.

use mcpfn_protocol::canonical::canonical_json;
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
    let canonical = match arguments {
        None => canonical_json(&json!({})),
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(value) => canonical_json(&value),
            // The request's one parse checked the arguments are an object,
            // so this does not happen; were they not JSON, their own bytes
            // are hashed, which no JSON value's canonical form equals, so
            // they never share the digest of `{}` (or of anything else).
            Err(_) => text.to_owned(),
        },
    };
    Sha256::digest(canonical.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::arguments_digest;

    #[test]
    fn arguments_that_are_not_json_never_share_the_digest_of_none() {
        assert_eq!(arguments_digest(Some("{}")), arguments_digest(None));
        assert_eq!(
            arguments_digest(Some(r#"{"b":1,"a":2}"#)),
            arguments_digest(Some(r#"{ "a": 2, "b": 1 }"#))
        );
        assert_ne!(arguments_digest(Some("{not json")), arguments_digest(None));
    }
}
