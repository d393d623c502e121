//! The gate between a listing and the model: which listed definitions are
//! held back until the [`Approver`] approves them, given the [`Pins`] (see
//! [`pins`](super::pins) for the rules), and the pins kept current.

use super::approval::{Approver, Decision};
use super::definition::{DefinitionChange, digest};
use super::pins::{MAX_KEPT_DEFINITION, Pins, canonical_len};
use crate::catalog::{Catalog, CatalogTool};
use mcpfn_protocol::model::Tool;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

/// The declined definitions remembered in a run.
const MAX_DECLINED: usize = 10_000;

/// What the agent decides about definitions: the pins, what was asked in
/// this run, and who is asked.
#[derive(Debug)]
pub(super) struct PinGate {
    state: Mutex<GateState>,
    approver: Arc<dyn Approver>,
}

#[derive(Debug, Default)]
struct GateState {
    pins: Pins,
    /// The definition approved last per (server, tool), for showing a
    /// change against it.
    approved: BTreeMap<(String, String), Tool>,
    /// The definitions declined in this run, by digest: asked once.
    declined: BTreeSet<(String, String, String)>,
}

impl PinGate {
    pub(super) fn new(pins: Pins, approver: Arc<dyn Approver>) -> PinGate {
        PinGate {
            state: Mutex::new(GateState {
                pins,
                ..GateState::default()
            }),
            approver,
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, GateState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The model names of `listed`'s tools held back: all but those whose
    /// definition is pinned (or whose server is new: pinned now) and those
    /// the approver approves; `previous` is the catalog before, whose
    /// definitions a change is shown against.
    pub(super) async fn held(
        &self,
        listed: &Catalog,
        previous: Option<&Catalog>,
    ) -> BTreeSet<String> {
        let mut to_ask: Vec<(&CatalogTool, String, bool)> = Vec::new();
        let mut held: BTreeSet<String> = BTreeSet::new();
        let mut changed = false;
        {
            let mut state = self.state();
            let new_servers: BTreeSet<&str> = listed
                .tools()
                .iter()
                .map(|t| t.server.as_str())
                .filter(|s| !listed.is_in_process(s) && !state.pins.knows_server(s))
                .collect();
            for entry in listed.tools() {
                if listed.is_in_process(&entry.server) {
                    continue;
                }
                let digest = digest(&entry.tool);
                let key = (entry.server.clone(), entry.tool.name.clone());
                if new_servers.contains(entry.server.as_str()) {
                    state.pins.pin(&entry.server, &entry.tool);
                    state.approved.insert(key, entry.tool.clone());
                    changed = true;
                    continue;
                }
                match state.pins.get(&entry.server, &entry.tool.name) {
                    Some(pinned) if pinned == digest => {
                        // A pin of an older file gets its definition now.
                        if state
                            .pins
                            .definition(&entry.server, &entry.tool.name)
                            .is_none()
                            && canonical_len(&entry.tool) <= MAX_KEPT_DEFINITION
                        {
                            state.pins.pin(&entry.server, &entry.tool);
                            changed = true;
                        }
                        state
                            .approved
                            .entry(key)
                            .or_insert_with(|| entry.tool.clone());
                    }
                    pinned => {
                        let new_tool = pinned.is_none();
                        let declined = (key.0, key.1, digest.clone());
                        if state.declined.contains(&declined) {
                            held.insert(entry.model_name.clone());
                        } else {
                            to_ask.push((entry, digest, new_tool));
                        }
                    }
                }
            }
        }
        for (entry, digest, new_tool) in to_ask {
            let key = (entry.server.clone(), entry.tool.name.clone());
            // What was approved: in this run, else as the pins keep it,
            // else as the catalog before listed it.
            let previous_tool = {
                let state = self.state();
                state
                    .approved
                    .get(&key)
                    .or_else(|| state.pins.definition(&key.0, &key.1))
                    .cloned()
            }
            .or_else(|| {
                previous
                    .and_then(|p| p.tool(&entry.model_name))
                    .map(|t| t.tool.clone())
                    .filter(|_| !new_tool)
            });
            let change = DefinitionChange {
                server: &entry.server,
                model_name: &entry.model_name,
                tool: &entry.tool,
                previous: previous_tool.as_ref(),
                new_tool,
            };
            let decision = self.approver.approve_definition(&change).await;
            let mut state = self.state();
            match decision {
                Decision::Run => {
                    state.pins.pin(&entry.server, &entry.tool);
                    state.approved.insert(key, entry.tool.clone());
                    changed = true;
                    tracing::info!(server = %entry.server, tool = %entry.tool.name, "tool definition approved");
                }
                // No one to ask is no approval: held back the same way.
                Decision::Decline | Decision::Unasked => {
                    // Asked again after this many: a server changing its
                    // definitions without end cannot grow it without bound.
                    if state.declined.len() >= MAX_DECLINED {
                        state.declined.clear();
                    }
                    tracing::warn!(
                        server = %entry.server,
                        tool = %entry.tool.name,
                        "tool held back, not offered until approved (--approve ask): {}",
                        change.summary()
                    );
                    state.declined.insert((key.0, key.1, digest));
                    held.insert(entry.model_name.clone());
                }
            }
        }
        if changed {
            let pins = self.state().pins.clone();
            if let Err(e) = pins.save() {
                tracing::warn!(error = %e, "the approvals are kept for this run only");
            }
        }
        held
    }
}
