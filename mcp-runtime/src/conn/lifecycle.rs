//! Which era a connection speaks, as its state: fresh, a legacy session
//! (`initialize` negotiated a version) or the stateless 2026-07-28 era. The
//! rules that move a connection between them are `session/era.rs`.

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
    /// As one byte, so that a connection can keep it in an atomic (it is read
    /// on every request): 0 fresh, 1 modern, 2 + the index in
    /// [`ProtocolVersion::ALL`] for a legacy session.
    pub(crate) fn to_bits(self) -> u8 {
        match self {
            Lifecycle::Fresh => 0,
            Lifecycle::Modern => 1,
            // Five versions: the index fits.
            Lifecycle::Legacy { version } => 2 + version.index() as u8,
        }
    }

    /// The inverse of [`Lifecycle::to_bits`].
    pub(crate) fn from_bits(bits: u8) -> Lifecycle {
        match bits {
            0 => Lifecycle::Fresh,
            1 => Lifecycle::Modern,
            n => Lifecycle::Legacy {
                version: ProtocolVersion::ALL[usize::from(n - 2) % ProtocolVersion::ALL.len()],
            },
        }
    }

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
