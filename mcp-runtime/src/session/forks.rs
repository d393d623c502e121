//! One conversation spread over several connections: a legacy Streamable
//! HTTP session answers each POST on a fork of its handshake's connection
//! (`Connection::fork`), so a call, and the requests it makes to the client,
//! live on the fork of the POST that started it. The client's answers and
//! cancellations arrive on POSTs of their own; a [`Session`](super::Session)
//! made [`across`](super::Session::across) the forks takes them as it takes
//! them on stdio, over all of them.

use crate::conn::connection::Connection;
use crate::util::lock;
use std::sync::{Arc, Mutex, Weak};

/// The connections of one conversation's requests in flight.
#[derive(Debug, Default)]
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) struct Forks(Mutex<Vec<Weak<Connection>>>);

#[cfg_attr(not(feature = "http"), allow(dead_code))]
impl Forks {
    /// Adds `connection` while it lives; those that ended are forgotten
    /// here, so the list stays as long as the requests in flight.
    pub(crate) fn add(&self, connection: &Arc<Connection>) {
        let mut forks = lock(&self.0);
        forks.retain(|c| c.strong_count() > 0);
        forks.push(Arc::downgrade(connection));
    }

    /// The connections still live.
    pub(crate) fn live(&self) -> Vec<Arc<Connection>> {
        let mut forks = lock(&self.0);
        forks.retain(|c| c.strong_count() > 0);
        forks.iter().filter_map(Weak::upgrade).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::Forks;
    use crate::Server;
    use crate::conn::connection::{CancelSignal, Connection};
    use crate::conn::outbox;
    use crate::protocol::incoming::parse;
    use crate::protocol::outgoing::{ElicitForm, InputRequestRef};
    use serde_json::{Value, json};
    use std::sync::Arc;

    /// Polls a future once.
    fn now<F: std::future::Future>(future: F) -> Option<F::Output> {
        let mut future = std::pin::pin!(future);
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        match future.as_mut().poll(&mut cx) {
            std::task::Poll::Ready(output) => Some(output),
            std::task::Poll::Pending => None,
        }
    }

    #[test]
    fn replies_and_cancellations_reach_the_fork_that_waits_for_them() {
        let forks = Arc::new(Forks::default());
        let (out, _idle) = outbox::channel(usize::MAX);
        let calling = Arc::new(Connection::new(out));
        let (out, mut asked) = outbox::channel(usize::MAX);
        let asking = Arc::new(Connection::new(out));
        forks.add(&calling);
        forks.add(&asking);
        let call = CancelSignal::default();
        calling.track_call(&Arc::from("7"), &call);
        let schema = json!({});
        let form = InputRequestRef::Elicit(ElicitForm::new(
            "q",
            &schema,
            crate::ProtocolVersion::V2025_11_25,
        ));
        let mut question = asking.request_client(&form);
        let Some(sent) = asked.try_recv() else {
            panic!("the request went out");
        };
        let sent: Value = serde_json::from_slice(&sent.into_bytes()).unwrap();
        let reply = json!({"jsonrpc": "2.0", "id": sent["id"], "result": {"action": "decline"}})
            .to_string();
        let cancel =
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}"#;

        // A session on another connection alone reaches neither.
        let (mut alone, _) = super::super::test_session(Server::new("t", "1"));
        alone.handle(parse(reply.as_bytes()));
        alone.handle(parse(cancel.as_bytes()));
        assert_eq!(now(question.reply()), None, "answered without the forks");
        assert!(!call.is_cancelled());

        // Across the forks, each reaches the one it names.
        let (session, _) = super::super::test_session(Server::new("t", "1"));
        let mut session = session.across(Arc::clone(&forks));
        session.handle(parse(reply.as_bytes()));
        assert_eq!(
            now(question.reply()),
            Some(Ok(Ok(json!({"action": "decline"})))),
        );
        session.handle(parse(cancel.as_bytes()));
        assert!(call.is_cancelled());
        assert!(!calling.finish_call("7"), "the call was forgotten");

        // Ended requests are forgotten.
        drop(question);
        drop(asking);
        assert_eq!(forks.live().len(), 1);
    }
}
