//! Requests this server sends the client on a connection (legacy
//! elicitation, sampling, roots): sending one, delivering its reply,
//! withdrawing it when it is dropped unanswered, and failing all of them
//! when input ends.

use super::Connection;
use crate::protocol::outgoing::{self, InputRequestRef};
use crate::util::lock;
use serde_json::Value;
use serde_json::value::RawValue;
use std::sync::atomic::Ordering;
use tokio::sync::oneshot;

/// The client's reply to a request this server sent.
pub(crate) type ClientReply = Result<Value, Value>;

/// A request of ours waiting for the client's reply (legacy elicitation).
/// Dropped before the reply came (a timeout, a cancelled or finished call),
/// it is withdrawn: the table of waiting requests never keeps it.
#[derive(Debug)]
pub(crate) struct ClientRequest<'a> {
    connection: &'a Connection,
    id: String,
    reply: oneshot::Receiver<ClientReply>,
}

impl ClientRequest<'_> {
    /// The client's reply; `Err` when none can come (input ended).
    pub(crate) async fn reply(&mut self) -> Result<ClientReply, oneshot::error::RecvError> {
        (&mut self.reply).await
    }
}

impl Drop for ClientRequest<'_> {
    fn drop(&mut self) {
        self.connection.withdraw_request(&self.id);
    }
}

impl Connection {
    /// Fails every request of ours waiting for the client, and any made
    /// from now on: input has ended, no answer can come.
    pub(crate) fn fail_server_requests(&self) {
        self.client_gone.store(true, Ordering::SeqCst);
        lock(&self.server_requests).clear();
    }

    /// Sends a request to the client (`elicitation/create`,
    /// `sampling/createMessage`); the reply comes through
    /// the returned [`ClientRequest`], which withdraws the request when it is
    /// dropped unanswered.
    pub(crate) fn request_client(&self, question: &InputRequestRef<'_>) -> ClientRequest<'_> {
        let n = self
            .forked
            .next_server_request
            .fetch_add(1, Ordering::Relaxed);
        let id = format!("\"mcp-server-{n}\"");
        let (tx, reply) = oneshot::channel();
        let request = ClientRequest {
            connection: self,
            id,
            reply,
        };
        {
            let mut waiting = lock(&self.server_requests);
            // Checked under the lock, so a request cannot slip in after the
            // table was cleared at the end of input; dropping `tx` fails it.
            if self.client_gone.load(Ordering::SeqCst) {
                return request;
            }
            waiting.insert(request.id.clone(), tx);
        }
        if let Ok(id) = RawValue::from_string(request.id.clone()) {
            self.send(outgoing::client_request(&id, question));
        }
        request
    }

    /// Forgets request `id` of ours if it is still unanswered, so a late
    /// reply reaches nothing, and tells the client to stop asking the user
    /// (`notifications/cancelled`), unless the client is gone.
    fn withdraw_request(&self, id: &str) {
        if lock(&self.server_requests).remove(id).is_none()
            || self.client_gone.load(Ordering::SeqCst)
        {
            return;
        }
        if let Ok(id) = RawValue::from_string(id.to_owned()) {
            self.send(outgoing::cancelled(
                &id,
                "the server no longer needs the answer",
            ));
        }
    }

    /// Delivers the client's reply to a request of ours; `false` if no such
    /// request is waiting.
    pub(crate) fn deliver_reply(&self, id: &str, reply: ClientReply) -> bool {
        match lock(&self.server_requests).remove(id) {
            Some(waiting) => {
                let _ = waiting.send(reply);
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::frame::Frame;
    use serde_json::json;

    #[test]
    fn an_unanswered_request_is_withdrawn_when_dropped() {
        let (tx, mut rx) = crate::conn::outbox::channel(usize::MAX);
        let conn = Connection::new(tx);
        let schema = json!({});
        let form = InputRequestRef::Elicit(outgoing::ElicitForm::new(
            "q",
            &schema,
            crate::ProtocolVersion::V2025_11_25,
        ));
        let request = conn.request_client(&form);
        let id = request.id.clone();
        assert!(rx.try_recv().is_some(), "the request went out");
        drop(request);
        let Some(withdrawn) = rx.try_recv().map(Frame::into_bytes) else {
            panic!("no notifications/cancelled");
        };
        let withdrawn: Value = serde_json::from_slice(&withdrawn).unwrap();
        assert_eq!(withdrawn["method"], "notifications/cancelled");
        assert_eq!(withdrawn["params"]["requestId"].to_string(), id);
        assert!(
            !conn.deliver_reply(&id, Ok(json!({}))),
            "a late reply reaches nothing"
        );
        // Answered: nothing to withdraw.
        let mut answered = conn.request_client(&form);
        let _ = rx.try_recv();
        assert!(conn.deliver_reply(&answered.id.clone(), Ok(json!({"action": "cancel"}))));
        let reply = futures_now(answered.reply());
        assert_eq!(reply, Some(Ok(Ok(json!({"action": "cancel"})))));
        drop(answered);
        assert!(
            rx.try_recv().is_none(),
            "nothing sent for an answered request"
        );
    }

    /// Polls a future once.
    fn futures_now<F: std::future::Future>(future: F) -> Option<F::Output> {
        let mut future = std::pin::pin!(future);
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        match future.as_mut().poll(&mut cx) {
            std::task::Poll::Ready(output) => Some(output),
            std::task::Poll::Pending => None,
        }
    }
}
