//! The tools of many servers in one list a model can be offered, and the
//! way back from a model's call to the right server.
//!
//! [`Catalog::build`] starts every server of an `mcp.json` at once; one that
//! fails to start or to list its tools within [`START_TIMEOUT`]
//! ([`CatalogOptions::start_timeout`], or the entry's own `"startTimeout"`:
//! [`Lifecycle`]) is reported
//! ([`Catalog::failures`]) and left out, the rest work. Other sources (an
//! in-process server) join through [`ToolSource`]. The order is fixed (by
//! source name, then the source's own tool order), so one configuration
//! gives the same tool list on every run (stable prompt caches). Model
//! names come from [`NameMap::assign`]: every server's tool gets one (a
//! hashed one where names meet after mapping), so no server's names stop
//! the others; a tool a server lists twice is left out with one warning
//! naming the server and the tool. Only the host's own in-process tools
//! ([`ToolSource::in_process`]) meeting under one name refuse the catalog,
//! when it is built, never at call time.
//!
//! A server's `tools` filter from `mcp.json` ([`crate::filter`]) is applied
//! to each of its listings before anything else sees it: a
//! tool the filter leaves out gets no model name, is never offered, and a
//! call the model makes to its name anyway is refused as a name never
//! offered, without reaching the server. `"disabled": true` servers are not
//! started and are named in [`Catalog::disabled`], not in the failures.
//!
//! A catalog is a snapshot; [`Catalog::refreshed`] makes the next one when
//! a source's list changed (`relist`: names and places kept, new tools
//! last, the filter applied to every new listing).
//!
//! [`Catalog::call`] routes a model's call under the tool's MCP name and
//! never fails: a JSON-RPC error, an unknown name, a timeout or a server
//! gone becomes an `isError` result whose text says why
//! ([`CallFailure`]). Calls run concurrently. A stdio server that died is
//! started again on the next call to it, with its names unchanged, as
//! often and as far apart as its restart policy allows
//! ([`ClientOptions::restart`], or the entry's own `"restarts"`).

use crate::call_result::CallFailure;
use crate::config::{Lifecycle, McpConfig};
use crate::filter::ToolFilter;
use crate::names::{Collision, NameCollisions, NameMap, ToolRef};
use crate::tool_offer::ToolOffer;
use mcp_client::ServerConfig;
use mcp_client::{CallOptions, ClientOptions, McpClient, McpError};
use mcp_protocol::model::{CallToolResult, Tool};
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

#[cfg(feature = "local")]
mod local;
mod relist;
mod source;
#[cfg(feature = "local")]
pub use local::LocalSource;
pub use relist::RELIST_TIMEOUT;
pub use source::ToolSource;

/// How long a server may take to start and list its tools.
pub const START_TIMEOUT: Duration = Duration::from_secs(30);

/// A source and the tools it listed.
type Listed = (Arc<dyn ToolSource>, Arc<Vec<Tool>>);

/// How a catalog is built and calls are made.
#[derive(Clone, Debug)]
pub struct CatalogOptions {
    /// How each server of the config is connected.
    pub client: ClientOptions,
    /// How long a server may take to start and list. Default [`START_TIMEOUT`].
    pub start_timeout: Duration,
    /// The timeout of each call. Default the client's
    /// [`ClientOptions::call_timeout`].
    pub call_timeout: Option<Duration>,
    /// The authorization of each server that has one, by server name (its
    /// [`ClientOptions::authorizer`]).
    #[cfg(feature = "oauth")]
    pub authorizers: BTreeMap<String, Arc<dyn mcp_client::auth::Authorizer>>,
}

impl Default for CatalogOptions {
    fn default() -> Self {
        CatalogOptions {
            client: ClientOptions::default(),
            start_timeout: START_TIMEOUT,
            call_timeout: None,
            #[cfg(feature = "oauth")]
            authorizers: BTreeMap::new(),
        }
    }
}

/// Why a catalog could not be built.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum CatalogError {
    /// Two of the host's own in-process tools
    /// ([`ToolSource::in_process`]) would be offered under one model name,
    /// or one is listed twice.
    #[error("{0}")]
    Collisions(#[source] NameCollisions),
    /// Two sources share a name.
    #[error("two tool sources are both called `{0}`")]
    DuplicateSource(String),
}

/// A source left out of the catalog, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct SourceFailure {
    /// The source's name.
    pub server: String,
    /// What happened.
    pub reason: String,
}

/// One offered tool.
#[derive(Clone, Debug)]
pub struct CatalogTool {
    /// The name the model sees.
    pub model_name: String,
    /// The source's name.
    pub server: String,
    /// The tool as its source lists it.
    pub tool: Tool,
    /// Whether its source's annotations are believed
    /// ([`ToolSource::trusted`]).
    pub trusted: bool,
}

/// The tools of many sources under model-safe names.
#[derive(Debug)]
pub struct Catalog {
    sources: BTreeMap<String, Arc<dyn ToolSource>>,
    tools: Vec<CatalogTool>,
    names: NameMap,
    by_model: BTreeMap<String, usize>,
    failures: Vec<SourceFailure>,
    /// The `tools` filter of each configured server that has one, for
    /// every listing of that server.
    filters: BTreeMap<String, ToolFilter>,
    disabled: Vec<String>,
    call_timeout: Option<Duration>,
    /// What each source listed last, as it listed it ([`relist`]).
    listed: BTreeMap<String, Arc<Vec<Tool>>>,
    /// Every name given in this run, in the order given: the offered
    /// tools' order, and the names a re-listing keeps ([`NameMap::extend`]).
    given: NameMap,
    /// The configured servers' names, whose prefixes stay reserved.
    reserved: Vec<String>,
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

    async fn build_from(
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
                    let outcome = start().await;
                    // A login the start needs runs after it, outside its
                    // timeout (the user may take minutes), then it starts
                    // again.
                    #[cfg(feature = "oauth")]
                    let outcome = match client_options.authorizer.clone() {
                        None => start().await,
                        Some(authorizer) => {
                            authorizer.defer_logins(true);
                            let mut outcome = start().await;
                            if !matches!(outcome, Ok(Ok(_))) {
                                match authorizer.deferred_login().await {
                                    Ok(true) => outcome = start().await,
                                    Ok(false) => {}
                                    Err(e) => outcome = Ok(Err(e.into())),
                                }
                            }
                            authorizer.defer_logins(false);
                            outcome
                        }
                    };
                    outcome
                }),
            ));
        }
        let mut listed: Vec<Listed> = Vec::new();
        let mut failures = Vec::new();
        for (name, limit, task) in tasks {
            let reason = match task.await {
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
            tracing::warn!(server = %name, %reason, "server left out");
            failures.push(SourceFailure {
                server: name,
                reason,
            });
        }
        for source in extra {
            match tokio::time::timeout(options.start_timeout, source.list_tools()).await {
                Ok(Ok(tools)) => listed.push((source, tools)),
                Ok(Err(e)) => failures.push(SourceFailure {
                    server: source.name().to_owned(),
                    reason: e.to_string(),
                }),
                Err(_) => failures.push(SourceFailure {
                    server: source.name().to_owned(),
                    reason: "did not list its tools in time".into(),
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

    fn assemble(
        mut listed: Vec<Listed>,
        reserved: &[&str],
        call_timeout: Option<Duration>,
    ) -> Result<Catalog, CatalogError> {
        listed.sort_by(|a, b| a.0.name().cmp(b.0.name()));
        let mut sources = BTreeMap::new();
        for (source, _) in &listed {
            if sources
                .insert(source.name().to_owned(), Arc::clone(source))
                .is_some()
            {
                return Err(CatalogError::DuplicateSource(source.name().to_owned()));
            }
        }
        let pairs: Vec<(&str, &str)> = listed
            .iter()
            .flat_map(|(source, tools)| tools.iter().map(move |t| (source.name(), t.name.as_str())))
            .collect();
        let naming = NameMap::assign(reserved.iter().copied(), pairs);
        let in_process = |server: &str| sources.get(server).is_some_and(|s| s.in_process());
        let own: Vec<Collision> = naming
            .collisions
            .iter()
            .filter(|c| in_process(&c.first.server) && in_process(&c.second.server))
            .cloned()
            .collect();
        if !own.is_empty() {
            return Err(CatalogError::Collisions(NameCollisions(own)));
        }
        report_renamed(&naming);
        report_left_out(&naming);
        let listed = listed
            .into_iter()
            .map(|(source, tools)| (source.name().to_owned(), tools))
            .collect();
        let reserved = reserved.iter().map(|&s| s.to_owned()).collect();
        Ok(Catalog::arrange(
            sources,
            listed,
            naming,
            reserved,
            Vec::new(),
            call_timeout,
        ))
    }

    /// The catalog of what `listed` holds, offered in the order of
    /// `naming`'s names (every name given in the run), under those names;
    /// tools `naming` left out are not offered.
    fn arrange(
        sources: BTreeMap<String, Arc<dyn ToolSource>>,
        listed: BTreeMap<String, Arc<Vec<Tool>>>,
        naming: crate::names::Naming,
        reserved: Vec<String>,
        failures: Vec<SourceFailure>,
        call_timeout: Option<Duration>,
    ) -> Catalog {
        let left_out: std::collections::BTreeSet<&ToolRef> = naming.left_out.iter().collect();
        let mut present: BTreeMap<(&str, &str), &Tool> = BTreeMap::new();
        for (server, tools) in &listed {
            for tool in tools.iter() {
                present.entry((server, &tool.name)).or_insert(tool);
            }
        }
        let mut tools = Vec::new();
        let mut by_model = BTreeMap::new();
        for (model_name, target) in naming.map.iter() {
            if left_out.contains(target) {
                continue;
            }
            let Some(tool) = present.get(&(target.server.as_str(), target.tool.as_str())) else {
                continue;
            };
            let Some(source) = sources.get(&target.server) else {
                continue;
            };
            by_model.insert(model_name.to_owned(), tools.len());
            tools.push(CatalogTool {
                model_name: model_name.to_owned(),
                server: target.server.clone(),
                tool: (*tool).clone(),
                trusted: source.trusted(),
            });
        }
        let names = naming.map.retain(|name, _| by_model.contains_key(name));
        Catalog {
            sources,
            tools,
            names,
            by_model,
            failures,
            filters: BTreeMap::new(),
            disabled: Vec::new(),
            call_timeout,
            listed,
            given: naming.map,
            reserved,
        }
    }

    /// Closes every source at once ([`ToolSource::close`]): each stdio
    /// server gets its grace to exit after its stdin closes, then SIGTERM
    /// and SIGKILL. What dropping the catalog instead does is kill them.
    pub async fn close(&self) {
        let mut closing = tokio::task::JoinSet::new();
        for source in self.sources.values() {
            let source = Arc::clone(source);
            closing.spawn(async move { source.close().await });
        }
        while closing.join_next().await.is_some() {}
    }

    /// The offered tools, in the catalog's fixed order.
    pub fn tools(&self) -> &[CatalogTool] {
        &self.tools
    }

    /// The sources left out, and why.
    pub fn failures(&self) -> &[SourceFailure] {
        &self.failures
    }

    /// Whether the source `server` is the host's own in-process code
    /// ([`ToolSource::in_process`]).
    pub fn in_process(&self, server: &str) -> bool {
        self.sources.get(server).is_some_and(|s| s.in_process())
    }

    /// The configured servers not started because their entries say
    /// `"disabled": true`, sorted by name.
    pub fn disabled(&self) -> &[String] {
        &self.disabled
    }

    /// The `tools` filter of the source `server` (an open one for a source
    /// without).
    pub fn tool_filter(&self, server: &str) -> ToolFilter {
        self.filters.get(server).cloned().unwrap_or_default()
    }

    /// The names, both ways.
    pub fn names(&self) -> &NameMap {
        &self.names
    }

    /// The offered tool called `model_name`.
    pub fn tool(&self, model_name: &str) -> Option<&CatalogTool> {
        self.by_model
            .get(model_name)
            .map(|&index| &self.tools[index])
    }

    /// The tool a model name stands for.
    pub fn resolve(&self, model_name: &str) -> Option<&ToolRef> {
        self.names.resolve(model_name)
    }

    /// The offered tools as every model API is offered them (model-safe
    /// names, descriptions, schemas the APIs take), in the catalog's fixed
    /// order: what a [`Provider`](crate::provider::Provider) writes in its
    /// API's form.
    pub fn offers(&self) -> Vec<ToolOffer> {
        self.tools
            .iter()
            .map(|t| ToolOffer::new(&t.model_name, &t.tool))
            .collect()
    }

    /// Runs the model's call of `model_name` with `input`; never fails (a
    /// failure is an `isError` result saying why).
    pub async fn call(&self, model_name: &str, input: Value) -> CallToolResult {
        self.call_with(model_name, input, CallOptions::default())
            .await
    }

    /// [`call`](Self::call) with options (a progress callback, a timeout).
    pub async fn call_with(
        &self,
        model_name: &str,
        input: Value,
        mut options: CallOptions,
    ) -> CallToolResult {
        let Some(&index) = self.by_model.get(model_name) else {
            return CallFailure::UnknownTool {
                name: model_name.to_owned(),
            }
            .to_result();
        };
        let entry = &self.tools[index];
        let arguments = match input {
            Value::Object(map) => Some(map),
            Value::Null => None,
            other => {
                return CallFailure::InvalidArguments {
                    reason: format!("the arguments must be a JSON object, not {other}"),
                }
                .to_result();
            }
        };
        let Some(source) = self.sources.get(&entry.server) else {
            return CallFailure::UnknownTool {
                name: model_name.to_owned(),
            }
            .to_result();
        };
        if options.timeout.is_none() {
            options.timeout = self.call_timeout;
        }
        match source.call_tool(&entry.tool.name, arguments, options).await {
            Ok(result) => result,
            Err(e) => CallFailure::from_error(&e, &entry.server).to_result(),
        }
    }
}

/// `server`'s listing `tools` with its `filter` applied: the tools offered,
/// in the server's order. Each filter entry that matches no listed tool is
/// one warning naming the server and the entry; the tools left out are one
/// line of the log. Every listing of a filtered server goes through here.
pub(crate) fn filtered(server: &str, filter: &ToolFilter, tools: Arc<Vec<Tool>>) -> Arc<Vec<Tool>> {
    let result = filter.apply(&tools);
    for (field, entry) in &result.unmatched {
        tracing::warn!(
            server = %server,
            "`{field}` entry `{entry}` matches none of the {} tools the server lists",
            tools.len()
        );
    }
    if !result.left_out.is_empty() {
        tracing::info!(
            server = %server,
            "{} of {} tools left out by the config's `tools` filter",
            result.left_out.len(),
            tools.len()
        );
    }
    Arc::new(result.kept)
}

/// One line per server whose tools are offered under a hashed name (their
/// names met another's after mapping), with a few of them: enough to find a
/// name in the log, bounded whatever a server lists.
fn report_renamed(naming: &crate::names::Naming) {
    const SHOWN: usize = 4;
    let mut renamed: BTreeMap<&str, Vec<(&str, &str)>> = BTreeMap::new();
    let mut seen = std::collections::BTreeSet::new();
    for collision in &naming.collisions {
        for tool in [&collision.first, &collision.second] {
            let Some(name) = naming.map.model_name(&tool.server, &tool.tool) else {
                continue;
            };
            if name != collision.model_name && seen.insert(tool) {
                renamed
                    .entry(tool.server.as_str())
                    .or_default()
                    .push((tool.tool.as_str(), name));
            }
        }
    }
    for (server, tools) in renamed {
        let mut shown: Vec<String> = tools
            .iter()
            .take(SHOWN)
            .map(|(tool, name)| format!("`{tool}` as `{name}`"))
            .collect();
        if tools.len() > SHOWN {
            shown.push(format!("and {} more", tools.len() - SHOWN));
        }
        tracing::info!(
            server = %server,
            "tools offered under a hashed name, since their names meet another tool's after mapping: {}",
            shown.join(", ")
        );
    }
}

/// A warning naming the server and the tool for each tool left out, the
/// first few of each server; then one line with how many more, so that a
/// server listing every tool twice costs a few lines, not one per tool.
fn report_left_out(naming: &crate::names::Naming) {
    const SHOWN: usize = 4;
    let twice: std::collections::BTreeSet<&ToolRef> = naming
        .collisions
        .iter()
        .filter(|c| c.first == c.second)
        .map(|c| &c.first)
        .collect();
    let mut per_server: BTreeMap<&str, usize> = BTreeMap::new();
    for tool in &naming.left_out {
        let count = per_server.entry(tool.server.as_str()).or_default();
        *count += 1;
        if *count > SHOWN {
            continue;
        }
        let reason = if twice.contains(tool) {
            "the server lists it twice, so a call could not say which one"
        } else {
            "no free model name was found for it"
        };
        tracing::warn!(server = %tool.server, tool = %tool.tool, reason, "tool left out");
    }
    for (server, count) in per_server {
        if count > SHOWN {
            tracing::warn!(
                server = %server,
                "{} more tools left out (listed twice, or no free model name)",
                count - SHOWN
            );
        }
    }
}
