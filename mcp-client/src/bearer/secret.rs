//! [`Secret`]: a token or a client secret, which `Debug` never shows.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A credential (access token, refresh token, client secret). Its
/// `Debug` is `Secret(<redacted>)` and it has no `Display`, so it cannot
/// end up in a log line or an error by accident; [`expose`](Secret::expose)
/// is the one way to its text.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    /// Wraps `text`.
    pub fn new(text: impl Into<String>) -> Secret {
        Secret(text.into())
    }

    /// The credential itself, for the one place that sends it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}
