//! How to authorize with one server ([`OAuthConfig`]): who the client is,
//! the scopes, the redirect port or the device flow, the prompt, and the
//! entry's own headers.

use super::super::redirect::{Presenter, print_prompt};
use super::super::registration::ClientIdentity;
use std::time::Duration;

/// How to authorize with one server.
#[derive(Clone)]
pub struct OAuthConfig {
    /// The server's name (the prompt, the log, errors).
    pub server_name: String,
    /// Its MCP endpoint: the resource the tokens are for.
    pub server_url: String,
    /// Who this client is (pre-registered id, metadata document URL, the
    /// name it registers under).
    pub identity: ClientIdentity,
    /// Scopes to ask for when the server's challenge names none (before
    /// the metadata's `scopes_supported`).
    pub scopes: Vec<String>,
    /// The loopback port of the redirect listener; `None`: the port of the
    /// stored registration, else any free port.
    pub redirect_port: Option<u16>,
    /// Use the device authorization grant (RFC 8628) instead of the
    /// browser when a login is needed.
    pub device: bool,
    /// Shows the URL or code to the user. Default: a line on stderr.
    pub presenter: Presenter,
    /// How long the user has to finish a login. Default 5 minutes.
    pub login_timeout: Duration,
    /// The server entry's own headers (a gateway's API key): sent with
    /// the requests this client makes to the server's origin (its
    /// metadata, the challenge `login` asks for), as the transport sends
    /// them with every MCP request.
    pub headers: Vec<(String, String)>,
}

impl OAuthConfig {
    /// The defaults for the server `server_name` at `server_url`: a client
    /// registered dynamically as `mcp-host`, the prompt on stderr.
    pub fn new(server_name: impl Into<String>, server_url: impl Into<String>) -> OAuthConfig {
        OAuthConfig {
            server_name: server_name.into(),
            server_url: server_url.into(),
            identity: ClientIdentity {
                client_name: "mcp-host".into(),
                ..ClientIdentity::default()
            },
            scopes: Vec::new(),
            redirect_port: None,
            device: false,
            presenter: print_prompt(),
            login_timeout: Duration::from_secs(300),
            headers: Vec::new(),
        }
    }
}

impl std::fmt::Debug for OAuthConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthConfig")
            .field("server_name", &self.server_name)
            .field("server_url", &self.server_url)
            .field("identity", &self.identity)
            .field("scopes", &self.scopes)
            .field("redirect_port", &self.redirect_port)
            .field("device", &self.device)
            .field("login_timeout", &self.login_timeout)
            .field(
                "headers",
                &self
                    .headers
                    .iter()
                    .map(|(name, _)| name)
                    .collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}
