//! Who this client is to an authorization server, in the MCP spec's
//! order: a pre-registered client (configured id and secret), a client ID
//! metadata document (the id is an HTTPS URL the server fetches), dynamic
//! client registration (RFC 7591).

use super::discovery::ServerMetadata;
use super::error::AuthError;
use super::web::{self, Body, Web};
use crate::bearer::Secret;
use hyper::Method;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// A client's identity at one authorization server, as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Registration {
    /// `client_id`.
    pub client_id: String,
    /// `client_secret`, for a confidential client.
    pub client_secret: Option<Secret>,
    /// How the client authenticates at the token endpoint: `none`,
    /// `client_secret_basic` or `client_secret_post`.
    pub token_endpoint_auth_method: String,
    /// The redirect URI registered with it (dynamic registration), whose
    /// port the loopback listener binds again on the next start.
    pub redirect_uri: Option<String>,
}

/// What the configuration says about the client's identity.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClientIdentity {
    /// A pre-registered client id (`mcp.json` `oauth.clientId`).
    pub client_id: Option<String>,
    /// Its secret (`oauth.clientSecret`).
    pub client_secret: Option<Secret>,
    /// The HTTPS URL of this client's metadata document, used as the
    /// client id where the server supports client ID metadata documents.
    pub metadata_url: Option<String>,
    /// `client_name` for dynamic registration.
    pub client_name: String,
}

/// The pre-registered client or the metadata document's, if the
/// configuration and the server allow one; `None` means: register.
pub(crate) fn configured(
    identity: &ClientIdentity,
    server: &ServerMetadata,
) -> Option<Registration> {
    if let Some(client_id) = &identity.client_id {
        let method = match &identity.client_secret {
            None => "none",
            // RFC 8414 §2: absent means client_secret_basic.
            Some(_)
                if server.token_endpoint_auth_methods_supported.is_empty()
                    || server
                        .token_endpoint_auth_methods_supported
                        .iter()
                        .any(|m| m == "client_secret_basic") =>
            {
                "client_secret_basic"
            }
            Some(_) => "client_secret_post",
        };
        return Some(Registration {
            client_id: client_id.clone(),
            client_secret: identity.client_secret.clone(),
            token_endpoint_auth_method: method.into(),
            redirect_uri: None,
        });
    }
    // The draft requires an https URL with a path.
    let usable = |url: &str| {
        url.parse::<hyper::Uri>()
            .is_ok_and(|uri| uri.scheme_str() == Some("https") && uri.path().len() > 1)
    };
    match &identity.metadata_url {
        Some(url) if server.client_id_metadata_document_supported && usable(url) => {
            Some(Registration {
                client_id: url.clone(),
                client_secret: None,
                token_endpoint_auth_method: "none".into(),
                redirect_uri: None,
            })
        }
        _ => None,
    }
}

/// Registers a public client (RFC 7591) for `redirect_uri`, or for the
/// device flow alone without one, or says why
/// the server cannot be used without a configured client id.
pub(crate) async fn register(
    web: &Web,
    server: &ServerMetadata,
    identity: &ClientIdentity,
    redirect_uri: Option<&str>,
) -> Result<Registration, AuthError> {
    let Some(endpoint) = &server.registration_endpoint else {
        return Err(AuthError::Peer {
            peer: format!("authorization server {}", server.issuer),
            reason: "offers neither dynamic client registration nor client ID metadata documents; set `oauth.clientId` for this server".into(),
        });
    };
    let mut grant_types = vec!["refresh_token"];
    if redirect_uri.is_some() {
        grant_types.push("authorization_code");
    }
    if server.device_authorization_endpoint.is_some() {
        grant_types.push("urn:ietf:params:oauth:grant-type:device_code");
    }
    // SEP-837 (OpenID Connect Dynamic Client Registration §2): a server
    // told nothing assumes `web`, which forbids the loopback redirect; this
    // client runs on the user's machine (loopback or device flow).
    let mut request = json!({
        "client_name": identity.client_name,
        "application_type": "native",
        "grant_types": grant_types,
        "token_endpoint_auth_method": "none",
    });
    match redirect_uri {
        Some(uri) => {
            request["redirect_uris"] = json!([uri]);
            request["response_types"] = json!(["code"]);
        }
        // RFC 7591 §2 reads an absent `response_types` as `["code"]`,
        // for which a server demands redirect URIs: the device flow uses
        // the token endpoint alone.
        None => request["response_types"] = json!([]),
    }
    let peer = format!("authorization server {}", server.issuer);
    let reply = web
        .send(&peer, Method::POST, endpoint, Body::Json(&request), None)
        .await?;
    if !(200..300).contains(&reply.status) {
        return Err(web::oauth_error(&server.issuer, &reply));
    }
    let text = |key: &str| {
        reply
            .json
            .get(key)
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let client_id = text("client_id").ok_or_else(|| AuthError::Peer {
        peer: peer.clone(),
        reason: "its registration answer has no `client_id`".into(),
    })?;
    let client_secret = text("client_secret").map(Secret::new);
    let method = text("token_endpoint_auth_method").unwrap_or_else(|| {
        if client_secret.is_some() {
            "client_secret_basic"
        } else {
            "none"
        }
        .into()
    });
    Ok(Registration {
        client_id,
        client_secret,
        token_endpoint_auth_method: method,
        redirect_uri: redirect_uri.map(str::to_owned),
    })
}
