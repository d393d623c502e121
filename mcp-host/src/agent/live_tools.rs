//! The tools each model request offers, kept current: before each request
//! the agent asks the catalog whether a source's list changed
//! ([`Catalog::refreshed`]: no request to a server whose list is current)
//! and, when one did, swaps in the next catalog and the provider's form of
//! its tools. A snapshot ([`Offered`]) is an `Arc` swapped under a lock
//! held only for the swap, so conversations running at once each keep the
//! snapshot their request was made from; refreshes run one at a time, so
//! a slower one never replaces a newer catalog.
//!
//! A server can be switched off at run time ([`LiveTools::set_offered`]):
//! it stays connected and listed, but its tools leave what is offered from
//! the next request on (a call of one is refused as a name not offered),
//! and come back in their places once it is switched on again.

use super::on_demand::{self, LocalSearch, Offering, Settings};
use super::pin_gate::PinGate;
use crate::catalog::{Catalog, SourceFailure};
use crate::provider::Provider;
use serde_json::Value;
use std::collections::BTreeSet;
use std::sync::{Arc, RwLock};
use std::time::Duration;

/// One request's tools: the catalog its calls are routed by, and its tools
/// in the provider's form.
#[derive(Debug)]
pub(super) struct Offered {
    /// What is offered (held-back tools left out).
    pub(super) catalog: Arc<Catalog>,
    /// The provider's form of `catalog`'s tools, in its order (on demand:
    /// the search tool and the tools kept loaded, [`on_demand::plan`]).
    pub(super) tools: Vec<Value>,
    /// How they are offered: all, or on demand.
    pub(super) offering: Offering,
    /// The host's search tool, when tools are offered on demand through it.
    pub(super) search: Option<LocalSearch>,
    /// On demand: the model names every request offers; the others run
    /// only once a search of the conversation found them. `None`: all are
    /// offered.
    pub(super) loaded: Option<BTreeSet<String>>,
    /// The model names held back until approved, as decided for this
    /// listing (kept so a switch does not ask again).
    held: BTreeSet<String>,
}

/// The catalog as its sources list it, and what is offered of it.
#[derive(Debug)]
pub(super) struct LiveTools {
    /// Everything the sources list (held-back tools included).
    listed: RwLock<Arc<Catalog>>,
    offered: RwLock<Arc<Offered>>,
    refreshing: tokio::sync::Mutex<()>,
    relist_timeout: Duration,
    gate: PinGate,
    settings: Settings,
    /// The servers switched off: listed, not offered.
    off: RwLock<BTreeSet<String>>,
}

impl Offered {
    /// Whether the tool called `model_name` is held back until approved.
    pub(super) fn is_held(&self, model_name: &str) -> bool {
        self.held.contains(model_name)
    }
}

impl LiveTools {
    /// The tools of `catalog`, as far as `gate` lets them through.
    pub(super) async fn new(
        catalog: Catalog,
        provider: &dyn Provider,
        gate: PinGate,
        settings: Settings,
        relist_timeout: Duration,
    ) -> LiveTools {
        let listed = Arc::new(catalog);
        let held = gate.held(&listed, None).await;
        let offered = offer(&listed, held, &BTreeSet::new(), provider, &settings);
        LiveTools {
            listed: RwLock::new(listed),
            offered: RwLock::new(Arc::new(offered)),
            refreshing: tokio::sync::Mutex::new(()),
            relist_timeout,
            gate,
            settings,
            off: RwLock::default(),
        }
    }

    /// The tools offered now.
    pub(super) fn offered(&self) -> Arc<Offered> {
        Arc::clone(&self.offered.read().unwrap_or_else(|e| e.into_inner()))
    }

    /// The tools to offer in the next request: the sources whose lists
    /// may have changed are listed again first.
    pub(super) async fn refresh(&self, provider: &dyn Provider) -> Arc<Offered> {
        let _one_at_a_time = self.refreshing.lock().await;
        let listed = Arc::clone(&self.listed.read().unwrap_or_else(|e| e.into_inner()));
        let Some(next) = listed.refreshed(self.relist_timeout).await else {
            return self.offered();
        };
        let next = Arc::new(next);
        let held = self.gate.held(&next, Some(&listed)).await;
        let offered = Arc::new(offer(&next, held, &self.off(), provider, &self.settings));
        *self.listed.write().unwrap_or_else(|e| e.into_inner()) = next;
        *self.offered.write().unwrap_or_else(|e| e.into_inner()) = Arc::clone(&offered);
        offered
    }

    /// The servers switched off, by name.
    pub(super) fn off(&self) -> BTreeSet<String> {
        self.off.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Everything the sources list now, offered or not.
    pub(super) fn listed(&self) -> Arc<Catalog> {
        Arc::clone(&self.listed.read().unwrap_or_else(|e| e.into_inner()))
    }

    /// Starts the server `server`, left out of the catalog, again and
    /// offers its tools from the next request on (a definition its
    /// pins do not know asked about as on any listing). The start runs
    /// while requests go on; only the swap waits for a refresh under way.
    pub(super) async fn start_again(
        &self,
        server: &str,
        provider: &dyn Provider,
    ) -> Result<(), SourceFailure> {
        let started = self.listed().start_again(server).await?;
        let _one_at_a_time = self.refreshing.lock().await;
        let listed = self.listed();
        let next = Arc::new(listed.with_started(started).await);
        let held = self.gate.held(&next, Some(&listed)).await;
        let offered = Arc::new(offer(&next, held, &self.off(), provider, &self.settings));
        *self.listed.write().unwrap_or_else(|e| e.into_inner()) = next;
        *self.offered.write().unwrap_or_else(|e| e.into_inner()) = offered;
        Ok(())
    }

    /// Switches `server` on (`offered`) or off: what is offered is made
    /// again from the same listing and the same held-back tools (no server
    /// is asked, no approval asked again). Whether anything changed.
    pub(super) async fn set_offered(
        &self,
        server: &str,
        offered: bool,
        provider: &dyn Provider,
    ) -> bool {
        // One at a time with refreshes: a refresh in flight would swap in
        // an offering made with the switch as it was.
        let _one_at_a_time = self.refreshing.lock().await;
        let off = {
            let mut off = self.off.write().unwrap_or_else(|e| e.into_inner());
            let changed = if offered {
                off.remove(server)
            } else {
                off.insert(server.to_owned())
            };
            if !changed {
                return false;
            }
            off.clone()
        };
        let listed = self.listed();
        let held = self.offered().held.clone();
        let next = Arc::new(offer(&listed, held, &off, provider, &self.settings));
        *self.offered.write().unwrap_or_else(|e| e.into_inner()) = next;
        true
    }
}

/// What of `listed` is offered: all but the `held` model names and the
/// tools of the servers switched `off`, and the provider's form of them,
/// all at once or on demand as `settings` and the provider's limit say.
fn offer(
    listed: &Arc<Catalog>,
    held: BTreeSet<String>,
    off: &BTreeSet<String>,
    provider: &dyn Provider,
    settings: &Settings,
) -> Offered {
    let listed = if off.is_empty() {
        Arc::clone(listed)
    } else {
        Arc::new(listed.without_servers(off))
    };
    let catalog = if held.is_empty() {
        listed
    } else {
        Arc::new(listed.filtered(|t| !held.contains(&t.model_name)))
    };
    let plan = on_demand::plan(
        provider,
        &catalog,
        settings.max_tool_tokens,
        settings.always_loaded.as_deref(),
    );
    Offered {
        catalog,
        tools: plan.tools,
        offering: plan.offering,
        search: plan.search,
        loaded: plan.loaded,
        held,
    }
}
