//! The live tool set: tools can be added, removed, enabled and disabled while
//! serving; each change rebuilds the registry and tells subscribed clients
//! (`notifications/tools/list_changed`).

use crate::changes::Notifier;
use crate::context::Context;
use crate::error::Error;
use crate::tool::Tool;
use crate::tool::registry::Registry;
use crate::util::{lock, read, write};
use std::sync::{Arc, Mutex, RwLock};

/// A handle on the server's tools, cheap to clone; get it inside a tool with
/// [`Context::tools`](crate::Context::tools).
///
/// Changes take effect for requests that arrive after them. Cursors handed
/// out before a change are refused afterwards (`-32602`): clients re-list
/// after `notifications/tools/list_changed`.
#[derive(Clone, Debug)]
pub struct ToolSet {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    /// Every tool, with whether it is enabled.
    tools: Mutex<Vec<(Tool, bool)>>,
    registry: RwLock<Arc<Registry>>,
    page_size: Option<usize>,
    /// Told after every change.
    changes: Notifier,
}

impl ToolSet {
    pub(crate) fn new(
        tools: Vec<Tool>,
        page_size: Option<usize>,
        changes: Notifier,
    ) -> Result<ToolSet, Error> {
        let registry = Registry::new(tools.clone(), page_size)?;
        Ok(ToolSet {
            inner: Arc::new(Inner {
                tools: Mutex::new(tools.into_iter().map(|t| (t, true)).collect()),
                registry: RwLock::new(Arc::new(registry)),
                page_size,
                changes,
            }),
        })
    }

    /// The registry requests are served from now.
    pub(crate) fn registry(&self) -> Arc<Registry> {
        read(&self.inner.registry).clone()
    }

    /// The tool named `name` in the registry requests are served from now,
    /// with its name. Looked up under the lock, without taking a reference
    /// on the whole registry (this runs for every call).
    pub(crate) fn lookup(&self, name: &str) -> Option<(Arc<str>, Arc<Tool>)> {
        let registry = read(&self.inner.registry);
        registry
            .get(name)
            .map(|(name, tool)| (name, Arc::clone(tool)))
    }

    /// Applies `change` to the list; keeps the old list when the result does
    /// not register (e.g. a duplicate name).
    fn update<R>(
        &self,
        change: impl FnOnce(&mut Vec<(Tool, bool)>) -> Option<R>,
    ) -> Result<Option<R>, Error> {
        let mut tools = lock(&self.inner.tools);
        let mut next = tools.clone();
        let Some(result) = change(&mut next) else {
            return Ok(None);
        };
        let enabled = next
            .iter()
            .filter(|(_, on)| *on)
            .map(|(t, _)| t.clone())
            .collect();
        let registry = Registry::new(enabled, self.inner.page_size)?;
        *tools = next;
        *write(&self.inner.registry) = Arc::new(registry);
        self.inner.changes.tools_changed();
        Ok(Some(result))
    }

    /// Adds a tool; fails on a duplicate or invalid name.
    pub fn add(&self, tool: Tool) -> Result<(), Error> {
        self.update(|tools| {
            tools.push((tool, true));
            Some(())
        })
        .map(|_| ())
    }

    /// Removes a tool; `false` when there is none by that name.
    pub fn remove(&self, name: &str) -> bool {
        self.update(|tools| {
            let index = tools.iter().position(|(t, _)| t.name() == name)?;
            tools.remove(index);
            Some(())
        })
        .ok()
        .flatten()
        .is_some()
    }

    /// Shows a hidden tool again; `false` when it is unknown or already shown.
    pub fn enable(&self, name: &str) -> bool {
        self.set_enabled(name, true)
    }

    /// Hides a tool from `tools/list` and refuses calls to it; `false` when
    /// it is unknown or already hidden.
    pub fn disable(&self, name: &str) -> bool {
        self.set_enabled(name, false)
    }

    fn set_enabled(&self, name: &str, on: bool) -> bool {
        self.update(|tools| {
            let entry = tools
                .iter_mut()
                .find(|(t, enabled)| t.name() == name && *enabled != on)?;
            entry.1 = on;
            Some(())
        })
        .ok()
        .flatten()
        .is_some()
    }

    /// Whether `name` is registered and enabled.
    pub fn is_enabled(&self, name: &str) -> bool {
        lock(&self.inner.tools)
            .iter()
            .any(|(t, on)| t.name() == name && *on)
    }
}

impl Context {
    /// The server's live tool set, to add, remove, enable or disable tools.
    // Defined here, not in `context/`: the context sits below `tool/` and
    // holds the set untyped (`Reach::tools`).
    pub fn tools(&self) -> &ToolSet {
        match self.tool_set().downcast_ref::<ToolSet>() {
            Some(tools) => tools,
            None => unreachable!("every Reach is built with the server's ToolSet"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ToolBuilder, ToolOutcome};

    fn tool(name: &str) -> Tool {
        ToolBuilder::new(name, |_| Box::pin(async { ToolOutcome::text("") })).build()
    }

    #[test]
    fn changes_rebuild_the_registry_and_are_told() {
        let notifier = Notifier::new();
        let mut changes = notifier.subscribe();
        let set = ToolSet::new(vec![tool("a"), tool("b")], None, notifier).unwrap();
        assert!(set.disable("a"));
        assert!(!set.disable("a"), "already disabled");
        assert!(set.registry().get("a").is_none());
        assert!(set.enable("a"));
        assert!(set.registry().get("a").is_some());
        assert!(set.add(tool("c")).is_ok());
        assert!(set.add(tool("c")).is_err(), "duplicate refused");
        assert!(set.registry().get("c").is_some());
        assert!(set.remove("b"));
        assert!(!set.remove("b"));
        for _ in 0..4 {
            assert_eq!(
                changes.try_recv(),
                Ok(crate::changes::Change::ToolsListChanged)
            );
        }
        assert!(changes.try_recv().is_err(), "refused changes are not told");
    }
}
