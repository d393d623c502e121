//! The logins themselves: the client's registration, the authorization
//! code flow through the browser and the device flow, each ending in new
//! tokens for [`OAuthClient::flow`](super::OAuthClient) to store.

use super::super::error::AuthError;
use super::super::pkce::{Pkce, random_token};
use super::super::redirect::{Listener, Prompt};
use super::super::registration::{self, Registration};
use super::super::token::{self, Grant, Tokens};
use super::super::web::{self, Body};
use super::scope::asks_offline_access;
use super::{MAX_DEVICE_WAIT, OAuthClient, State};
use crate::bearer::Secret;
use hyper::Method;
use serde_json::Value;
use std::time::Duration;

impl OAuthClient {
    /// The registration to use: the stored one (if it fits the redirect
    /// URI), the configured one, or a new one, stored at once.
    async fn registration(
        &self,
        state: &mut State,
        redirect_uri: Option<&str>,
    ) -> Result<Registration, AuthError> {
        let server = state.server.as_ref().expect("discovered");
        if let Some(registration) = registration::configured(&self.config.identity, server) {
            return Ok(registration);
        }
        if let Some(stored) = &state.auth.registration {
            let fits = match (redirect_uri, &stored.redirect_uri) {
                (Some(wanted), Some(registered)) => wanted == registered,
                _ => true,
            };
            if fits {
                return Ok(stored.clone());
            }
        }
        let registration =
            registration::register(&self.web, server, &self.config.identity, redirect_uri).await?;
        tracing::info!(server = %self.config.server_name, issuer = %server.issuer, "client registered");
        state.auth.registration = Some(registration.clone());
        self.save(state).await?;
        Ok(registration)
    }

    /// The authorization code flow with PKCE S256, `state`, `resource`,
    /// and the redirect checked (`state`, RFC 9207 `iss`).
    pub(super) async fn code_flow(
        &self,
        state: &mut State,
        scope: Option<&str>,
    ) -> Result<Tokens, AuthError> {
        let server = state.server.clone().expect("discovered");
        let Some(endpoint) = &server.authorization_endpoint else {
            return Err(AuthError::Peer {
                peer: format!("authorization server {}", server.issuer),
                reason: "its metadata has no `authorization_endpoint`".into(),
            });
        };
        let listener = match self.config.redirect_port {
            Some(port) => Listener::bind(port).await?,
            None => {
                // The port of the stored registration's redirect URI; if
                // it is taken now, any port (and a new registration).
                let registered = state
                    .auth
                    .registration
                    .as_ref()
                    .and_then(|r| r.redirect_uri.as_ref())
                    .and_then(|uri| uri.parse::<hyper::Uri>().ok()?.port_u16());
                match registered {
                    Some(port) => match Listener::bind(port).await {
                        Ok(listener) => listener,
                        Err(_) => Listener::bind(0).await?,
                    },
                    None => Listener::bind(0).await?,
                }
            }
        };
        let registration = self
            .registration(state, Some(&listener.redirect_uri))
            .await?;
        let pkce = Pkce::new();
        let expected_state = random_token();
        let resource = self.resource(state).to_owned();
        let mut pairs = vec![
            ("response_type", "code"),
            ("client_id", registration.client_id.as_str()),
            ("redirect_uri", listener.redirect_uri.as_str()),
            ("code_challenge", pkce.challenge.as_str()),
            ("code_challenge_method", "S256"),
            ("state", expected_state.as_str()),
            ("resource", resource.as_str()),
        ];
        if let Some(scope) = scope {
            pairs.push(("scope", scope));
        }
        // OpenID Connect Core §11: a server ignores `offline_access` (and
        // issues no refresh token) unless the user is asked to consent.
        if asks_offline_access(scope) {
            pairs.push(("prompt", "consent"));
        }
        let separator = if endpoint.contains('?') { '&' } else { '?' };
        let url = format!("{endpoint}{separator}{}", web::form(&pairs));
        (self.config.presenter)(&Prompt::Authorize {
            server: self.config.server_name.clone(),
            url,
        });
        let redirect_uri = listener.redirect_uri.clone();
        let callback = listener.wait(self.config.login_timeout).await?;
        if let Some(error) = &callback.error {
            return Err(AuthError::Refused {
                issuer: server.issuer.clone(),
                error: crate::text::excerpt(error, 100),
                description: crate::text::excerpt(
                    callback.error_description.as_deref().unwrap_or(""),
                    200,
                ),
            });
        }
        if callback.state.as_deref() != Some(expected_state.as_str()) {
            return Err(AuthError::Redirect {
                reason: "its `state` is not the one sent (a forged or stale redirect)".into(),
            });
        }
        match &callback.iss {
            Some(iss) if iss != &server.issuer => {
                return Err(AuthError::Redirect {
                    reason: format!(
                        "its `iss` {:?} is not the authorization server {} (RFC 9207: a mix-up)",
                        crate::text::excerpt(iss, 200),
                        server.issuer
                    ),
                });
            }
            None if server.authorization_response_iss_parameter_supported => {
                return Err(AuthError::Redirect {
                    reason: format!(
                        "it has no `iss`, which {} promises (RFC 9207)",
                        server.issuer
                    ),
                });
            }
            _ => {}
        }
        let Some(code) = &callback.code else {
            return Err(AuthError::Redirect {
                reason: "it carries no `code`".into(),
            });
        };
        token::exchange(
            &self.web,
            &server,
            &registration,
            Grant::Code {
                code,
                verifier: &pkce.verifier,
                redirect_uri: &redirect_uri,
            },
            &resource,
            scope,
        )
        .await
    }

    /// The device authorization grant (RFC 8628): the code shown, the
    /// token endpoint polled at the server's interval.
    pub(super) async fn device_flow(
        &self,
        state: &mut State,
        scope: Option<&str>,
    ) -> Result<Tokens, AuthError> {
        let server = state.server.clone().expect("discovered");
        let Some(endpoint) = &server.device_authorization_endpoint else {
            return Err(AuthError::NoDeviceFlow {
                issuer: server.issuer.clone(),
            });
        };
        let registration = self.registration(state, None).await?;
        let resource = self.resource(state).to_owned();
        let (mut pairs, basic) = token::client_auth(&registration);
        pairs.push(("resource", resource.clone()));
        if let Some(scope) = scope {
            pairs.push(("scope", scope.to_owned()));
        }
        let borrowed: Vec<(&str, &str)> = pairs.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let peer = format!("authorization server {}", server.issuer);
        let reply = self
            .web
            .send(
                &peer,
                Method::POST,
                endpoint,
                Body::Form(&borrowed),
                basic.as_deref(),
            )
            .await?;
        if reply.status != 200 {
            return Err(web::oauth_error(&server.issuer, &reply));
        }
        let text = |key: &str| {
            reply
                .json
                .get(key)
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        let (Some(device_code), Some(user_code), Some(verification_uri)) = (
            text("device_code"),
            text("user_code"),
            text("verification_uri"),
        ) else {
            return Err(AuthError::Peer {
                peer,
                reason: "its device authorization answer lacks `device_code`, `user_code` or `verification_uri`".into(),
            });
        };
        let device_code = Secret::new(device_code);
        let expires_in = reply
            .json
            .get("expires_in")
            .and_then(Value::as_u64)
            .unwrap_or(600);
        let mut interval = reply
            .json
            .get("interval")
            .and_then(Value::as_u64)
            .unwrap_or(5);
        (self.config.presenter)(&Prompt::Device {
            server: self.config.server_name.clone(),
            verification_uri: crate::text::excerpt(&verification_uri, 500),
            user_code: crate::text::excerpt(&user_code, 100),
            verification_uri_complete: text("verification_uri_complete")
                .map(|u| crate::text::excerpt(&u, 500)),
        });
        let wait = Duration::from_secs(expires_in).min(MAX_DEVICE_WAIT);
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            // At least a fifth of a second between polls, whatever the
            // server says.
            let pause = Duration::from_secs(interval).max(Duration::from_millis(200));
            if tokio::time::Instant::now() + pause > deadline {
                return Err(AuthError::TimedOut {
                    what: "the device authorization".into(),
                    seconds: wait.as_secs(),
                });
            }
            tokio::time::sleep(pause).await;
            let outcome = token::request(
                &self.web,
                &server,
                &registration,
                Grant::Device { code: &device_code },
                &resource,
                scope,
            )
            .await?;
            match outcome {
                Ok(tokens) => return Ok(tokens),
                Err(reply) => match reply.json.get("error").and_then(Value::as_str) {
                    Some("authorization_pending") => {}
                    Some("slow_down") => interval += 5,
                    _ => return Err(web::oauth_error(&server.issuer, &reply)),
                },
            }
        }
    }
}
