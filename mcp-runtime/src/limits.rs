//! Limits on tool calls: how many run at once, how many may wait and for
//! how long, and how many may start per second (the specification says servers MUST rate-limit
//! tool calls).

use crate::util::{FastMap, lock};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, SemaphorePermit};

/// Calls that run at once by default; more wait for a slot.
pub(crate) const DEFAULT_MAX_CONCURRENT_CALLS: usize = 256;
/// Run slots one client (a verified subject, or a peer address) may hold at
/// once by default: a quarter of the total, so a client holding long calls
/// leaves the others three quarters.
pub(crate) const DEFAULT_MAX_CONCURRENT_CALLS_PER_CLIENT: usize = 64;
/// Calls in flight (running or waiting) by default before new ones are refused.
pub(crate) const DEFAULT_MAX_PENDING_CALLS: usize = 65_536;
/// How long a call waits for a run slot by default before it is answered
/// "busy, retry": 30 s, under the 60 s after which common clients give up.
pub(crate) const DEFAULT_QUEUE_TIMEOUT: Duration = Duration::from_secs(30);
/// Sustained calls per second by default.
pub(crate) const DEFAULT_RATE_PER_SECOND: u32 = 1_000;
/// Calls that may arrive at once by default, above the sustained rate.
pub(crate) const DEFAULT_RATE_BURST: u32 = 2_000;

/// The rate limit: a token bucket.
#[derive(Debug)]
struct TokenBucket {
    per_second: f64,
    burst: f64,
    tokens: f64,
    refilled: Instant,
}

impl TokenBucket {
    fn take(&mut self) -> Result<(), Duration> {
        let now = Instant::now();
        let elapsed = now.duration_since(self.refilled).as_secs_f64();
        self.tokens = (self.tokens + elapsed * self.per_second).min(self.burst);
        self.refilled = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64(
                (1.0 - self.tokens) / self.per_second,
            ))
        }
    }
}

/// The server's call limits.
#[derive(Debug)]
pub(crate) struct Limits {
    running: Semaphore,
    /// Each client's share of `running`.
    per_client: ClientSlots,
    queue_timeout: Duration,
    pub(crate) max_pending: usize,
    rate: Option<Rate>,
}

/// The rate limit, per client: the bucket of the connection without a
/// client key (stdio's one client), and one per client key, so one client
/// spending its calls never spends another's.
#[derive(Debug)]
struct Rate {
    per_second: f64,
    burst: f64,
    unkeyed: Mutex<TokenBucket>,
    clients: Mutex<FastMap<Arc<str>, TokenBucket>>,
}

impl Rate {
    fn bucket(&self) -> TokenBucket {
        TokenBucket {
            per_second: self.per_second,
            burst: self.burst,
            tokens: self.burst,
            refilled: Instant::now(),
        }
    }

    fn take(&self, client: Option<&str>) -> Result<(), Duration> {
        let Some(client) = client else {
            return lock(&self.unkeyed).take();
        };
        let mut clients = lock(&self.clients);
        if clients.len() >= CLIENT_SWEEP_AT {
            // A bucket refilled to its burst is a fresh one: forget it.
            let now = Instant::now();
            clients.retain(|_, b| {
                b.tokens + now.duration_since(b.refilled).as_secs_f64() * b.per_second < b.burst
            });
        }
        if let Some(bucket) = clients.get_mut(client) {
            return bucket.take();
        }
        let mut bucket = self.bucket();
        let taken = bucket.take();
        clients.insert(Arc::from(client), bucket);
        taken
    }
}

/// The run slots each client holds: a semaphore of `per_client` permits per
/// client key, made when the client first calls and forgotten once it
/// holds none.
#[derive(Debug)]
struct ClientSlots {
    per_client: usize,
    clients: Mutex<FastMap<Arc<str>, Arc<Semaphore>>>,
}

/// Clients remembered before those holding no slot are forgotten.
const CLIENT_SWEEP_AT: usize = 1_024;

impl ClientSlots {
    fn semaphore(&self, client: &str) -> Arc<Semaphore> {
        let mut clients = lock(&self.clients);
        if clients.len() >= CLIENT_SWEEP_AT {
            // Held by nobody but the map, every permit back: idle.
            let per_client = self.per_client;
            clients.retain(|_, s| Arc::strong_count(s) > 1 || s.available_permits() < per_client);
        }
        if let Some(semaphore) = clients.get(client) {
            return Arc::clone(semaphore);
        }
        let semaphore = Arc::new(Semaphore::new(self.per_client));
        clients.insert(Arc::from(client), Arc::clone(&semaphore));
        semaphore
    }
}

/// A call's run slot: one of the server's, and one of its client's share
/// when it has a client key.
#[derive(Debug)]
pub(crate) struct RunSlot<'a> {
    _server: Option<SemaphorePermit<'a>>,
    _client: Option<OwnedSemaphorePermit>,
}

impl Limits {
    pub(crate) fn new(
        max_concurrent: usize,
        max_per_client: usize,
        max_pending: usize,
        queue_timeout: Duration,
        rate: Option<(u32, u32)>,
    ) -> Limits {
        let max_concurrent = max_concurrent.max(1);
        Limits {
            running: Semaphore::new(max_concurrent),
            per_client: ClientSlots {
                per_client: max_per_client.clamp(1, max_concurrent),
                clients: Mutex::new(FastMap::default()),
            },
            queue_timeout,
            max_pending: max_pending.max(max_concurrent),
            rate: rate.map(|(per_second, burst)| {
                let per_second = f64::from(per_second.max(1));
                let burst = f64::from(burst.max(1));
                Rate {
                    per_second,
                    burst,
                    unkeyed: Mutex::new(TokenBucket {
                        per_second,
                        burst,
                        tokens: burst,
                        refilled: Instant::now(),
                    }),
                    clients: Mutex::new(FastMap::default()),
                }
            }),
        }
    }

    /// Takes a token of `client`'s bucket for a new call; `Err` says how
    /// long until one is free.
    pub(crate) fn admit(&self, client: Option<&str>) -> Result<(), Duration> {
        match &self.rate {
            Some(rate) => rate.take(client),
            None => Ok(()),
        }
    }

    /// Waits for a slot to run in, at most the queue timeout: slots held by
    /// calls that never end must not make later calls wait forever. A call
    /// of `client` first waits for a slot of its client's share, so one
    /// client's calls never hold more than that share of the server's.
    pub(crate) async fn run_slot(&self, client: Option<&str>) -> Result<RunSlot<'_>, QueueTimeout> {
        // A free slot is taken at once, without arming the queue timeout:
        // reading the clock and making the timer cost more than a short
        // call itself (the in-process door's `add`), and most calls find
        // a slot free.
        if client.is_none()
            && let Ok(permit) = self.running.try_acquire()
        {
            return Ok(RunSlot {
                _server: Some(permit),
                _client: None,
            });
        }
        let acquire = async {
            let client = match client {
                Some(client) => self.per_client.semaphore(client).acquire_owned().await.ok(),
                None => None,
            };
            RunSlot {
                _server: self.running.acquire().await.ok(),
                _client: client,
            }
        };
        tokio::time::timeout(self.queue_timeout, acquire)
            .await
            .map_err(|_| QueueTimeout {
                waited: self.queue_timeout,
            })
    }
}

/// A call waited the whole queue timeout without getting a slot.
#[derive(Debug)]
pub(crate) struct QueueTimeout {
    pub(crate) waited: Duration,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Stops `client`'s bucket from refilling until its next take: the
    /// verdicts below do not depend on how fast the machine runs them.
    fn freeze(limits: &Limits, client: Option<&str>) {
        let rate = limits.rate.as_ref().unwrap();
        let never = Instant::now() + Duration::from_secs(3600);
        match client {
            None => lock(&rate.unkeyed).refilled = never,
            Some(client) => lock(&rate.clients).get_mut(client).unwrap().refilled = never,
        }
    }

    #[test]
    fn the_bucket_allows_a_burst_then_the_rate() {
        let limits = Limits::new(4, 4, 8, DEFAULT_QUEUE_TIMEOUT, Some((10, 3)));
        for _ in 0..3 {
            freeze(&limits, None);
            assert!(limits.admit(None).is_ok());
        }
        freeze(&limits, None);
        // Empty: the next token is a tenth of a second away.
        assert_eq!(limits.admit(None), Err(Duration::from_millis(100)));
        // A tenth of a second later, one more.
        lock(&limits.rate.as_ref().unwrap().unkeyed).refilled -= Duration::from_millis(100);
        assert!(limits.admit(None).is_ok());
        freeze(&limits, None);
        assert!(limits.admit(None).is_err());
        // Each client has a bucket of its own: mallory's spending leaves
        // alice's whole.
        assert!(limits.admit(Some("mallory")).is_ok());
        for _ in 0..2 {
            freeze(&limits, Some("mallory"));
            assert!(limits.admit(Some("mallory")).is_ok());
        }
        freeze(&limits, Some("mallory"));
        assert!(limits.admit(Some("mallory")).is_err());
        for _ in 0..3 {
            assert!(limits.admit(Some("alice")).is_ok());
            freeze(&limits, Some("alice"));
        }
        let unlimited = Limits::new(1, 1, 1, DEFAULT_QUEUE_TIMEOUT, None);
        for _ in 0..10_000 {
            assert!(unlimited.admit(None).is_ok());
        }
    }

    #[tokio::test]
    async fn a_call_waits_for_a_slot_at_most_the_queue_timeout() {
        let wait = Duration::from_millis(50);
        let limits = Limits::new(1, 1, 8, wait, None);
        let held = limits.run_slot(None).await.unwrap();
        let started = Instant::now();
        let timeout = limits.run_slot(None).await.unwrap_err();
        assert!(started.elapsed() >= wait);
        assert_eq!(timeout.waited, wait);
        drop(held);
        assert!(limits.run_slot(None).await.is_ok());
    }

    #[tokio::test]
    async fn a_client_holds_at_most_its_share_and_others_still_run() {
        let wait = Duration::from_millis(50);
        let limits = Limits::new(4, 2, 64, wait, None);
        let mut mallory = Vec::new();
        for _ in 0..2 {
            mallory.push(limits.run_slot(Some("mallory")).await.unwrap());
        }
        assert!(
            limits.run_slot(Some("mallory")).await.is_err(),
            "a third of mallory's waits for one of its own"
        );
        // Alice and the client-less (stdio) caller get the rest at once.
        let alice = limits.run_slot(Some("alice")).await.unwrap();
        let stdio = limits.run_slot(None).await.unwrap();
        drop((alice, stdio));
        drop(mallory.pop());
        assert!(limits.run_slot(Some("mallory")).await.is_ok());
    }
}
