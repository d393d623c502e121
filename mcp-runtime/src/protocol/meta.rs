//! The reserved `_meta` keys this server reads or writes, in one place.
//! (The envelope decoder in `params.rs` must spell its keys in serde
//! attributes, which take literals only; a test there checks they match.)

/// The protocol version in a 2026-07-28 request envelope.
pub(crate) const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// The client capabilities in a 2026-07-28 request envelope.
pub(crate) const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// The client's name and version in a 2026-07-28 request envelope.
pub(crate) const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// The per-request log level (2026-07-28).
pub(crate) const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// The server's identity on 2026-07-28 results.
pub(crate) const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// Tags the messages of a `subscriptions/listen` stream (2026-07-28).
pub(crate) const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
/// The progress token of a request (every revision).
pub(crate) const PROGRESS_TOKEN: &str = "progressToken";
/// The OAuth scopes a tool needs (`_meta` of a tool definition). This
/// crate's own prefix: `io.modelcontextprotocol/` is reserved for the
/// specification, and it defines no such key.
pub(crate) const TOOL_SCOPES: &str = "rs.mcp-runtime/scopes";
