//! The tools of many servers in one list a model can be offered, and the
//! way back from a model's call to the right server.
//!
//! [`Catalog::build`] starts every server of an `mcp.json` at once; one that
//! fails to start or to list its tools within [`START_TIMEOUT`]
//! ([`CatalogOptions::start_timeout`], or the entry's own `"startTimeout"`:
//! [`Lifecycle`](crate::config::Lifecycle)) is reported
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
//! A server left out can be started again later ([`Catalog::start_again`],
//! [`Catalog::with_started`]: the build's own start, its login first when it
//! waits for one, [`CatalogOptions::login_at_start`]); a catalog can leave
//! out the servers a person switched off ([`Catalog::without_servers`]).
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
//!
//! A tool whose `_meta.ui.visibility` leaves out `"model"` (MCP Apps) gets
//! no model name and is never offered; its server's app still calls it
//! ([`Catalog::call_from_app`]).

use crate::call_result::CallFailure;
use crate::filter::ToolFilter;
use crate::names::{NameCollisions, NameMap, ToolRef};
use crate::tool_offer::ToolOffer;
use mcpfn_client::{CallOptions, ClientOptions, McpClient};
use mcpfn_protocol::model::{CallToolResult, Tool};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

mod app_call;
mod assemble;
#[cfg(feature = "local")]
mod local;
mod relist;
mod source;
mod start;
pub use app_call::{AppCallRefused, AppTool, UNASKED_REASON};
#[cfg(feature = "local")]
pub use local::LocalSource;
pub use relist::RELIST_TIMEOUT;
pub use source::ToolSource;
pub use start::Started;

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
    pub authorizers: BTreeMap<String, Arc<dyn mcpfn_client::auth::Authorizer>>,
    /// Whether a login a server needs runs while the catalog is built
    /// (the terminal: the URL printed, the build waiting for it). Off (a
    /// page that shows a "Log in" button), such a server is left out with
    /// [`SourceFailure::needs_login`] set. Default on.
    pub login_at_start: bool,
}

impl Default for CatalogOptions {
    fn default() -> Self {
        CatalogOptions {
            client: ClientOptions::default(),
            start_timeout: START_TIMEOUT,
            call_timeout: None,
            #[cfg(feature = "oauth")]
            authorizers: BTreeMap::new(),
            login_at_start: true,
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
    /// Whether it failed for want of a login the user has not given yet
    /// ([`CatalogOptions::login_at_start`] off): logging in and connecting
    /// again may bring it in.
    pub needs_login: bool,
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
    /// The servers the user switched off ([`Catalog::switched_off`]): their
    /// tools are listed, not offered.
    off: BTreeSet<String>,
    /// What starts a configured server again ([`Catalog::started_again`]);
    /// `None` for a catalog of sources only.
    configured: Option<Arc<start::Configured>>,
}

impl Catalog {
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

    /// The MCP client of server `server` (a configured server that
    /// started), for its prompts, resources, completions and Skills; `None`
    /// for a name the catalog does not hold or a source that is not an MCP
    /// server (the in-process door).
    pub fn client(&self, server: &str) -> Option<McpClient> {
        self.sources.get(server)?.client().cloned()
    }

    /// The names of the sources that started, in the catalog's order.
    pub fn servers(&self) -> impl Iterator<Item = &str> {
        self.sources.keys().map(String::as_str)
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

    /// The servers switched off in this catalog: listed, not offered
    /// ([`Agent::set_offered`](crate::agent::Agent::set_offered)).
    pub fn switched_off(&self) -> &BTreeSet<String> {
        &self.off
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
