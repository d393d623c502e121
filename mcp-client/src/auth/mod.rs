//! The client side of the MCP authorization spec (2025-11-25, 2026-07-28):
//! OAuth 2.1 for Streamable HTTP servers. Feature `oauth` (default).
//!
//! A server that answers 401 with `WWW-Authenticate: Bearer …` starts it:
//! [`OAuthClient`] reads the server's protected resource metadata (RFC
//! 9728) and its authorization server's metadata (RFC 8414 or OpenID
//! discovery), identifies this client (a configured client id, a client
//! ID metadata document, or dynamic registration, RFC 7591), and gets a
//! token with the authorization code flow (PKCE S256, `state`, `resource`
//! of RFC 8707, `iss` of RFC 9207 checked) through a loopback redirect
//! (RFC 8252), or with the device flow (RFC 8628). Registrations and
//! tokens go to a [`TokenStore`] ([`FileStore`]: owner-only files) and are
//! used again on the next start; tokens are refreshed before they expire
//! and on a 401, and a 403 `insufficient_scope` asks for more scope.
//!
//! The HTTP transport calls it through [`Authorizer`]: a token is sent
//! only to the server's own origin, never on a redirect (the transport
//! follows none), and never logged ([`Secret`]).
//!
//! ```no_run
//! use mcpfn_client::auth::{FileStore, OAuthClient, OAuthConfig};
//! use mcpfn_client::{ClientOptions, McpClient, ServerConfig};
//! use std::sync::Arc;
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let url = "https://example.com/mcp";
//! let store = FileStore::new(FileStore::default_dir("my-host").ok_or("no home")?);
//! let oauth = Arc::new(OAuthClient::new(OAuthConfig::new("weather", url), Arc::new(store)));
//! // A login the connect needs is not run under its timeout, but after.
//! oauth.defer_logins(true);
//! let options = ClientOptions { authorizer: Some(oauth.clone()), ..ClientOptions::default() };
//! let config = ServerConfig::http("weather", url);
//! let client = match McpClient::connect_with(config.clone(), options.clone()).await {
//!     Err(_) if oauth.deferred_login().await? => McpClient::connect_with(config, options).await?,
//!     connected => connected?,
//! };
//! oauth.defer_logins(false);
//! # let _ = client; Ok(()) }
//! ```

mod client;
mod discovery;
mod error;
mod pkce;
mod redirect;
mod registration;
mod store;
mod token;
mod web;

/// What the HTTP transport knows of authorization, re-exported here.
pub use crate::bearer::{Authorizer, Challenge, Secret};
pub use client::{Authorized, OAuthClient, OAuthConfig};
pub use discovery::{ResourceMetadata, ServerMetadata};
pub use error::AuthError;
pub use redirect::{Presenter, Prompt, open_browser, print_prompt};
pub use registration::{ClientIdentity, Registration};
pub use store::{FileStore, MemoryStore, StoreLock, StoredAuth, TokenStore};
pub use token::Tokens;

use crate::error::ClientError;
use crate::transport::BoxFuture;

impl OAuthClient {
    fn client_error(&self, error: AuthError) -> ClientError {
        ClientError::Unauthorized {
            server: self.server_name().to_owned(),
            reason: error.to_string(),
        }
    }
}

impl Authorizer for OAuthClient {
    fn resource_url(&self) -> &str {
        self.server_url()
    }

    fn bearer(&self) -> BoxFuture<'_, Result<Option<Secret>, ClientError>> {
        Box::pin(async move { self.access_token().await.map_err(|e| self.client_error(e)) })
    }

    fn challenged<'a>(
        &'a self,
        challenge: &'a Challenge,
        failed: Option<&'a Secret>,
    ) -> BoxFuture<'a, Result<(), ClientError>> {
        Box::pin(async move {
            OAuthClient::challenged(self, challenge, failed)
                .await
                .map_err(|e| self.client_error(e))
        })
    }

    fn defer_logins(&self, defer: bool) {
        OAuthClient::defer_logins(self, defer);
    }

    fn deferred_login(&self) -> BoxFuture<'_, Result<bool, ClientError>> {
        Box::pin(async move {
            OAuthClient::deferred_login(self)
                .await
                .map_err(|e| self.client_error(e))
        })
    }

    fn login_pending(&self) -> bool {
        OAuthClient::login_pending(self)
    }
}
