//! The wire, as the server's fast path reads and writes it: the model and
//! the rules both ends share come from `mcpfn_protocol` (all of it, as
//! `crate::protocol::X`), and below them the server's own zero-copy
//! machinery, private to this crate: the one-pass reader of incoming lines
//! ([`incoming`], [`params`]), the writers of its messages ([`outgoing`],
//! [`frame`], [`tool_def`], [`form`]) and W3C trace context
//! ([`trace_context`]). They render and read the types of
//! `mcpfn_protocol::model` byte for byte, faster; they are no second model,
//! so no user of the model sees them.

pub(crate) use mcpfn_protocol::*;

pub(crate) mod form;
pub(crate) mod frame;
pub(crate) mod incoming;
mod json_text;
pub(crate) mod outgoing;
pub(crate) mod params;
pub(crate) mod tool_def;
pub(crate) mod trace_context;
