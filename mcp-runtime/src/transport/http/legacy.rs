//! Legacy Streamable HTTP (2025-03-26 … 2025-11-25): `initialize` mints an
//! `Mcp-Session-Id`; later POSTs carry it. Each POST is answered on its own
//! stream by a connection forked from the session's (same era, client and
//! log level; unique ids for requests to the client), so a call's
//! notifications and `elicitation/create` go to that call's stream; the
//! client's answer is its own POST, routed to the call waiting for it. GET
//! opens the session's push stream (list changes, and the updates of the
//! resources the session subscribed to: `notifications/resources/updated`);
//! DELETE ends the session.
//!
//! With authorization, a session belongs to the subject (and issuer) whose
//! token opened it: a request on it with another subject's token gets the
//! `404` of an unknown session, so an id seen in a log or a proxy cannot be
//! used by anyone else, and the session's existence is not revealed. Each
//! request's own (possibly refreshed) token is the principal its calls see.
//!
//! Bounds: at most `Server::max_legacy_sessions` sessions per process and
//! `Server::max_legacy_sessions_per_client` per client (the least recently
//! used session makes room: see [`Sessions::make_room`]), each forgotten
//! after [`SESSION_IDLE`](super::sessions::SESSION_IDLE) without a request (unless its push stream is
//! open); a session holds its handshake and the connections of its
//! requests in flight, and the streams its calls closed for the client to
//! resume.
//!
//! SSE polling (SEP-1699): the events of a POST's stream carry ids, and a
//! call may close its stream early (`Context::close_sse_stream`); a GET
//! with `Last-Event-ID` resumes such a stream (`resume.rs`). A GET without
//! it opens the push stream.

use super::headers;
use super::respond::{respond, watch_changes_until};
use super::resume::{NotResumed, ParkedStreams, Resumable};
use super::sessions::{LegacySession, PushGuard, Sessions, find, session_id};
use super::sse::HttpBody;
use super::status;
use super::{Caller, refuse};
use crate::auth::Gate;
use crate::conn::connection::Connection;
use crate::conn::lifecycle::Lifecycle;
use crate::conn::outbox;
use crate::conn::stream_close::StreamClose;
use crate::principal::Principal;
use crate::protocol::ProtocolVersion;
use crate::protocol::incoming::{Incoming, Rejection};
use crate::protocol::model::method;
use crate::session::Session;
use crate::session::forks::Forks;
use crate::shared::Shared;
use crate::util::lock;
use hyper::header::{HeaderMap, HeaderValue};
use hyper::{Response, StatusCode};

use std::sync::{Arc, Mutex};
use std::time::Instant;
use tokio::sync::watch;

/// Whether a POST belongs to the legacy era (DIGEST §3.3): a request
/// without the 2026-07-28 envelope that is an `initialize`, names a session,
/// or whose `MCP-Protocol-Version` is absent or a legacy version; a
/// notification or response that names a session.
///
/// The envelope decides first, `initialize` included: an enveloped
/// `initialize` is a 2026-07-28 request for a method that era removed, so
/// the modern ladder answers it (`404` + `-32601`). A legacy handshake never
/// carries the envelope, whatever its `MCP-Protocol-Version` header says
/// (clients may keep a header from an earlier probe), so it still opens a
/// session.
pub(super) fn claims(headers: &HeaderMap, message: &Result<Incoming<'_>, Rejection<'_>>) -> bool {
    let in_session = headers.contains_key(headers::SESSION_ID);
    let Ok(Incoming::Request { method, params, .. }) = message else {
        // Notifications, responses and bad bodies belong to a session when
        // they name one.
        return in_session;
    };
    if params.envelope_version().is_some() {
        // A 2026-07-28 request ignores any Mcp-Session-Id.
        return false;
    }
    if method == method::INITIALIZE {
        return true;
    }
    if in_session {
        return true;
    }
    match headers.get(headers::PROTOCOL_VERSION) {
        None => true,
        Some(v) => v
            .to_str()
            .ok()
            .and_then(ProtocolVersion::parse)
            .is_some_and(|v| !v.is_modern()),
    }
}

/// A legacy POST.
pub(super) async fn post(
    shared: &Arc<Shared>,
    stop: &watch::Receiver<bool>,
    sessions: &Sessions,
    headers: &HeaderMap,
    message: Result<Incoming<'_>, Rejection<'_>>,
    caller: Caller,
    gate: Option<&Gate>,
) -> Response<HttpBody> {
    if let Ok(Incoming::Request { method, .. }) = &message
        && method == method::INITIALIZE
    {
        if headers.contains_key(headers::SESSION_ID) {
            return refuse(
                StatusCode::BAD_REQUEST,
                "Bad Request: 'initialize' opens a new session; send it without Mcp-Session-Id",
            );
        }
        return initialize(shared, stop, sessions, message, caller, gate).await;
    }
    let session = match find(sessions, headers, caller.principal.as_ref()) {
        Ok(session) => session,
        Err(response) => return *response,
    };
    if let Some(refusal) = check_version(&session, headers) {
        return refusal;
    }
    match message {
        // The client's answers to our requests and its cancellations: the
        // session takes them, as on stdio, across the connections of this
        // session's requests in flight.
        message @ Ok(Incoming::Notification { .. } | Incoming::Response { .. }) => {
            Session::new(Arc::clone(shared), Arc::clone(&session.template))
                .across(Arc::clone(&session.forks))
                .handle(message);
            accepted()
        }
        message @ (Ok(Incoming::Request { .. }) | Err(_)) => {
            let (out, frames) = outbox::channel(shared.max_sse_unwritten);
            let trace = headers::trace_context(headers);
            let close = Arc::new(StreamClose::default());
            let connection = Arc::new(
                caller.on(session
                    .template
                    .fork(out)
                    .with_trace(trace)
                    .with_stream_close(Arc::clone(&close))),
            );
            session.forks.add(&connection);
            // A message the one parse refused (its params included) is a
            // bad request on HTTP, in either era.
            let status_of = if message.is_err() {
                status::refused
            } else {
                status::legacy
            };
            // `logging/setLevel` changes the session, not just this request:
            // the fork shares the template's log level.
            let response =
                respond(shared, stop, connection, frames, message, status_of, gate).await;
            if !response.body().is_stream() {
                return response;
            }
            response.map(|body| body.resumable(Resumable::new(close, Arc::clone(&session.parked))))
        }
    }
}

/// `initialize`: a fresh connection answers it; once it is a legacy
/// session, it gets an id.
async fn initialize(
    shared: &Arc<Shared>,
    stop: &watch::Receiver<bool>,
    sessions: &Sessions,
    message: Result<Incoming<'_>, Rejection<'_>>,
    caller: Caller,
    gate: Option<&Gate>,
) -> Response<HttpBody> {
    let client = caller.client.clone();
    if let Err(refusal) = sessions.make_room(client.as_deref()) {
        return *refusal;
    }
    let (out, frames) = outbox::channel(shared.max_sse_unwritten);
    let connection = Arc::new(caller.on(Connection::new(out)));
    let handshake = Arc::clone(&connection);
    let mut response = respond(
        shared,
        stop,
        connection,
        frames,
        message,
        status::legacy,
        gate,
    )
    .await;
    if !matches!(handshake.lifecycle(), Lifecycle::Legacy { .. }) {
        return response;
    }
    let id = session_id(sessions.tag.as_deref());
    let Ok(value) = HeaderValue::from_str(&id) else {
        return response;
    };
    // The handshake's connection is the session's template from now on.
    let (out, _) = outbox::channel(shared.max_sse_unwritten);
    let template = Arc::new(handshake.fork(out));
    // Made again: other handshakes may have filled the table meanwhile.
    if let Err(refusal) = sessions.make_room(client.as_deref()) {
        return *refusal;
    }
    lock(&sessions.map).insert(
        id,
        Arc::new(LegacySession {
            template,
            forks: Arc::new(Forks::default()),
            push: Mutex::new(None),
            used: Mutex::new(Instant::now()),
            owner: caller.principal,
            client,
            parked: Arc::new(ParkedStreams::default()),
        }),
    );
    response.headers_mut().insert(headers::SESSION_ID, value);
    response
}

/// GET: the session's push stream (one at a time; a second gets `409`),
/// or, with `Last-Event-ID`, a stream a call closed, resumed.
pub(super) fn get(
    shared: &Arc<Shared>,
    sessions: &Arc<Sessions>,
    headers: &HeaderMap,
    caller: Caller,
) -> Response<HttpBody> {
    let session = match find(sessions, headers, caller.principal.as_ref()) {
        Ok(session) => session,
        Err(response) => return *response,
    };
    if let Some(refusal) = check_version(&session, headers) {
        return refusal;
    }
    if let Some(last) = headers.get(headers::LAST_EVENT_ID) {
        return resume(&session, last);
    }
    let (out, frames) = outbox::channel(shared.max_sse_unwritten);
    let connection = Arc::new(caller.on(session.template.fork(out)));
    {
        let mut push = lock(&session.push);
        if push.is_some() {
            return refuse(
                StatusCode::CONFLICT,
                "Conflict: this session's GET stream is already open",
            );
        }
        *push = Some(Arc::clone(&connection));
    }
    // The push stream is ended by `Sessions::close_streams` at shutdown.
    tokio::spawn(watch_changes_until(
        shared.notifier.subscribe(),
        Arc::downgrade(&connection),
        None,
    ));
    let weak = Arc::downgrade(&connection);
    drop(connection);
    let guard = PushGuard(Arc::downgrade(&session));
    super::sse::event_stream(HttpBody::stream(
        None,
        frames,
        weak,
        false,
        Some(Box::new(guard)),
    ))
}

/// A GET with `Last-Event-ID`: the closed stream it names, from the events
/// after it; `400` when the session holds no such stream or no longer the
/// events after that id.
fn resume(session: &LegacySession, last: &HeaderValue) -> Response<HttpBody> {
    let resumed = last
        .to_str()
        .map_err(|_| NotResumed::Unknown)
        .and_then(|last| session.parked.resume(last));
    match resumed {
        Ok((parked, missed)) => super::sse::event_stream(HttpBody::resumed(parked, missed)),
        Err(NotResumed::Unknown) => refuse(
            StatusCode::BAD_REQUEST,
            "Bad Request: Last-Event-ID names no stream of this session to resume (unknown, resumed already, or dropped); call again",
        ),
        Err(NotResumed::Lost) => refuse(
            StatusCode::BAD_REQUEST,
            "Bad Request: the events after this Last-Event-ID are no longer held, so the stream cannot be resumed; call again",
        ),
    }
}

/// DELETE: ends the session; its calls in flight are cancelled.
pub(super) fn delete(
    sessions: &Sessions,
    headers: &HeaderMap,
    principal: Option<&Arc<Principal>>,
) -> Response<HttpBody> {
    let session = match find(sessions, headers, principal) {
        Ok(session) => session,
        Err(response) => return *response,
    };
    lock(&sessions.map).retain(|_, s| !Arc::ptr_eq(s, &session));
    session.end();
    let mut response = Response::new(HttpBody::empty());
    *response.status_mut() = StatusCode::NO_CONTENT;
    response
}

/// `MCP-Protocol-Version`, when sent, must name a legacy version this
/// server supports. Not necessarily the negotiated one: the 2025-11-25
/// transport refuses only "an invalid or unsupported" version (`400`), and
/// clients do send another supported one (the official conformance suite's
/// `server-sse-multiple-streams` sends `2025-03-26` on a 2025-11-25
/// session). A 2026-07-28 version is refused: such a request without the
/// envelope is neither era's.
fn check_version(session: &LegacySession, headers: &HeaderMap) -> Option<Response<HttpBody>> {
    let sent = headers.get(headers::PROTOCOL_VERSION)?;
    let Lifecycle::Legacy { version } = session.template.lifecycle() else {
        return None;
    };
    let supported = sent
        .to_str()
        .ok()
        .and_then(ProtocolVersion::parse)
        .is_some_and(|v| !v.is_modern());
    if supported {
        return None;
    }
    Some(refuse(
        StatusCode::BAD_REQUEST,
        &format!(
            "Bad Request: MCP-Protocol-Version must name a version of the initialize era this server supports ({} was negotiated)",
            version.as_str()
        ),
    ))
}

fn accepted() -> Response<HttpBody> {
    let mut response = Response::new(HttpBody::empty());
    *response.status_mut() = StatusCode::ACCEPTED;
    response
}
