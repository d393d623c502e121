//! Small helpers shared across the crate: poison-tolerant locking and
//! durations written for people.

use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

/// Locks a mutex, recovering from poisoning: every critical section in this
/// crate leaves the data consistent, so a panic elsewhere must not wedge the
/// server.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// `d` for people: whole seconds as `30s`, anything else as `300ms`.
pub(crate) fn human_duration(d: Duration) -> String {
    if d.subsec_millis() == 0 && d.as_secs() > 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
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
