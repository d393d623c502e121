//! What the HTTP transport knows of authorization (feature `oauth`): the
//! [`Authorizer`] it asks for a token and hands a refusal to, the
//! [`Challenge`] of a 401 or 403, the [`Secret`] a token is kept in, and
//! the origin rule. Below both the transport and [`auth`](crate::auth),
//! which implements it.

mod challenge;
mod secret;

pub use challenge::Challenge;
pub use secret::Secret;

use crate::error::ClientError;
use hyper::Uri;
use std::future::Future;
use std::pin::Pin;

/// A boxed, sendable future (the transport's own alias, spelled here so
/// that this seam does not depend on the transport).
type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What the HTTP transport asks about authorization: the token to send,
/// and what to do when the server refuses it.
/// [`OAuthClient`](crate::auth::OAuthClient) is the one implementation; a
/// test or a host may bring its own.
pub trait Authorizer: Send + Sync + std::fmt::Debug {
    /// The URL of the resource the tokens are for: they are sent only to
    /// its origin.
    fn resource_url(&self) -> &str;

    /// The token to send now, if there is one.
    fn bearer(&self) -> BoxFuture<'_, Result<Option<Secret>, ClientError>>;

    /// The server answered `challenge` to a request that carried `failed`:
    /// get a better token, or say why there is none.
    fn challenged<'a>(
        &'a self,
        challenge: &'a Challenge,
        failed: Option<&'a Secret>,
    ) -> BoxFuture<'a, Result<(), ClientError>>;

    /// While `defer` is set, a refusal that needs the user (a login)
    /// fails its request at once and leaves the login for
    /// [`deferred_login`](Self::deferred_login), so that no request's
    /// timeout cuts it short. A program sets it while it connects. The
    /// default: nothing is ever deferred.
    fn defer_logins(&self, defer: bool) {
        let _ = defer;
    }

    /// Runs the login a refusal left for later, outside any request's
    /// timeout: whether there was one (then connecting again may work).
    fn deferred_login(&self) -> BoxFuture<'_, Result<bool, ClientError>> {
        Box::pin(async { Ok(false) })
    }

    /// Whether a refusal left a login for later
    /// ([`deferred_login`](Self::deferred_login) would run one), without
    /// running it: a host that lets the user choose when to log in asks
    /// this. The default: never.
    fn login_pending(&self) -> bool {
        false
    }
}

/// `scheme://host:port` of `url`, lower-cased, with the default port
/// made explicit, so that two spellings of one origin compare equal.
pub(crate) fn origin(url: &str) -> Option<String> {
    let uri: Uri = url.parse().ok()?;
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    let host = uri.host()?.to_ascii_lowercase();
    let port = uri.port_u16().unwrap_or(match scheme.as_str() {
        "https" => 443,
        "http" => 80,
        _ => return None,
    });
    Some(format!("{scheme}://{host}:{port}"))
}

/// Whether two URLs are on one origin (scheme, host, port).
pub(crate) fn same_origin(a: &str, b: &str) -> bool {
    matches!((origin(a), origin(b)), (Some(a), Some(b)) if a == b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_compare_with_default_ports() {
        assert!(same_origin("https://A.test/mcp", "https://a.test:443/x"));
        assert!(!same_origin("https://a.test/mcp", "http://a.test/mcp"));
        assert!(!same_origin("https://a.test/", "https://a.test.evil/"));
        assert!(!same_origin("not a url", "not a url"));
    }
}
