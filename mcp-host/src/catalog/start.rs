//! How a catalog is built: every configured server started and listed at
//! once within its start timeout (a login it needs run outside that
//! timeout), other sources listed, the ones that fail reported and left out;
//! and a server left out started again later ([`Catalog::started_again`],
//! after the user logged in), the same way.

use super::{Catalog, CatalogError, CatalogOptions, Listed, SourceFailure, ToolSource, filtered};
use crate::config::{Lifecycle, McpConfig};
use crate::filter::ToolFilter;
use mcpfn_client::ServerConfig;
use mcpfn_client::{McpClient, McpError};
use mcpfn_protocol::model::Tool;
use std::collections::BTreeMap;
use std::sync::Arc;

/// What a catalog keeps to start one of its configured servers again: each
/// one's entry and lifecycle, and the options it was built with.
#[derive(Debug)]
pub(super) struct Configured {
    servers: BTreeMap<String, (ServerConfig, Lifecycle)>,
    options: CatalogOptions,
}

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
        let configured = Arc::new(Configured {
            servers: servers
                .iter()
                .map(|s| (s.name.clone(), (s.clone(), lifecycle(&s.name))))
                .collect(),
            options,
        });
        let mut tasks = Vec::new();
        for server in servers {
            let configured = Arc::clone(&configured);
            let name = server.name.clone();
            let task = tokio::spawn(async move { configured.start(&name).await });
            tasks.push((server.name.clone(), task));
        }
        let mut listed: Vec<Listed> = Vec::new();
        let mut failures = Vec::new();
        for (name, task) in tasks {
            let failure = match task.await {
                Ok(Ok((client, tools))) => {
                    let tools = match filters.get(&name) {
                        Some(filter) => filtered(&name, filter, tools),
                        None => tools,
                    };
                    listed.push((Arc::new(client), tools));
                    continue;
                }
                Ok(Err(failure)) => failure,
                Err(e) => SourceFailure {
                    server: name,
                    reason: format!("its start failed: {e}"),
                    needs_login: false,
                },
            };
            tracing::warn!(server = %failure.server, reason = %failure.reason, "server left out");
            failures.push(failure);
        }
        let start_timeout = configured.options.start_timeout;
        for source in extra {
            match tokio::time::timeout(start_timeout, source.list_tools()).await {
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
        let mut catalog = Catalog::assemble(listed, &reserved, configured.options.call_timeout)?;
        catalog.failures = failures;
        catalog.filters = filters.clone();
        catalog.disabled = disabled.to_vec();
        catalog.configured = Some(configured);
        Ok(catalog)
    }

    /// Starts the configured server `server`, left out of this catalog
    /// ([`failures`](Self::failures)), and lists it again as at build time;
    /// one left out for want of a login ([`SourceFailure::needs_login`])
    /// runs that login first (its authorizer shows the user the URL, and
    /// the start waits for the redirect outside its timeout). The failure
    /// when it is left out again, or is no server left out of this
    /// catalog. [`with_started`](Self::with_started) makes the catalog
    /// with it.
    pub async fn start_again(&self, server: &str) -> Result<Started, SourceFailure> {
        let not_left_out = || SourceFailure {
            server: server.to_owned(),
            reason: "is not a configured server left out of the catalog".into(),
            needs_login: false,
        };
        if !self.failures.iter().any(|f| f.server == server) {
            return Err(not_left_out());
        }
        let Some(configured) = &self.configured else {
            return Err(not_left_out());
        };
        let started = configured.start(server).await;
        // A login it waits for (again: a login given up on earlier left
        // none pending) runs now, then it starts once more.
        #[cfg(feature = "oauth")]
        let started = match started {
            Err(failure) if failure.needs_login => {
                configured.log_in(server).await?;
                configured.start(server).await
            }
            started => started,
        };
        let (client, tools) = started.inspect_err(|failure| {
            tracing::warn!(server = %failure.server, reason = %failure.reason, "server left out again");
        })?;
        let tools = match self.filters.get(server) {
            Some(filter) => filtered(server, filter, tools),
            None => tools,
        };
        tracing::info!(server = %server, tools = tools.len(), "server started");
        Ok(Started {
            client: Arc::new(client),
            tools,
        })
    }

    /// This catalog with the server `started` joined (no longer among the
    /// failures), its tools named as a re-listing names new ones: the
    /// others keep their names and places. A server already in it is
    /// closed and left as it is.
    pub async fn with_started(&self, started: Started) -> Catalog {
        if self.sources.contains_key(started.client.name()) {
            started.client.close().await;
            return self.filtered(|_| true);
        }
        self.joined(started.client, started.tools)
    }
}

/// A server started again ([`Catalog::start_again`]), to join a catalog
/// ([`Catalog::with_started`]).
#[derive(Debug)]
pub struct Started {
    client: Arc<McpClient>,
    tools: Arc<Vec<Tool>>,
}

impl Configured {
    /// Runs the login the start of `name` left pending, outside any
    /// timeout but the login's own; the failure (still needing a login)
    /// when it does not complete.
    #[cfg(feature = "oauth")]
    async fn log_in(&self, name: &str) -> Result<(), SourceFailure> {
        let Some(authorizer) = self.options.authorizers.get(name) else {
            return Ok(());
        };
        let logged_in = authorizer.deferred_login().await;
        authorizer.defer_logins(false);
        logged_in.map(drop).map_err(|e| SourceFailure {
            server: name.to_owned(),
            reason: format!("the login failed: {e}"),
            needs_login: true,
        })
    }

    /// Starts the configured server `name` and lists its tools within its
    /// start timeout. A login it needs runs after that attempt, outside
    /// its timeout (the user may take minutes), then it starts again; or,
    /// with [`CatalogOptions::login_at_start`] off, it is left out as
    /// needing one.
    async fn start(&self, name: &str) -> Result<(McpClient, Arc<Vec<Tool>>), SourceFailure> {
        let failure = |reason: String, needs_login: bool| SourceFailure {
            server: name.to_owned(),
            reason,
            needs_login,
        };
        let Some((server, own)) = self.servers.get(name) else {
            return Err(failure("is not in the config".into(), false));
        };
        let options = &self.options;
        let limit = own.start_timeout.unwrap_or(options.start_timeout);
        let mut client_options = options.client.clone();
        #[cfg(feature = "oauth")]
        if let Some(authorizer) = options.authorizers.get(name) {
            client_options.authorizer = Some(Arc::clone(authorizer));
        }
        // A start allowed longer than the handshake's own timeout
        // (`npx -y` on a cold cache) gets it for the handshake too.
        client_options.handshake_timeout = client_options.handshake_timeout.max(limit);
        if let Some(restarts) = own.restarts {
            client_options.restart.max_restarts = restarts;
        }
        client_options.list_limits = own.list_limits(client_options.list_limits);
        let start = || {
            let (server, client_options) = (server.clone(), client_options.clone());
            tokio::time::timeout(limit, async move {
                let client = McpClient::connect_with(server, client_options).await?;
                let tools = client.list_tools().await?;
                Ok::<_, McpError>((client, tools))
            })
        };
        #[cfg(not(feature = "oauth"))]
        let (outcome, needs_login) = (start().await, false);
        #[cfg(feature = "oauth")]
        let (outcome, needs_login) = match client_options.authorizer.clone() {
            None => (start().await, false),
            Some(authorizer) => {
                authorizer.defer_logins(true);
                let mut outcome = start().await;
                let mut needs_login = false;
                if !matches!(outcome, Ok(Ok(_))) {
                    if options.login_at_start {
                        match authorizer.deferred_login().await {
                            Ok(true) => outcome = start().await,
                            Ok(false) => {}
                            Err(e) => outcome = Ok(Err(e.into())),
                        }
                    } else {
                        needs_login = authorizer.login_pending();
                    }
                }
                // A login left for the user stays pending (turning the
                // deferral off would forget it) until `log_in` runs it.
                if !needs_login {
                    authorizer.defer_logins(false);
                }
                (outcome, needs_login)
            }
        };
        match outcome {
            Ok(Ok(started)) => Ok(started),
            // The deferred login's own error speaks of a login that runs
            // next; here none does until the user asks.
            _ if needs_login => Err(failure("it asks for a login (OAuth)".into(), true)),
            Ok(Err(e)) => Err(failure(e.to_string(), false)),
            Err(_) => Err(failure(
                format!(
                    "did not start and list its tools within {} s",
                    limit.as_secs_f64()
                ),
                false,
            )),
        }
    }
}
