//! The tools each model request offers, kept current: before each request
//! the agent asks the catalog whether a source's list changed
//! ([`Catalog::refreshed`]: no request to a server whose list is current)
//! and, when one did, swaps in the next catalog and the provider's form of
//! its tools. A snapshot ([`Offered`]) is an `Arc` swapped under a lock
//! held only for the swap, so conversations running at once each keep the
//! snapshot their request was made from; refreshes run one at a time, so
//! a slower one never replaces a newer catalog.

use super::on_demand::{self, LocalSearch, Offering, Settings};
use super::pin_gate::PinGate;
use crate::catalog::Catalog;
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
        let offered = offer(&listed, gate.held(&listed, None).await, provider, &settings);
        LiveTools {
            listed: RwLock::new(listed),
            offered: RwLock::new(Arc::new(offered)),
            refreshing: tokio::sync::Mutex::new(()),
            relist_timeout,
            gate,
            settings,
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
        let offered = Arc::new(offer(&next, held, provider, &self.settings));
        *self.listed.write().unwrap_or_else(|e| e.into_inner()) = next;
        *self.offered.write().unwrap_or_else(|e| e.into_inner()) = Arc::clone(&offered);
        offered
    }
}

/// What of `listed` is offered: all but the `held` model names, and the
/// provider's form of them, all at once or on demand as `settings` and the
/// provider's limit say.
fn offer(
    listed: &Arc<Catalog>,
    held: BTreeSet<String>,
    provider: &dyn Provider,
    settings: &Settings,
) -> Offered {
    let catalog = if held.is_empty() {
        Arc::clone(listed)
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
    }
}
