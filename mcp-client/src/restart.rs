//! Making a connection again once it is lost, a bounded number of times,
//! with a growing pause between restarts of a server that keeps dying.

use crate::dispatch::{Dispatcher, DispatcherConfig, Handler};
use crate::error::ClientError;
use crate::transport::TransportFactory;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Restarts of one server allowed by default ([`RestartPolicy::default`]).
pub const DEFAULT_MAX_RESTARTS: u32 = 3;
/// The pause before the second restart; each later one doubles it.
pub const FIRST_RESTART_BACKOFF: Duration = Duration::from_secs(1);
/// The longest pause between restarts.
pub const MAX_RESTART_BACKOFF: Duration = Duration::from_secs(30);

/// How often a lost connection is made again, and how long apart.
///
/// The first restart is made at once (on the next use of the server); the
/// second no sooner than [`FIRST_RESTART_BACKOFF`] after the first, and
/// each later one no sooner than twice the previous pause after the last,
/// at most [`MAX_RESTART_BACKOFF`]: a server that keeps dying is not
/// started in a tight loop, one that ran a long time before it died is
/// started again without waiting. After `max_restarts` restarts the server
/// stays lost for the client's life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RestartPolicy {
    /// Restarts in all (0: a lost server stays lost). Default
    /// [`DEFAULT_MAX_RESTARTS`].
    pub max_restarts: u32,
    /// The pause before the second restart. Default
    /// [`FIRST_RESTART_BACKOFF`].
    pub first_backoff: Duration,
    /// The cap on the pause. Default [`MAX_RESTART_BACKOFF`].
    pub max_backoff: Duration,
}

impl Default for RestartPolicy {
    fn default() -> Self {
        RestartPolicy {
            max_restarts: DEFAULT_MAX_RESTARTS,
            first_backoff: FIRST_RESTART_BACKOFF,
            max_backoff: MAX_RESTART_BACKOFF,
        }
    }
}

impl RestartPolicy {
    /// The defaults with `max_restarts` restarts.
    pub fn max_restarts(max_restarts: u32) -> RestartPolicy {
        RestartPolicy {
            max_restarts,
            ..RestartPolicy::default()
        }
    }

    /// The least time between the start of the connection before restart
    /// number `restart` (1-based) and that restart: zero for the first,
    /// then `first_backoff`, doubled each time, at most `max_backoff`.
    pub fn backoff(&self, restart: u32) -> Duration {
        match restart {
            0 | 1 => Duration::ZERO,
            n => {
                let doublings = (n - 2).min(31);
                self.first_backoff
                    .saturating_mul(1 << doublings)
                    .min(self.max_backoff)
            }
        }
    }
}

#[derive(Debug)]
struct State {
    current: Option<Arc<Dispatcher>>,
    restarts: u32,
    /// When the current connection was made, for the backoff.
    started: Instant,
}

/// Connections to one server, made by a [`TransportFactory`]: the first on
/// [`connect`](Self::connect), a new one on [`restart`](Self::restart) when
/// the layer above finds the last one lost, as its [`RestartPolicy`] allows
/// (default [`RestartPolicy::default`]).
///
/// A new connection has no handshake yet: the layer above makes it.
pub struct Reconnector {
    factory: Arc<dyn TransportFactory>,
    handler: Arc<dyn Handler>,
    config: DispatcherConfig,
    policy: RestartPolicy,
    state: tokio::sync::Mutex<State>,
}

impl std::fmt::Debug for Reconnector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reconnector")
            .field("factory", &self.factory)
            .field("config", &self.config)
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

impl Reconnector {
    /// Connections made by `factory`, their server messages handed to `handler`.
    pub fn new(
        factory: Arc<dyn TransportFactory>,
        handler: Arc<dyn Handler>,
        config: DispatcherConfig,
    ) -> Self {
        Reconnector {
            factory,
            handler,
            config,
            policy: RestartPolicy::default(),
            state: tokio::sync::Mutex::new(State {
                current: None,
                restarts: 0,
                started: Instant::now(),
            }),
        }
    }

    /// Allows `n` restarts in all, with the default backoff.
    pub fn max_restarts(mut self, n: u32) -> Self {
        self.policy.max_restarts = n;
        self
    }

    /// How many restarts, how long apart.
    pub fn policy(mut self, policy: RestartPolicy) -> Self {
        self.policy = policy;
        self
    }

    async fn open(&self) -> Result<Arc<Dispatcher>, ClientError> {
        let (transport, inbox) = self.factory.connect().await?;
        Ok(Arc::new(Dispatcher::new(
            transport,
            inbox,
            Arc::clone(&self.handler),
            self.config.clone(),
        )))
    }

    /// The current connection, made first if there is none yet (that first
    /// one is not a restart). It may have been lost since.
    pub async fn connect(&self) -> Result<Arc<Dispatcher>, ClientError> {
        let mut state = self.state.lock().await;
        if let Some(current) = &state.current {
            return Ok(Arc::clone(current));
        }
        let dispatcher = self.open().await?;
        state.current = Some(Arc::clone(&dispatcher));
        state.started = Instant::now();
        Ok(dispatcher)
    }

    /// A connection in place of `lost`. When another caller already
    /// replaced it, that one is returned (so concurrent callers restart
    /// once); when `lost` is still alive, `lost` itself. With the restarts
    /// used up, the reason `lost` ended. Waits out the policy's backoff
    /// first (other callers wait with it, for the same restart).
    pub async fn restart(&self, lost: &Arc<Dispatcher>) -> Result<Arc<Dispatcher>, ClientError> {
        let mut state = self.state.lock().await;
        if let Some(current) = &state.current
            && !Arc::ptr_eq(current, lost)
        {
            return Ok(Arc::clone(current));
        }
        let Some(reason) = lost.closed_reason() else {
            return Ok(Arc::clone(lost));
        };
        if state.restarts >= self.policy.max_restarts {
            return Err(reason);
        }
        state.restarts += 1;
        let pause = self
            .policy
            .backoff(state.restarts)
            .saturating_sub(state.started.elapsed());
        tracing::info!(
            server = %self.config.name,
            %reason,
            restart = state.restarts,
            of = self.policy.max_restarts,
            wait_ms = u64::try_from(pause.as_millis()).unwrap_or(u64::MAX),
            "connecting to the server again"
        );
        tokio::time::sleep(pause).await;
        let dispatcher = self.open().await?;
        state.current = Some(Arc::clone(&dispatcher));
        state.started = Instant::now();
        Ok(dispatcher)
    }

    /// How many restarts were made.
    pub async fn restarts(&self) -> u32 {
        self.state.lock().await.restarts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_restart_is_at_once_then_the_pause_doubles_up_to_the_cap() {
        let policy = RestartPolicy::default();
        let pauses: Vec<u64> = (1..=8).map(|n| policy.backoff(n).as_secs()).collect();
        assert_eq!(pauses, [0, 1, 2, 4, 8, 16, 30, 30]);
        assert_eq!(policy.backoff(u32::MAX), MAX_RESTART_BACKOFF);
        assert_eq!(RestartPolicy::max_restarts(0).max_restarts, 0);
    }
}
