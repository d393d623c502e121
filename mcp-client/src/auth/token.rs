//! The token endpoint: the code exchange, refresh, the device code's
//! polling, with the client authenticating as registered (`none`,
//! `client_secret_basic`, `client_secret_post`).

use super::discovery::ServerMetadata;
use super::error::AuthError;
use super::registration::Registration;
use super::web::{self, Body, Reply, Web};
use crate::bearer::Secret;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hyper::Method;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::time::{SystemTime, UNIX_EPOCH};

/// The tokens of one grant, as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    /// The access token sent as `Authorization: Bearer`.
    pub access_token: Secret,
    /// The refresh token, if the server issued one.
    pub refresh_token: Option<Secret>,
    /// When the access token expires (seconds since the Unix epoch), if
    /// the server said (`expires_in`).
    pub expires_at: Option<u64>,
    /// The scopes granted (the answer's `scope`, else those asked for).
    pub scope: Option<String>,
    /// How long the access token lived when issued (`expires_in`), which
    /// sets how early it is refreshed; absent in files of older versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lifetime: Option<u64>,
}

/// The most seconds before its expiry an access token is refreshed.
const MAX_REFRESH_MARGIN: u64 = 60;

impl Tokens {
    /// Whether the access token expires within `margin` seconds.
    pub fn expires_within(&self, margin: u64) -> bool {
        self.expires_at.is_some_and(|at| at <= now() + margin)
    }

    /// How long before its expiry the access token is refreshed: a fifth
    /// of its lifetime (at least a second), at most a minute. A fixed
    /// minute would refresh a token that lives a minute or less before
    /// every request.
    pub fn refresh_margin(&self) -> u64 {
        self.lifetime
            .map_or(MAX_REFRESH_MARGIN, |lifetime| (lifetime / 5).max(1))
            .min(MAX_REFRESH_MARGIN)
    }

    /// Whether the access token is to be refreshed before its next use.
    pub fn needs_refresh(&self) -> bool {
        self.expires_within(self.refresh_margin())
    }
}

/// Seconds since the Unix epoch.
pub(crate) fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A token request's grant-specific parameters.
pub(crate) enum Grant<'a> {
    Code {
        code: &'a str,
        verifier: &'a Secret,
        redirect_uri: &'a str,
    },
    Refresh {
        token: &'a Secret,
    },
    Device {
        code: &'a Secret,
    },
}

/// The form parameters of `registration`'s client authentication, and the
/// `Authorization: Basic` value when it uses `client_secret_basic`
/// (RFC 6749 §2.3.1: id and secret form-encoded first).
pub(crate) fn client_auth(
    registration: &Registration,
) -> (Vec<(&'static str, String)>, Option<String>) {
    let id = registration.client_id.clone();
    match (
        &registration.client_secret,
        registration.token_endpoint_auth_method.as_str(),
    ) {
        (Some(secret), "client_secret_basic") => {
            let encode =
                |s: &str| form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
            let pair = format!("{}:{}", encode(&id), encode(secret.expose()));
            (Vec::new(), Some(format!("Basic {}", STANDARD.encode(pair))))
        }
        (Some(secret), "client_secret_post") => (
            vec![
                ("client_id", id),
                ("client_secret", secret.expose().to_owned()),
            ],
            None,
        ),
        _ => (vec![("client_id", id)], None),
    }
}

/// One request to the token endpoint. `Ok(Err(reply))` is an answer
/// that is not tokens (an OAuth error), for the caller to read.
pub(crate) async fn request(
    web: &Web,
    server: &ServerMetadata,
    registration: &Registration,
    grant: Grant<'_>,
    resource: &str,
    scope: Option<&str>,
) -> Result<Result<Tokens, Reply>, AuthError> {
    let mut pairs: Vec<(&str, String)> = Vec::new();
    match grant {
        Grant::Code {
            code,
            verifier,
            redirect_uri,
        } => {
            pairs.push(("grant_type", "authorization_code".into()));
            pairs.push(("code", code.into()));
            pairs.push(("code_verifier", verifier.expose().into()));
            pairs.push(("redirect_uri", redirect_uri.into()));
        }
        Grant::Refresh { token } => {
            pairs.push(("grant_type", "refresh_token".into()));
            pairs.push(("refresh_token", token.expose().into()));
        }
        Grant::Device { code } => {
            pairs.push((
                "grant_type",
                "urn:ietf:params:oauth:grant-type:device_code".into(),
            ));
            pairs.push(("device_code", code.expose().into()));
        }
    }
    pairs.push(("resource", resource.into()));
    let (auth_pairs, basic) = client_auth(registration);
    pairs.extend(auth_pairs);
    let borrowed: Vec<(&str, &str)> = pairs.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let peer = format!("authorization server {}", server.issuer);
    let reply = web
        .send(
            &peer,
            Method::POST,
            &server.token_endpoint,
            Body::Form(&borrowed),
            basic.as_deref(),
        )
        .await?;
    if reply.status != 200 {
        return Ok(Err(reply));
    }
    Ok(Ok(read_tokens(&peer, &reply.json, scope)?))
}

/// Tokens from a token response.
fn read_tokens(peer: &str, json: &Value, asked: Option<&str>) -> Result<Tokens, AuthError> {
    let text = |key: &str| json.get(key).and_then(Value::as_str);
    let access_token = text("access_token").ok_or_else(|| AuthError::Peer {
        peer: peer.to_owned(),
        reason: "its token answer has no `access_token`".into(),
    })?;
    if !text("token_type").is_some_and(|t| t.eq_ignore_ascii_case("bearer")) {
        return Err(AuthError::Peer {
            peer: peer.to_owned(),
            reason: "its token answer is not of `token_type` Bearer".into(),
        });
    }
    let lifetime = json.get("expires_in").and_then(Value::as_u64);
    Ok(Tokens {
        access_token: Secret::new(access_token),
        refresh_token: text("refresh_token").map(Secret::new),
        expires_at: lifetime.map(|s| now().saturating_add(s)),
        scope: text("scope").or(asked).map(str::to_owned),
        lifetime,
    })
}

/// The tokens of a successful exchange, or the OAuth error of the answer.
pub(crate) async fn exchange(
    web: &Web,
    server: &ServerMetadata,
    registration: &Registration,
    grant: Grant<'_>,
    resource: &str,
    scope: Option<&str>,
) -> Result<Tokens, AuthError> {
    request(web, server, registration, grant, resource, scope)
        .await?
        .map_err(|reply| web::oauth_error(&server.issuer, &reply))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_refresh_margin_is_a_fifth_of_the_lifetime_at_most_a_minute() {
        let tokens = |lifetime: Option<u64>| Tokens {
            access_token: Secret::new("a"),
            refresh_token: None,
            expires_at: lifetime.map(|l| now() + l),
            scope: None,
            lifetime,
        };
        assert_eq!(tokens(Some(3600)).refresh_margin(), 60);
        assert_eq!(tokens(Some(30)).refresh_margin(), 6);
        assert_eq!(tokens(Some(2)).refresh_margin(), 1);
        assert_eq!(tokens(None).refresh_margin(), 60);
        assert!(!tokens(Some(30)).needs_refresh());
        assert!(!tokens(Some(60)).needs_refresh());
        assert!(tokens(Some(1)).needs_refresh());
    }

    #[test]
    fn basic_auth_encodes_id_and_secret() {
        let registration = Registration {
            client_id: "a b".into(),
            client_secret: Some(Secret::new("s:1")),
            token_endpoint_auth_method: "client_secret_basic".into(),
            redirect_uri: None,
        };
        let (pairs, basic) = client_auth(&registration);
        assert!(pairs.is_empty());
        assert_eq!(
            basic.unwrap(),
            format!("Basic {}", STANDARD.encode("a+b:s%3A1"))
        );
    }
}
