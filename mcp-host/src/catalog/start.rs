//! How a catalog is built: every configured server started and listed at
//! once within its start timeout (a login it needs run outside that
//! timeout), other sources listed, the ones that fail reported and left out.

use super::{Catalog, CatalogError, CatalogOptions, Listed, SourceFailure, ToolSource, filtered};
use crate::config::{Lifecycle, McpConfig};
use crate::filter::ToolFilter;
use mcpfn_client::ServerConfig;
use mcpfn_client::{McpClient, McpError};
use std::collections::BTreeMap;
use std::sync::Arc;

impl Catalog {
    /// Connects every server of `config` (at once) and adds `extra`
    /// sources; servers that fail to start or list are left out and
    /// reported in [`failures`](Self::failures).
    pub async fn build(
        config: &McpConfig,
        extra: Vec<Arc<dyn ToolSource>>,
        options: CatalogOptions,
    ) -> Result<Catalog, CatalogError> {
        Catalog::build_from(
            config.servers(),
            config.tool_filters(),
            config.disabled(),
            &|name| config.lifecycle(name),
            extra,
            options,
        )
        .await
    }

    /// A catalog of `sources` only (no config).
    pub async fn from_sources(
        sources: Vec<Arc<dyn ToolSource>>,
        options: CatalogOptions,
    ) -> Result<Catalog, CatalogError> {
        Catalog::build_from(
            &[],
            &BTreeMap::new(),
            &[],
            &|_| Lifecycle::default(),
            sources,
            options,
        )
        .await
    }

    pub(super) async fn build_from(
        servers: &[ServerConfig],
        filters: &BTreeMap<String, ToolFilter>,
        disabled: &[String],
        lifecycle: &dyn Fn(&str) -> Lifecycle,
        extra: Vec<Arc<dyn ToolSource>>,
        options: CatalogOptions,
    ) -> Result<Catalog, CatalogError> {
        let mut tasks = Vec::new();
        for server in servers {
            let server = server.clone();
            let own = lifecycle(&server.name);
            let limit = own.start_timeout.unwrap_or(options.start_timeout);
            let mut client_options = options.client.clone();
            #[cfg(feature = "oauth")]
            if let Some(authorizer) = options.authorizers.get(&server.name) {
                client_options.authorizer = Some(Arc::clone(authorizer));
            }
            // A start allowed longer than the handshake's own timeout
            // (`npx -y` on a cold cache) gets it for the handshake too.
            client_options.handshake_timeout = client_options.handshake_timeout.max(limit);
            if let Some(restarts) = own.restarts {
                client_options.restart.max_restarts = restarts;
            }
            client_options.list_limits = own.list_limits(client_options.list_limits);
            let name = server.name.clone();
            #[cfg(feature = "oauth")]
            let login_at_start = options.login_at_start;
            tasks.push((
                name,
                limit,
                tokio::spawn(async move {
                    let start = || {
                        let (server, client_options) = (server.clone(), client_options.clone());
                        tokio::time::timeout(limit, async move {
                            let client = McpClient::connect_with(server, client_options).await?;
                            let tools = client.list_tools().await?;
                            Ok::<_, McpError>((client, tools))
                        })
                    };
                    #[cfg(not(feature = "oauth"))]
                    let outcome = (start().await, false);
                    // A login the start needs runs after it, outside its
                    // timeout (the user may take minutes), then it starts
                    // again; or, when logins wait for the user, the server
                    // is left out as needing one.
                    #[cfg(feature = "oauth")]
                    let outcome = match client_options.authorizer.clone() {
                        None => (start().await, false),
                        Some(authorizer) => {
                            authorizer.defer_logins(true);
                            let mut outcome = start().await;
                            let mut needs_login = false;
                            if !matches!(outcome, Ok(Ok(_))) {
                                if !login_at_start {
                                    needs_login = authorizer.login_pending();
                                } else {
                                    match authorizer.deferred_login().await {
                                        Ok(true) => outcome = start().await,
                                        Ok(false) => {}
                                        Err(e) => outcome = Ok(Err(e.into())),
                                    }
                                }
                            }
                            authorizer.defer_logins(false);
                            (outcome, needs_login)
                        }
                    };
                    outcome
                }),
            ));
        }
        let mut listed: Vec<Listed> = Vec::new();
        let mut failures = Vec::new();
        for (name, limit, task) in tasks {
            let (outcome, needs_login) = match task.await {
                Ok((outcome, needs_login)) => (Ok(outcome), needs_login),
                Err(e) => (Err(e), false),
            };
            let reason = match outcome {
                Ok(Ok(Ok((client, tools)))) => {
                    let tools = match filters.get(&name) {
                        Some(filter) => filtered(&name, filter, tools),
                        None => tools,
                    };
                    listed.push((Arc::new(client), tools));
                    continue;
                }
                Ok(Ok(Err(e))) => e.to_string(),
                Ok(Err(_)) => format!(
                    "did not start and list its tools within {} s",
                    limit.as_secs_f64()
                ),
                Err(e) => format!("its start failed: {e}"),
            };
            // The deferred login's own error speaks of a login that runs
            // next; here none does until the user asks.
            let reason = if needs_login {
                "it asks for a login (OAuth)".to_owned()
            } else {
                reason
            };
            tracing::warn!(server = %name, %reason, "server left out");
            failures.push(SourceFailure {
                server: name,
                reason,
                needs_login,
            });
        }
        for source in extra {
            match tokio::time::timeout(options.start_timeout, source.list_tools()).await {
                Ok(Ok(tools)) => listed.push((source, tools)),
                Ok(Err(e)) => failures.push(SourceFailure {
                    server: source.name().to_owned(),
                    reason: e.to_string(),
                    needs_login: false,
                }),
                Err(_) => failures.push(SourceFailure {
                    server: source.name().to_owned(),
                    reason: "did not list its tools in time".into(),
                    needs_login: false,
                }),
            }
        }
        for name in disabled {
            tracing::info!(server = %name, "server not started: disabled in the config");
        }
        // Every configured server's prefix is reserved, started, failed or
        // disabled, so that one failing or disabled today does not rename
        // the others' tools.
        let reserved: Vec<&str> = servers
            .iter()
            .map(|s| s.name.as_str())
            .chain(disabled.iter().map(String::as_str))
            .collect();
        let mut catalog = Catalog::assemble(listed, &reserved, options.call_timeout)?;
        catalog.failures = failures;
        catalog.filters = filters.clone();
        catalog.disabled = disabled.to_vec();
        Ok(catalog)
    }
}
