//! The typed MCP model in the client direction: `mcp_protocol::model`,
//! re-exported, so this crate and the server side read and write one model.
//! The rest of the crate reaches it through `crate::wire::…`.

pub use mcp_protocol::model::*;
