//! The [`TokenVerifier`] trait: a bearer token in, a [`Principal`] or a
//! typed [`Rejection`] out.

use crate::principal::Principal;
use hyper::HeaderMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;

/// What [`TokenVerifier::verify`] returns: a boxed future, so the trait
/// stays object-safe (the server holds it as `Arc<dyn TokenVerifier>`).
pub type VerifyFuture<'a> = Pin<Box<dyn Future<Output = Result<Principal, Rejection>> + Send + 'a>>;

/// The credentials of one HTTP request: the bearer token of its
/// `Authorization` header, and every header (for verifiers that also read
/// what a trusted gateway added).
#[derive(Clone, Copy, Debug)]
pub struct Bearer<'a> {
    token: &'a str,
    headers: &'a HeaderMap,
}

impl<'a> Bearer<'a> {
    /// The credentials `token` (from `Authorization: Bearer <token>`) of a
    /// request with these `headers`.
    pub fn new(token: &'a str, headers: &'a HeaderMap) -> Bearer<'a> {
        Bearer { token, headers }
    }

    /// The token, exactly as the client sent it.
    pub fn token(&self) -> &'a str {
        self.token
    }

    /// The request's headers.
    pub fn headers(&self) -> &'a HeaderMap {
        self.headers
    }
}

/// Checks a bearer token and says who sent it.
///
/// `JwtVerifier` (feature `jwt`) checks signed JWTs
/// against a JWKS; implement this trait for anything else: token
/// introspection (RFC 7662) at the authorization server, or a gateway in
/// front that has verified the token already and says so in a header.
/// Whatever the verifier, it must refuse tokens issued for another resource
/// (the MCP authorization rules: the audience is this server's canonical
/// URI). A [`Principal`] it returns with an empty or whitespace-only
/// subject is refused by the server as an invalid token (`401`), since
/// legacy sessions and handles belong to the subject: all such callers
/// would share them.
///
/// ```
/// use mcpfn_runtime::Principal;
/// use mcpfn_runtime::auth::{Bearer, Rejection, TokenVerifier, VerifyFuture};
///
/// /// Trusts the identity a gateway in front has put in `X-Auth-Subject`
/// /// and `X-Auth-Scopes` after checking the token itself (only sound when
/// /// nothing but the gateway can reach this server).
/// struct GatewayHeaders;
///
/// impl TokenVerifier for GatewayHeaders {
///     fn verify<'a>(&'a self, bearer: Bearer<'a>) -> VerifyFuture<'a> {
///         Box::pin(async move {
///             let header = |name| bearer.headers().get(name).and_then(|v| v.to_str().ok());
///             let subject = header("x-auth-subject")
///                 .ok_or_else(|| Rejection::Invalid("no subject from the gateway".into()))?;
///             let scopes = header("x-auth-scopes").unwrap_or("").split_whitespace();
///             Ok(Principal::new(subject, scopes, Default::default()))
///         })
///     }
/// }
///
/// let verifier: std::sync::Arc<dyn TokenVerifier> = std::sync::Arc::new(GatewayHeaders);
/// # let _ = verifier;
/// ```
///
/// An introspection verifier has the same shape: `verify` posts
/// `bearer.token()` to the authorization server's introspection endpoint
/// with the HTTP client of your choice, checks `active`, `aud` and `exp` in
/// the answer, and builds the [`Principal`] from `sub` and `scope`.
pub trait TokenVerifier: Send + Sync + 'static {
    /// The principal `bearer` identifies, or why it is refused.
    fn verify<'a>(&'a self, bearer: Bearer<'a>) -> VerifyFuture<'a>;
}

/// Why a token is refused. Every variant but [`Rejection::Unavailable`]
/// is answered `401` with `error="invalid_token"`; `Unavailable` is `503`
/// (the client's token may be fine; asking it to authorize again would not
/// help).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Rejection {
    /// Not a token this verifier can read (not a JWT, bad encoding).
    Malformed,
    /// The signature does not verify, or the algorithm is not allowed.
    BadSignature,
    /// Signed with a key the verifier does not know (`kid`).
    UnknownKey,
    /// Past its `exp` (beyond the leeway).
    Expired,
    /// Before its `nbf` (beyond the leeway).
    NotYetValid,
    /// Issued by another issuer than the one trusted (`iss`).
    WrongIssuer,
    /// Meant for another resource (`aud` does not name this server).
    WrongAudience,
    /// A claim the server needs is missing or mistyped (say, `sub`).
    MissingClaim(String),
    /// Refused for another reason (a custom verifier's).
    Invalid(String),
    /// The verifier could not check the token now (its keys could not be
    /// fetched).
    Unavailable(String),
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rejection::Malformed => f.write_str("the token is malformed"),
            Rejection::BadSignature => f.write_str("the token's signature is invalid"),
            Rejection::UnknownKey => f.write_str("the token is signed with an unknown key"),
            Rejection::Expired => f.write_str("the token has expired"),
            Rejection::NotYetValid => f.write_str("the token is not valid yet"),
            Rejection::WrongIssuer => f.write_str("the token is from another issuer"),
            Rejection::WrongAudience => f.write_str("the token is meant for another resource"),
            Rejection::MissingClaim(claim) => write!(f, "the token has no valid `{claim}` claim"),
            Rejection::Invalid(reason) => write!(f, "the token is invalid: {reason}"),
            Rejection::Unavailable(reason) => {
                write!(f, "the token cannot be checked now: {reason}")
            }
        }
    }
}

impl std::error::Error for Rejection {}
