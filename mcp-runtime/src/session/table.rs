//! The method table: every method the session serves, with the eras it
//! exists in, the capability its family implies (both declared with the
//! method, [`super::method`]), and how it is run. The
//! router ([`Session::on_request`](super::Session)) finds the entry, checks
//! the era, and runs it; for a typed method ([`Method`]) it also parses the
//! params, calls the handler and writes the reply, here in [`run`], so a
//! handler only turns params into a result or a [`RpcError`] and is tested
//! without an outbox.
//!
//! Adding a method: its params type in `mcp-protocol`
//! (`incoming::requests`), an `impl Method` in its family's file under
//! `methods/`, and one [`entry`] in [`METHODS`] (and a result type, in
//! `mcp-protocol`'s `outgoing`, only for a shape no `Reply` method writes
//! yet).

use super::era::RequestInfo;
use super::method::{Acknowledge, Capability, Eras, Method, Respond, Streaming};
use super::methods::tasks::TaskMethod;
use super::methods::{lifecycle, listen, logging, tools};
use super::{Session, parse_params};
use crate::protocol::ProtocolVersion;
use crate::protocol::RpcError;
use crate::protocol::model::ServerCapabilities;
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
}

/// One method of the table.
#[derive(Clone, Copy)]
pub(super) struct Entry {
    pub(super) name: &'static str,
    pub(super) eras: Eras,
    pub(super) capability: Option<Capability>,
    pub(super) route: Route,
}

/// The entry of a typed method.
pub(super) const fn entry<M: Method>() -> Entry {
    Entry {
        name: M::NAME,
        eras: M::ERAS,
        capability: M::CAPABILITY,
        route: Route::Typed(run::<M>),
    }
}

/// The entry of a streaming method.
pub(super) const fn stream_entry<M: Streaming>() -> Entry {
    Entry {
        name: M::NAME,
        eras: M::ERAS,
        capability: M::CAPABILITY,
        route: Route::Stream(open::<M>),
    }
}

/// Every method. `tools/call` first: it is the one a busy server is asked
/// most, and the lookup is a scan.
pub(super) static METHODS: &[Entry] = &[
    Entry {
        name: "tools/call",
        eras: Eras::Both,
        capability: Some(Capability::Tools),
        route: Route::Call,
    },
    entry::<tools::ListTools>(),
    entry::<lifecycle::Ping>(),
    entry::<logging::SetLevel>(),
    entry::<lifecycle::Discover>(),
    entry::<lifecycle::Initialize>(),
    stream_entry::<listen::Listen>(),
    task_entry(TaskMethod::Get),
    task_entry(TaskMethod::Update),
    task_entry(TaskMethod::Cancel),
];

/// The entry of a `tasks/*` method: 2026-07-28 only (a legacy session has
/// no such method: `-32601`).
const fn task_entry(method: TaskMethod) -> Entry {
    Entry {
        name: method.name(),
        eras: Eras::Modern,
        capability: Some(Capability::Tasks),
        route: Route::Task(method),
    }
}

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
    let params: M::Params<'_> = parse_params(params, M::NAME)?;
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
    let params: M::Params<'_> = parse_params(params, M::NAME)?;
    let ack = M::accept(session, id, &info, params)?;
    session.connection.send(ack.acknowledge());
    M::start(session, ack);
    Ok(())
}

/// The capabilities a server announces to a request of `version`: those of
/// the methods that exist in its era (the Tasks extension only when a tool
/// can run as a task: `has_task_tools`).
pub(super) fn capabilities(version: ProtocolVersion, has_task_tools: bool) -> ServerCapabilities {
    let mut capabilities = ServerCapabilities::default();
    let offered = |wanted: Capability| {
        METHODS
            .iter()
            .any(|entry| entry.capability == Some(wanted) && entry.eras.include(version))
    };
    if offered(Capability::Logging) {
        capabilities = capabilities.with_logging();
    }
    if offered(Capability::Tools) {
        capabilities = capabilities.with_tools(true);
    }
    if has_task_tools && offered(Capability::Tasks) {
        capabilities = capabilities.with_tasks_extension();
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
            assert_eq!(text(capabilities(version, false)), expected, "{version}");
            let with_tasks = if version.is_modern() {
                r#"{"tools":{"listChanged":true},"extensions":{"io.modelcontextprotocol/tasks":{}}}"#
            } else {
                expected
            };
            assert_eq!(text(capabilities(version, true)), with_tasks, "{version}");
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
        assert!(find("resources/list").is_none());
        assert_eq!(find("ping").map(|e| e.eras), Some(Eras::Legacy));
        assert_eq!(find("initialize").map(|e| e.eras), Some(Eras::Handshake));
        // The router runs a handshake only through a typed route.
        for entry in METHODS.iter().filter(|e| e.eras == Eras::Handshake) {
            assert!(matches!(entry.route, Route::Typed(_)), "{}", entry.name);
        }
        assert_eq!(find("server/discover").map(|e| e.eras), Some(Eras::Modern));
    }
}
