//! Why a `requestState` is refused, or cannot be issued or spent, with the
//! reasons the error messages give.

use crate::store::StoreError;
use std::time::Duration;

/// Why a retry's `requestState` or `inputResponses` are refused (`-32602`);
/// it displays as the reason the error message gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StateRefusal {
    /// Answers without a state.
    NoState,
    /// A state this server did not seal (or of an older layout).
    Invalid,
    /// A state past its lifetime.
    Expired,
    /// A state sealed for another tool or other arguments.
    OtherCall,
}

impl std::fmt::Display for StateRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            StateRefusal::NoState => {
                "inputResponses were sent without a requestState: answers are taken only \
                 on a retry that echoes the requestState of this server's input_required \
                 result; call the tool without inputResponses to be asked"
            }
            StateRefusal::Invalid => "requestState is not one this server issued",
            StateRefusal::Expired => "requestState has expired; call the tool again without it",
            StateRefusal::OtherCall => "requestState belongs to a different tool call",
        })
    }
}

// Short names for the refusals, where they are returned and tested.
pub(super) const NO_STATE: StateRefusal = StateRefusal::NoState;
pub(super) const INVALID: StateRefusal = StateRefusal::Invalid;
pub(super) const EXPIRED: StateRefusal = StateRefusal::Expired;
pub(super) const OTHER_CALL: StateRefusal = StateRefusal::OtherCall;
/// Shown when a single-use state comes back.
pub(crate) const ALREADY_USED: &str =
    "requestState was already used (each is accepted once); call the tool again without it";
/// Shown when the store no longer knows a state (it was emptied since).
pub(crate) const UNKNOWN_STATE: &str = "requestState is not known to this server's state store \
     (it was issued before the store was reset); call the tool again without it";

/// Why a new input round could not be issued.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum IssueRefusal {
    /// The client holds as many open states as its quota allows; the
    /// oldest expires in this long.
    Quota(Duration),
    /// The store could not record the state (full, or unreachable).
    Store(StoreError),
}

/// Why a state could not be spent.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum SpendRefusal {
    /// The state was accepted before.
    AlreadyUsed,
    /// The store holds no open entry for it: it was issued before the
    /// store was emptied (a restart), so it cannot be known to be unspent.
    Unknown,
    /// The store could not record it (full, or unreachable): the call must
    /// not run, since the state could be replayed.
    Store(StoreError),
}
