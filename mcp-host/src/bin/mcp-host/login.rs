//! `mcp-host login SERVER` and `mcp-host logout SERVER`, and the
//! authorizers of a normal run, on [`mcpfn_host::oauth`].

use crate::cli::AuthArgs;
use mcpfn_client::auth::{Authorizer, OAuthClient, Presenter, TokenStore, open_browser};
use mcpfn_host::config::McpConfig;
use mcpfn_host::oauth::{default_store, oauth_config};
use std::collections::BTreeMap;
use std::process::ExitCode;
use std::sync::Arc;

/// Logs in to (or out of) `args.server`. Exit status 0, 1 when the flow
/// failed, 2 for a usage or configuration error.
pub(crate) fn run(args: AuthArgs, login: bool) -> ExitCode {
    let config = match McpConfig::load(&args.config) {
        Ok(config) => config,
        Err(e) => {
            eprintln!("mcp-host: {}: {e}", args.config.display());
            return ExitCode::from(2);
        }
    };
    let Some(server) = config.server(&args.server) else {
        eprintln!(
            "mcp-host: {}: no server `{}`",
            args.config.display(),
            args.server
        );
        return ExitCode::from(2);
    };
    let Some(mut oauth) = oauth_config(&config, server) else {
        eprintln!(
            "mcp-host: server `{}` is not an HTTP server without an `Authorization` header: there is nothing to log in to",
            args.server
        );
        return ExitCode::from(2);
    };
    if args.browser {
        oauth.presenter = open_browser();
    }
    let store = match default_store() {
        Ok(store) => store,
        Err(e) => {
            eprintln!("mcp-host: {e}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("mcp-host: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async move {
        let client = OAuthClient::new(oauth, Arc::new(store));
        if login {
            match client.login(args.device).await {
                Ok(authorized) => {
                    eprintln!(
                        "mcp-host: server `{}` authorized by {} (scopes: {})",
                        args.server,
                        authorized.issuer,
                        authorized.scope.as_deref().unwrap_or("none named")
                    );
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("mcp-host: server `{}`: {e}", args.server);
                    ExitCode::FAILURE
                }
            }
        } else {
            match client.logout().await {
                Ok(true) => {
                    eprintln!(
                        "mcp-host: server `{}`: stored registrations and tokens removed",
                        args.server
                    );
                    ExitCode::SUCCESS
                }
                Ok(false) => {
                    eprintln!("mcp-host: server `{}`: nothing was stored", args.server);
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("mcp-host: server `{}`: {e}", args.server);
                    ExitCode::FAILURE
                }
            }
        }
    })
}

/// The authorizers of a run, their logins shown through `presenter` (the
/// page's) when there is one, else on stderr: none when there is no
/// directory for tokens (said once on stderr).
pub(crate) fn authorizers(
    config: &McpConfig,
    presenter: Option<Presenter>,
) -> BTreeMap<String, Arc<dyn Authorizer>> {
    match default_store() {
        Ok(store) => {
            let store: Arc<dyn TokenStore> = Arc::new(store);
            mcpfn_host::oauth::authorizers_presented(config, store, presenter)
        }
        Err(e) => {
            eprintln!("mcp-host: OAuth is off: {e}");
            BTreeMap::new()
        }
    }
}
