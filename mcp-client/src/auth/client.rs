//! [`OAuthClient`]: the authorization of one MCP server, from the first
//! 401 to a stored, refreshed token; the [`Authorizer`](super::Authorizer)
//! the HTTP transport calls.

use super::discovery::{self, Discovery, ResourceMetadata, ServerMetadata};
use super::error::AuthError;
use super::store::{StoredAuth, TokenStore};
use super::web::{Body, Web};
use crate::bearer::Challenge;
use crate::bearer::Secret;
use hyper::Method;
use mcpfn_protocol::model::method;
use scope::{OFFLINE_ACCESS, asks_offline_access, covers_scope, union};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

mod config;
mod login;
mod refresh;
mod scope;

pub use config::OAuthConfig;

/// The longest device-flow wait, whatever the server says.
const MAX_DEVICE_WAIT: Duration = Duration::from_secs(15 * 60);

/// The outcome of a login.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Authorized {
    /// The authorization server that issued the token.
    pub issuer: String,
    /// The scopes granted, if known.
    pub scope: Option<String>,
}

/// What the client knows of the server and its authorization server.
#[derive(Debug, Default)]
struct State {
    resource: Option<ResourceMetadata>,
    /// How `resource` was found (the 2025-03-26 fallback or not).
    discovery: Discovery,
    server: Option<ServerMetadata>,
    auth: StoredAuth,
}

/// The authorization of one MCP server: discovery, client identity,
/// the code flow with PKCE (or the device flow), refresh, step-up, and
/// the store that keeps registrations and tokens between runs.
#[derive(Debug)]
pub struct OAuthClient {
    config: OAuthConfig,
    store: Arc<dyn TokenStore>,
    web: Web,
    state: tokio::sync::Mutex<State>,
    /// Whether the missing refresh token was already said.
    said_no_refresh: AtomicBool,
    /// Logins left for [`deferred_login`](Self::deferred_login).
    deferral: std::sync::Mutex<Deferral>,
}

/// Whether logins are left for later, and the scope of the one left.
#[derive(Debug, Default)]
struct Deferral {
    active: bool,
    /// `Some(scope)` once a refusal needed a login.
    pending: Option<Option<String>>,
}

impl OAuthClient {
    /// A client for `config`'s server, keeping its tokens in `store`.
    /// Nothing is sent yet. Must be called inside a tokio runtime.
    pub fn new(config: OAuthConfig, store: Arc<dyn TokenStore>) -> OAuthClient {
        OAuthClient {
            web: Web::new(&config.server_url, &config.headers),
            config,
            store,
            state: tokio::sync::Mutex::new(State::default()),
            said_no_refresh: AtomicBool::new(false),
            deferral: std::sync::Mutex::new(Deferral::default()),
        }
    }

    /// The server's MCP endpoint.
    pub fn server_url(&self) -> &str {
        &self.config.server_url
    }

    /// The server's name.
    pub fn server_name(&self) -> &str {
        &self.config.server_name
    }

    /// The server's challenge to a request without a token (`mcp-host
    /// login`, which must learn the scope the server wants before it has
    /// anything to send): a `ping` with the entry's headers. `None` if the
    /// server does not ask for authorization.
    async fn challenge(&self) -> Result<Option<Challenge>, AuthError> {
        let peer = format!("server {}", self.config.server_url);
        let ping =
            serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": method::PING}).to_string();
        let reply = self
            .web
            .send(
                &peer,
                Method::POST,
                &self.config.server_url,
                Body::Raw("application/json", &ping),
                None,
            )
            .await?;
        Ok((reply.status == 401).then_some(reply.challenge))
    }

    /// While `defer` is set, a refusal that needs the user (a login) is
    /// not answered inside the refused request, whose timeout would cut
    /// the login short: the request fails, and the login is left for
    /// [`deferred_login`](Self::deferred_login). A program sets it while
    /// it connects, with the connect's timeouts running.
    pub fn defer_logins(&self, defer: bool) {
        let mut deferral = lock(&self.deferral);
        deferral.active = defer;
        if !defer {
            deferral.pending = None;
        }
    }

    /// Runs the login a refusal left for later ([`defer_logins`](Self::defer_logins)),
    /// outside any request's timeout: whether there was one.
    pub async fn deferred_login(&self) -> Result<bool, AuthError> {
        let Some(scope) = lock(&self.deferral).pending.take() else {
            return Ok(false);
        };
        let mut state = self.state.lock().await;
        self.flow(&mut state, scope, self.config.device).await?;
        Ok(true)
    }

    /// Whether a refusal left a login for
    /// [`deferred_login`](Self::deferred_login), without running it.
    pub fn login_pending(&self) -> bool {
        lock(&self.deferral).pending.is_some()
    }

    /// Logs in now, whatever is stored (`mcp-host login`): the browser
    /// flow, or the device flow with `device`.
    pub async fn login(&self, device: bool) -> Result<Authorized, AuthError> {
        let challenge = self.challenge().await?.unwrap_or_default();
        let mut state = self.state.lock().await;
        self.discover(&mut state, &challenge).await?;
        let scope = self.scope_for(&state, challenge.scope.as_deref());
        self.flow(&mut state, scope, device).await
    }

    /// Forgets the stored registrations and tokens of this server, at
    /// every authorization server; whether there were any.
    pub async fn logout(&self) -> Result<bool, AuthError> {
        let mut state = self.state.lock().await;
        state.auth.tokens = None;
        state.auth.registration = None;
        self.store.remove(&self.config.server_url).await
    }

    /// The access token to send, refreshed first when it is about to
    /// expire ([`Tokens::needs_refresh`](super::Tokens::needs_refresh)); `None`
    /// before any authorization.
    pub async fn access_token(&self) -> Result<Option<Secret>, AuthError> {
        let mut state = self.state.lock().await;
        let Some(tokens) = &state.auth.tokens else {
            return Ok(None);
        };
        if tokens.needs_refresh() && tokens.refresh_token.is_some() {
            match self.refresh(&mut state).await {
                Ok(()) => {}
                Err(e) if e.is_invalid_grant() => return Ok(None),
                Err(e) => {
                    tracing::debug!(server = %self.config.server_name, error = %e, "the refresh before expiry failed; the current token is sent");
                }
            }
        }
        Ok(state.auth.tokens.as_ref().map(|t| t.access_token.clone()))
    }

    /// The server answered `challenge` (401, or 403 `insufficient_scope`)
    /// to a request that carried `failed` (or no token): gets a better
    /// token: a newer one already at hand, the stored one, a refreshed
    /// one, or a new login (with the union of the granted and the asked
    /// scopes on a step-up), unless logins are deferred.
    pub async fn challenged(
        &self,
        challenge: &Challenge,
        failed: Option<&Secret>,
    ) -> Result<(), AuthError> {
        let mut state = self.state.lock().await;
        self.discover(&mut state, challenge).await?;
        let Some(scope) = self.login_scope(&mut state, challenge, failed).await? else {
            return Ok(());
        };
        {
            let mut deferral = lock(&self.deferral);
            if deferral.active {
                deferral.pending = Some(scope);
                return Err(AuthError::LoginDeferred);
            }
        }
        self.flow(&mut state, scope, self.config.device).await?;
        Ok(())
    }

    /// `None` if a token at hand (newer than `failed`, or refreshed now)
    /// answers `challenge`, else `Some` of the scope of the new login it
    /// needs.
    async fn login_scope(
        &self,
        state: &mut State,
        challenge: &Challenge,
        failed: Option<&Secret>,
    ) -> Result<Option<Option<String>>, AuthError> {
        if challenge.is_insufficient_scope() {
            // Another request's step-up may already have got the scope.
            if let Some(tokens) = &state.auth.tokens
                && Some(&tokens.access_token) != failed
                && covers_scope(tokens.scope.as_deref(), challenge.scope.as_deref())
            {
                return Ok(None);
            }
            let granted = state.auth.tokens.as_ref().and_then(|t| t.scope.clone());
            let scope = union(granted.as_deref(), challenge.scope.as_deref());
            tracing::info!(server = %self.config.server_name, scope = scope.as_deref().unwrap_or(""), "the server asks for more scope: authorizing again");
            return Ok(Some(scope));
        }
        if let Some(tokens) = &state.auth.tokens {
            if Some(&tokens.access_token) != failed {
                return Ok(None);
            }
            if tokens.refresh_token.is_some() {
                match self.refresh(state).await {
                    Ok(()) => return Ok(None),
                    Err(e) if e.is_invalid_grant() => {}
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(Some(self.scope_for(state, challenge.scope.as_deref())))
    }

    /// Fills in the resource and authorization server metadata, and what
    /// the store holds for them, once.
    async fn discover(&self, state: &mut State, challenge: &Challenge) -> Result<(), AuthError> {
        if state.resource.is_none() || challenge.resource_metadata.is_some() {
            let server_url = &self.config.server_url;
            let (resource, found) =
                match discovery::resource_metadata(&self.web, server_url, challenge).await? {
                    Some(resource) => (resource, Discovery::Metadata),
                    None => (discovery::legacy_resource(server_url)?, Discovery::Legacy),
                };
            if state.resource.as_ref() != Some(&resource) {
                state.server = None;
                state.resource = Some(resource);
                state.discovery = found;
            }
        }
        if state.server.is_none() {
            let resource = state.resource.as_ref().expect("discovered above");
            // RFC 9728 §7.6 leaves the choice to the client: the first.
            let issuer = resource.authorization_servers[0].clone();
            let server = discovery::server_metadata(&self.web, &issuer, state.discovery).await?;
            let stored = self
                .store
                .load(&self.config.server_url, &server.issuer)
                .await?;
            state.auth = stored.unwrap_or_else(|| StoredAuth {
                server_url: self.config.server_url.clone(),
                issuer: server.issuer.clone(),
                registration: None,
                tokens: None,
            });
            state.server = Some(server);
        }
        Ok(())
    }

    /// The scopes of a new authorization: the challenge's, else the
    /// configured ones, else the resource's `scopes_supported`, else none.
    fn scope_for(&self, state: &State, challenge_scope: Option<&str>) -> Option<String> {
        if let Some(scope) = challenge_scope.filter(|s| !s.trim().is_empty()) {
            return Some(scope.to_owned());
        }
        if !self.config.scopes.is_empty() {
            return Some(self.config.scopes.join(" "));
        }
        let supported = &state.resource.as_ref()?.scopes_supported;
        (!supported.is_empty()).then(|| supported.join(" "))
    }

    /// The resource parameter (RFC 8707): the metadata's `resource`.
    fn resource<'a>(&'a self, state: &'a State) -> &'a str {
        state
            .resource
            .as_ref()
            .map_or(&self.config.server_url, |r| &r.resource)
    }

    async fn save(&self, state: &State) -> Result<(), AuthError> {
        self.store.save(&state.auth).await
    }

    /// A new authorization with `scope`: the code flow in the browser, or
    /// the device flow.
    async fn flow(
        &self,
        state: &mut State,
        scope: Option<String>,
        device: bool,
    ) -> Result<Authorized, AuthError> {
        let offers_refresh = state
            .server
            .as_ref()
            .is_some_and(|server| server.scopes_supported.iter().any(|s| s == OFFLINE_ACCESS));
        // A refresh token spares the user a login at each expiry.
        let scope = if offers_refresh {
            union(scope.as_deref(), Some(OFFLINE_ACCESS))
        } else {
            scope
        };
        let tokens = if device {
            self.device_flow(state, scope.as_deref()).await?
        } else {
            self.code_flow(state, scope.as_deref()).await?
        };
        if tokens.refresh_token.is_none()
            && asks_offline_access(scope.as_deref())
            && !self.said_no_refresh.swap(true, Ordering::Relaxed)
        {
            tracing::warn!(
                "server `{}`: {} issued no refresh token although `offline_access` was asked; each expiry of the access token needs a new login",
                self.config.server_name,
                state.auth.issuer
            );
        }
        tracing::info!(server = %self.config.server_name, issuer = %state.auth.issuer, scope = tokens.scope.as_deref().unwrap_or(""), "authorized");
        let authorized = Authorized {
            issuer: state.auth.issuer.clone(),
            scope: tokens.scope.clone(),
        };
        state.auth.tokens = Some(tokens);
        self.save(state).await?;
        Ok(authorized)
    }
}

fn lock<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}
