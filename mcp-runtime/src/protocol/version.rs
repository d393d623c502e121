//! Protocol revisions and what each one can carry.

use std::fmt;

/// A protocol revision this runtime speaks.
///
/// Ordered by release date, so `v >= ProtocolVersion::V2025_06_18` asks "does
/// this session know structured output?".
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum ProtocolVersion {
    /// The first released revision.
    V2024_11_05,
    /// Adds tool annotations, audio content and JSON-RPC batches.
    V2025_03_26,
    /// Adds titles, `outputSchema`/`structuredContent`, `resource_link` and elicitation.
    V2025_06_18,
    /// Adds icons and argument errors as `isError` results; the last handshake revision.
    V2025_11_25,
    /// The stateless era: no handshake, a `_meta` envelope on every request.
    V2026_07_28,
}

impl ProtocolVersion {
    /// Every revision, oldest first.
    pub const ALL: [ProtocolVersion; 5] = [
        ProtocolVersion::V2024_11_05,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
        ProtocolVersion::V2026_07_28,
    ];

    /// The newest revision negotiated through `initialize`.
    pub const LATEST_LEGACY: ProtocolVersion = ProtocolVersion::V2025_11_25;

    /// The newest revision of all.
    pub const LATEST: ProtocolVersion = ProtocolVersion::V2026_07_28;

    /// The revision's date string as it appears on the wire.
    pub const fn as_str(self) -> &'static str {
        match self {
            ProtocolVersion::V2024_11_05 => "2024-11-05",
            ProtocolVersion::V2025_03_26 => "2025-03-26",
            ProtocolVersion::V2025_06_18 => "2025-06-18",
            ProtocolVersion::V2025_11_25 => "2025-11-25",
            ProtocolVersion::V2026_07_28 => "2026-07-28",
        }
    }

    /// Reads a date string; `None` for revisions this runtime does not speak.
    pub fn parse(text: &str) -> Option<ProtocolVersion> {
        ProtocolVersion::ALL
            .into_iter()
            .find(|v| v.as_str() == text)
    }

    /// Whether this revision uses per-request `_meta` instead of a handshake.
    pub const fn is_modern(self) -> bool {
        matches!(self, ProtocolVersion::V2026_07_28)
    }

    /// Position in [`ProtocolVersion::ALL`], for per-revision caches.
    pub(crate) const fn index(self) -> usize {
        self as usize
    }

    /// Tool `annotations` exist from 2025-03-26.
    pub(crate) fn has_annotations(self) -> bool {
        self >= ProtocolVersion::V2025_03_26
    }

    /// `title`, `outputSchema`, `structuredContent` and tool `_meta` exist from 2025-06-18.
    pub(crate) fn has_structured_output(self) -> bool {
        self >= ProtocolVersion::V2025_06_18
    }

    /// Tool `icons` exist from 2025-11-25.
    pub(crate) fn has_icons(self) -> bool {
        self >= ProtocolVersion::V2025_11_25
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_revision_and_nothing_else() {
        for v in ProtocolVersion::ALL {
            assert_eq!(ProtocolVersion::parse(v.as_str()), Some(v));
        }
        assert_eq!(ProtocolVersion::parse("1999-01-01"), None);
        assert!(ProtocolVersion::V2026_07_28.is_modern());
        assert!(!ProtocolVersion::LATEST_LEGACY.is_modern());
    }
}
