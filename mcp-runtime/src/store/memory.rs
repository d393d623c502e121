//! The default store: a map in this process, bounded.

use super::{Store, StoreError, StoreFuture};
use crate::util::lock;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// A [`Store`] in this process's memory; clones share the entries and the
/// channels ([`Store::publish`] reaches the listeners of every clone). Right
/// for one process (stdio, or one HTTP server); replicas need a shared store
/// such as `RedisStore` (feature `redis`).
///
/// Bounded: when it holds `capacity` unexpired entries, a new key is refused
/// with [`StoreError::Full`] (saying when the soonest entry expires) rather
/// than forgetting one early, since a forgotten spent state could be
/// replayed. Expired entries are dropped as space is needed.
#[derive(Clone)]
pub struct MemoryStore {
    inner: Arc<Inner>,
}

struct Inner {
    capacity: usize,
    entries: Mutex<HashMap<String, Entry>>,
    /// The listeners of each channel; a closed one is dropped when its
    /// `listen` ends (or at the next message).
    channels: Mutex<HashMap<String, Vec<mpsc::Sender<Vec<u8>>>>>,
}

struct Entry {
    value: Vec<u8>,
    expires: Instant,
}

impl fmt::Debug for MemoryStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryStore")
            .field("capacity", &self.inner.capacity)
            .field("entries", &lock(&self.inner.entries).len())
            .finish()
    }
}

impl Default for MemoryStore {
    fn default() -> MemoryStore {
        MemoryStore::new()
    }
}

impl MemoryStore {
    /// An empty store without a bound (for tests and small tools).
    pub fn new() -> MemoryStore {
        MemoryStore::with_capacity(usize::MAX)
    }

    /// An empty store of at most `capacity` unexpired entries (at least one).
    pub fn with_capacity(capacity: usize) -> MemoryStore {
        MemoryStore {
            inner: Arc::new(Inner {
                capacity: capacity.max(1),
                entries: Mutex::new(HashMap::new()),
                channels: Mutex::new(HashMap::new()),
            }),
        }
    }

    /// Every operation, run under the lock and answered at once.
    fn run<T: Send + 'static>(
        &self,
        op: impl FnOnce(&mut Entries<'_>) -> Result<T, StoreError>,
    ) -> StoreFuture<'static, T> {
        let mut entries = lock(&self.inner.entries);
        let result = op(&mut Entries {
            map: &mut entries,
            capacity: self.inner.capacity,
            now: Instant::now(),
        });
        Box::pin(std::future::ready(result))
    }
}

/// The map as one operation sees it: expiry judged at one instant.
struct Entries<'a> {
    map: &'a mut HashMap<String, Entry>,
    capacity: usize,
    now: Instant,
}

impl Entries<'_> {
    /// The live value of `key`; an expired one is dropped.
    fn live(&mut self, key: &str) -> Option<&Vec<u8>> {
        if self.map.get(key).is_some_and(|e| e.expires <= self.now) {
            self.map.remove(key);
        }
        self.map.get(key).map(|e| &e.value)
    }

    /// Stores `value` under `key`, making room for a new key if needed.
    fn set(&mut self, key: &str, value: Vec<u8>, ttl: Duration) -> Result<(), StoreError> {
        if !self.map.contains_key(key) && self.map.len() >= self.capacity {
            let now = self.now;
            self.map.retain(|_, e| e.expires > now);
            if self.map.len() >= self.capacity {
                let soonest = self.map.values().map(|e| e.expires).min().unwrap_or(now);
                return Err(StoreError::Full(
                    soonest.saturating_duration_since(now) + Duration::from_millis(1),
                ));
            }
        }
        let expires = self.now.checked_add(ttl).unwrap_or_else(far_future);
        self.map.insert(key.to_owned(), Entry { value, expires });
        Ok(())
    }
}

/// An instant no TTL reaches (a century from now).
fn far_future() -> Instant {
    Instant::now() + Duration::from_secs(100 * 365 * 24 * 3600)
}

impl Store for MemoryStore {
    fn put<'a>(&'a self, key: &'a str, value: Vec<u8>, ttl: Duration) -> StoreFuture<'a, ()> {
        self.run(|entries| entries.set(key, value, ttl))
    }

    fn get<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<Vec<u8>>> {
        self.run(|entries| Ok(entries.live(key).cloned()))
    }

    fn delete<'a>(&'a self, key: &'a str) -> StoreFuture<'a, bool> {
        self.run(|entries| {
            let was = entries.live(key).is_some();
            entries.map.remove(key);
            Ok(was)
        })
    }

    fn put_if_absent<'a>(
        &'a self,
        key: &'a str,
        value: Vec<u8>,
        ttl: Duration,
    ) -> StoreFuture<'a, bool> {
        self.run(|entries| {
            if entries.live(key).is_some() {
                return Ok(false);
            }
            entries.set(key, value, ttl).map(|()| true)
        })
    }

    fn compare_and_set<'a>(
        &'a self,
        key: &'a str,
        expected: &'a [u8],
        new: Vec<u8>,
        ttl: Duration,
    ) -> StoreFuture<'a, bool> {
        self.run(|entries| {
            if entries.live(key).map(Vec::as_slice) != Some(expected) {
                return Ok(false);
            }
            entries.set(key, new, ttl).map(|()| true)
        })
    }

    fn compare_and_delete<'a>(&'a self, key: &'a str, expected: &'a [u8]) -> StoreFuture<'a, bool> {
        self.run(|entries| {
            if entries.live(key).map(Vec::as_slice) != Some(expected) {
                return Ok(false);
            }
            entries.map.remove(key);
            Ok(true)
        })
    }

    fn publish<'a>(&'a self, channel: &'a str, message: Vec<u8>) -> StoreFuture<'a, ()> {
        let mut channels = lock(&self.inner.channels);
        if let Some(listeners) = channels.get_mut(channel) {
            listeners.retain(|to| !to.is_closed());
            for to in listeners.iter() {
                // A full listener misses this one (the trait's contract).
                let _ = to.try_send(message.clone());
            }
            if listeners.is_empty() {
                channels.remove(channel);
            }
        }
        Box::pin(std::future::ready(Ok(())))
    }

    fn listen<'a>(&'a self, channel: &'a str, to: mpsc::Sender<Vec<u8>>) -> StoreFuture<'a, ()> {
        lock(&self.inner.channels)
            .entry(channel.to_owned())
            .or_default()
            .push(to.clone());
        Box::pin(async move {
            to.closed().await;
            let mut channels = lock(&self.inner.channels);
            if let Some(listeners) = channels.get_mut(channel) {
                listeners.retain(|to| !to.is_closed());
                if listeners.is_empty() {
                    channels.remove(channel);
                }
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINUTE: Duration = Duration::from_secs(60);

    #[tokio::test]
    async fn operations_are_atomic_per_key() {
        let store = MemoryStore::new();
        super::super::contract::check(&store).await;
        assert!(
            lock(&store.inner.channels).is_empty(),
            "a listener that stopped is forgotten"
        );
        let clone = store.clone();
        store.put("shared", b"1".to_vec(), MINUTE).await.unwrap();
        assert_eq!(
            clone.get("shared").await,
            Ok(Some(b"1".to_vec())),
            "clones share"
        );
    }

    #[tokio::test]
    async fn entries_expire_after_their_ttl() {
        let store = MemoryStore::new();
        let short = Duration::from_millis(30);
        store.put("k", b"a".to_vec(), short).await.unwrap();
        assert!(store.put_if_absent("s", Vec::new(), short).await.unwrap());
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(store.get("k").await, Ok(None));
        assert_eq!(
            store.compare_and_set("k", b"a", b"b".to_vec(), short).await,
            Ok(false)
        );
        assert_eq!(
            store.put_if_absent("s", Vec::new(), short).await,
            Ok(true),
            "an expired id can be set again"
        );
    }

    #[tokio::test]
    async fn a_full_store_forgets_only_expired_entries() {
        let store = MemoryStore::with_capacity(2);
        assert!(
            store
                .put_if_absent("a", Vec::new(), Duration::from_millis(40))
                .await
                .unwrap()
        );
        assert!(store.put_if_absent("b", Vec::new(), MINUTE).await.unwrap());
        let Err(StoreError::Full(wait)) = store.put_if_absent("c", Vec::new(), MINUTE).await else {
            panic!("a third entry does not fit");
        };
        assert!(wait <= Duration::from_millis(41), "{wait:?}");
        assert!(store.get("a").await.unwrap().is_some(), "nothing forgotten");
        // Replacing a present key takes no room.
        store.put("b", b"new".to_vec(), MINUTE).await.unwrap();
        std::thread::sleep(Duration::from_millis(60));
        // Once "a" expired, its place is free.
        assert!(store.put_if_absent("c", Vec::new(), MINUTE).await.unwrap());
        assert_eq!(store.get("b").await, Ok(Some(b"new".to_vec())));
        let text = StoreError::Full(Duration::from_secs(2)).to_string();
        assert!(text.starts_with("state store unavailable"), "{text}");
    }
}
