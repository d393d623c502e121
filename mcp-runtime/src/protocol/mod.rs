//! What the bytes mean, and the only place that writes them: revisions and
//! what each carries (`version`), incoming message shapes (`incoming`) and
//! the one parse of a request's params (`params`), the typed outgoing
//! messages (`outgoing`, `tool_def`, `content`) and their framing
//! (`frame`), error codes and the reserved `_meta` keys (`meta`), W3C trace
//! context (`trace_context`).
//! No I/O happens here.

pub(crate) mod content;
mod error_code;
pub(crate) mod form;
pub(crate) mod frame;
pub(crate) mod id_scan;
pub(crate) mod incoming;
pub(crate) mod meta;
pub(crate) mod outgoing;
pub(crate) mod params;
pub(crate) mod sampling;
pub(crate) mod tool_def;
pub(crate) mod trace_context;
mod version;

pub(crate) use error_code::ErrorCode;
pub use version::ProtocolVersion;
