//! Opaque handles for stateful tools.
//!
//! There is no protocol session in the 2026-07-28 era, so a tool that keeps
//! state between calls hands the model a handle and takes it back as an
//! ordinary argument. The specification's guidance, which this follows:
//! unguessable ids (128 random bits, UUIDv4 strength), a bounded lifetime,
//! an authorization check on every use, and expiry reported as a tool error
//! that tells the model how to recover.

use crate::ToolError;
use crate::util::lock;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A table of values behind opaque, expiring handles; clone it freely (clones
/// share the table). Put it in [`State`](crate::State) to share it between tools.
///
/// ```
/// use mcp_runtime::Handles;
/// use std::time::Duration;
///
/// let baskets: Handles<Vec<String>> = Handles::new("basket", "create_basket", Duration::from_secs(3600));
/// let id = baskets.create(Vec::new());
/// baskets.with(&id, |basket| basket.push("apple".into())).unwrap();
/// assert_eq!(baskets.with(&id, |basket| basket.len()).unwrap(), 1);
/// let err = baskets.with("basket_0000", |b| b.len()).unwrap_err();
/// assert!(err.message().contains("create_basket"));
/// ```
pub struct Handles<T> {
    inner: Arc<Inner<T>>,
}

struct Inner<T> {
    kind: String,
    creator: String,
    ttl: Duration,
    entries: Mutex<HashMap<String, Entry<T>>>,
}

struct Entry<T> {
    value: T,
    owner: Option<String>,
    expires: Instant,
}

impl<T> Clone for Handles<T> {
    fn clone(&self) -> Self {
        Handles {
            inner: Arc::clone(&self.inner),
        }
    }
}

impl<T> fmt::Debug for Handles<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Handles")
            .field("kind", &self.inner.kind)
            .field("creator", &self.inner.creator)
            .field("ttl", &self.inner.ttl)
            .finish_non_exhaustive()
    }
}

impl<T> Handles<T> {
    /// Handles of `kind` (the id's prefix, e.g. `basket`), made by the tool
    /// `creator` (named in expiry messages), each valid for `ttl` after its
    /// last use.
    pub fn new(kind: &str, creator: &str, ttl: Duration) -> Handles<T> {
        Handles {
            inner: Arc::new(Inner {
                kind: kind.to_owned(),
                creator: creator.to_owned(),
                ttl,
                entries: Mutex::new(HashMap::new()),
            }),
        }
    }

    /// Stores `value` and returns its new handle.
    pub fn create(&self, value: T) -> String {
        self.insert(value, None)
    }

    /// Stores `value` for `owner` only: other callers are told the handle does
    /// not exist (which does not reveal that it does).
    pub fn create_for(&self, owner: &str, value: T) -> String {
        self.insert(value, Some(owner.to_owned()))
    }

    fn insert(&self, value: T, owner: Option<String>) -> String {
        let mut random = [0u8; 16];
        // Guessable handles would let one caller reach another's state.
        getrandom::fill(&mut random).expect("the operating system provides randomness");
        let id = format!(
            "{}_{}",
            self.inner.kind,
            random
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        );
        let mut entries = lock(&self.inner.entries);
        let now = Instant::now();
        entries.retain(|_, entry| entry.expires > now);
        entries.insert(
            id.clone(),
            Entry {
                value,
                owner,
                expires: now + self.inner.ttl,
            },
        );
        id
    }

    /// Runs `f` on the value behind `id` and renews its lifetime.
    pub fn with<R>(&self, id: &str, f: impl FnOnce(&mut T) -> R) -> Result<R, ToolError> {
        self.with_owner(None, id, f)
    }

    /// [`Handles::with`] for a value created with [`Handles::create_for`].
    pub fn with_for<R>(
        &self,
        owner: &str,
        id: &str,
        f: impl FnOnce(&mut T) -> R,
    ) -> Result<R, ToolError> {
        self.with_owner(Some(owner), id, f)
    }

    fn with_owner<R>(
        &self,
        owner: Option<&str>,
        id: &str,
        f: impl FnOnce(&mut T) -> R,
    ) -> Result<R, ToolError> {
        let mut entries = lock(&self.inner.entries);
        let now = Instant::now();
        let Some(entry) = entries.get_mut(id) else {
            return Err(self.unknown(id));
        };
        if entry.expires <= now {
            entries.remove(id);
            return Err(self.expired(id));
        }
        if entry.owner.is_some() && entry.owner.as_deref() != owner {
            return Err(self.unknown(id));
        }
        entry.expires = now + self.inner.ttl;
        Ok(f(&mut entry.value))
    }

    /// Removes the value behind `id` and returns it.
    pub fn remove(&self, id: &str) -> Result<T, ToolError> {
        let mut entries = lock(&self.inner.entries);
        match entries.remove(id) {
            Some(entry) if entry.owner.is_some() => {
                entries.insert(id.to_owned(), entry);
                Err(self.unknown(id))
            }
            Some(entry) if entry.expires <= Instant::now() => Err(self.expired(id)),
            Some(entry) => Ok(entry.value),
            None => Err(self.unknown(id)),
        }
    }

    /// [`Handles::remove`] for a value created with [`Handles::create_for`].
    pub fn remove_for(&self, owner: &str, id: &str) -> Result<T, ToolError> {
        let mut entries = lock(&self.inner.entries);
        match entries.remove(id) {
            Some(entry) if entry.owner.as_deref() != Some(owner) && entry.owner.is_some() => {
                entries.insert(id.to_owned(), entry);
                Err(self.unknown(id))
            }
            Some(entry) if entry.expires <= Instant::now() => Err(self.expired(id)),
            Some(entry) => Ok(entry.value),
            None => Err(self.unknown(id)),
        }
    }

    /// How many live handles there are.
    pub fn len(&self) -> usize {
        let now = Instant::now();
        lock(&self.inner.entries)
            .values()
            .filter(|e| e.expires > now)
            .count()
    }

    /// Whether there are no live handles.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn unknown(&self, id: &str) -> ToolError {
        ToolError::new(format!(
            "unknown {} handle {id:?}; call `{}` to get a new one",
            self.inner.kind, self.inner.creator
        ))
    }

    fn expired(&self, id: &str) -> ToolError {
        ToolError::new(format!(
            "the {} handle {id:?} expired after {} s unused; call `{}` to get a new one",
            self.inner.kind,
            self.inner.ttl.as_secs(),
            self.inner.creator
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_are_random_owned_and_expire() {
        let handles: Handles<u32> = Handles::new("cart", "new_cart", Duration::from_millis(50));
        let a = handles.create(1);
        let b = handles.create(2);
        assert_ne!(a, b);
        assert!(a.starts_with("cart_") && a.len() == "cart_".len() + 32);
        assert_eq!(handles.with(&a, |v| *v).unwrap(), 1);
        let mine = handles.create_for("alice", 3);
        assert_eq!(handles.with_for("alice", &mine, |v| *v).unwrap(), 3);
        let stranger = handles.with_for("bob", &mine, |v| *v).unwrap_err();
        assert!(
            stranger.message().starts_with("unknown cart handle"),
            "{stranger}"
        );
        assert!(
            handles.remove(&mine).is_err(),
            "an owned handle needs its owner"
        );
        assert_eq!(handles.remove_for("alice", &mine).unwrap(), 3);
        std::thread::sleep(Duration::from_millis(80));
        let expired = handles.with(&b, |v| *v).unwrap_err();
        assert!(expired.message().contains("expired"), "{expired}");
        assert!(expired.message().contains("`new_cart`"), "{expired}");
        assert!(handles.is_empty());
    }
}
