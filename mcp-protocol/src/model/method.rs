//! One type per MCP method: its name, the params it is sent with and the
//! result it is answered with ([`Request`]), or the params of a
//! notification ([`Notification`]), as `lsp_types::request::Request` does
//! for LSP. A client sends `M::Params` under `M::METHOD` and reads
//! `M::Result`; the names are the constants below, spelled once.
//!
//! This is the project's one method table: each method is declared here
//! once, with the revisions it exists in ([`Revisions`]) and the capability
//! it belongs to ([`Capability`]). The server's router is keyed by these
//! markers and the client sends them (`request::<M>`); no other source file
//! spells a method name (the workspace test `method_names` holds that).
//!
//! ```
//! use mcpfn_protocol::model::method::{self, CallTool, Request};
//! use mcpfn_protocol::model::{CallToolParams, CallToolResponse, JsonRpcRequest};
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
use super::completion::{CompleteParams, CompleteResult};
use super::input::{
    CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult, ListRootsResult,
};
use super::jsonrpc::JsonObject;
use super::lifecycle::{DiscoverResult, InitializeParams, InitializeResult, MetaParams};
use super::notifications::{
    CancelledParams, ListenParams, LoggingMessageParams, ProgressParams, SetLevelParams,
};
use super::prompts::{GetPromptParams, GetPromptResponse, ListPromptsParams, ListPromptsResult};
use super::resources::{
    ListResourceTemplatesResult, ListResourcesParams, ListResourcesResult, ReadResourceParams,
    ReadResourceResult,
};
use super::skills::{
    GetSkillParams, GetSkillResult, ListSkillsParams, ListSkillsResult, ReadDirectoryParams,
    ReadDirectoryResult,
};
use super::subscriptions::{ResourceUpdatedParams, SubscribeParams};
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
/// `resources/list`.
pub const RESOURCES_LIST: &str = "resources/list";
/// `resources/read`.
pub const RESOURCES_READ: &str = "resources/read";
/// `resources/templates/list`.
pub const RESOURCES_TEMPLATES_LIST: &str = "resources/templates/list";
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
// Resource subscriptions and list changes (resources/subscribe,
// resources/unsubscribe, their updates; resource and prompt list changes).
/// `notifications/prompts/list_changed`.
pub const PROMPTS_LIST_CHANGED: &str = "notifications/prompts/list_changed";
/// `notifications/resources/list_changed`.
pub const RESOURCES_LIST_CHANGED: &str = "notifications/resources/list_changed";
/// `resources/subscribe` (2024-11-05 to 2025-11-25).
pub const RESOURCES_SUBSCRIBE: &str = "resources/subscribe";
/// `resources/unsubscribe` (2024-11-05 to 2025-11-25).
pub const RESOURCES_UNSUBSCRIBE: &str = "resources/unsubscribe";
/// `notifications/resources/updated`.
pub const RESOURCES_UPDATED: &str = "notifications/resources/updated";
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
/// `resources/directory/read` (the Skills extension, with `directoryRead`).
pub const RESOURCES_DIRECTORY_READ: &str = "resources/directory/read";
/// `skills/get` (the Skills extension).
pub const SKILLS_GET: &str = "skills/get";
/// `skills/list` (the Skills extension).
pub const SKILLS_LIST: &str = "skills/list";

// Prompts and completions.
/// `completion/complete`.
pub const COMPLETION_COMPLETE: &str = "completion/complete";
/// `prompts/get`.
pub const PROMPTS_GET: &str = "prompts/get";
/// `prompts/list`.
pub const PROMPTS_LIST: &str = "prompts/list";

/// The revisions a method exists in: a run of them, oldest first, as the
/// spec settles it (`ping` and `logging/setLevel` end with the handshake
/// revisions; `elicitation/create` starts with 2025-06-18).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Revisions {
    first: ProtocolVersion,
    last: ProtocolVersion,
}

impl Revisions {
    /// Every revision.
    pub const ALL: Revisions = Revisions::since(ProtocolVersion::V2024_11_05);
    /// The handshake revisions, 2024-11-05 to 2025-11-25 (a session opened
    /// by `initialize`).
    pub const LEGACY: Revisions = Revisions {
        first: ProtocolVersion::V2024_11_05,
        last: ProtocolVersion::LATEST_LEGACY,
    };
    /// The stateless revisions, 2026-07-28 on (a `_meta` envelope on every
    /// request).
    pub const MODERN: Revisions = Revisions::since(ProtocolVersion::V2026_07_28);

    /// `first` and every revision after it.
    pub const fn since(first: ProtocolVersion) -> Revisions {
        Revisions {
            first,
            last: ProtocolVersion::LATEST,
        }
    }

    /// Whether the method exists in `version`: two comparisons, cheap
    /// enough for a router's every request.
    pub const fn include(self, version: ProtocolVersion) -> bool {
        self.first.index() <= version.index() && version.index() <= self.last.index()
    }
}

/// The capability a method belongs to: what a peer announces (in
/// `initialize` or `server/discover`) when it serves the method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Capability {
    /// The server's `tools` (`tools/*`, `notifications/tools/list_changed`).
    Tools,
    /// The server's `logging` (`logging/setLevel`, `notifications/message`).
    Logging,
    /// The server's `resources` (`resources/*`, `notifications/resources/*`).
    Resources,
    /// The server's Tasks extension (`tasks/*`, `notifications/tasks`).
    Tasks,
    /// The server's Skills extension (`skills/*`,
    /// `resources/directory/read`).
    Skills,
    /// The client's `sampling` (`sampling/createMessage`).
    Sampling,
    /// The client's `elicitation` (`elicitation/create`).
    Elicitation,
    /// The client's `roots` (`roots/list`).
    Roots,
    /// The server's `completions` (`completion/complete`).
    Completions,
    /// The server's `prompts` (`prompts/*`).
    Prompts,
}

/// A request: sent as `params` under `METHOD`, answered with a `Result`.
pub trait Request {
    /// The method name on the wire.
    const METHOD: &'static str;
    /// The revisions it exists in.
    const REVISIONS: Revisions;
    /// The capability the answering peer announces for it, if any.
    const CAPABILITY: Option<Capability>;
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
    const REVISIONS: Revisions;
    /// The capability the sending peer announces for it, if any.
    const CAPABILITY: Option<Capability>;
    /// Its `params`.
    type Params: Serialize;
}

macro_rules! requests {
    ($($(#[$doc:meta])* $name:ident = $method:ident, $revisions:expr, $capability:expr, $params:ty => $result:ty;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug)]
        pub enum $name {}

        impl Request for $name {
            const METHOD: &'static str = $method;
            const REVISIONS: Revisions = $revisions;
            const CAPABILITY: Option<Capability> = $capability;
            type Params = $params;
            type Result = $result;
        }
    )*

        /// Every request's method name, in the table's order.
        pub const REQUEST_METHODS: &[&str] = &[$($method),*];
    };
}

macro_rules! notifications {
    ($($(#[$doc:meta])* $name:ident = $method:ident, $revisions:expr, $capability:expr, $params:ty;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug)]
        pub enum $name {}

        impl Notification for $name {
            const METHOD: &'static str = $method;
            const REVISIONS: Revisions = $revisions;
            const CAPABILITY: Option<Capability> = $capability;
            type Params = $params;
        }
    )*

        /// Every notification's method name, in the table's order.
        pub const NOTIFICATION_METHODS: &[&str] = &[$($method),*];
    };
}

requests! {
    /// `initialize`: opens a session (2024-11-05 to 2025-11-25).
    Initialize = INITIALIZE, Revisions::LEGACY, None, InitializeParams => InitializeResult;
    /// `server/discover`: what a server offers (2026-07-28).
    Discover = DISCOVER, Revisions::MODERN, None, MetaParams<'static> => DiscoverResult;
    /// `ping`: whether the peer is alive; answered with `{}` (2024-11-05
    /// to 2025-11-25: 2026-07-28 removes it).
    Ping = PING, Revisions::LEGACY, None, JsonObject => JsonObject;
    /// `tools/list`: a page of the server's tools.
    ListTools = TOOLS_LIST, Revisions::ALL, Some(Capability::Tools), ListToolsParams<'static> => ListToolsResult;
    /// `tools/call`: runs a tool.
    CallTool = TOOLS_CALL, Revisions::ALL, Some(Capability::Tools), CallToolParams<'static> => CallToolResponse;
    /// `resources/list`: a page of the server's resources at fixed URIs.
    ListResources = RESOURCES_LIST, Revisions::ALL, Some(Capability::Resources), ListResourcesParams<'static> => ListResourcesResult;
    /// `resources/read`: what a URI holds.
    ReadResource = RESOURCES_READ, Revisions::ALL, Some(Capability::Resources), ReadResourceParams<'static> => ReadResourceResult;
    /// `resources/templates/list`: a page of the server's URI templates.
    ListResourceTemplates = RESOURCES_TEMPLATES_LIST, Revisions::ALL, Some(Capability::Resources), ListResourcesParams<'static> => ListResourceTemplatesResult;
    /// `logging/setLevel`: the lowest level of log messages the server
    /// sends (2024-11-05 to 2025-11-25; 2026-07-28 requests carry their
    /// level in `_meta`).
    SetLevel = SET_LEVEL, Revisions::LEGACY, Some(Capability::Logging), SetLevelParams => JsonObject;
    /// `subscriptions/listen`: a stream of the notifications asked for
    /// (2026-07-28); its result closes the stream.
    Listen = SUBSCRIPTIONS_LISTEN, Revisions::MODERN, None, ListenParams<'static> => JsonObject;
    /// `elicitation/create`: the server asks the user (2025-06-18 on: a
    /// server request before 2026-07-28, an input request after).
    Elicit = ELICIT, Revisions::since(ProtocolVersion::V2025_06_18), Some(Capability::Elicitation), ElicitParams => ElicitResult;
    /// `sampling/createMessage`: the server asks the client's model (a
    /// server request before 2026-07-28, an input request after).
    CreateMessage = CREATE_MESSAGE, Revisions::ALL, Some(Capability::Sampling), CreateMessageParams => CreateMessageResult;
    /// `roots/list`: the client's roots (a server request before
    /// 2026-07-28, an input request after).
    ListRoots = ROOTS_LIST, Revisions::ALL, Some(Capability::Roots), JsonObject => ListRootsResult;
    /// `tasks/get`: a task's status and, once done, its result (the Tasks
    /// extension).
    GetTask = TASKS_GET, Revisions::MODERN, Some(Capability::Tasks), TaskIdParams => DetailedTask;
    /// `tasks/update`: answers to a task's questions (the Tasks extension).
    UpdateTask = TASKS_UPDATE, Revisions::MODERN, Some(Capability::Tasks), UpdateTaskParams => JsonObject;
    /// `tasks/cancel`: stops a task (the Tasks extension).
    CancelTask = TASKS_CANCEL, Revisions::MODERN, Some(Capability::Tasks), TaskIdParams => JsonObject;
    /// `completion/complete`: values for a prompt argument or a resource
    /// template variable (the `completions` capability is announced from
    /// 2025-03-26; the method is older).
    Complete = COMPLETION_COMPLETE, Revisions::ALL, Some(Capability::Completions), CompleteParams<'static> => CompleteResult;
    /// `prompts/get`: a prompt's messages, filled in with its arguments.
    GetPrompt = PROMPTS_GET, Revisions::ALL, Some(Capability::Prompts), GetPromptParams<'static> => GetPromptResponse;
    /// `prompts/list`: a page of the server's prompts.
    ListPrompts = PROMPTS_LIST, Revisions::ALL, Some(Capability::Prompts), ListPromptsParams<'static> => ListPromptsResult;
    /// `resources/subscribe`: send `notifications/resources/updated` for a
    /// resource (2024-11-05 to 2025-11-25; 2026-07-28 names resources in
    /// the `subscriptions/listen` filter).
    Subscribe = RESOURCES_SUBSCRIBE, Revisions::LEGACY, Some(Capability::Resources), SubscribeParams<'static> => JsonObject;
    /// `resources/unsubscribe`: stop a `resources/subscribe` (2024-11-05 to
    /// 2025-11-25).
    Unsubscribe = RESOURCES_UNSUBSCRIBE, Revisions::LEGACY, Some(Capability::Resources), SubscribeParams<'static> => JsonObject;
    /// `resources/directory/read`: a directory's direct children (the
    /// Skills extension, with `directoryRead`).
    ReadDirectory = RESOURCES_DIRECTORY_READ, Revisions::ALL, Some(Capability::Skills), ReadDirectoryParams => ReadDirectoryResult;
    /// `skills/get`: one skill's entry (the Skills extension).
    GetSkill = SKILLS_GET, Revisions::ALL, Some(Capability::Skills), GetSkillParams => GetSkillResult;
    /// `skills/list`: a page of the skills a server serves (the Skills
    /// extension).
    ListSkills = SKILLS_LIST, Revisions::ALL, Some(Capability::Skills), ListSkillsParams => ListSkillsResult;
}

notifications! {
    /// `notifications/initialized`: the client's end of the handshake
    /// (2024-11-05 to 2025-11-25).
    Initialized = INITIALIZED, Revisions::LEGACY, None, JsonObject;
    /// `notifications/cancelled`: stop working on a request.
    Cancelled = CANCELLED, Revisions::ALL, None, CancelledParams;
    /// `notifications/progress`: how far a request is.
    Progress = PROGRESS, Revisions::ALL, None, ProgressParams;
    /// `notifications/message`: a log message.
    LoggingMessage = MESSAGE, Revisions::ALL, Some(Capability::Logging), LoggingMessageParams;
    /// `notifications/tools/list_changed`: list the tools again.
    ToolListChanged = TOOLS_LIST_CHANGED, Revisions::ALL, Some(Capability::Tools), JsonObject;
    /// `notifications/subscriptions/acknowledged`: the first message of a
    /// `subscriptions/listen` stream (2026-07-28).
    SubscriptionsAcknowledged = SUBSCRIPTIONS_ACKNOWLEDGED, Revisions::MODERN, None, JsonObject;
    /// `notifications/tasks`: a task's status (the Tasks extension).
    TaskStatusChanged = TASKS_STATUS, Revisions::MODERN, Some(Capability::Tasks), DetailedTask;
    /// `notifications/prompts/list_changed`: list the prompts again.
    PromptListChanged = PROMPTS_LIST_CHANGED, Revisions::ALL, Some(Capability::Prompts), JsonObject;
    /// `notifications/resources/list_changed`: list the resources again.
    ResourceListChanged = RESOURCES_LIST_CHANGED, Revisions::ALL, Some(Capability::Resources), JsonObject;
    /// `notifications/resources/updated`: a subscribed resource changed.
    ResourceUpdated = RESOURCES_UPDATED, Revisions::ALL, Some(Capability::Resources), ResourceUpdatedParams;
}

#[cfg(test)]
mod tests {
    use super::*;
    use ProtocolVersion::*;

    fn revisions<M: Request>() -> Vec<ProtocolVersion> {
        ProtocolVersion::ALL
            .into_iter()
            .filter(|v| M::REVISIONS.include(*v))
            .collect()
    }

    #[test]
    fn each_method_exists_in_the_revisions_the_spec_gives_it() {
        let legacy = [V2024_11_05, V2025_03_26, V2025_06_18, V2025_11_25];
        assert_eq!(revisions::<Ping>(), legacy, "2026-07-28 removes ping");
        assert_eq!(revisions::<SetLevel>(), legacy, "2026-07-28 deprecates it");
        assert_eq!(revisions::<Initialize>(), legacy);
        assert_eq!(revisions::<Discover>(), [V2026_07_28]);
        assert_eq!(revisions::<Listen>(), [V2026_07_28]);
        assert_eq!(revisions::<Subscribe>(), legacy, "listen replaces it");
        assert_eq!(revisions::<Unsubscribe>(), legacy);
        assert!(ResourceUpdated::REVISIONS.include(V2026_07_28));
        assert_eq!(revisions::<GetTask>(), [V2026_07_28]);
        assert_eq!(revisions::<CallTool>(), ProtocolVersion::ALL);
        assert_eq!(revisions::<ListTools>(), ProtocolVersion::ALL);
        assert_eq!(revisions::<ListPrompts>(), ProtocolVersion::ALL);
        assert_eq!(revisions::<GetPrompt>(), ProtocolVersion::ALL);
        assert_eq!(revisions::<Complete>(), ProtocolVersion::ALL);
        assert_eq!(
            revisions::<Elicit>(),
            [V2025_06_18, V2025_11_25, V2026_07_28]
        );
        assert!(!Initialized::REVISIONS.include(V2026_07_28));
        assert!(Progress::REVISIONS.include(V2024_11_05));
    }

    /// The serde tags of the input requests (an attribute takes no
    /// constant) are the table's names: each reads back under its marker's
    /// name and writes it again.
    #[test]
    fn input_request_tags_are_the_tables_names() {
        use super::super::input::InputRequest;
        let params = [
            (
                Elicit::METHOD,
                serde_json::json!({"mode": "form", "message": "m",
                    "requestedSchema": {"type": "object", "properties": {}}}),
            ),
            (
                CreateMessage::METHOD,
                serde_json::json!({"messages": [], "maxTokens": 1}),
            ),
            (ListRoots::METHOD, serde_json::json!(null)),
        ];
        for (method, params) in params {
            let wire = serde_json::json!({"method": method, "params": params});
            let read: InputRequest = serde_json::from_value(wire)
                .unwrap_or_else(|e| panic!("{method} does not read: {e}"));
            let written = serde_json::to_value(&read).unwrap();
            assert_eq!(written["method"], method);
        }
        // The server's writer of them (`mcp-runtime`) is held to the same
        // names by a test of its own.
    }

    #[test]
    fn each_name_is_in_the_table_once() {
        let names: Vec<&str> = REQUEST_METHODS
            .iter()
            .chain(NOTIFICATION_METHODS)
            .copied()
            .collect();
        for (at, name) in names.iter().enumerate() {
            assert!(!names[..at].contains(name), "{name} is listed twice");
        }
        assert_eq!(REQUEST_METHODS.len(), 24);
        assert!(REQUEST_METHODS.contains(&SetLevel::METHOD));
        assert!(NOTIFICATION_METHODS.contains(&SubscriptionsAcknowledged::METHOD));
    }
}
