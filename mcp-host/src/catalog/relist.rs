//! A catalog that follows its sources' tool lists: [`Catalog::refreshed`]
//! asks each source whether what it listed is still current (for an MCP
//! server, the client's cache: a `notifications/tools/list_changed` or an
//! expired `ttlMs` makes it stale; no request while it is current), lists
//! again those that are not, and, when a list differs, makes the next
//! catalog: every tool that stays keeps its model name and its place, a
//! new tool comes after the others, a tool that left is no longer offered
//! (and one that comes back has its old name and place again). The
//! catalog itself never changes: callers swap the `Arc` they hold.

use super::assemble::{report_left_out, report_renamed};
use super::{Catalog, CatalogTool, ToolSource};
use mcpfn_protocol::model::Tool;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

/// How long a source may take to list its tools again before a model
/// request; past it, the tools it listed last stay offered.
pub const RELIST_TIMEOUT: Duration = Duration::from_secs(10);

/// The most names a run remembers for tools no longer listed (so that one
/// coming back gets its old name and place); past it the oldest are
/// forgotten, so a server that keeps inventing tools cannot grow the
/// memory without bound.
const REMEMBERED_ABSENT: usize = 4_096;

impl Catalog {
    /// The catalog after the sources' lists changed, or `None` when none
    /// did (see the module docs). A source that fails to list again, or
    /// takes longer than `timeout`, keeps its last list (with a warning
    /// naming it); the others are not held up past `timeout`.
    pub async fn refreshed(&self, timeout: Duration) -> Option<Catalog> {
        let mut relisting = tokio::task::JoinSet::new();
        let mut lists = self.listed.clone();
        let mut changed = false;
        for (name, source) in &self.sources {
            let Some(old) = self.listed.get(name) else {
                continue;
            };
            match source.current_tools() {
                Some(current) if Arc::ptr_eq(&current, old) => {}
                Some(current) => {
                    let current = self.without_filtered(name, current);
                    if *current != **old {
                        changed = true;
                    }
                    lists.insert(name.clone(), current);
                }
                None => {
                    let source: Arc<dyn ToolSource> = Arc::clone(source);
                    relisting.spawn(async move {
                        let listed = tokio::time::timeout(timeout, source.list_tools()).await;
                        (source.name().to_owned(), listed)
                    });
                }
            }
        }
        while let Some(joined) = relisting.join_next().await {
            let Ok((name, listed)) = joined else {
                continue;
            };
            let tools = match listed {
                Ok(Ok(tools)) => self.without_filtered(&name, tools),
                Ok(Err(e)) => {
                    tracing::warn!(server = %name, error = %e, "listing the tools again failed; its last list stays offered");
                    continue;
                }
                Err(_) => {
                    tracing::warn!(server = %name, seconds = timeout.as_secs_f64(), "listing the tools again took too long; its last list stays offered");
                    continue;
                }
            };
            if self.listed.get(&name).is_none_or(|old| **old != *tools) {
                changed = true;
            }
            lists.insert(name, tools);
        }
        changed.then(|| self.relisted(self.sources.clone(), lists, self.failures.clone()))
    }

    /// This catalog with `source` joined, listing `tools` (already
    /// filtered), no longer among the failures: named and ordered as a
    /// re-listing names new tools.
    pub(super) fn joined(&self, source: Arc<dyn ToolSource>, tools: Arc<Vec<Tool>>) -> Catalog {
        let name = source.name().to_owned();
        let mut sources = self.sources.clone();
        sources.insert(name.clone(), source);
        let mut lists = self.listed.clone();
        lists.insert(name.clone(), tools);
        let failures = self
            .failures
            .iter()
            .filter(|f| f.server != name)
            .cloned()
            .collect();
        self.relisted(sources, lists, failures)
    }

    /// `tools` as listed again by `server`, less what its config's filter
    /// leaves out (quietly: its unmatched entries were reported at the
    /// first listing).
    fn without_filtered(&self, server: &str, tools: Arc<Vec<Tool>>) -> Arc<Vec<Tool>> {
        match self.filters.get(server) {
            Some(filter) => Arc::new(filter.apply(&tools).kept),
            None => tools,
        }
    }

    /// The catalog of `lists` (every source's tools), named and ordered as
    /// the module docs say.
    fn relisted(
        &self,
        sources: BTreeMap<String, Arc<dyn ToolSource>>,
        lists: BTreeMap<String, Arc<Vec<Tool>>>,
        failures: Vec<super::SourceFailure>,
    ) -> Catalog {
        let servers: Vec<&str> = self
            .reserved
            .iter()
            .map(String::as_str)
            .chain(sources.keys().map(String::as_str))
            .collect();
        let pairs: Vec<(&str, &str)> = lists
            .iter()
            .flat_map(|(server, tools)| {
                tools
                    .iter()
                    .filter(|t| crate::apps::offered_to_model(t))
                    .map(move |t| (server.as_str(), t.name.as_str()))
            })
            .collect();
        let mut naming = self.given.extend(servers, pairs);
        let present: std::collections::BTreeSet<(&str, &str)> = lists
            .iter()
            .flat_map(|(server, tools)| {
                tools
                    .iter()
                    .map(move |t| (server.as_str(), t.name.as_str()))
            })
            .collect();
        let absent = naming
            .map
            .iter()
            .filter(|(_, t)| !present.contains(&(t.server.as_str(), t.tool.as_str())))
            .count();
        if absent > REMEMBERED_ABSENT {
            let mut forget = absent - REMEMBERED_ABSENT;
            naming.map = naming.map.retain(|_, t| {
                if forget > 0 && !present.contains(&(t.server.as_str(), t.tool.as_str())) {
                    forget -= 1;
                    false
                } else {
                    true
                }
            });
        }
        report_renamed(&naming);
        report_left_out(&naming);
        let mut catalog = Catalog::arrange(
            sources.clone(),
            lists.clone(),
            naming,
            self.reserved.clone(),
            failures,
            self.call_timeout,
        );
        catalog.filters = self.filters.clone();
        catalog.disabled = self.disabled.clone();
        catalog.configured = self.configured.clone();
        let before: std::collections::BTreeSet<&str> =
            self.tools.iter().map(|t| t.model_name.as_str()).collect();
        let after: std::collections::BTreeSet<&str> = catalog
            .tools
            .iter()
            .map(|t| t.model_name.as_str())
            .collect();
        tracing::info!(
            added = %some(after.difference(&before)),
            removed = %some(before.difference(&after)),
            "tool lists changed"
        );
        catalog
    }

    /// This catalog offering only the tools `keep` accepts (a tool whose
    /// definition awaits approval is held back); calls of the others are
    /// refused as names not offered. What the sources listed, and the
    /// names given, stay as they are for the next [`refreshed`](Self::refreshed).
    pub fn filtered(&self, mut keep: impl FnMut(&CatalogTool) -> bool) -> Catalog {
        let tools: Vec<CatalogTool> = self.tools.iter().filter(|t| keep(t)).cloned().collect();
        let by_model: BTreeMap<String, usize> = tools
            .iter()
            .enumerate()
            .map(|(index, t)| (t.model_name.clone(), index))
            .collect();
        Catalog {
            sources: self.sources.clone(),
            names: self.names.retain(|name, _| by_model.contains_key(name)),
            tools,
            by_model,
            failures: self.failures.clone(),
            filters: self.filters.clone(),
            disabled: self.disabled.clone(),
            call_timeout: self.call_timeout,
            listed: self.listed.clone(),
            given: self.given.clone(),
            reserved: self.reserved.clone(),
            off: self.off.clone(),
            configured: self.configured.clone(),
        }
    }

    /// This catalog without the tools of the servers in `off` (switched
    /// off by the user, still connected); calls of their tools are refused
    /// as not offered, saying why.
    pub fn without_servers(&self, off: &BTreeSet<String>) -> Catalog {
        let mut catalog = self.filtered(|t| !off.contains(&t.server));
        catalog.off.extend(off.iter().cloned());
        catalog
    }
}

/// The first few of `names`, and how many more: a log line stays short
/// whatever a server lists.
fn some<'a>(names: impl Iterator<Item = &'a &'a str>) -> String {
    const SHOWN: usize = 8;
    let names: Vec<&str> = names.copied().collect();
    let mut text = names
        .iter()
        .take(SHOWN)
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > SHOWN {
        text.push_str(&format!(" and {} more", names.len() - SHOWN));
    }
    text
}

impl Catalog {
    /// Why `model_name`, a name given to a tool earlier in this run, is
    /// not offered now (its server no longer lists the tool, or the tool is
    /// held back), for the model; `None` for a name offered or never given.
    pub fn withdrawn(&self, model_name: &str) -> Option<String> {
        if self.by_model.contains_key(model_name) {
            return None;
        }
        let target = self.given.resolve(model_name)?;
        let listed = self
            .listed
            .get(&target.server)
            .is_some_and(|tools| tools.iter().any(|t| t.name == target.tool));
        let why = if self.off.contains(&target.server) {
            "the user switched its server off"
        } else if listed {
            "its definition changed and awaits the user's approval"
        } else {
            "its server no longer lists it"
        };
        Some(format!(
            "the tool `{}` of server `{}` is no longer offered ({why})",
            target.tool, target.server
        ))
    }
}

impl Catalog {
    /// Whether `server` is one of the host's own in-process sources
    /// ([`ToolSource::in_process`]).
    pub fn is_in_process(&self, server: &str) -> bool {
        self.sources.get(server).is_some_and(|s| s.in_process())
    }
}
