//! Where the runtime keeps what outlives one request: the ids of spent
//! 2026-07-28 `requestState`s and the entries behind [`Handles`](crate::Handles).
//! In memory by default ([`MemoryStore`]); replicas behind one load balancer
//! share a `RedisStore` (feature `redis`), so a basket made on one replica
//! is found on the next and a state answered on one is refused on all. The
//! store also carries messages between the servers that share it
//! ([`Store::publish`], [`Store::listen`]): a resource update told to one
//! replica ([`Notifier`](crate::Notifier)) reaches the subscribers of all.

#[cfg(any(test, feature = "testing"))]
pub(crate) mod contract;
mod memory;
#[cfg(feature = "redis")]
mod redis;

pub use memory::MemoryStore;
#[cfg(feature = "redis")]
pub use redis::RedisStore;

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;
use tokio::sync::mpsc;

/// What a [`Store`] operation returns: a boxed, sendable future, so the trait
/// stays object-safe (the server holds an `Arc<dyn Store>`).
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// A small key-value store with expiry: string keys, byte values, each entry
/// living for a time-to-live. Every operation is atomic on its key, so
/// several servers sharing one store agree on who spent a state or changed a
/// handle first.
///
/// Implementations must answer promptly: a store that cannot be reached
/// fails the operation with a [`StoreError`] (bounded by a timeout) rather
/// than holding the call, so that calls that need no state keep working
/// while it is down.
///
/// ```
/// use mcpfn_runtime::store::{MemoryStore, Store};
/// use std::time::Duration;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), mcpfn_runtime::store::StoreError> {
/// let store = MemoryStore::new();
/// let minute = Duration::from_secs(60);
/// assert!(store.put_if_absent("spent:a1", b"".to_vec(), minute).await?);
/// assert!(!store.put_if_absent("spent:a1", b"".to_vec(), minute).await?, "once only");
/// store.put("n", b"1".to_vec(), minute).await?;
/// assert!(store.compare_and_set("n", b"1", b"2".to_vec(), minute).await?);
/// assert!(!store.compare_and_set("n", b"1", b"3".to_vec(), minute).await?, "changed meanwhile");
/// assert_eq!(store.get("n").await?, Some(b"2".to_vec()));
/// # Ok(())
/// # }
/// ```
pub trait Store: Send + Sync + fmt::Debug + 'static {
    /// Sets `key` to `value` for `ttl`, whatever it held.
    fn put<'a>(&'a self, key: &'a str, value: Vec<u8>, ttl: Duration) -> StoreFuture<'a, ()>;

    /// The value of `key`, or `None` when it is absent or expired.
    fn get<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<Vec<u8>>>;

    /// Removes `key`; `true` when it was there.
    fn delete<'a>(&'a self, key: &'a str) -> StoreFuture<'a, bool>;

    /// Sets `key` to `value` for `ttl` only if it is absent; `true` when set.
    /// This is how a single-use id is spent exactly once.
    fn put_if_absent<'a>(
        &'a self,
        key: &'a str,
        value: Vec<u8>,
        ttl: Duration,
    ) -> StoreFuture<'a, bool>;

    /// Sets `key` to `new` for `ttl` only if it holds exactly `expected`;
    /// `true` when set. A read-modify-write that retries on `false` loses no
    /// concurrent update.
    fn compare_and_set<'a>(
        &'a self,
        key: &'a str,
        expected: &'a [u8],
        new: Vec<u8>,
        ttl: Duration,
    ) -> StoreFuture<'a, bool>;

    /// Removes `key` only if it holds exactly `expected`; `true` when removed.
    fn compare_and_delete<'a>(&'a self, key: &'a str, expected: &'a [u8]) -> StoreFuture<'a, bool>;

    /// Sends `message` to every listener of `channel` ([`Store::listen`])
    /// on every server sharing this store, this one included. Nothing is
    /// kept: a listener that is not listening now never gets it.
    fn publish<'a>(&'a self, channel: &'a str, message: Vec<u8>) -> StoreFuture<'a, ()>;

    /// Passes `to` each message published on `channel` from now on, until
    /// `to` is closed; then completes with `Ok`. While the store cannot be
    /// reached it keeps trying to listen again (what is published meanwhile
    /// is lost) rather than failing. A message that finds `to` full is
    /// dropped, so a slow listener never holds the store back.
    fn listen<'a>(&'a self, channel: &'a str, to: mpsc::Sender<Vec<u8>>) -> StoreFuture<'a, ()>;
}

/// Why a [`Store`] operation failed. Its text, shown to the model in an
/// `isError` result, starts with "state store unavailable".
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum StoreError {
    /// The store could not be reached or did not answer in time, or it
    /// failed; the text says which.
    Unavailable(String),
    /// A bounded store is full of unexpired entries; the soonest expires
    /// in this long.
    Full(Duration),
}

impl StoreError {
    /// A failure of the backend, described by `reason`.
    pub fn unavailable(reason: impl fmt::Display) -> StoreError {
        StoreError::Unavailable(reason.to_string())
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Unavailable(reason) => write!(f, "state store unavailable: {reason}"),
            StoreError::Full(wait) => write!(
                f,
                "state store unavailable: full of unexpired entries; retry in {}",
                crate::util::human_duration(*wait)
            ),
        }
    }
}

impl std::error::Error for StoreError {}
