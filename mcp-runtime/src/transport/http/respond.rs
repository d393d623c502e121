//! HTTP's seam with the session, the per-POST responder: one message in, a
//! session on a connection of the request's own, and the frames it sends
//! out as the response until the response is complete.
//!
//! Not an adapter of the driver (`transport/driver.rs`), deliberately. The
//! driver owns a long-lived connection's policy: when to read more input
//! and when to write, the back-pressure between the two, the drain with
//! cancel-ahead, the client going away. A POST has none of that to decide.
//! Its one message was read (and checked, by the validation ladder) before
//! a session exists, so there is no reading to order or hold back; hyper
//! pulls the body (`sse.rs`) only while the socket takes it, which is the
//! back-pressure; the drain is the server's, not a connection's
//! (`listener.rs`: no new requests, responses in flight finish); the client
//! going away is the body being dropped (`CancelOnDrop`). And the response
//! head depends on the first frame (JSON or SSE, its status, a `403`
//! challenge read from the connection right after the session took the
//! message), which a push loop could not give back. Driving a POST through
//! the driver would add a task and a channel per request for policies that
//! do not apply, so the seam is this function: `Session::handle`, the
//! outbox's `Frames`, and the body that drains them.

use super::cancel::CancelOnDrop;
use super::sse::{HttpBody, event_stream};
use super::{json_response, with_challenge};
use crate::auth::Gate;
use crate::changes::Change;
use crate::conn::connection::Connection;
use crate::conn::outbox::Frames;
use crate::protocol::frame::{Frame, FrameKind};
use crate::protocol::incoming::{Incoming, Rejection};
use crate::session::{Session, close_subscriptions, watch_changes};
use crate::shared::Shared;
use hyper::{Response, StatusCode};
use std::sync::Arc;
use std::task::Poll;
use tokio::sync::{broadcast, watch};

/// Hands `message` to a session on `connection` (which only this request
/// uses) and answers with what it sends on `frames`: JSON when the first
/// frame is the response, else an SSE stream until the response (for a
/// `subscriptions/listen`, the final one sent when the server stops). The
/// client closing the connection first cancels the request's calls.
pub(super) async fn respond(
    shared: &Arc<Shared>,
    stop: &watch::Receiver<bool>,
    connection: Arc<Connection>,
    mut frames: Frames,
    message: Result<Incoming<'_>, Rejection<'_>>,
    status_of: fn(FrameKind) -> StatusCode,
    gate: Option<&Gate>,
) -> Response<HttpBody> {
    // Dropped with this future (the client went away) or moved into the
    // stream body.
    let cancel = CancelOnDrop(Arc::downgrade(&connection));
    Session::new(Arc::clone(shared), Arc::clone(&connection)).handle(message);
    // The session refused the call for the caller's scopes (it decides, on
    // the tool it resolved): HTTP's part is the status and the challenge.
    // The body is the session's error response (sent before `handle`
    // returned), which names the request's id.
    if let (Some(gate), Some(denial)) = (gate, connection.scope_denial()) {
        let challenge = gate.insufficient_scope(&denial.tool, &denial.scopes);
        let body = frames.try_recv().map(Frame::into_bytes).unwrap_or_default();
        return with_challenge(json_response(challenge.status, body), challenge);
    }
    let listening = !connection.subscriptions().is_empty();
    let close = connection.stream_close().cloned();
    let keep: Option<Box<dyn std::any::Any + Send + Sync>> = if listening {
        // The subscription lives as long as its stream, which ends with
        // its final response when the server stops.
        tokio::spawn(watch_changes_until(
            shared.notifier.subscribe(),
            Arc::downgrade(&connection),
            Some(stop.clone()),
        ));
        Some(Box::new(connection))
    } else {
        drop(connection);
        None
    };
    // The first frame decides the head; a call that asks to close its
    // stream before sending anything gets a stream, which it closes.
    let first = std::future::poll_fn(|cx| {
        if let Poll::Ready(frame) = frames.poll_recv(cx) {
            return Poll::Ready(frame.map(Some));
        }
        match &close {
            Some(close) => close.poll_requested(cx).map(|()| Some(None)),
            None => Poll::Pending,
        }
    })
    .await;
    let Some(first) = first else {
        // A request always gets an answer; a call cancelled under us has none.
        let mut response = Response::new(HttpBody::empty());
        *response.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
        return response;
    };
    match first {
        Some(first) if first.kind() != FrameKind::Message => {
            json_response(status_of(first.kind()), first.into_bytes())
        }
        first => event_stream(HttpBody::stream(first, frames, cancel.disarm(), true, keep)),
    }
}

/// Tells `connection` about changes while it exists ([`watch_changes`]);
/// when `stop` says so, gives its subscriptions their final responses.
pub(super) async fn watch_changes_until(
    changes: broadcast::Receiver<Change>,
    connection: std::sync::Weak<Connection>,
    stop: Option<watch::Receiver<bool>>,
) {
    let stopping = async {
        match stop {
            Some(mut stop) => {
                let _ = stop.wait_for(|stop| *stop).await;
            }
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        () = watch_changes(changes, connection.clone()) => {}
        () = stopping => {
            if let Some(connection) = connection.upgrade() {
                close_subscriptions(&connection);
            }
        }
    }
}
