//! Why authorizing failed: [`AuthError`], one type for the whole flow.
//! Its text names the peer (the resource, the authorization server, the
//! redirect) and never a token.

/// Why the client could not get (or keep) a token for a server.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AuthError {
    /// A peer (the MCP server's metadata, the authorization server) could
    /// not be reached or answered something unusable.
    #[error("{peer}: {reason}")]
    Peer {
        /// Who: `authorization server https://…`, `server https://…`.
        peer: String,
        /// What was wrong.
        reason: String,
    },
    /// The authorization server refused a request with an OAuth error
    /// (`invalid_grant`, `access_denied`, …).
    #[error("authorization server {issuer} refused: {error}{}", description_tail(.description))]
    Refused {
        /// The authorization server's issuer.
        issuer: String,
        /// The OAuth `error` code.
        error: String,
        /// Its `error_description`, cut and made safe.
        description: String,
    },
    /// The redirect back from the authorization server failed a check
    /// (`state`, `iss`) or carried an error: nothing from it was used.
    #[error("the authorization response was refused: {reason}")]
    Redirect {
        /// What was wrong.
        reason: String,
    },
    /// The authorization server offers no device authorization grant.
    #[error(
        "authorization server {issuer} offers no device authorization (its metadata has no `device_authorization_endpoint`); log in with a browser instead"
    )]
    NoDeviceFlow {
        /// The authorization server's issuer.
        issuer: String,
    },
    /// Nothing came back in time (the user did not finish logging in).
    #[error("{what} did not finish within {seconds} s")]
    TimedOut {
        /// What was waited for.
        what: String,
        /// How long.
        seconds: u64,
    },
    /// The token store could not be read or written.
    #[error("token store: {reason}")]
    Store {
        /// What failed.
        reason: String,
    },
    /// A login is needed, and logins are deferred
    /// ([`OAuthClient::defer_logins`](super::OAuthClient::defer_logins)):
    /// it runs once the request's caller asks for it.
    #[error("a login is needed (it runs once this attempt to connect ends)")]
    LoginDeferred,
    /// The configuration cannot be used (a URL that does not parse, an
    /// `http://` authorization server that is not on loopback).
    #[error("{reason}")]
    Config {
        /// What is wrong.
        reason: String,
    },
}

impl AuthError {
    /// Whether the authorization server said the grant (a refresh token,
    /// a code) is no longer valid: the flow must start again.
    pub fn is_invalid_grant(&self) -> bool {
        matches!(self, AuthError::Refused { error, .. } if error == "invalid_grant")
    }
}

fn description_tail(text: &str) -> String {
    if text.is_empty() {
        String::new()
    } else {
        format!(" ({text})")
    }
}
