//! Small helpers shared across the crate: poison-tolerant locking, the
//! hash map of the per-call paths, durations written for people, the
//! boxed future every handler and store call returns, and the panic guard
//! a tool's and a resource read's futures run under.
//!
//! Every critical section in this crate leaves its data consistent (each
//! update is a single step), so a panic elsewhere must not wedge the
//! server: poisoning is ignored everywhere, through these helpers.

use std::future::Future;
use std::pin::Pin;
use std::sync::{LockResult, Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::task::Poll;
use std::time::Duration;

/// A boxed, sendable future, the shape every tool handler returns.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// A hash map for the maps a call looks up several times (calls in flight,
/// requests to the client, tools by name). foldhash with a per-map random
/// seed: several times cheaper than std's SipHash on short keys like request
/// ids, and still seeded, so a client cannot precompute colliding ids (the
/// maps are bounded by the pending-call limit anyway).
pub(crate) type FastMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

/// Polls `future` once, with no waker: for work that usually finishes at
/// once (a call, a read, a spend in memory), run on the connection's loop
/// without a task. A pending one is moved to a task of its own, whose
/// first poll registers the waker that counts.
pub(crate) fn poll_now<F: Future + ?Sized>(future: Pin<&mut F>) -> Poll<F::Output> {
    future.poll(&mut std::task::Context::from_waker(std::task::Waker::noop()))
}

/// Locks a mutex, recovering from poisoning.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    unpoisoned(mutex.lock())
}

/// Read-locks an `RwLock`, recovering from poisoning.
pub(crate) fn read<T>(lock: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    unpoisoned(lock.read())
}

/// Write-locks an `RwLock`, recovering from poisoning.
pub(crate) fn write<T>(lock: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    unpoisoned(lock.write())
}

/// The guard (or condition-variable result) whether or not the lock was
/// poisoned.
pub(crate) fn unpoisoned<G>(result: LockResult<G>) -> G {
    result.unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// `d` for people: whole seconds as `30s`, anything else as `300ms`.
pub(crate) fn human_duration(d: Duration) -> String {
    if d.subsec_millis() == 0 && d.as_secs() > 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    }
}

/// Polls a future, catching a panic as `Err` instead of unwinding the task
/// (a tool's, a resource read's).
pub(crate) struct CatchUnwind<T>(pub(crate) BoxFuture<T>);

impl<T> Future for CatchUnwind<T> {
    type Output = Result<T, Box<dyn std::any::Any + Send>>;

    fn poll(
        mut self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Self::Output> {
        let future = &mut self.0;
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| future.as_mut().poll(cx))) {
            Ok(std::task::Poll::Pending) => std::task::Poll::Pending,
            Ok(std::task::Poll::Ready(outcome)) => std::task::Poll::Ready(Ok(outcome)),
            Err(payload) => std::task::Poll::Ready(Err(payload)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_naturally() {
        assert_eq!(human_duration(Duration::from_secs(30)), "30s");
        assert_eq!(human_duration(Duration::from_millis(1500)), "1500ms");
        assert_eq!(human_duration(Duration::ZERO), "0ms");
    }
}
