//! Who is calling: the identity a transport verified before the call (on
//! Streamable HTTP, the subject and scopes of the bearer token). Stdio has no
//! caller identity: the process that spawned the server is the user.

use serde_json::{Map, Value};

/// The verified caller of a request: subject, granted scopes and the token's
/// claims. Read it in a tool with [`Context::principal`](crate::Context::principal).
///
/// ```
/// use mcpfn_runtime::Principal;
///
/// let alice = Principal::new("alice", ["files:read"], Default::default());
/// assert_eq!(alice.subject(), "alice");
/// assert!(alice.has_scope("files:read"));
/// assert!(!alice.has_scope("files:write"));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Principal {
    subject: String,
    scopes: Vec<String>,
    claims: Map<String, Value>,
}

impl Principal {
    /// A principal with `subject` (the token's `sub`), the `scopes` it was
    /// granted and every claim of its token.
    pub fn new<S: Into<String>>(
        subject: impl Into<String>,
        scopes: impl IntoIterator<Item = S>,
        claims: Map<String, Value>,
    ) -> Principal {
        Principal {
            subject: subject.into(),
            scopes: scopes.into_iter().map(Into::into).collect(),
            claims,
        }
    }

    /// The caller's identifier (a JWT's `sub`).
    pub fn subject(&self) -> &str {
        &self.subject
    }

    /// The scopes granted to the caller.
    pub fn scopes(&self) -> &[String] {
        &self.scopes
    }

    /// Whether `scope` was granted.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|granted| granted == scope)
    }

    /// Every claim of the caller's token (`iss`, `aud`, `exp`, custom claims).
    pub fn claims(&self) -> &Map<String, Value> {
        &self.claims
    }
}

/// Whether `scopes` are all granted to `principal` (exact names: scope
/// hierarchies are the authorization server's to expand into the token).
pub(crate) fn grants(principal: &Principal, scopes: &[String]) -> bool {
    scopes.iter().all(|scope| principal.has_scope(scope))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_are_granted_only_when_all_are_held() {
        let p = Principal::new("a", ["x", "y"], Map::new());
        assert!(grants(&p, &[]));
        assert!(grants(&p, &["x".to_owned()]));
        assert!(!grants(&p, &["x".to_owned(), "z".to_owned()]));
    }
}
