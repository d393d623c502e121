//! One type per MCP method: its name, the params it is sent with and the
//! result it is answered with ([`Request`]), or the params of a
//! notification ([`Notification`]), as `lsp_types::request::Request` does
//! for LSP. A client sends `M::Params` under `M::METHOD` and reads
//! `M::Result`; the names are the constants below, spelled once.
//!
//! ```
//! use mcp_protocol::model::method::{self, CallTool, Request};
//! use mcp_protocol::model::{CallToolParams, CallToolResponse, JsonRpcRequest};
//!
//! fn call(id: i64, params: <CallTool as Request>::Params) -> JsonRpcRequest<CallToolParams<'static>> {
//!     JsonRpcRequest::new(id, CallTool::METHOD, Some(params))
//! }
//! let request = call(1, CallToolParams { name: "add".into(), ..Default::default() });
//! assert_eq!(request.method, method::TOOLS_CALL);
//! let result: <CallTool as Request>::Result =
//!     serde_json::from_str(r#"{"content":[{"type":"text","text":"3"}]}"#).unwrap();
//! assert!(matches!(result, CallToolResponse::Complete(r) if !r.is_error));
//! ```

use super::call::CallToolResponse;
use super::input::{
    CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult, ListRootsResult,
};
use super::jsonrpc::JsonObject;
use super::lifecycle::{DiscoverResult, InitializeParams, InitializeResult, MetaParams};
use super::notifications::{CancelledParams, ListenParams, LoggingMessageParams, ProgressParams};
use super::task::{DetailedTask, TaskIdParams, UpdateTaskParams};
use super::tools::{CallToolParams, ListToolsParams, ListToolsResult};
use crate::ProtocolVersion;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// `initialize` (2024-11-05 to 2025-11-25).
pub const INITIALIZE: &str = "initialize";
/// `notifications/initialized` (after `initialize`).
pub const INITIALIZED: &str = "notifications/initialized";
/// `server/discover` (2026-07-28).
pub const DISCOVER: &str = "server/discover";
/// `ping`.
pub const PING: &str = "ping";
/// `tools/list`.
pub const TOOLS_LIST: &str = "tools/list";
/// `tools/call`.
pub const TOOLS_CALL: &str = "tools/call";
/// `logging/setLevel` (2024-11-05 to 2025-11-25).
pub const SET_LEVEL: &str = "logging/setLevel";
/// `subscriptions/listen` (2026-07-28).
pub const SUBSCRIPTIONS_LISTEN: &str = "subscriptions/listen";
/// `notifications/cancelled`.
pub const CANCELLED: &str = "notifications/cancelled";
/// `notifications/progress`.
pub const PROGRESS: &str = "notifications/progress";
/// `notifications/message` (a log message).
pub const MESSAGE: &str = "notifications/message";
/// `notifications/tools/list_changed`.
pub const TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";
/// `notifications/subscriptions/acknowledged` (2026-07-28).
pub const SUBSCRIPTIONS_ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";
/// `elicitation/create` (a server request).
pub const ELICIT: &str = "elicitation/create";
/// `sampling/createMessage` (a server request).
pub const CREATE_MESSAGE: &str = "sampling/createMessage";
/// `roots/list` (a server request).
pub const ROOTS_LIST: &str = "roots/list";
/// `tasks/get` (the Tasks extension, 2026-07-28).
pub const TASKS_GET: &str = "tasks/get";
/// `tasks/update` (the Tasks extension, 2026-07-28).
pub const TASKS_UPDATE: &str = "tasks/update";
/// `tasks/cancel` (the Tasks extension, 2026-07-28).
pub const TASKS_CANCEL: &str = "tasks/cancel";
/// `notifications/tasks`: a task's status, on a `subscriptions/listen`
/// stream (the Tasks extension, 2026-07-28).
pub const TASKS_STATUS: &str = "notifications/tasks";

/// The revisions a method exists in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Eras {
    /// Every revision.
    All,
    /// The handshake revisions, 2024-11-05 to 2025-11-25 (a session opened
    /// by `initialize`).
    Legacy,
    /// The stateless revisions, 2026-07-28 on (a `_meta` envelope on every
    /// request).
    Modern,
}

impl Eras {
    /// Whether the method exists in `version`.
    pub const fn include(self, version: ProtocolVersion) -> bool {
        match self {
            Eras::All => true,
            Eras::Legacy => !version.is_modern(),
            Eras::Modern => version.is_modern(),
        }
    }
}

/// A request: sent as `params` under `METHOD`, answered with a `Result`.
pub trait Request {
    /// The method name on the wire.
    const METHOD: &'static str;
    /// The revisions it exists in.
    const ERAS: Eras;
    /// Its `params` (what a client writes; a server reads them with its
    /// own borrowed readers).
    type Params: Serialize;
    /// Its `result`, as a client reads it.
    type Result: DeserializeOwned;
}

/// A notification: sent as `params` under `METHOD`, never answered.
pub trait Notification {
    /// The method name on the wire.
    const METHOD: &'static str;
    /// The revisions it exists in.
    const ERAS: Eras;
    /// Its `params`.
    type Params: Serialize;
}

macro_rules! requests {
    ($($(#[$doc:meta])* $name:ident = $method:ident, $eras:ident, $params:ty => $result:ty;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug)]
        pub enum $name {}

        impl Request for $name {
            const METHOD: &'static str = $method;
            const ERAS: Eras = Eras::$eras;
            type Params = $params;
            type Result = $result;
        }
    )*};
}

macro_rules! notifications {
    ($($(#[$doc:meta])* $name:ident = $method:ident, $eras:ident, $params:ty;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug)]
        pub enum $name {}

        impl Notification for $name {
            const METHOD: &'static str = $method;
            const ERAS: Eras = Eras::$eras;
            type Params = $params;
        }
    )*};
}

requests! {
    /// `initialize`: opens a session (2024-11-05 to 2025-11-25).
    Initialize = INITIALIZE, Legacy, InitializeParams => InitializeResult;
    /// `server/discover`: what a server offers (2026-07-28).
    Discover = DISCOVER, Modern, MetaParams<'static> => DiscoverResult;
    /// `ping`: whether the peer is alive; answered with `{}`.
    Ping = PING, All, JsonObject => JsonObject;
    /// `tools/list`: a page of the server's tools.
    ListTools = TOOLS_LIST, All, ListToolsParams<'static> => ListToolsResult;
    /// `tools/call`: runs a tool.
    CallTool = TOOLS_CALL, All, CallToolParams<'static> => CallToolResponse;
    /// `subscriptions/listen`: a stream of the notifications asked for
    /// (2026-07-28); its result closes the stream.
    Listen = SUBSCRIPTIONS_LISTEN, Modern, ListenParams<'static> => JsonObject;
    /// `elicitation/create`: the server asks the user (a server request
    /// before 2026-07-28, an input request after).
    Elicit = ELICIT, All, ElicitParams => ElicitResult;
    /// `sampling/createMessage`: the server asks the client's model (a
    /// server request before 2026-07-28, an input request after).
    CreateMessage = CREATE_MESSAGE, All, CreateMessageParams => CreateMessageResult;
    /// `roots/list`: the client's roots (a server request before
    /// 2026-07-28, an input request after).
    ListRoots = ROOTS_LIST, All, JsonObject => ListRootsResult;
    /// `tasks/get`: a task's status and, once done, its result (the Tasks
    /// extension).
    GetTask = TASKS_GET, Modern, TaskIdParams => DetailedTask;
    /// `tasks/update`: answers to a task's questions (the Tasks extension).
    UpdateTask = TASKS_UPDATE, Modern, UpdateTaskParams => JsonObject;
    /// `tasks/cancel`: stops a task (the Tasks extension).
    CancelTask = TASKS_CANCEL, Modern, TaskIdParams => JsonObject;
}

notifications! {
    /// `notifications/initialized`: the client's end of the handshake
    /// (2024-11-05 to 2025-11-25).
    Initialized = INITIALIZED, Legacy, JsonObject;
    /// `notifications/cancelled`: stop working on a request.
    Cancelled = CANCELLED, All, CancelledParams;
    /// `notifications/progress`: how far a request is.
    Progress = PROGRESS, All, ProgressParams;
    /// `notifications/message`: a log message.
    LoggingMessage = MESSAGE, All, LoggingMessageParams;
    /// `notifications/tools/list_changed`: list the tools again.
    ToolListChanged = TOOLS_LIST_CHANGED, All, JsonObject;
    /// `notifications/tasks`: a task's status (the Tasks extension).
    TaskStatusChanged = TASKS_STATUS, Modern, DetailedTask;
}
