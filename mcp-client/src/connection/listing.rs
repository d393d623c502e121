//! The server's tool list: every page fetched within the [`ListLimits`](crate::ListLimits),
//! cached per connection until its `ttlMs` passes or the server says it
//! changed (`notifications/tools/list_changed`, on a `subscriptions/listen`
//! stream in 2026-07-28), each tool kept with what a call of it needs.
//!
//! A tool of a legacy session whose `execution.taskSupport` is
//! `"required"` (2025-11-25) is left out, with one warning naming every
//! such tool (again only when a later listing leaves out others): the server answers a call of it without a
//! `task` with -32601, and this client drives the tasks of the 2026-07-28
//! extension only ([`super::tasks`]), not the 2025-11-25 `task`-augmented
//! calls, `tasks/get` and `tasks/result`. Offering such a tool would give
//! a model a tool that always fails.

use super::{Era, McpClient};
use crate::McpError;
#[cfg(feature = "output-schema")]
use crate::output;
use mcpfn_protocol::http::{HeaderParam, HeaderParams};
use mcpfn_protocol::model::method::ListTools;
use mcpfn_protocol::model::{Tool, ToolAnnotations};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A tool as the client keeps it: what a call needs beside the definition.
pub(super) struct Entry {
    pub(super) params: Vec<HeaderParam>,
    /// The `outputSchema`, compiled when a result first arrives.
    #[cfg(feature = "output-schema")]
    pub(super) output: Option<output::OutputCheck>,
}

pub(super) struct Cache {
    tools: Arc<Vec<Tool>>,
    entries: Arc<HashMap<String, Arc<Entry>>>,
    fetched: Instant,
    ttl: Option<Duration>,
    generation: u64,
    connection: u64,
}

impl McpClient {
    /// The server's tools, every page, from the cache while it is fresh.
    pub async fn list_tools(&self) -> Result<Arc<Vec<Tool>>, McpError> {
        Ok(self.cached_or_fetch().await?.0)
    }

    /// The cached tool list while it is still current, without a request:
    /// `None` once the server said it changed, its `ttlMs` passed, the
    /// connection was replaced, or nothing was listed yet, when
    /// [`list_tools`](Self::list_tools) asks the server. A host checks this
    /// before each model request to learn, for the cost of a lock, whether
    /// to list again.
    pub fn cached_tools(&self) -> Option<Arc<Vec<Tool>>> {
        // A connection being replaced holds this lock: the list may be
        // stale, so it is not vouched for.
        let number = self.inner.conn.try_lock().ok()?.number;
        let cache = self.inner.cache.lock().unwrap_or_else(|e| e.into_inner());
        let cache = cache.as_ref()?;
        (cache.connection == number
            && cache.generation == self.inner.handler.generation()
            && cache.ttl.is_none_or(|ttl| cache.fetched.elapsed() < ttl))
        .then(|| Arc::clone(&cache.tools))
    }

    /// Forgets the cached tool list; the next [`list_tools`](Self::list_tools)
    /// asks the server.
    pub fn invalidate_tools(&self) {
        *self.inner.cache.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }

    pub(super) async fn cached_or_fetch(
        &self,
    ) -> Result<(Arc<Vec<Tool>>, Arc<HashMap<String, Arc<Entry>>>), McpError> {
        let (dispatcher, era, number) = self.session().await?;
        {
            let cache = self.inner.cache.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(cache) = cache.as_ref()
                && cache.connection == number
                && cache.generation == self.inner.handler.generation()
                && cache.ttl.is_none_or(|ttl| cache.fetched.elapsed() < ttl)
            {
                return Ok((Arc::clone(&cache.tools), Arc::clone(&cache.entries)));
            }
        }
        if era == Era::Modern {
            self.ensure_listening(&dispatcher, number).await;
        }
        let generation = self.inner.handler.generation();
        let fetched = Instant::now();
        let (tools, ttl) = self.fetch_all::<ListTools>(&dispatcher, era).await?;
        let mut kept = Vec::with_capacity(tools.len());
        let mut entries = HashMap::new();
        let mut task_only = Vec::new();
        for mut tool in tools {
            if matches!(era, Era::Legacy(_)) && tool.requires_task() {
                task_only.push(tool.name);
                continue;
            }
            // The keyword is 2026-07-28 HTTP's, and so is the duty: stdio
            // and a legacy session mirror no arguments into headers, so
            // their schemas are not walked at all.
            let params = if self.inner.http && era == Era::Modern {
                match HeaderParams::read(&tool.input_schema).valid() {
                    Ok(params) => params,
                    Err(reason) => {
                        tracing::warn!(server = %self.inner.config.name, tool = %tool.name, %reason, "tool dropped: its x-mcp-header breaks the rules");
                        continue;
                    }
                }
            } else {
                Vec::new()
            };
            if !self.inner.config.trusted {
                tool.annotations = tool.annotations.take().map(|a| ToolAnnotations {
                    title: a.title,
                    ..ToolAnnotations::default()
                });
            }
            let entry = Entry {
                params,
                #[cfg(feature = "output-schema")]
                output: tool.output_schema.as_ref().map(output::OutputCheck::new),
            };
            entries.insert(tool.name.clone(), Arc::new(entry));
            kept.push(tool);
        }
        let warned = {
            let mut last = self
                .inner
                .task_only_warned
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            // A list that changed, or a reconnection, lists the same again.
            std::mem::replace(&mut *last, task_only.clone()) == task_only
        };
        if !task_only.is_empty() && !warned {
            tracing::warn!(
                server = %self.inner.config.name,
                tools = %task_only.join(", "),
                "tools left out: they run only as 2025-11-25 tasks (execution.taskSupport \"required\"), which this client does not drive"
            );
        }
        let tools = Arc::new(kept);
        let entries = Arc::new(entries);
        *self.inner.cache.lock().unwrap_or_else(|e| e.into_inner()) = Some(Cache {
            tools: Arc::clone(&tools),
            entries: Arc::clone(&entries),
            fetched,
            ttl,
            generation,
            connection: number,
        });
        Ok((tools, entries))
    }

    /// The cached entry of tool `name`, stale or not: a call needs only its
    /// header parameters and validator, and listing before every call of a
    /// server with `ttlMs: 0` would double its requests.
    pub(super) fn known_entry(&self, name: &str) -> Option<Arc<Entry>> {
        let cache = self.inner.cache.lock().unwrap_or_else(|e| e.into_inner());
        cache.as_ref()?.entries.get(name).cloned()
    }
}
