//! Authorization for Streamable HTTP: the server as an OAuth 2.1 resource
//! server (MCP authorization, RFC 9728, RFC 6750, RFC 8707).
//!
//! [`Server::auth`](crate::Server::auth) takes an [`Auth`]: the server's
//! canonical URI, the authorization servers that issue its tokens, and a
//! [`TokenVerifier`]. Then every request to the MCP endpoint (POST, the
//! legacy GET stream, DELETE) needs `Authorization: Bearer <token>`; the
//! metadata document is served, unauthenticated, at
//! `/.well-known/oauth-protected-resource` and at that prefix followed by
//! the canonical URI's path (`/.well-known/oauth-protected-resource/mcp`).
//!
//! | request | status | `WWW-Authenticate` |
//! | --- | --- | --- |
//! | no `Authorization`, or another scheme (`Basic`) | `401` | `Bearer resource_metadata="…"` (+ `scope` when the `Mcp-Name` of a `tools/call` names a tool with scopes) |
//! | a token only in the query string (`?access_token=`) | `401` | as above: such a token is never read, so the request has none |
//! | a query-string token and a header token | `400` | `Bearer error="invalid_request", …` (RFC 6750 §2: one method per request) |
//! | `Bearer` with no token, a token of characters RFC 6750 does not allow, two `Authorization` headers | `400` | `Bearer error="invalid_request", …` |
//! | a token the verifier refuses: garbage, bad signature, unknown key, expired, not yet valid, another issuer, another audience, an empty or blank `sub`; or a [`Principal`] with an empty or blank subject from any verifier | `401` | `Bearer error="invalid_token", error_description="…", resource_metadata="…"` |
//! | the verifier cannot check now ([`Rejection::Unavailable`]) | `503` | none (`Retry-After`) |
//! | `tools/call` of a tool whose scopes the token lacks | `403` | `Bearer error="insufficient_scope", scope="<every scope of the tool>", resource_metadata="…"` |
//!
//! Scopes are declared per tool (`#[tool(scopes("files:write"))]`,
//! [`ToolBuilder::scopes`](crate::ToolBuilder::scopes)). They are checked by
//! the session, on the tool it resolved, with the principal this gate put on
//! the request's connection; this module only turns the session's refusal
//! into the `403` and its challenge. Stdio, and HTTP without `Server::auth`,
//! have no caller identity and run every tool.

mod bearer;
mod metadata;
mod verifier;

#[cfg(feature = "jwt")]
mod jwks;
#[cfg(feature = "jwt")]
mod jwt;

#[cfg(feature = "jwt")]
pub use jwks::Jwks;
#[cfg(feature = "jwt")]
pub use jwt::JwtVerifier;
pub use verifier::{Bearer, Rejection, TokenVerifier, VerifyFuture};

use crate::error::Error;
use crate::principal::Principal;
use crate::protocol::RpcError;
pub(crate) use bearer::challenge;
use bearer::{Credentials, bearer_token, has_access_token};
use hyper::StatusCode;
use hyper::header::HeaderMap;
use metadata::{ProtectedResourceMetadata, ResourceUri};
use std::fmt;
use std::sync::Arc;

/// The authorization settings of an HTTP server, for
/// [`Server::auth`](crate::Server::auth).
///
/// ```
/// # #[cfg(feature = "jwt")]
/// # fn main() -> std::io::Result<()> {
/// use mcpfn_runtime::Server;
/// use mcpfn_runtime::auth::{Auth, Jwks, JwtVerifier};
///
/// let verifier = JwtVerifier::new(
///     Jwks::url("http://idp.internal/.well-known/jwks.json")?,
///     "https://auth.example.com",     // the `iss` tokens must carry
///     "https://mcp.example.com/mcp",  // the `aud`: this server's canonical URI
/// );
/// let server = Server::new("files", "1.0.0").auth(
///     Auth::new("https://mcp.example.com/mcp", verifier)
///         .authorization_server("https://auth.example.com"),
/// );
/// # let _ = server;
/// # Ok(())
/// # }
/// # #[cfg(not(feature = "jwt"))]
/// # fn main() {}
/// ```
#[must_use]
pub struct Auth {
    resource: String,
    authorization_servers: Vec<String>,
    scopes_supported: Option<Vec<String>>,
    resource_name: Option<String>,
    verifier: Arc<dyn TokenVerifier>,
    hide_unauthorized_tools: bool,
}

impl fmt::Debug for Auth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Auth")
            .field("resource", &self.resource)
            .field("authorization_servers", &self.authorization_servers)
            .field("scopes_supported", &self.scopes_supported)
            .field("hide_unauthorized_tools", &self.hide_unauthorized_tools)
            .finish_non_exhaustive()
    }
}

impl Auth {
    /// Protects the server whose canonical URI is `resource` (what clients
    /// connect to, e.g. `https://mcp.example.com/mcp`; also the audience its
    /// tokens must name, RFC 8707) with `verifier`. Add at least one
    /// [`Auth::authorization_server`].
    pub fn new(resource: impl Into<String>, verifier: impl TokenVerifier) -> Auth {
        Auth {
            resource: resource.into(),
            authorization_servers: Vec::new(),
            scopes_supported: None,
            resource_name: None,
            verifier: Arc::new(verifier),
            hide_unauthorized_tools: false,
        }
    }

    /// An authorization server (its issuer URL) that issues tokens for
    /// this server, listed in the metadata document; repeat for several.
    pub fn authorization_server(mut self, issuer: impl Into<String>) -> Auth {
        self.authorization_servers.push(issuer.into());
        self
    }

    /// The metadata's `scopes_supported`. By default: every scope a
    /// registered tool declares, sorted.
    pub fn scopes_supported<S: Into<String>>(
        mut self,
        scopes: impl IntoIterator<Item = S>,
    ) -> Auth {
        self.scopes_supported = Some(scopes.into_iter().map(Into::into).collect());
        self
    }

    /// The metadata's `resource_name`, a name for people.
    pub fn resource_name(mut self, name: impl Into<String>) -> Auth {
        self.resource_name = Some(name.into());
        self
    }

    /// Whether `tools/list` leaves out the tools the caller's token lacks a
    /// scope for. Off by default: everyone gets the same list, which 2026-07-28
    /// clients and gateways may then cache and share (`cacheScope:
    /// "public"`), and a client sees the tools it could use after asking for
    /// more scopes (a call answers `403` naming them). On, each list is built
    /// for its caller and marked `cacheScope: "private"`.
    pub fn hide_unauthorized_tools(mut self, hide: bool) -> Auth {
        self.hide_unauthorized_tools = hide;
        self
    }
}

impl<T: TokenVerifier + ?Sized> TokenVerifier for Arc<T> {
    fn verify<'a>(&'a self, bearer: Bearer<'a>) -> VerifyFuture<'a> {
        (**self).verify(bearer)
    }
}

/// [`Auth`], checked and ready to answer requests.
pub(crate) struct Gate {
    resource: String,
    uri: ResourceUri,
    metadata_url: String,
    authorization_servers: Vec<String>,
    scopes_supported: Option<Vec<String>>,
    resource_name: Option<String>,
    verifier: Arc<dyn TokenVerifier>,
    pub(crate) hide_unauthorized_tools: bool,
}

impl fmt::Debug for Gate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Gate")
            .field("resource", &self.resource)
            .finish_non_exhaustive()
    }
}

/// A refused request: its status (RFC 6750 decides it, not a JSON-RPC
/// code), its `WWW-Authenticate` (if any) and the error of the body (an
/// id-less `-32600`: the request as a whole is refused).
#[derive(Debug)]
pub(crate) struct Denial {
    pub(crate) status: StatusCode,
    pub(crate) challenge: Option<String>,
    pub(crate) error: RpcError,
}

/// `error` codes of RFC 6750 §3.1.
const INVALID_REQUEST: &str = "invalid_request";
const INVALID_TOKEN: &str = "invalid_token";
/// Why a principal with a blank subject is refused (the JWT verifier's
/// words too).
pub(crate) const EMPTY_SUBJECT: &str = "its subject (`sub`) is empty";
const INSUFFICIENT_SCOPE: &str = "insufficient_scope";

impl Gate {
    /// Checks `auth`: an absolute canonical URI and at least one
    /// authorization server (the metadata document must list one).
    pub(crate) fn new(auth: Auth) -> Result<Gate, Error> {
        let uri = ResourceUri::parse(&auth.resource).map_err(Error::InvalidAuth)?;
        if auth.authorization_servers.is_empty() {
            return Err(Error::InvalidAuth(
                "no authorization server: add Auth::authorization_server(issuer URL)".to_owned(),
            ));
        }
        for scope in auth.scopes_supported.iter().flatten() {
            crate::error::check_scope(scope).map_err(|reason| {
                Error::InvalidAuth(format!("scopes_supported: {scope:?} {reason}"))
            })?;
        }
        Ok(Gate {
            metadata_url: uri.metadata_url(),
            resource: auth.resource,
            uri,
            authorization_servers: auth.authorization_servers,
            scopes_supported: auth.scopes_supported,
            resource_name: auth.resource_name,
            verifier: auth.verifier,
            hide_unauthorized_tools: auth.hide_unauthorized_tools,
        })
    }

    /// Whether `path` is one of the metadata document's two paths.
    pub(crate) fn is_metadata_path(&self, path: &str) -> bool {
        self.uri.is_metadata_path(path)
    }

    /// The metadata document; `tool_scopes` are the registered tools'
    /// scopes, listed when no `scopes_supported` was given.
    pub(crate) fn metadata<'a>(&self, tool_scopes: impl Iterator<Item = &'a String>) -> Vec<u8> {
        let derived: Vec<String>;
        let scopes = match &self.scopes_supported {
            Some(scopes) => scopes.as_slice(),
            None => {
                let mut all: Vec<String> = tool_scopes.cloned().collect();
                all.sort();
                all.dedup();
                derived = all;
                &derived
            }
        };
        let document = ProtectedResourceMetadata {
            resource: &self.resource,
            authorization_servers: &self.authorization_servers,
            scopes_supported: scopes,
            bearer_methods_supported: ["header"],
            resource_name: self.resource_name.as_deref(),
        };
        // Plain data with string keys: it always serializes.
        serde_json::to_vec(&document).unwrap_or_default()
    }

    /// The caller of a request with these `headers` and `query`, or why it
    /// is refused. `needed`: the scopes of the tool the request names, if
    /// known before the body is read (the `scope` of a `401`).
    pub(crate) async fn authenticate(
        &self,
        headers: &HeaderMap,
        query: Option<&str>,
        needed: &[String],
    ) -> Result<Arc<Principal>, Denial> {
        let in_query = query.is_some_and(has_access_token);
        let token = match bearer_token(headers) {
            Ok(token) => token,
            Err(Credentials::Missing) => {
                let message = if in_query {
                    "Unauthorized: access tokens in the query string are not accepted; send `Authorization: Bearer <token>`"
                } else {
                    "Unauthorized: send `Authorization: Bearer <token>`"
                };
                // RFC 6750 §3.1: no error code when no credentials came.
                return Err(self.deny(StatusCode::UNAUTHORIZED, None, None, needed, message));
            }
            Err(Credentials::Malformed(why)) => {
                return Err(self.deny(
                    StatusCode::BAD_REQUEST,
                    Some(INVALID_REQUEST),
                    Some(why),
                    &[],
                    &format!("Bad Request: {why}"),
                ));
            }
        };
        if in_query {
            let why = "a token in the query string too; send it only in the Authorization header";
            return Err(self.deny(
                StatusCode::BAD_REQUEST,
                Some(INVALID_REQUEST),
                Some(why),
                &[],
                &format!("Bad Request: {why}"),
            ));
        }
        let verified = self
            .verifier
            .verify(Bearer::new(token, headers))
            .await
            .and_then(|principal| {
                // Legacy sessions and handles belong to a subject: every
                // token without one (whatever the verifier) would share them.
                if principal.subject().trim().is_empty() {
                    Err(Rejection::Invalid(EMPTY_SUBJECT.to_owned()))
                } else {
                    Ok(principal)
                }
            });
        match verified {
            Ok(principal) => Ok(Arc::new(principal)),
            Err(Rejection::Unavailable(reason)) => {
                tracing::warn!(%reason, "a bearer token could not be checked");
                Err(Denial {
                    status: StatusCode::SERVICE_UNAVAILABLE,
                    challenge: None,
                    error: RpcError::invalid_request(
                        "Service Unavailable: the token cannot be checked now; retry shortly",
                    ),
                })
            }
            Err(rejection) => {
                tracing::debug!(%rejection, "refused a bearer token");
                let why = rejection.to_string();
                Err(self.deny(
                    StatusCode::UNAUTHORIZED,
                    Some(INVALID_TOKEN),
                    Some(&why),
                    needed,
                    &format!("Unauthorized: {why}"),
                ))
            }
        }
    }

    /// `403` for a call that needs `needed`, of which the token lacks some:
    /// the challenge names every scope the call needs, so one new token is
    /// enough (MCP authorization, "Scope challenge handling").
    pub(crate) fn insufficient_scope(&self, tool: &str, needed: &[String]) -> Denial {
        self.deny(
            StatusCode::FORBIDDEN,
            Some(INSUFFICIENT_SCOPE),
            None,
            needed,
            &format!(
                "Forbidden: the tool '{tool}' needs the scopes {:?}; get a token granting them",
                needed.join(" ")
            ),
        )
    }

    fn deny(
        &self,
        status: StatusCode,
        error: Option<&str>,
        description: Option<&str>,
        scopes: &[String],
        message: &str,
    ) -> Denial {
        let scope = (!scopes.is_empty()).then(|| scopes.join(" "));
        Denial {
            status,
            challenge: Some(challenge(
                error,
                description,
                scope.as_deref(),
                &self.metadata_url,
            )),
            error: RpcError::invalid_request(message.to_owned()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::header::{self, HeaderValue};

    fn headers(values: &[&'static str]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for value in values {
            map.append(header::AUTHORIZATION, HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn challenges_follow_rfc_6750_and_9728() {
        let url = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";
        assert_eq!(
            challenge(None, None, None, url),
            format!("Bearer resource_metadata=\"{url}\"")
        );
        assert_eq!(
            challenge(
                Some("insufficient_scope"),
                None,
                Some("files:read files:write"),
                url
            ),
            format!(
                "Bearer error=\"insufficient_scope\", scope=\"files:read files:write\", resource_metadata=\"{url}\""
            )
        );
        assert_eq!(
            challenge(
                Some("invalid_token"),
                Some("say \"hi\" \\ bye\n"),
                None,
                url
            ),
            format!(
                "Bearer error=\"invalid_token\", error_description=\"say \\\"hi\\\" \\\\ bye\", resource_metadata=\"{url}\""
            )
        );
    }

    #[test]
    fn bearer_tokens_are_read_from_the_header_only() {
        assert_eq!(
            bearer_token(&headers(&["Bearer abc.def-_~+/=="])),
            Ok("abc.def-_~+/==")
        );
        assert_eq!(bearer_token(&headers(&["bearer abc"])), Ok("abc"));
        assert_eq!(bearer_token(&headers(&[])), Err(Credentials::Missing));
        assert_eq!(
            bearer_token(&headers(&["Basic dXNlcjpwYXNz"])),
            Err(Credentials::Missing)
        );
        assert!(matches!(
            bearer_token(&headers(&["Bearer"])),
            Err(Credentials::Malformed(_))
        ));
        assert!(matches!(
            bearer_token(&headers(&["Bearer "])),
            Err(Credentials::Malformed(_))
        ));
        assert!(matches!(
            bearer_token(&headers(&["Bearer a b"])),
            Err(Credentials::Malformed(_))
        ));
        assert!(matches!(
            bearer_token(&headers(&["Bearer ==="])),
            Err(Credentials::Malformed(_))
        ));
        assert!(matches!(
            bearer_token(&headers(&["Bearer a", "Bearer b"])),
            Err(Credentials::Malformed(_))
        ));
        assert!(has_access_token("x=1&access_token=abc"));
        assert!(has_access_token("access_token"));
        assert!(!has_access_token("my_access_token=1"));
    }

    struct Refuse(Rejection);

    impl TokenVerifier for Refuse {
        fn verify<'a>(&'a self, _bearer: Bearer<'a>) -> VerifyFuture<'a> {
            Box::pin(async move { Err(self.0.clone()) })
        }
    }

    fn gate(rejection: Rejection) -> Gate {
        Gate::new(
            Auth::new("https://mcp.example.com/mcp", Refuse(rejection))
                .authorization_server("https://auth.example.com"),
        )
        .unwrap()
    }

    #[tokio::test(flavor = "current_thread")]
    async fn refusals_have_their_status_and_challenge() {
        let g = gate(Rejection::Expired);
        let denial = g
            .authenticate(&headers(&["Bearer t"]), None, &["a:b".to_owned()])
            .await
            .unwrap_err();
        assert_eq!(denial.status, StatusCode::UNAUTHORIZED);
        assert_eq!(
            denial.challenge.unwrap(),
            "Bearer error=\"invalid_token\", error_description=\"the token has expired\", scope=\"a:b\", resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource/mcp\""
        );
        let denial = g
            .authenticate(&headers(&[]), Some("access_token=t"), &[])
            .await
            .unwrap_err();
        assert_eq!(denial.status, StatusCode::UNAUTHORIZED);
        assert!(denial.error.message.contains("query string"));
        let denial = g
            .authenticate(&headers(&["Bearer t"]), Some("access_token=t"), &[])
            .await
            .unwrap_err();
        assert_eq!(denial.status, StatusCode::BAD_REQUEST);
        let unavailable = gate(Rejection::Unavailable("down".into()));
        let denial = unavailable
            .authenticate(&headers(&["Bearer t"]), None, &[])
            .await
            .unwrap_err();
        assert_eq!(denial.status, StatusCode::SERVICE_UNAVAILABLE);
    }

    /// Accepts every token as a principal with this subject.
    struct Subject(&'static str);

    impl TokenVerifier for Subject {
        fn verify<'a>(&'a self, _bearer: Bearer<'a>) -> VerifyFuture<'a> {
            Box::pin(async move { Ok(Principal::new(self.0, ["s"], Default::default())) })
        }
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_principal_without_a_subject_is_an_invalid_token_whatever_the_verifier() {
        for blank in ["", " ", "\t\n "] {
            let gate = Gate::new(
                Auth::new("https://mcp.example.com/mcp", Subject(blank))
                    .authorization_server("https://auth.example.com"),
            )
            .unwrap();
            let denial = gate
                .authenticate(&headers(&["Bearer t"]), None, &[])
                .await
                .unwrap_err();
            assert_eq!(denial.status, StatusCode::UNAUTHORIZED, "{blank:?}");
            let challenge = denial.challenge.unwrap();
            assert!(
                challenge.starts_with("Bearer error=\"invalid_token\""),
                "{challenge}"
            );
            assert!(challenge.contains(EMPTY_SUBJECT), "{challenge}");
        }
        let gate = Gate::new(
            Auth::new("https://mcp.example.com/mcp", Subject("alice"))
                .authorization_server("https://auth.example.com"),
        )
        .unwrap();
        let principal = gate
            .authenticate(&headers(&["Bearer t"]), None, &[])
            .await
            .unwrap();
        assert_eq!(principal.subject(), "alice");
    }

    #[test]
    fn a_config_without_an_authorization_server_is_refused() {
        let err = Gate::new(Auth::new(
            "https://mcp.example.com/mcp",
            Refuse(Rejection::Expired),
        ))
        .unwrap_err();
        assert!(err.to_string().contains("authorization server"), "{err}");
        let err = Gate::new(
            Auth::new("mcp", Refuse(Rejection::Expired)).authorization_server("https://a"),
        )
        .unwrap_err();
        assert!(err.to_string().contains("absolute"), "{err}");
    }
}
