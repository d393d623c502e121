//! The server's method table: every method the session serves, keyed by
//! the protocol's markers (`mcpfn_protocol::model::method`, where each
//! method's name, revisions and capability are declared once), with how
//! it is run. The router ([`Session::on_request`](super::Session)) finds
//! the entry, checks the revision, and runs it; for a typed method
//! ([`Method`]) it also parses the params, calls the handler and writes
//! the reply, here in [`run`], so a handler only turns params into a
//! result or a [`RpcError`] and is tested without an outbox.
//!
//! Adding a method: its types and marker in `mcp-protocol`
//! (`model::method`), an `impl Method` for the marker in its family's file
//! under `methods/`, and one [`entry`] in [`METHODS`].

use super::era::RequestInfo;
use super::method::{Acknowledge, Method, Respond, Streaming};
use super::methods::tasks::TaskMethod;
use super::{Session, parse_params};
use crate::protocol::ProtocolVersion;
use crate::protocol::RpcError;
use crate::protocol::model::method::{
    self, CallTool, CancelTask, Capability, GetPrompt, GetTask, Request, Revisions, UpdateTask,
};
use crate::protocol::model::{ServerCapabilities, SkillsCapability};
use serde_json::value::RawValue;

/// How the router runs an entry.
#[derive(Clone, Copy)]
pub(super) enum Route {
    /// A [`Method`]: parsed, called and answered by [`run`].
    Typed(fn(&Session, &RawValue, ProtocolVersion, Option<&RawValue>) -> Result<(), RpcError>),
    /// `tools/call`: the specialised entry. It reads the one parse of its
    /// params (`Params`, `_meta` included) and writes its result frame
    /// itself, on the measured fast path (`Reply::call_result`), or later
    /// from the call's task. The router calls `Session::call_tool` directly,
    /// not through a pointer, so the hot path stays what it was.
    Call,
    /// A [`Streaming`] method: parsed, accepted, acknowledged and started
    /// by [`open`]; it then streams until the client cancels it.
    Stream(fn(&Session, &RawValue, RequestInfo, Option<&RawValue>) -> Result<(), RpcError>),
    /// `tasks/*` (Tasks extension): answered from the store, on a task of
    /// its own, once the request's own capabilities allow it.
    Task(TaskMethod),
    /// `resources/read`: found here, read on a task of its own (the fn is
    /// async), answered from it.
    Read,
    /// `prompts/get`: a prompt's body runs as a call does (the one parse
    /// of its params, admission, `input_required` rounds), and its result
    /// frame is written when it ends.
    GetPrompt,
    /// A method whose handler awaits (`completion/complete`, which runs
    /// the author's completer): it parses and checks the params, then
    /// answers from a task of its own.
    Spawned(fn(&Session, &RawValue, ProtocolVersion, Option<&RawValue>) -> Result<(), RpcError>),
}

/// One method of the table.
#[derive(Clone, Copy)]
pub(super) struct Entry {
    pub(super) name: &'static str,
    pub(super) revisions: Revisions,
    /// Whether it is the handshake ([`Method::HANDSHAKE`]).
    pub(super) handshake: bool,
    pub(super) capability: Option<Capability>,
    pub(super) route: Route,
}

impl Entry {
    /// Whether a request served under `version` may call it: in its
    /// revisions, and not the handshake (which the router runs only bare,
    /// ahead of the era rules).
    pub(super) const fn serves(&self, version: ProtocolVersion) -> bool {
        !self.handshake && self.revisions.include(version)
    }
}

/// The entry of marker `M`, run by `route`.
const fn marked<M: Request>(route: Route) -> Entry {
    Entry {
        name: M::METHOD,
        revisions: M::REVISIONS,
        handshake: false,
        capability: M::CAPABILITY,
        route,
    }
}

/// The entry of a typed method.
pub(super) const fn entry<M: Method>() -> Entry {
    Entry {
        handshake: M::HANDSHAKE,
        ..marked::<M>(Route::Typed(run::<M>))
    }
}

/// The entry of a streaming method.
pub(super) const fn stream_entry<M: Streaming>() -> Entry {
    marked::<M>(Route::Stream(open::<M>))
}

/// Every method. `tools/call` first: it is the one a busy server is asked
/// most, and the lookup is a scan.
pub(super) static METHODS: &[Entry] = &[
    marked::<CallTool>(Route::Call),
    entry::<method::ListTools>(),
    entry::<method::Ping>(),
    entry::<method::SetLevel>(),
    entry::<method::Discover>(),
    entry::<method::Initialize>(),
    stream_entry::<method::Listen>(),
    marked::<GetTask>(Route::Task(TaskMethod::Get)),
    marked::<UpdateTask>(Route::Task(TaskMethod::Update)),
    marked::<CancelTask>(Route::Task(TaskMethod::Cancel)),
    entry::<method::ListResources>(),
    entry::<method::ListResourceTemplates>(),
    marked::<method::ReadResource>(Route::Read),
    entry::<method::ListPrompts>(),
    marked::<GetPrompt>(Route::GetPrompt),
    marked::<method::Complete>(Route::Spawned(super::methods::completion::complete)),
    entry::<method::Subscribe>(),
    entry::<method::Unsubscribe>(),
    #[cfg(feature = "skills")]
    entry::<method::ListSkills>(),
    #[cfg(feature = "skills")]
    entry::<method::GetSkill>(),
    #[cfg(feature = "skills")]
    entry::<method::ReadDirectory>(),
];

/// The entry for `method`, if the table has one.
pub(super) fn find(method: &str) -> Option<&'static Entry> {
    METHODS.iter().find(|entry| {
        entry.name == method && (crate::task::ENABLED || !matches!(entry.route, Route::Task(_)))
    })
}

/// Parses, calls, replies: the one place a typed method's frame is made.
fn run<M: Method>(
    session: &Session,
    id: &RawValue,
    version: ProtocolVersion,
    params: Option<&RawValue>,
) -> Result<(), RpcError> {
    let params: M::ParamsRef<'_> = parse_params(params, M::METHOD)?;
    let result = M::handle(session, version, params)?;
    session
        .connection
        .send(result.respond(session.reply(id, version)));
    Ok(())
}

/// Parses, accepts, acknowledges, starts: the one place a stream opens.
fn open<M: Streaming>(
    session: &Session,
    id: &RawValue,
    info: RequestInfo,
    params: Option<&RawValue>,
) -> Result<(), RpcError> {
    let params: M::ParamsRef<'_> = parse_params(params, M::METHOD)?;
    let ack = M::accept(session, id, &info, params)?;
    session.connection.send(ack.acknowledge());
    M::start(session, ack);
    Ok(())
}

/// Whether a server serves `entry` at all: `prompts/*` only when it has
/// prompts, `completion/complete` only when it has something to complete
/// (prompts, or a template variable with a completer), so that what it
/// answers is what it announces (a server without them answers `-32601`,
/// as one that never heard of them).
pub(super) fn offered(entry: &Entry, has_prompts: bool, completes: bool) -> bool {
    match entry.capability {
        Some(Capability::Prompts) => has_prompts,
        Some(Capability::Completions) => completes,
        _ => true,
    }
}

/// What a server holds besides its tools, which decides what it
/// announces: a capability is announced only when the server has
/// something to serve under it.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Holdings {
    /// A tool can run as a task (the Tasks extension).
    pub(super) task_tools: bool,
    /// Resources or templates (`resources`, with subscriptions).
    pub(super) resources: bool,
    /// Prompts (`prompts`).
    pub(super) prompts: bool,
    /// Prompts or a template variable with a completer (`completions`).
    pub(super) completions: bool,
    /// Skills, with the Skills extension's settings.
    pub(super) skills: Option<SkillsCapability>,
    /// A tool that names an MCP App view (the Apps extension).
    pub(super) apps: bool,
}

/// The capabilities a server that holds `holds` announces to a request of
/// `version`: those of the methods that exist in its era, for what it has.
pub(super) fn capabilities(version: ProtocolVersion, holds: Holdings) -> ServerCapabilities {
    let mut capabilities = ServerCapabilities::default();
    let offered = |wanted: Capability| {
        METHODS
            .iter()
            .any(|entry| entry.capability == Some(wanted) && entry.serves(version))
    };
    if offered(Capability::Logging) {
        capabilities = capabilities.with_logging();
    }
    if offered(Capability::Tools) {
        capabilities = capabilities.with_tools(true);
    }
    if holds.task_tools && offered(Capability::Tasks) {
        capabilities = capabilities.with_tasks_extension();
    }
    // Updates and list changes ride on `resources/subscribe` (legacy) or
    // `subscriptions/listen` (2026-07-28): either era serves them.
    if holds.resources && offered(Capability::Resources) {
        capabilities = capabilities.with_resources(true, true);
    }
    if holds.prompts && offered(Capability::Prompts) {
        capabilities = capabilities.with_prompts(true);
    }
    if holds.completions && offered(Capability::Completions) {
        capabilities = capabilities.with_completions();
    }
    if let Some(settings) = holds.skills.filter(|_| offered(Capability::Skills)) {
        capabilities = capabilities.with_skills_extension(settings);
    }
    // MCP Apps is declared where capabilities carry `extensions`
    // (2026-07-28); older hosts find apps by the tools' `_meta.ui`.
    if holds.apps && version.is_modern() {
        capabilities = capabilities.with_apps_extension();
    }
    capabilities
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(capabilities: ServerCapabilities) -> String {
        serde_json::to_string(&capabilities).unwrap()
    }

    #[test]
    fn capabilities_follow_the_methods_of_each_era() {
        // Byte for byte what `initialize` and `server/discover` said when
        // they were written out by hand.
        for version in ProtocolVersion::ALL {
            let expected = if version.is_modern() {
                r#"{"tools":{"listChanged":true}}"#
            } else {
                r#"{"logging":{},"tools":{"listChanged":true}}"#
            };
            assert_eq!(
                text(capabilities(version, Holdings::default())),
                expected,
                "{version}"
            );
            let with_tasks = if version.is_modern() {
                r#"{"tools":{"listChanged":true},"extensions":{"io.modelcontextprotocol/tasks":{}}}"#
            } else {
                expected
            };
            let task_tools = Holdings {
                task_tools: true,
                ..Holdings::default()
            };
            assert_eq!(
                text(capabilities(version, task_tools)),
                with_tasks,
                "{version}"
            );
            let with_all = expected.replace(
                r#""tools":{"listChanged":true}}"#,
                r#""tools":{"listChanged":true},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"completions":{}}"#,
            );
            let all = Holdings {
                resources: true,
                prompts: true,
                completions: true,
                ..Holdings::default()
            };
            assert_eq!(text(capabilities(version, all)), with_all, "{version}");
        }
    }

    #[test]
    fn each_method_is_listed_once_and_found_by_name() {
        for (at, entry) in METHODS.iter().enumerate() {
            assert!(
                METHODS[..at].iter().all(|e| e.name != entry.name),
                "{} is listed twice",
                entry.name
            );
            assert_eq!(find(entry.name).map(|e| e.name), Some(entry.name));
        }
        assert!(find("roots/list").is_none());
        let prompts = find("prompts/list").unwrap();
        assert!(offered(prompts, true, false) && !offered(prompts, false, true));
        let complete = find("completion/complete").unwrap();
        assert!(offered(complete, false, true) && !offered(complete, true, false));
        assert!(offered(find("tools/list").unwrap(), false, false));
        let (legacy, modern) = (ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28);
        let serves = |name: &str| {
            let entry = find(name).unwrap();
            (entry.serves(legacy), entry.serves(modern))
        };
        assert_eq!(serves("ping"), (true, false), "2026-07-28 removes ping");
        assert_eq!(serves("logging/setLevel"), (true, false));
        assert_eq!(serves("server/discover"), (false, true));
        assert_eq!(serves("tools/call"), (true, true));
        // The handshake is served only bare, ahead of the era rules.
        assert_eq!(serves("initialize"), (false, false));
        assert!(find("initialize").unwrap().handshake);
        // The router runs a handshake only through a typed route.
        for entry in METHODS.iter().filter(|e| e.handshake) {
            assert!(matches!(entry.route, Route::Typed(_)), "{}", entry.name);
        }
        // Every method the server serves is in the protocol's table.
        for entry in METHODS {
            assert!(
                method::REQUEST_METHODS.contains(&entry.name),
                "{}",
                entry.name
            );
        }
    }
}
