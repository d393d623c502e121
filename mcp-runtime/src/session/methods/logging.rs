//! `logging/setLevel` (legacy sessions; 2026-07-28 requests carry their
//! level in the envelope, see [`crate::session::era`]).

use crate::level::Level;
use crate::protocol::ProtocolVersion;
use crate::protocol::RpcError;
use crate::protocol::incoming::requests::SetLevelParams;
use crate::protocol::model::method::SetLevel;
use crate::session::Session;
use crate::session::method::Method;
use crate::session::methods::lifecycle::Empty;

/// `logging/setLevel` (legacy): the lowest level of log messages the
/// session's calls send.
impl Method for SetLevel {
    type ParamsRef<'p> = SetLevelParams<'p>;
    type Answer<'s> = Empty;

    fn handle(
        session: &Session,
        _: ProtocolVersion,
        params: SetLevelParams<'_>,
    ) -> Result<Empty, RpcError> {
        let level: Level =
            params
                .level
                .parse()
                .map_err(|message: crate::level::UnknownLevel| {
                    RpcError::invalid_params(format!("Invalid params: {message}"))
                })?;
        session.connection.set_log_level(level);
        Ok(Empty)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::Server;
    use crate::session::test_session;
    use std::borrow::Cow;

    fn params(level: &str) -> SetLevelParams<'_> {
        SetLevelParams {
            level: Cow::Borrowed(level),
        }
    }

    #[test]
    fn set_level_sets_the_connection_level_and_writes_nothing() {
        let (session, mut frames) = test_session(Server::new("t", "0"));
        let version = ProtocolVersion::V2025_11_25;
        assert_eq!(
            SetLevel::handle(&session, version, params("warning")).ok(),
            Some(Empty)
        );
        assert_eq!(session.connection.log_level(), Some(Level::Warning));
        assert!(
            frames.try_recv().is_none(),
            "the router replies, not the handler"
        );
    }

    #[test]
    fn set_level_refuses_an_unknown_level_as_invalid_params() {
        let (session, _frames) = test_session(Server::new("t", "0"));
        let failure = SetLevel::handle(&session, ProtocolVersion::V2025_11_25, params("loud"))
            .expect_err("no such level");
        assert_eq!(
            failure.error_code(),
            crate::protocol::ErrorCode::INVALID_PARAMS
        );
        assert!(
            failure.message.starts_with("Invalid params: "),
            "{}",
            failure.message
        );
        assert_eq!(session.connection.log_level(), None);
    }
}
