//! Protocol data: revisions, error codes, incoming message shapes and the
//! writers of outgoing frames. No I/O happens here.

mod error_code;
pub(crate) mod frame;
pub(crate) mod id_scan;
pub(crate) mod incoming;
mod version;

pub(crate) use error_code::ErrorCode;
pub use version::ProtocolVersion;

/// `_meta` key of the protocol version in a 2026-07-28 request envelope.
pub(crate) const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key of the client capabilities in a 2026-07-28 request envelope.
pub(crate) const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key of the server's identity on 2026-07-28 results.
pub(crate) const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
