//! The resources a legacy session subscribed to (`resources/subscribe`):
//! shared by the connections of one session, bounded per session.

use crate::util::lock;
use std::collections::HashSet;
use std::sync::Mutex;

/// A session's subscribed resource URIs.
#[derive(Debug, Default)]
pub(crate) struct Watched(Mutex<HashSet<Box<str>, foldhash::fast::RandomState>>);

/// A subscription refused: the session holds this many already.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Full(pub(crate) usize);

impl Watched {
    /// Subscribes to `uri` unless `max` are held already; subscribing
    /// again to one held is no change and always accepted.
    pub(crate) fn add(&self, uri: &str, max: usize) -> Result<(), Full> {
        let mut uris = lock(&self.0);
        if uris.contains(uri) {
            return Ok(());
        }
        if uris.len() >= max {
            return Err(Full(uris.len()));
        }
        uris.insert(uri.into());
        Ok(())
    }

    /// Ends the subscription to `uri`; `false` when there was none.
    pub(crate) fn remove(&self, uri: &str) -> bool {
        lock(&self.0).remove(uri)
    }

    /// Whether `uri` is subscribed to.
    pub(crate) fn contains(&self, uri: &str) -> bool {
        lock(&self.0).contains(uri)
    }

    /// Every subscribed URI, sorted.
    pub(crate) fn all(&self) -> Vec<Box<str>> {
        let mut uris: Vec<Box<str>> = lock(&self.0).iter().cloned().collect();
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
        assert_eq!(watched.add("c", 2), Err(Full(2)));
        assert!(!watched.contains("c"));
        assert_eq!(watched.all(), ["a".into(), "b".into()]);
        assert!(watched.remove("a"));
        assert!(!watched.remove("a"));
        assert_eq!(watched.add("c", 2), Ok(()), "room again");
    }
}
