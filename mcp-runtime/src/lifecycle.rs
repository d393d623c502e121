//! Which era a connection speaks, decided by what the client sends first.
//!
//! `server/discover` never decides (dual-era clients probe with it, then may
//! fall back to `initialize`); `initialize` opts the connection into a legacy
//! session; the first other enveloped request opts it into the stateless era.

use crate::protocol::ProtocolVersion;

/// The connection's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lifecycle {
    /// Nothing has decided the era yet.
    Fresh,
    /// `initialize` negotiated `version`. (`notifications/initialized` is
    /// accepted but changes nothing: requests are served as soon as the
    /// handshake result is out, as clients expect.)
    Legacy { version: ProtocolVersion },
    /// Requests carry their own `_meta` envelope.
    Modern,
}

impl Lifecycle {
    /// Versions an enveloped request may name in this state (the data of a
    /// `-32022` error): before the era is decided, every version (legacy ones
    /// through `initialize`); once modern, only modern ones.
    pub(crate) fn supported_versions(self) -> Vec<&'static str> {
        let modern_only = matches!(self, Lifecycle::Modern);
        ProtocolVersion::ALL
            .iter()
            .rev()
            .filter(|v| v.is_modern() || !modern_only)
            .map(|v| v.as_str())
            .collect()
    }
}

/// The version `initialize` agrees on: the client's when it is a legacy version
/// we speak, else our newest legacy version as a counter-offer.
pub(crate) fn negotiate(requested: &str) -> ProtocolVersion {
    match ProtocolVersion::parse(requested) {
        Some(v) if !v.is_modern() => v,
        _ => ProtocolVersion::LATEST_LEGACY,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negotiation_echoes_or_counter_offers() {
        assert_eq!(negotiate("2025-06-18"), ProtocolVersion::V2025_06_18);
        assert_eq!(negotiate("2024-11-05"), ProtocolVersion::V2024_11_05);
        assert_eq!(negotiate("1999-01-01"), ProtocolVersion::V2025_11_25);
        assert_eq!(negotiate("2026-07-28"), ProtocolVersion::V2025_11_25);
    }

    #[test]
    fn supported_versions_narrow_once_modern() {
        assert_eq!(Lifecycle::Modern.supported_versions(), ["2026-07-28"]);
        assert_eq!(Lifecycle::Fresh.supported_versions().len(), 5);
        assert_eq!(Lifecycle::Fresh.supported_versions()[0], "2026-07-28");
    }
}
