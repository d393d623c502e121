//! Where to authorize: the server's protected resource metadata (RFC 9728)
//! and its authorization server's metadata (RFC 8414, then OpenID
//! Connect discovery), each at the URLs the MCP spec lists, in its order.

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
}

/// The resource metadata of the server at `server_url`: from the
/// challenge's `resource_metadata`, else the path form of the well-known
/// URL, else the root form. Its `resource` must be the server's URL or a
/// prefix of it on the same origin.
pub(crate) async fn resource_metadata(
    web: &Web,
    server_url: &str,
    challenge: &Challenge,
) -> Result<ResourceMetadata, AuthError> {
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
    for url in candidates {
        web::check_secure("the resource metadata URL", &url)?;
        let reply = web.send(&peer, Method::GET, &url, Body::None, None).await?;
        if reply.status != 200 {
            tried.push(format!("{url} (HTTP {})", reply.status));
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
        return Ok(metadata);
    }
    Err(AuthError::Peer {
        peer,
        reason: format!(
            "asks for authorization but serves no protected resource metadata (tried {})",
            tried.join(", ")
        ),
    })
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
/// must offer PKCE with S256.
pub(crate) async fn server_metadata(web: &Web, issuer: &str) -> Result<ServerMetadata, AuthError> {
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
    for url in candidates {
        let reply = web.send(&peer, Method::GET, &url, Body::None, None).await?;
        if reply.status != 200 {
            tried.push(format!("{url} (HTTP {})", reply.status));
            continue;
        }
        let said = reply
            .json
            .get("issuer")
            .and_then(Value::as_str)
            .map(str::to_owned);
        if said.as_deref() != Some(issuer) {
            return Err(AuthError::Peer {
                peer,
                reason: format!(
                    "its metadata at {url} names issuer {said:?}, not {issuer:?}; refused (RFC 8414 §3.3)"
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
    Err(AuthError::Peer {
        peer,
        reason: format!("serves no metadata (tried {})", tried.join(", ")),
    })
}

#[cfg(test)]
mod tests {
    use super::covers;

    #[test]
    fn a_resource_covers_its_own_url_and_children_only() {
        assert!(covers("https://a.test/mcp", "https://a.test/mcp"));
        assert!(covers("https://a.test", "https://a.test/mcp"));
        assert!(!covers("https://a.test/mc", "https://a.test/mcp"));
        assert!(!covers("https://b.test/mcp", "https://a.test/mcp"));
    }
}
