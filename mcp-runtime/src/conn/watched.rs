//! The resources a legacy session subscribed to (`resources/subscribe`):
//! shared by the connections of one session, bounded per session in count
//! and in bytes.

use crate::util::lock;
use std::collections::HashSet;
use std::sync::Mutex;

/// The most bytes of URIs one session, or one listen stream, holds: 256
/// KiB, so that the sessions a process keeps cannot hold gigabytes of
/// URIs between them, however long each is.
pub(crate) const MAX_URI_BYTES: usize = 256 << 10;

/// A session's subscribed resource URIs.
#[derive(Debug, Default)]
pub(crate) struct Watched(Mutex<Uris>);

#[derive(Debug, Default)]
struct Uris {
    set: HashSet<Box<str>, foldhash::fast::RandomState>,
    /// The bytes of `set`'s URIs.
    bytes: usize,
}

/// Why a subscription was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Full {
    /// The session holds this many resources already, the most it may.
    Count(usize),
    /// The URI would take the session's URIs past [`MAX_URI_BYTES`].
    Bytes,
}

impl Watched {
    /// Subscribes to `uri` unless `max` are held already or its bytes do
    /// not fit; subscribing again to one held is no change and always
    /// accepted.
    pub(crate) fn add(&self, uri: &str, max: usize) -> Result<(), Full> {
        let mut uris = lock(&self.0);
        if uris.set.contains(uri) {
            return Ok(());
        }
        if uris.set.len() >= max {
            return Err(Full::Count(uris.set.len()));
        }
        if uris.bytes + uri.len() > MAX_URI_BYTES {
            return Err(Full::Bytes);
        }
        uris.bytes += uri.len();
        uris.set.insert(uri.into());
        Ok(())
    }

    /// Ends the subscription to `uri`; `false` when there was none.
    pub(crate) fn remove(&self, uri: &str) -> bool {
        let mut uris = lock(&self.0);
        let removed = uris.set.remove(uri);
        if removed {
            uris.bytes -= uri.len();
        }
        removed
    }

    /// Whether `uri` is subscribed to.
    pub(crate) fn contains(&self, uri: &str) -> bool {
        lock(&self.0).set.contains(uri)
    }

    /// Every subscribed URI, sorted.
    pub(crate) fn all(&self) -> Vec<Box<str>> {
        let mut uris: Vec<Box<str>> = lock(&self.0).set.iter().cloned().collect();
        uris.sort();
        uris
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_holds_at_most_max_resources() {
        let watched = Watched::default();
        assert_eq!(watched.add("b", 2), Ok(()));
        assert_eq!(watched.add("a", 2), Ok(()));
        assert_eq!(watched.add("a", 2), Ok(()), "again: no change");
        assert_eq!(watched.add("c", 2), Err(Full::Count(2)));
        assert!(!watched.contains("c"));
        assert_eq!(watched.all(), [Box::<str>::from("a"), Box::from("b")]);
        assert!(watched.remove("a"));
        assert!(!watched.remove("a"));
        assert_eq!(watched.add("c", 2), Ok(()), "room again");
    }

    #[test]
    fn a_session_holds_at_most_max_uri_bytes() {
        let watched = Watched::default();
        let half = "h".repeat(MAX_URI_BYTES / 2);
        assert_eq!(watched.add(&half, 10), Ok(()));
        let other = "o".repeat(MAX_URI_BYTES / 2);
        assert_eq!(watched.add(&other, 10), Ok(()), "exactly full");
        assert_eq!(watched.add("x", 10), Err(Full::Bytes));
        assert!(watched.remove(&half));
        assert_eq!(watched.add("x", 10), Ok(()), "its bytes are given back");
    }
}
