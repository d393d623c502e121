//! `resources/subscribe` and `resources/unsubscribe` (2024-11-05 to
//! 2025-11-25): the resources whose `notifications/resources/updated` a
//! legacy session gets, on stdio or on its HTTP GET stream
//! (`listen::deliver`). Keyed by URI as the client sends it: whether the
//! URI names a resource is not checked (an update comes only if the server
//! tells one, through its `Notifier`).

use crate::conn::watched::{Full, MAX_URI_BYTES};
use crate::protocol::ProtocolVersion;
use crate::protocol::RpcError;
use crate::protocol::model::SubscribeParams;
use crate::protocol::model::method::{Subscribe, Unsubscribe};
use crate::session::Session;
use crate::session::method::Method;
use crate::session::methods::lifecycle::Empty;

/// The longest resource URI a client may subscribe to: 8 KiB (a session
/// holds up to `Server::max_resource_subscriptions` of them).
pub(crate) const MAX_URI_LEN: usize = 8 << 10;

/// Refuses a URI longer than [`MAX_URI_LEN`] (`-32602`).
pub(in crate::session) fn check_uri(uri: &str) -> Result<(), RpcError> {
    if uri.len() > MAX_URI_LEN {
        return Err(RpcError::invalid_params(format!(
            "Invalid params: a resource URI of {} bytes is longer than this server takes \
             ({MAX_URI_LEN} bytes)",
            uri.len()
        )));
    }
    Ok(())
}

/// `resources/subscribe`: the session gets the resource's updates from
/// now on; answered `{}`.
impl Method for Subscribe {
    type ParamsRef<'p> = SubscribeParams<'p>;
    type Answer<'s> = Empty;

    fn handle(
        session: &Session,
        _: ProtocolVersion,
        params: SubscribeParams<'_>,
    ) -> Result<Empty, RpcError> {
        check_uri(&params.uri)?;
        let max = session.shared.max_resource_subscriptions;
        session
            .connection
            .watched()
            .add(&params.uri, max)
            .map_err(|full| match full {
                Full::Count(held) => RpcError::invalid_params(format!(
                    "Invalid params: this session is subscribed to {held} resources, the most \
                     this server allows; unsubscribe from one first"
                )),
                Full::Bytes => RpcError::invalid_params(format!(
                    "Invalid params: this session's subscribed URIs would take more than \
                     {MAX_URI_BYTES} bytes, the most this server allows; unsubscribe from some first"
                )),
            })?;
        Ok(Empty)
    }
}

/// `resources/unsubscribe`: no more updates of the resource; answered
/// `{}`, also when the session was not subscribed to it.
impl Method for Unsubscribe {
    type ParamsRef<'p> = SubscribeParams<'p>;
    type Answer<'s> = Empty;

    fn handle(
        session: &Session,
        _: ProtocolVersion,
        params: SubscribeParams<'_>,
    ) -> Result<Empty, RpcError> {
        session.connection.watched().remove(&params.uri);
        Ok(Empty)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ErrorCode;
    use crate::server::Server;
    use crate::session::test_session;
    use std::borrow::Cow;

    fn uri(uri: &str) -> SubscribeParams<'_> {
        SubscribeParams {
            uri: Cow::Borrowed(uri),
        }
    }

    #[test]
    fn subscriptions_are_the_sessions_and_capped() {
        let (session, mut frames) =
            test_session(Server::new("t", "0").max_resource_subscriptions(2));
        let v = ProtocolVersion::V2025_11_25;
        assert_eq!(Subscribe::handle(&session, v, uri("test://a")), Ok(Empty));
        assert_eq!(
            Subscribe::handle(&session, v, uri("test://a")),
            Ok(Empty),
            "again"
        );
        assert_eq!(Subscribe::handle(&session, v, uri("test://b")), Ok(Empty));
        let full = Subscribe::handle(&session, v, uri("test://c")).expect_err("past the cap");
        assert_eq!(full.error_code(), ErrorCode::INVALID_PARAMS);
        assert_eq!(
            full.message,
            "Invalid params: this session is subscribed to 2 resources, the most this server \
             allows; unsubscribe from one first"
        );
        assert!(session.connection.watched().contains("test://a"));
        assert_eq!(Unsubscribe::handle(&session, v, uri("test://a")), Ok(Empty));
        assert_eq!(
            Unsubscribe::handle(&session, v, uri("test://a")),
            Ok(Empty),
            "again"
        );
        assert!(!session.connection.watched().contains("test://a"));
        assert_eq!(
            Subscribe::handle(&session, v, uri("test://c")),
            Ok(Empty),
            "room again"
        );
        let long = "x".repeat(MAX_URI_LEN + 1);
        let refused = Subscribe::handle(&session, v, uri(&long)).expect_err("too long");
        assert_eq!(
            refused.message,
            format!(
                "Invalid params: a resource URI of {} bytes is longer than this server takes \
                 (8192 bytes)",
                MAX_URI_LEN + 1
            )
        );
        assert!(frames.try_recv().is_none(), "the router writes the answers");
    }
}
