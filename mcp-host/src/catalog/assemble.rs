//! How listings become a catalog: the sources in a fixed order, every
//! tool named ([`NameMap::assign`]), the names that had to be hashed and
//! the tools left out reported, and the tools arranged in the order of
//! their names.

use super::{Catalog, CatalogError, CatalogTool, Listed, SourceFailure, ToolSource};
use crate::apps;
use crate::names::{Collision, NameCollisions, NameMap, Naming, ToolRef};
use mcpfn_protocol::model::Tool;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

impl Catalog {
    pub(super) fn assemble(
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
            .flat_map(|(source, tools)| {
                tools
                    .iter()
                    .filter(|t| apps::offered_to_model(t))
                    .map(move |t| (source.name(), t.name.as_str()))
            })
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
    pub(super) fn arrange(
        sources: BTreeMap<String, Arc<dyn ToolSource>>,
        listed: BTreeMap<String, Arc<Vec<Tool>>>,
        naming: Naming,
        reserved: Vec<String>,
        failures: Vec<SourceFailure>,
        call_timeout: Option<Duration>,
    ) -> Catalog {
        let left_out: BTreeSet<&ToolRef> = naming.left_out.iter().collect();
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
            // A tool named earlier in the run that is now for apps only.
            if !apps::offered_to_model(tool) {
                continue;
            }
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
            off: BTreeSet::new(),
            configured: None,
        }
    }
}

/// One line per server whose tools are offered under a hashed name (their
/// names met another's after mapping), with a few of them: enough to find a
/// name in the log, bounded whatever a server lists.
pub(super) fn report_renamed(naming: &Naming) {
    const SHOWN: usize = 4;
    let mut renamed: BTreeMap<&str, Vec<(&str, &str)>> = BTreeMap::new();
    let mut seen = BTreeSet::new();
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
pub(super) fn report_left_out(naming: &Naming) {
    const SHOWN: usize = 4;
    let twice: BTreeSet<&ToolRef> = naming
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
