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
    pub const fn index(self) -> usize {
        self as usize
    }

    /// What messages of this revision carry: every per-revision difference
    /// in what the server writes is read from this table.
    pub const fn carries(self) -> Carries {
        let v = self as usize;
        Carries {
            envelope: v >= ProtocolVersion::V2026_07_28 as usize,
            annotations: v >= ProtocolVersion::V2025_03_26 as usize,
            audio: v >= ProtocolVersion::V2025_03_26 as usize,
            resource_links: v >= ProtocolVersion::V2025_06_18 as usize,
            last_modified: v >= ProtocolVersion::V2025_06_18 as usize,
            structured_output: v >= ProtocolVersion::V2025_06_18 as usize,
            icons: v >= ProtocolVersion::V2025_11_25 as usize,
            elicitation_mode: v >= ProtocolVersion::V2025_11_25 as usize,
            object_output_root: matches!(
                self,
                ProtocolVersion::V2025_06_18 | ProtocolVersion::V2025_11_25
            ),
        }
    }
}

/// The per-revision rules of what the server writes, as data (see
/// [`ProtocolVersion::carries`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Carries {
    /// 2026-07-28: every result carries `resultType` and the server's
    /// identity in `_meta`; cacheable results carry `ttlMs` and `cacheScope`.
    pub envelope: bool,
    /// Tool `annotations` (2025-03-26).
    pub annotations: bool,
    /// Audio content blocks (2025-03-26).
    pub audio: bool,
    /// `resource_link` content blocks (2025-06-18).
    pub resource_links: bool,
    /// `lastModified` in content annotations (2025-06-18).
    pub last_modified: bool,
    /// `title` on tools and implementations, `outputSchema`,
    /// `structuredContent` and tool `_meta` (2025-06-18).
    pub structured_output: bool,
    /// Tool `icons` (2025-11-25).
    pub icons: bool,
    /// `mode: "form"` in `elicitation/create` (2025-11-25).
    pub elicitation_mode: bool,
    /// The outputSchema root must be an object, so other roots are wrapped
    /// as `{"result": …}` (2025-06-18 and 2025-11-25).
    pub object_output_root: bool,
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

    #[test]
    fn each_revision_carries_what_it_introduced() {
        let old = ProtocolVersion::V2024_11_05.carries();
        assert!(!old.annotations && !old.structured_output && !old.envelope);
        assert!(ProtocolVersion::V2025_03_26.carries().annotations);
        let v0618 = ProtocolVersion::V2025_06_18.carries();
        assert!(v0618.structured_output && v0618.object_output_root && !v0618.icons);
        let v1125 = ProtocolVersion::V2025_11_25.carries();
        assert!(v1125.icons && v1125.elicitation_mode && !v1125.envelope);
        let modern = ProtocolVersion::V2026_07_28.carries();
        assert!(modern.envelope && !modern.object_output_root && modern.icons);
    }
}
