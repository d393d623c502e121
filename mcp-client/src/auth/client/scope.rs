//! Scope lists (space-separated, RFC 6749 §3.3): whether one covers
//! another, their union, and whether a refresh token is asked for.

use std::collections::BTreeSet;

/// Whether `scope` asks for a refresh token (`offline_access`).
pub(super) fn asks_offline_access(scope: Option<&str>) -> bool {
    scope
        .unwrap_or("")
        .split_ascii_whitespace()
        .any(|s| s == OFFLINE_ACCESS)
}

/// The scope that asks for a refresh token (OpenID Connect Core §11).
pub(super) const OFFLINE_ACCESS: &str = "offline_access";

/// Whether the scopes `granted` include every one of `asked`.
pub(super) fn covers_scope(granted: Option<&str>, asked: Option<&str>) -> bool {
    let granted: BTreeSet<&str> = granted.unwrap_or("").split_ascii_whitespace().collect();
    asked
        .unwrap_or("")
        .split_ascii_whitespace()
        .all(|scope| granted.contains(scope))
}

/// The union of two space-separated scope lists, in a stable order.
pub(super) fn union(a: Option<&str>, b: Option<&str>) -> Option<String> {
    let all: BTreeSet<&str> = a
        .into_iter()
        .chain(b)
        .flat_map(str::split_ascii_whitespace)
        .collect();
    (!all.is_empty()).then(|| all.into_iter().collect::<Vec<_>>().join(" "))
}

#[cfg(test)]
mod tests {
    use super::{covers_scope, union};

    #[test]
    fn step_up_keeps_the_granted_scopes() {
        assert_eq!(
            union(Some("tools:read"), Some("tools:admin tools:read")).as_deref(),
            Some("tools:admin tools:read")
        );
        assert_eq!(union(None, None), None);
        assert!(covers_scope(Some("a b"), Some("b")));
        assert!(!covers_scope(Some("a"), Some("a b")));
    }
}
