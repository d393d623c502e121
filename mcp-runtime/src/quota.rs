//! Per-client quotas over a time window: how many of something (open input
//! requests, handles) one client made that may still be alive, so that one
//! client cannot take the room in a shared, bounded store that every other
//! client needs. In this process: replicas each count their own.

use crate::util::{FastMap, lock};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// At most `per_client` things made per client within a window (the things'
/// lifetime, given with each one).
#[derive(Debug)]
pub(crate) struct WindowQuota {
    per_client: usize,
    /// Each client's things, as (made at, window), oldest first.
    clients: Mutex<FastMap<String, VecDeque<(Instant, Duration)>>>,
}

/// Clients remembered before those with nothing alive are forgotten.
const SWEEP_AT: usize = 4_096;

impl WindowQuota {
    /// A quota of `per_client` (at least one).
    pub(crate) fn new(per_client: usize) -> WindowQuota {
        WindowQuota {
            per_client: per_client.max(1),
            clients: Mutex::new(FastMap::default()),
        }
    }

    /// Counts one more thing of `client`, alive for `window`, unless the
    /// client has its quota alive; then how long until its oldest expires.
    pub(crate) fn admit(
        self: &Arc<Self>,
        client: &str,
        window: Duration,
    ) -> Result<QuotaPlace, Duration> {
        let now = Instant::now();
        let alive = |(at, window): &(Instant, Duration)| now.duration_since(*at) < *window;
        let mut clients = lock(&self.clients);
        if clients.len() >= SWEEP_AT {
            clients.retain(|_, made| {
                made.retain(alive);
                !made.is_empty()
            });
        }
        let made = clients.entry(client.to_owned()).or_default();
        made.retain(alive);
        if made.len() >= self.per_client {
            let wait = made
                .iter()
                .map(|(at, window)| window.saturating_sub(now.duration_since(*at)))
                .min()
                .unwrap_or_default();
            return Err(wait);
        }
        made.push_back((now, window));
        Ok(QuotaPlace {
            quota: Arc::clone(self),
            client: client.to_owned(),
        })
    }
}

/// A place taken in a client's quota; [`QuotaPlace::release`] gives it
/// back when the thing was not made after all.
#[derive(Debug)]
pub(crate) struct QuotaPlace {
    quota: Arc<WindowQuota>,
    client: String,
}

impl QuotaPlace {
    /// Gives the place back (the newest of the client's).
    pub(crate) fn release(self) {
        if let Some(made) = lock(&self.quota.clients).get_mut(&self.client) {
            made.pop_back();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_gets_its_quota_within_the_window_and_others_theirs() {
        let quota = Arc::new(WindowQuota::new(2));
        let minute = Duration::from_secs(60);
        quota.admit("mallory", minute).unwrap();
        let place = quota.admit("mallory", minute).unwrap();
        let wait = quota.admit("mallory", minute).unwrap_err();
        assert!(wait > Duration::from_secs(59) && wait <= minute, "{wait:?}");
        quota.admit("alice", minute).unwrap();
        place.release();
        quota.admit("mallory", minute).unwrap();
        // Things whose window has passed no longer count.
        let short = Arc::new(WindowQuota::new(1));
        short.admit("a", Duration::from_millis(1)).unwrap();
        std::thread::sleep(Duration::from_millis(5));
        short.admit("a", Duration::from_millis(1)).unwrap();
    }
}
