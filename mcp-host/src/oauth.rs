//! OAuth for the HTTP servers of an `mcp.json` (feature `oauth`): one
//! [`OAuthClient`] per server that carries no `Authorization` header of
//! its own, set up from the entry's `"oauth"` settings, with its
//! registrations and tokens in the user's config directory
//! ([`default_store`]: `$XDG_CONFIG_HOME/mcp-host/oauth`, else
//! `~/.config/mcp-host/oauth`, owner-only files).

use crate::config::McpConfig;
use mcpfn_client::auth::{
    Authorizer, ClientIdentity, FileStore, OAuthClient, OAuthConfig, Presenter, Secret, TokenStore,
};
use mcpfn_client::{Endpoint, ServerConfig};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The program's file store, under the user's config directory.
pub fn default_store() -> Result<FileStore, String> {
    FileStore::default_dir("mcp-host")
        .map(FileStore::new)
        .ok_or_else(|| {
            "no directory for tokens: neither XDG_CONFIG_HOME nor HOME is set".to_owned()
        })
}

/// The OAuth configuration of `server`: `None` for a stdio server or one
/// whose entry sends its own `Authorization` header.
pub fn oauth_config(config: &McpConfig, server: &ServerConfig) -> Option<OAuthConfig> {
    let Endpoint::Http { url, headers, .. } = &server.transport else {
        return None;
    };
    if headers
        .keys()
        .any(|name| name.eq_ignore_ascii_case("authorization"))
    {
        return None;
    }
    let mut oauth = OAuthConfig::new(server.name.clone(), url.clone());
    oauth.headers = headers
        .iter()
        .map(|(name, value)| (name.clone(), value.clone()))
        .collect();
    if let Some(settings) = config.oauth(&server.name) {
        oauth.identity = ClientIdentity {
            client_id: settings.client_id.clone(),
            client_secret: settings.client_secret.clone().map(Secret::new),
            metadata_url: None,
            client_name: "mcp-host".into(),
        };
        oauth.scopes = settings.scopes.clone();
        oauth.redirect_port = settings.redirect_port;
    }
    Some(oauth)
}

/// An authorizer for each HTTP server of `config` that may need one.
/// Nothing is sent yet: a 401 to the first request of the server's
/// connect starts the authorization (the stored token, a refresh, or a
/// login whose URL is printed on stderr, run outside the connect's
/// timeouts: [`Authorizer::deferred_login`]). A server whose
/// authorization fails is left out like any server that does not start.
pub fn authorizers(
    config: &McpConfig,
    store: Arc<dyn TokenStore>,
) -> BTreeMap<String, Arc<dyn Authorizer>> {
    authorizers_presented(config, store, None)
}

/// [`authorizers`] whose logins show the user their URL through
/// `presenter` (a page that opens it) instead of the default (stderr).
pub fn authorizers_presented(
    config: &McpConfig,
    store: Arc<dyn TokenStore>,
    presenter: Option<Presenter>,
) -> BTreeMap<String, Arc<dyn Authorizer>> {
    let mut authorizers: BTreeMap<String, Arc<dyn Authorizer>> = BTreeMap::new();
    for server in config.servers() {
        let Some(mut oauth) = oauth_config(config, server) else {
            continue;
        };
        if let Some(presenter) = &presenter {
            oauth.presenter = Arc::clone(presenter);
        }
        let client = Arc::new(OAuthClient::new(oauth, Arc::clone(&store)));
        authorizers.insert(server.name.clone(), client);
    }
    authorizers
}
