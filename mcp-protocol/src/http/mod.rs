//! The rules of MCP's Streamable HTTP transport that both ends apply: the
//! header names, the encoding of a header value ([`encode_value`],
//! [`decode_value`]), which request member `Mcp-Name` mirrors
//! ([`named_member`]), and which tool arguments a 2026-07-28 request mirrors
//! into `Mcp-Param-*` headers ([`HeaderParams`], read from the tool's
//! `x-mcp-header` annotations).
//!
//! A server checks a request against these rules and a client writes its
//! requests by them; keeping them here is what keeps the two in step. No
//! I/O and no HTTP library: names are text, values are bytes.
//!
//! Names are written in lowercase, the form HTTP/2 sends and
//! `http::HeaderName::from_static` takes; HTTP/1.1 compares header names
//! case-insensitively, so `Mcp-Method` and `mcp-method` are one header.
//!
//! ```
//! use mcpfn_protocol::http::{self, HeaderParams};
//! use serde_json::json;
//!
//! let schema = json!({"type": "object", "properties": {
//!     "region": {"type": "string", "x-mcp-header": "Region"},
//! }});
//! let params = HeaderParams::read(schema.as_object().unwrap()).valid().unwrap();
//! let arguments = json!({"region": "Zürich"});
//! let (name, value) = params[0].header(arguments.as_object().unwrap()).unwrap();
//! assert_eq!(name, "mcp-param-Region");
//! assert_eq!(value, "=?base64?WsO8cmljaA==?=");
//! assert_eq!(http::decode_value(value.as_bytes()).unwrap(), "Zürich");
//! ```

use crate::model::method;

mod header_params;
mod value;

pub use header_params::{
    HeaderKind, HeaderParam, HeaderParams, KEYWORD as HEADER_PARAM_KEYWORD, MAX_HEADER_PARAMS,
};
pub use value::{BadValue, decode_value, encode_value};

/// `Mcp-Session-Id`: the session a legacy-era server minted, sent back on
/// each of the session's requests.
pub const SESSION_ID: &str = "mcp-session-id";
/// `MCP-Protocol-Version`: the revision a request speaks.
pub const PROTOCOL_VERSION: &str = "mcp-protocol-version";
/// `Mcp-Method`: a 2026-07-28 request's method, equal to the body's.
pub const METHOD: &str = "mcp-method";
/// `Mcp-Name`: what a 2026-07-28 request names (see [`named_member`]).
pub const NAME: &str = "mcp-name";
/// The prefix of the headers that mirror tool arguments
/// (`Mcp-Param-{x-mcp-header}`, see [`HeaderParams`]).
pub const PARAM_PREFIX: &str = "mcp-param-";

/// The member of a request's `params` that its `Mcp-Name` header mirrors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NamedMember {
    /// `params.name`: the tool called or the prompt got.
    Name,
    /// `params.taskId`: the task asked about, updated or cancelled.
    TaskId,
    /// `params.uri`: the resource read.
    Uri,
}

impl NamedMember {
    /// The member's path, as refusals name it (`params.name`).
    pub const fn path(self) -> &'static str {
        match self {
            NamedMember::Name => "params.name",
            NamedMember::TaskId => "params.taskId",
            NamedMember::Uri => "params.uri",
        }
    }
}

/// Which member `Mcp-Name` mirrors in a request of `method`; `None` for a
/// method that sends no `Mcp-Name`.
///
/// ```
/// use mcpfn_protocol::http::{NamedMember, named_member};
/// assert_eq!(named_member("tools/call"), Some(NamedMember::Name));
/// assert_eq!(named_member("tasks/get"), Some(NamedMember::TaskId));
/// assert_eq!(named_member("resources/read"), Some(NamedMember::Uri));
/// assert_eq!(named_member("tools/list"), None);
/// ```
pub fn named_member(method: &str) -> Option<NamedMember> {
    match method {
        method::TOOLS_CALL | method::PROMPTS_GET => Some(NamedMember::Name),
        method::TASKS_GET | method::TASKS_UPDATE | method::TASKS_CANCEL => {
            Some(NamedMember::TaskId)
        }
        method::RESOURCES_READ => Some(NamedMember::Uri),
        _ => None,
    }
}
