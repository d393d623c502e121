//! The access token kept fresh: a refresh holds the store's entry, uses
//! the tokens another process refreshed meanwhile, and drops the stored
//! tokens when the refresh token is refused.

use super::super::error::AuthError;
use super::super::token::{self, Grant};
use super::{OAuthClient, State};

impl OAuthClient {
    /// Refreshes the access token, holding the store's entry: another
    /// process sharing the store waits, and finds the new tokens when its
    /// turn comes. On `invalid_grant` the stored tokens are dropped and
    /// one line says the login starts again.
    pub(super) async fn refresh(&self, state: &mut State) -> Result<(), AuthError> {
        let _held = self
            .store
            .lock(&self.config.server_url, &state.auth.issuer)
            .await?;
        // Another process may have refreshed (and rotated the refresh
        // token) since this one read the store: its tokens are used, as a
        // refresh with the old refresh token would look like a replay, for
        // which a server revokes the whole grant (RFC 9700 §4.14.2).
        let stored = self
            .store
            .load(&self.config.server_url, &state.auth.issuer)
            .await?
            .and_then(|stored| stored.tokens);
        if let Some(stored) = stored
            && state.auth.tokens.as_ref() != Some(&stored)
        {
            let usable = !stored.needs_refresh() || stored.refresh_token.is_none();
            tracing::debug!(server = %self.config.server_name, "another process refreshed the tokens: using them");
            state.auth.tokens = Some(stored);
            if usable {
                return Ok(());
            }
        }
        let (Some(server), Some(registration), Some(tokens)) =
            (&state.server, &state.auth.registration, &state.auth.tokens)
        else {
            return Err(AuthError::Config {
                reason: "nothing to refresh".into(),
            });
        };
        let Some(refresh_token) = tokens.refresh_token.clone() else {
            return Err(AuthError::Config {
                reason: "no refresh token".into(),
            });
        };
        let scope = tokens.scope.clone();
        let outcome = token::exchange(
            &self.web,
            server,
            registration,
            Grant::Refresh {
                token: &refresh_token,
            },
            self.resource(state),
            scope.as_deref(),
        )
        .await;
        match outcome {
            Ok(mut fresh) => {
                // RFC 6749 §6: the server may keep the refresh token.
                if fresh.refresh_token.is_none() {
                    fresh.refresh_token = Some(refresh_token);
                }
                tracing::info!(server = %self.config.server_name, issuer = %state.auth.issuer, scope = fresh.scope.as_deref().unwrap_or(""), "access token refreshed");
                state.auth.tokens = Some(fresh);
                self.save(state).await
            }
            Err(e) if e.is_invalid_grant() => {
                tracing::warn!(
                    "server `{}`: the stored refresh token was refused by {} (revoked or expired); logging in again",
                    self.config.server_name,
                    state.auth.issuer
                );
                state.auth.tokens = None;
                self.save(state).await?;
                Err(e)
            }
            Err(e) => Err(e),
        }
    }
}
