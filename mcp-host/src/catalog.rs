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
//! [`Catalog::call`] routes a model's call under the tool's MCP name and
//! never fails: a JSON-RPC error, an unknown name, a timeout or a server
//! gone becomes an `isError` result whose text says why
//! ([`CallFailure`]). Calls run concurrently. A stdio server that died is
//! started again on the next call to it, with its names unchanged, as
//! often and as far apart as its restart policy allows
//! ([`ClientOptions::restart`], or the entry's own `"restarts"`).

use crate::call_result::CallFailure;
use crate::config::{Lifecycle, McpConfig};
use crate::names::{Collision, NameCollisions, NameMap, ToolRef};
use crate::offer::ToolOffer;
use mcp_client::BoxFuture;
use mcp_client::ServerConfig;
use mcp_client::{CallOptions, ClientOptions, McpClient, McpError};
use mcp_protocol::model::{CallToolResult, JsonObject, Tool};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

#[cfg(feature = "local")]
mod local;
#[cfg(feature = "local")]
pub use local::LocalSource;

/// How long a server may take to start and list its tools.
pub const START_TIMEOUT: Duration = Duration::from_secs(30);

/// Where tools come from: an MCP server through [`McpClient`], or anything
/// else that lists and calls tools (an in-process server).
pub trait ToolSource: Send + Sync + fmt::Debug + 'static {
    /// The source's name: the config name of a server, the prefix of its
    /// tools' model names on collision.
    fn name(&self) -> &str;

    /// Whether its annotations are believed.
    fn trusted(&self) -> bool;

    /// Whether its tools are the host's own code (an in-process server):
    /// two of them meeting under one model name, or one listed twice,
    /// refuse the catalog ([`CatalogError::Collisions`]) so that the
    /// developer renames one, instead of being told apart by a hash or left
    /// out as a server's are. Default `false`.
    fn in_process(&self) -> bool {
        false
    }

    /// Its tools, in its own order.
    fn list_tools(&self) -> BoxFuture<'_, Result<Arc<Vec<Tool>>, McpError>>;

    /// Calls its tool `tool` (an MCP name).
    fn call_tool<'a>(
        &'a self,
        tool: &'a str,
        arguments: Option<JsonObject>,
        options: CallOptions,
    ) -> BoxFuture<'a, Result<CallToolResult, McpError>>;

    /// Ends the source's connection (a stdio server: stdin closed, a grace
    /// to exit, SIGTERM, SIGKILL). The default does nothing.
    fn close(&self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }
}

impl ToolSource for McpClient {
    fn name(&self) -> &str {
        McpClient::name(self)
    }

    fn trusted(&self) -> bool {
        McpClient::trusted(self)
    }

    fn list_tools(&self) -> BoxFuture<'_, Result<Arc<Vec<Tool>>, McpError>> {
        Box::pin(McpClient::list_tools(self))
    }

    fn call_tool<'a>(
        &'a self,
        tool: &'a str,
        arguments: Option<JsonObject>,
        options: CallOptions,
    ) -> BoxFuture<'a, Result<CallToolResult, McpError>> {
        Box::pin(McpClient::call_tool(self, tool, arguments, options))
    }

    fn close(&self) -> BoxFuture<'_, ()> {
        Box::pin(McpClient::close(self))
    }
}

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
}

impl Default for CatalogOptions {
    fn default() -> Self {
        CatalogOptions {
            client: ClientOptions::default(),
            start_timeout: START_TIMEOUT,
            call_timeout: None,
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
    call_timeout: Option<Duration>,
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
        Catalog::build_from(&[], &|_| Lifecycle::default(), sources, options).await
    }

    async fn build_from(
        servers: &[ServerConfig],
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
            // A start allowed longer than the handshake's own timeout
            // (`npx -y` on a cold cache) gets it for the handshake too.
            client_options.handshake_timeout = client_options.handshake_timeout.max(limit);
            if let Some(restarts) = own.restarts {
                client_options.restart.max_restarts = restarts;
            }
            let name = server.name.clone();
            tasks.push((
                name,
                limit,
                tokio::spawn(async move {
                    tokio::time::timeout(limit, async move {
                        let client = McpClient::connect_with(server, client_options).await?;
                        let tools = client.list_tools().await?;
                        Ok::<_, McpError>((client, tools))
                    })
                    .await
                }),
            ));
        }
        let mut listed: Vec<Listed> = Vec::new();
        let mut failures = Vec::new();
        for (name, limit, task) in tasks {
            let reason = match task.await {
                Ok(Ok(Ok((client, tools)))) => {
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
        // Every configured server's prefix is reserved, started or not, so
        // that one failing today does not rename the others' tools.
        let reserved: Vec<&str> = servers.iter().map(|s| s.name.as_str()).collect();
        let mut catalog = Catalog::assemble(listed, &reserved, options.call_timeout)?;
        catalog.failures = failures;
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
        let names = naming.map;
        let mut tools = Vec::new();
        let mut by_model = BTreeMap::new();
        for (source, listed_tools) in &listed {
            for tool in listed_tools.iter() {
                let Some(model_name) = names.model_name(source.name(), &tool.name) else {
                    continue;
                };
                by_model.insert(model_name.to_owned(), tools.len());
                tools.push(CatalogTool {
                    model_name: model_name.to_owned(),
                    server: source.name().to_owned(),
                    tool: tool.clone(),
                    trusted: source.trusted(),
                });
            }
        }
        Ok(Catalog {
            sources,
            tools,
            names,
            by_model,
            failures: Vec::new(),
            call_timeout,
        })
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
