//! `initialize`, `ping` and `server/discover`: opening a legacy session,
//! checking it is alive, and describing the server.

use crate::conn::client::ClientInfo;
use crate::conn::lifecycle::Lifecycle;
use crate::protocol::frame::Frame;
use crate::protocol::incoming::requests::InitializeParamsRef;
use crate::protocol::model::method::{Discover, Initialize, Ping};
use crate::protocol::model::{CacheScope, DiscoverResult, InitializeResult};
use crate::protocol::outgoing::Reply;
use crate::protocol::{ProtocolVersion, RpcError};
use crate::session::Session;
use crate::session::era;
use crate::session::method::{Method, Respond};
use serde::de::IgnoredAny;
use serde_json::{Value, json};

impl Respond for InitializeResult {
    fn respond(self, reply: Reply<'_>) -> Frame {
        reply.initialize(&self)
    }
}

/// `initialize`: opens a legacy session on a fresh connection, at the
/// client's version when it is a legacy one this server speaks, else at
/// the newest legacy one (a counter-offer). A connection that has a
/// session already, or speaks the 2026-07-28 era, refuses it
/// (`era::initialize_version`).
impl Method for Initialize {
    const HANDSHAKE: bool = true;
    type ParamsRef<'p> = InitializeParamsRef<'p>;
    type Answer<'s> = InitializeResult;

    /// The version the router passes is no negotiated one (there is none
    /// yet): the handler negotiates from the params.
    fn handle(
        session: &Session,
        _: ProtocolVersion,
        params: InitializeParamsRef<'_>,
    ) -> Result<InitializeResult, RpcError> {
        let requested = params.protocol_version;
        let version = era::initialize_version(&session.connection, &requested)?;
        session
            .connection
            .set_lifecycle(Lifecycle::Legacy { version });
        session.connection.set_client_info(ClientInfo {
            info: params.client_info,
            capabilities: params
                .capabilities
                .filter(Value::is_object)
                .unwrap_or_else(|| json!({})),
        });
        let identity = &session.shared.identity;
        tracing::debug!(%version, %requested, "initialized a legacy session");
        Ok(InitializeResult {
            capabilities: session.capabilities(version, false),
            instructions: identity.instructions.clone(),
            protocol_version: version.as_str().to_owned(),
            server_info: identity.server_info(version),
            meta: None,
        })
    }
}

/// The empty result, `{}`.
#[derive(Debug, PartialEq, Eq)]
pub(in crate::session) struct Empty;

impl Respond for Empty {
    fn respond(self, reply: Reply<'_>) -> Frame {
        reply.empty()
    }
}

/// `ping` (legacy): the session is alive. Its params, if any, are ignored.
impl Method for Ping {
    type ParamsRef<'p> = IgnoredAny;
    type Answer<'s> = Empty;

    fn handle(_: &Session, _: ProtocolVersion, _: IgnoredAny) -> Result<Empty, RpcError> {
        Ok(Empty)
    }
}

impl Respond for DiscoverResult {
    fn respond(self, reply: Reply<'_>) -> Frame {
        reply.discover(&self)
    }
}

/// `server/discover` (2026-07-28): what this server offers, cacheable. Its
/// params, beyond the envelope the era rules read, are ignored.
impl Method for Discover {
    type ParamsRef<'p> = IgnoredAny;
    type Answer<'s> = DiscoverResult;

    /// `supportedVersions` is the same list a `-32022` error on this
    /// connection names (the scenario `server-stateless` of the conformance
    /// suite holds the two together): a dual-era server lists its legacy
    /// versions too, reachable through `initialize`, until the connection
    /// is locked to the 2026-07-28 era. Every client may cache it.
    fn handle(
        session: &Session,
        version: ProtocolVersion,
        _: IgnoredAny,
    ) -> Result<DiscoverResult, RpcError> {
        let identity = &session.shared.identity;
        let supported = session.connection.lifecycle().supported_versions();
        Ok(DiscoverResult {
            capabilities: session
                .capabilities(version, session.shared.tools.registry().has_task_tools()),
            instructions: identity.instructions.clone(),
            supported_versions: supported.into_iter().map(str::to_owned).collect(),
            ttl_ms: Some(identity.list_ttl_ms),
            cache_scope: Some(CacheScope::Public),
            meta: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ErrorCode;
    use crate::server::Server;
    use crate::session::table;
    use crate::session::test_session;
    use serde_json::value::RawValue;
    use std::borrow::Cow;

    fn initialize(version: &str) -> InitializeParamsRef<'_> {
        InitializeParamsRef {
            protocol_version: Cow::Borrowed(version),
            capabilities: Some(json!({"roots": {}})),
            client_info: Some(json!({"name": "c", "version": "1"})),
        }
    }

    /// The result as the client reads it.
    fn result_of(session: &Session, result: InitializeResult) -> Value {
        let id = RawValue::from_string("1".to_owned()).unwrap();
        let frame = result.respond(session.reply(&id, ProtocolVersion::LATEST_LEGACY));
        let response: Value = serde_json::from_slice(&frame.into_bytes()).unwrap();
        response["result"].clone()
    }

    #[test]
    fn initialize_echoes_a_legacy_version_it_speaks_and_opens_the_session() {
        let (session, mut frames) = test_session(Server::new("t", "0").instructions("Hi."));
        let result = Initialize::handle(
            &session,
            ProtocolVersion::LATEST_LEGACY,
            initialize("2025-03-26"),
        )
        .expect("a session");
        assert_eq!(
            session.connection.lifecycle(),
            Lifecycle::Legacy {
                version: ProtocolVersion::V2025_03_26
            }
        );
        let client = session.connection.client_info();
        assert_eq!(client.capabilities, json!({"roots": {}}));
        assert_eq!(client.info, Some(json!({"name": "c", "version": "1"})));
        assert!(
            frames.try_recv().is_none(),
            "the router replies, not the handler"
        );
        let result = result_of(&session, result);
        assert_eq!(result["protocolVersion"], "2025-03-26");
        assert_eq!(result["instructions"], "Hi.");
        assert_eq!(
            result["capabilities"],
            json!({"logging": {}, "tools": {"listChanged": true}})
        );
        assert_eq!(
            result.get("resultType"),
            None,
            "a legacy result has no envelope"
        );
    }

    #[test]
    fn initialize_counter_offers_the_newest_legacy_version_for_any_other() {
        for asked in ["1999-01-01", "2026-07-28", ""] {
            let (session, _frames) = test_session(Server::new("t", "0"));
            let result =
                Initialize::handle(&session, ProtocolVersion::LATEST_LEGACY, initialize(asked))
                    .expect("a session");
            let latest = ProtocolVersion::LATEST_LEGACY;
            assert_eq!(
                session.connection.lifecycle(),
                Lifecycle::Legacy { version: latest }
            );
            assert_eq!(
                result_of(&session, result)["protocolVersion"],
                latest.as_str(),
                "{asked:?}"
            );
        }
    }

    #[test]
    fn initialize_without_capabilities_or_with_other_ones_keeps_an_empty_object() {
        let (session, _frames) = test_session(Server::new("t", "0"));
        let params = InitializeParamsRef {
            capabilities: Some(json!("not an object")),
            client_info: None,
            ..initialize("2025-11-25")
        };
        Initialize::handle(&session, ProtocolVersion::LATEST_LEGACY, params).expect("a session");
        let client = session.connection.client_info();
        assert_eq!(
            (client.capabilities.clone(), client.info.clone()),
            (json!({}), None)
        );
    }

    #[test]
    fn a_second_initialize_is_refused_and_keeps_the_first_session() {
        let (session, _frames) = test_session(Server::new("t", "0"));
        Initialize::handle(
            &session,
            ProtocolVersion::LATEST_LEGACY,
            initialize("2025-06-18"),
        )
        .unwrap();
        let failure = Initialize::handle(
            &session,
            ProtocolVersion::LATEST_LEGACY,
            initialize("2025-11-25"),
        )
        .expect_err("one handshake per connection");
        assert_eq!(failure.error_code(), ErrorCode::INVALID_REQUEST);
        assert_eq!(
            session.connection.lifecycle(),
            Lifecycle::Legacy {
                version: ProtocolVersion::V2025_06_18
            }
        );
    }

    #[test]
    fn initialize_through_its_entry_refuses_bad_params_and_writes_nothing() {
        let (session, mut frames) = test_session(Server::new("t", "0"));
        let table::Route::Typed(run) = table::find("initialize").expect("an entry").route else {
            panic!("initialize is a typed entry");
        };
        let id = RawValue::from_string("1".to_owned()).unwrap();
        for bad in [
            "{}",
            r#"{"protocolVersion": 2025}"#,
            r#"{"protocolVersion": null}"#,
        ] {
            let params = RawValue::from_string(bad.to_owned()).unwrap();
            let failure =
                run(&session, &id, ProtocolVersion::LATEST_LEGACY, Some(&params)).expect_err(bad);
            assert_eq!(failure.error_code(), ErrorCode::INVALID_PARAMS, "{bad}");
            assert!(
                failure
                    .message
                    .starts_with("Invalid params for initialize: "),
                "{}",
                failure.message
            );
        }
        assert_eq!(session.connection.lifecycle(), Lifecycle::Fresh);
        assert!(frames.try_recv().is_none());
    }

    #[test]
    fn ping_answers_empty() {
        let (session, mut frames) = test_session(Server::new("t", "0"));
        let result = Ping::handle(&session, ProtocolVersion::V2025_11_25, IgnoredAny);
        assert_eq!(result.ok(), Some(Empty));
        assert!(frames.try_recv().is_none());
    }

    #[test]
    fn discover_describes_the_server_with_the_tables_capabilities() {
        let server = Server::new("t", "0")
            .instructions("Be brief.")
            .list_ttl(std::time::Duration::from_secs(7));
        let (session, mut frames) = test_session(server);
        let version = ProtocolVersion::V2026_07_28;
        let result = Discover::handle(&session, version, IgnoredAny).expect("a result");
        let id = RawValue::from_string("3".to_owned()).unwrap();
        let frame = result.respond(session.reply(&id, version));
        let response: Value = serde_json::from_slice(&frame.into_bytes()).unwrap();
        let result = &response["result"];
        assert_eq!(
            result["capabilities"],
            json!({"tools": {"listChanged": true}})
        );
        assert_eq!(result["instructions"], "Be brief.");
        assert_eq!(result["ttlMs"], 7000);
        // A fresh connection may still open a legacy session: every version.
        assert_eq!(
            result["supportedVersions"].as_array().map(Vec::len),
            Some(ProtocolVersion::ALL.len())
        );
        assert!(frames.try_recv().is_none());
    }
}
