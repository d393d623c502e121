//! The era rules, legacy (`initialize`, 2024-11-05..2025-11-25) against
//! stateless (2026-07-28), in one place: which era a connection speaks,
//! what `initialize` agrees on, the `_meta` envelope every 2026-07-28
//! request carries, and the revision and caller each request is served for.
//!
//! `server/discover` never decides the era (dual-era clients probe with it,
//! then may fall back to `initialize`); `initialize` opts the connection
//! into a legacy session; the first other enveloped request opts it into
//! the stateless era.

use crate::conn::client::{ClientInfo, RecentClient};
use crate::conn::connection::Connection;
use crate::conn::lifecycle::Lifecycle;
use crate::level::Level;
use crate::protocol::RpcError;
use crate::protocol::model::method;
use crate::protocol::outgoing::ErrorData;
use crate::protocol::params::{Meta, Params};
use crate::protocol::read::without_position;
use crate::protocol::{ErrorCode, ProtocolVersion, meta};
use std::sync::Arc;

/// The version `initialize` agrees on: the client's when it is a legacy version
/// we speak, else our newest legacy version as a counter-offer.
pub(crate) fn negotiate(requested: &str) -> ProtocolVersion {
    match ProtocolVersion::parse(requested) {
        Some(v) if !v.is_modern() => v,
        _ => ProtocolVersion::LATEST_LEGACY,
    }
}

/// Who is asking and under which revision, for one request.
#[derive(Debug)]
pub(crate) struct RequestInfo {
    pub(crate) version: ProtocolVersion,
    pub(crate) client: Arc<ClientInfo>,
    /// 2026-07-28: the request's `logLevel`.
    pub(crate) log_level: Option<Level>,
}

/// The revision and caller a request is served for, enforcing the era
/// rules (and deciding the era, when this request does).
pub(crate) fn request_info(
    recent: &RecentClient,
    connection: &Connection,
    method: &str,
    params: &Params<'_>,
) -> Result<RequestInfo, RpcError> {
    let lifecycle = connection.lifecycle();
    match lifecycle {
        Lifecycle::Legacy { version } => Ok(RequestInfo {
            version,
            client: connection.client_info(),
            log_level: None,
        }),
        Lifecycle::Modern => modern_request(recent, params.meta.as_deref(), lifecycle),
        Lifecycle::Fresh => {
            if !params.enveloped() {
                if method == method::PING {
                    // Legacy clients may ping before `initialize`.
                    return Ok(RequestInfo {
                        version: ProtocolVersion::LATEST_LEGACY,
                        client: connection.client_info(),
                        log_level: None,
                    });
                }
                return Err(RpcError::invalid_params(format!(
                    "'{method}' arrived before 'initialize' and without a 2026-07-28 _meta envelope: \
                     send 'initialize' first, or put \"{}\" and \
                     \"{}\" in params._meta",
                    meta::PROTOCOL_VERSION,
                    meta::CLIENT_CAPABILITIES
                )));
            }
            let info = modern_request(recent, params.meta.as_deref(), lifecycle)?;
            if method != method::DISCOVER {
                connection.set_lifecycle(Lifecycle::Modern);
            }
            Ok(info)
        }
    }
}

/// The version an `initialize` request opens a legacy session with, or why
/// this connection refuses it.
pub(crate) fn initialize_version(
    connection: &Connection,
    requested: &str,
) -> Result<ProtocolVersion, RpcError> {
    let lifecycle = connection.lifecycle();
    match lifecycle {
        Lifecycle::Fresh => Ok(negotiate(requested)),
        Lifecycle::Legacy { .. } => Err(RpcError::new(
            ErrorCode::INVALID_REQUEST,
            "Invalid Request: 'initialize' was already received on this connection",
        )),
        Lifecycle::Modern => Err(unsupported_version(requested, lifecycle)),
    }
}

/// Validates the 2026-07-28 envelope of a request (its keys' types were
/// checked by the one parse, [`Params`]).
fn modern_request(
    recent: &RecentClient,
    meta: Option<&Meta<'_>>,
    lifecycle: Lifecycle,
) -> Result<RequestInfo, RpcError> {
    let missing = |key: &str| {
        RpcError::invalid_params(format!(
            "Invalid params: params._meta must carry \"{key}\" (2026-07-28 requests carry their protocol version and client capabilities)"
        ))
    };
    let version = meta
        .and_then(|meta| meta.protocol_version.as_deref())
        .ok_or_else(|| missing(meta::PROTOCOL_VERSION))?;
    let capabilities = meta
        .and_then(|meta| meta.client_capabilities.as_deref())
        .ok_or_else(|| missing(meta::CLIENT_CAPABILITIES))?;
    let log_level = match meta.and_then(|meta| meta.log_level.as_deref()) {
        None => None,
        Some(level) => Some(level.parse::<Level>().map_err(|message| {
            RpcError::invalid_params(format!("Invalid params: {}: {message}", meta::LOG_LEVEL))
        })?),
    };
    match ProtocolVersion::parse(version) {
        Some(v) if v.is_modern() => Ok(RequestInfo {
            version: v,
            client: recent
                .client(
                    meta.and_then(|meta| meta.client_info.as_deref()),
                    capabilities,
                )
                .map_err(|err| {
                    RpcError::invalid_params(format!(
                        "Invalid params: params._meta: {}",
                        without_position(&err)
                    ))
                })?,
            log_level,
        }),
        _ => Err(unsupported_version(version, lifecycle)),
    }
}

fn unsupported_version(requested: &str, lifecycle: Lifecycle) -> RpcError {
    RpcError::new(
        ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
        "Unsupported protocol version",
    )
    .with_data(
        ErrorData::UnsupportedVersion {
            requested: requested.to_owned(),
            supported: lifecycle.supported_versions(),
        }
        .into(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use serde_json::value::RawValue;

    #[test]
    fn negotiation_echoes_or_counter_offers() {
        assert_eq!(negotiate("2025-06-18"), ProtocolVersion::V2025_06_18);
        assert_eq!(negotiate("2024-11-05"), ProtocolVersion::V2024_11_05);
        assert_eq!(negotiate("1999-01-01"), ProtocolVersion::V2025_11_25);
        assert_eq!(negotiate("2026-07-28"), ProtocolVersion::V2025_11_25);
    }

    #[test]
    fn the_envelope_reads_the_reserved_keys() {
        let text = json!({"_meta": {
            meta::PROTOCOL_VERSION: "2026-07-28",
            meta::CLIENT_CAPABILITIES: {},
            meta::LOG_LEVEL: "info",
        }})
        .to_string();
        let raw: &RawValue = serde_json::from_str(&text).unwrap();
        let params = Params::parse(Some(raw)).unwrap();
        assert!(params.enveloped());
        let info = modern_request(
            &RecentClient::default(),
            params.meta.as_deref(),
            Lifecycle::Fresh,
        )
        .unwrap();
        assert_eq!(info.version, ProtocolVersion::V2026_07_28);
        assert_eq!(info.log_level, Some(Level::Info));
    }

    #[test]
    fn every_lifecycle_survives_its_byte() {
        let every = ProtocolVersion::ALL
            .iter()
            .map(|&version| Lifecycle::Legacy { version })
            .chain([Lifecycle::Fresh, Lifecycle::Modern]);
        for lifecycle in every {
            assert_eq!(Lifecycle::from_bits(lifecycle.to_bits()), lifecycle);
        }
    }

    #[test]
    fn supported_versions_narrow_once_modern() {
        assert_eq!(Lifecycle::Modern.supported_versions(), ["2026-07-28"]);
        assert_eq!(Lifecycle::Fresh.supported_versions().len(), 5);
        assert_eq!(Lifecycle::Fresh.supported_versions()[0], "2026-07-28");
    }
}
