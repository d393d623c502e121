//! Where to authorize: the server's protected resource metadata (RFC 9728)
//! and its authorization server's metadata (RFC 8414, then OpenID
//! Connect discovery), each at the URLs the MCP spec lists, in its order.
//!
//! A server of the 2025-03-26 revision serves no resource metadata: its
//! own origin is then the authorization server ([`legacy_resource`]),
//! and where that origin serves no metadata either, the revision's default
//! endpoints there are used ([`Discovery::Legacy`]).

use super::error::AuthError;
use super::web::{self, Body, Web};
use crate::bearer::{Challenge, origin};
use hyper::Method;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What the MCP server says about itself as a protected resource.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceMetadata {
    /// `resource`: the server's canonical URI, the `resource` parameter of
    /// the authorization and token requests (RFC 8707).
    pub resource: String,
    /// `authorization_servers`: the issuers that hand out its tokens.
    pub authorization_servers: Vec<String>,
    /// `scopes_supported`.
    #[serde(default)]
    pub scopes_supported: Vec<String>,
}

/// An authorization server's metadata: the fields the client uses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerMetadata {
    /// `issuer`, equal to the URL it was discovered from.
    pub issuer: String,
    /// `authorization_endpoint`.
    pub authorization_endpoint: Option<String>,
    /// `token_endpoint`.
    pub token_endpoint: String,
    /// `registration_endpoint` (RFC 7591), if it registers clients.
    pub registration_endpoint: Option<String>,
    /// `device_authorization_endpoint` (RFC 8628), if it offers the device
    /// flow.
    pub device_authorization_endpoint: Option<String>,
    /// `code_challenge_methods_supported`: must list `S256`.
    #[serde(default)]
    pub code_challenge_methods_supported: Vec<String>,
    /// `token_endpoint_auth_methods_supported` (RFC 8414's default:
    /// `client_secret_basic`).
    #[serde(default)]
    pub token_endpoint_auth_methods_supported: Vec<String>,
    /// `authorization_response_iss_parameter_supported` (RFC 9207): the
    /// redirect must then carry `iss`.
    #[serde(default)]
    pub authorization_response_iss_parameter_supported: bool,
    /// `client_id_metadata_document_supported`: a URL may be the client id.
    #[serde(default)]
    pub client_id_metadata_document_supported: bool,
    /// `scopes_supported`: where it lists `offline_access`, the client
    /// asks for it (a refresh token, OpenID Connect Core §11).
    #[serde(default)]
    pub scopes_supported: Vec<String>,
}

/// How the authorization server was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Discovery {
    /// From the resource metadata (2025-06-18 on).
    #[default]
    Metadata,
    /// The server serves none: 2025-03-26's rule, its origin.
    Legacy,
}

/// The resource metadata of the server at `server_url`: from the
/// challenge's `resource_metadata`, else the path form of the well-known
/// URL, else the root form; `None` if every one answers 404 (a server of
/// the 2025-03-26 revision). Its `resource` must be the server's URL or a
/// prefix of it on the same origin.
pub(crate) async fn resource_metadata(
    web: &Web,
    server_url: &str,
    challenge: &Challenge,
) -> Result<Option<ResourceMetadata>, AuthError> {
    let peer = format!("server {server_url}");
    let base = web::base(server_url).ok_or_else(|| AuthError::Config {
        reason: format!("`{server_url}` is not a URL"),
    })?;
    let mut candidates = Vec::new();
    if let Some(url) = &challenge.resource_metadata {
        candidates.push(url.clone());
    }
    let path = web::path(server_url);
    if !path.is_empty() {
        candidates.push(format!("{base}/.well-known/oauth-protected-resource{path}"));
    }
    candidates.push(format!("{base}/.well-known/oauth-protected-resource"));
    let mut tried = Vec::new();
    let mut statuses = Vec::new();
    for url in candidates {
        web::check_secure("the resource metadata URL", &url)?;
        let reply = web.send(&peer, Method::GET, &url, Body::None, None).await?;
        if reply.status != 200 {
            tried.push(format!("{url} (HTTP {})", reply.status));
            statuses.push(reply.status);
            continue;
        }
        let metadata: ResourceMetadata =
            serde_json::from_value(reply.json).map_err(|e| AuthError::Peer {
                peer: peer.clone(),
                reason: format!("its resource metadata at {url} is not usable: {e}"),
            })?;
        if !covers(&metadata.resource, server_url) {
            return Err(AuthError::Peer {
                peer,
                reason: format!(
                    "its resource metadata names resource `{}`, which is not this server",
                    metadata.resource
                ),
            });
        }
        if metadata.authorization_servers.is_empty() {
            return Err(AuthError::Peer {
                peer,
                reason: "its resource metadata lists no authorization server".into(),
            });
        }
        return Ok(Some(metadata));
    }
    // Only a plain "not here" means an older server; anything else is an
    // error worth showing.
    if statuses.iter().all(|&status| status == 404) {
        tracing::info!(server = %server_url, "no protected resource metadata: the server's origin is its authorization server (MCP 2025-03-26)");
        return Ok(None);
    }
    Err(AuthError::Peer {
        peer,
        reason: format!(
            "asks for authorization but serves no protected resource metadata (tried {})",
            tried.join(", ")
        ),
    })
}

/// 2025-03-26's resource: the server itself, its origin (the URL with the
/// path removed) the authorization server, no scopes known.
pub(crate) fn legacy_resource(server_url: &str) -> Result<ResourceMetadata, AuthError> {
    let base = web::base(server_url).ok_or_else(|| AuthError::Config {
        reason: format!("`{server_url}` is not a URL"),
    })?;
    Ok(ResourceMetadata {
        resource: server_url.to_owned(),
        authorization_servers: vec![base],
        scopes_supported: Vec::new(),
    })
}

/// 2025-03-26's default endpoints at `issuer` (an origin), for a server
/// that serves no metadata: `/authorize`, `/token`, `/register`. That
/// revision required PKCE S256 of every server.
fn legacy_endpoints(issuer: &str) -> ServerMetadata {
    ServerMetadata {
        issuer: issuer.to_owned(),
        authorization_endpoint: Some(format!("{issuer}/authorize")),
        token_endpoint: format!("{issuer}/token"),
        registration_endpoint: Some(format!("{issuer}/register")),
        device_authorization_endpoint: None,
        code_challenge_methods_supported: vec!["S256".into()],
        token_endpoint_auth_methods_supported: Vec::new(),
        authorization_response_iss_parameter_supported: false,
        client_id_metadata_document_supported: false,
        scopes_supported: Vec::new(),
    }
}

/// Whether the metadata's `resource` names the server at `server_url`:
/// the same origin, and a path that is the server's or a parent of it.
fn covers(resource: &str, server_url: &str) -> bool {
    let (Some(a), Some(b)) = (origin(resource), origin(server_url)) else {
        return false;
    };
    let (resource_path, server_path) = (web::path(resource), web::path(server_url));
    a == b
        && (server_path == resource_path || server_path.starts_with(&format!("{resource_path}/")))
}

/// The metadata of the authorization server `issuer`: with a path,
/// RFC 8414's path insertion, OpenID's path insertion, OpenID's path
/// appending; without, RFC 8414's then OpenID's well-known URL. The
/// document's `issuer` must be `issuer` exactly (RFC 8414 §3.3) and it
/// must offer PKCE with S256. Found the [`Discovery::Legacy`] way, an
/// issuer whose every well-known URL answers 404 has the default
/// endpoints.
pub(crate) async fn server_metadata(
    web: &Web,
    issuer: &str,
    discovery: Discovery,
) -> Result<ServerMetadata, AuthError> {
    web::check_secure("the authorization server", issuer)?;
    let peer = format!("authorization server {issuer}");
    let base = web::base(issuer).ok_or_else(|| AuthError::Config {
        reason: format!("authorization server `{issuer}` is not a URL"),
    })?;
    let path = web::path(issuer);
    let candidates = if path.is_empty() {
        vec![
            format!("{base}/.well-known/oauth-authorization-server"),
            format!("{base}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{base}/.well-known/oauth-authorization-server{path}"),
            format!("{base}/.well-known/openid-configuration{path}"),
            format!("{base}{path}/.well-known/openid-configuration"),
        ]
    };
    let mut tried = Vec::new();
    let mut statuses = Vec::new();
    for url in candidates {
        let reply = web.send(&peer, Method::GET, &url, Body::None, None).await?;
        if reply.status != 200 {
            tried.push(format!("{url} (HTTP {})", reply.status));
            statuses.push(reply.status);
            continue;
        }
        let said = reply
            .json
            .get("issuer")
            .and_then(Value::as_str)
            .map(str::to_owned);
        // 2025-03-26 had no issuer to check against, only the MCP server's
        // origin, which it trusted with everything: an issuer on that
        // origin is taken (RFC 8414 §3.3's exact match holds otherwise).
        let legacy_issuer =
            discovery == Discovery::Legacy && said.as_deref().and_then(origin) == origin(issuer);
        if said.as_deref() != Some(issuer) && !legacy_issuer {
            let named = match &said {
                Some(said) => format!("names issuer `{}`", crate::text::excerpt(said, 200)),
                None => "names no issuer".to_owned(),
            };
            return Err(AuthError::Peer {
                peer,
                reason: format!(
                    "its metadata at {url} {named}, not `{issuer}`; refused (RFC 8414 §3.3)"
                ),
            });
        }
        let metadata: ServerMetadata =
            serde_json::from_value(reply.json).map_err(|e| AuthError::Peer {
                peer: peer.clone(),
                reason: format!("its metadata at {url} is not usable: {e}"),
            })?;
        if !metadata
            .code_challenge_methods_supported
            .iter()
            .any(|m| m == "S256")
        {
            return Err(AuthError::Peer {
                peer,
                reason: "its metadata does not list S256 in `code_challenge_methods_supported`: it does not offer the PKCE the MCP spec requires".into(),
            });
        }
        let endpoints = [
            Some(&metadata.token_endpoint),
            metadata.authorization_endpoint.as_ref(),
            metadata.registration_endpoint.as_ref(),
            metadata.device_authorization_endpoint.as_ref(),
        ];
        for endpoint in endpoints.into_iter().flatten() {
            web::check_secure("an endpoint of the authorization server", endpoint)?;
        }
        return Ok(metadata);
    }
    if discovery == Discovery::Legacy && statuses.iter().all(|&status| status == 404) {
        tracing::info!(issuer = %issuer, "no authorization server metadata: its default endpoints (MCP 2025-03-26)");
        return Ok(legacy_endpoints(issuer));
    }
    Err(AuthError::Peer {
        peer,
        reason: format!("serves no metadata (tried {})", tried.join(", ")),
    })
}

#[cfg(test)]
mod tests {
    use super::{covers, legacy_endpoints, legacy_resource};

    #[test]
    fn a_2025_03_26_server_is_its_own_authorization_server_at_its_origin() {
        let resource = legacy_resource("https://a.test:8443/v1/mcp").unwrap();
        assert_eq!(resource.resource, "https://a.test:8443/v1/mcp");
        assert_eq!(resource.authorization_servers, ["https://a.test:8443"]);
        let server = legacy_endpoints("https://a.test:8443");
        assert_eq!(
            server.authorization_endpoint.as_deref(),
            Some("https://a.test:8443/authorize")
        );
        assert_eq!(server.token_endpoint, "https://a.test:8443/token");
        assert_eq!(
            server.registration_endpoint.as_deref(),
            Some("https://a.test:8443/register")
        );
        assert!(legacy_resource("not a url").is_err());
    }

    #[test]
    fn a_resource_covers_its_own_url_and_children_only() {
        assert!(covers("https://a.test/mcp", "https://a.test/mcp"));
        assert!(covers("https://a.test", "https://a.test/mcp"));
        assert!(!covers("https://a.test/mc", "https://a.test/mcp"));
        assert!(!covers("https://b.test/mcp", "https://a.test/mcp"));
    }
}
