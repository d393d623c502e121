//! Making a connection again once it is lost, a bounded number of times.

use crate::dispatch::{Dispatcher, DispatcherConfig, Handler};
use crate::error::ClientError;
use crate::transport::TransportFactory;
use std::sync::Arc;

#[derive(Debug, Default)]
struct State {
    current: Option<Arc<Dispatcher>>,
    restarts: u32,
}

/// Connections to one server, made by a [`TransportFactory`]: the first on
/// [`connect`](Self::connect), a new one on [`restart`](Self::restart) when
/// the layer above finds the last one lost, at most `max_restarts` times
/// (default 1: "restarted once on next use").
///
/// A new connection has no handshake yet: the layer above makes it.
pub struct Reconnector {
    factory: Arc<dyn TransportFactory>,
    handler: Arc<dyn Handler>,
    config: DispatcherConfig,
    max_restarts: u32,
    state: tokio::sync::Mutex<State>,
}

impl std::fmt::Debug for Reconnector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reconnector")
            .field("factory", &self.factory)
            .field("config", &self.config)
            .field("max_restarts", &self.max_restarts)
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
            max_restarts: 1,
            state: tokio::sync::Mutex::new(State::default()),
        }
    }

    /// Allows `n` restarts in all (default 1).
    pub fn max_restarts(mut self, n: u32) -> Self {
        self.max_restarts = n;
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
        Ok(dispatcher)
    }

    /// A connection in place of `lost`. When another caller already
    /// replaced it, that one is returned (so concurrent callers restart
    /// once); when `lost` is still alive, `lost` itself. With the restarts
    /// used up, the reason `lost` ended.
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
        if state.restarts >= self.max_restarts {
            return Err(reason);
        }
        state.restarts += 1;
        tracing::info!(server = %self.config.name, %reason, "connecting to the server again");
        let dispatcher = self.open().await?;
        state.current = Some(Arc::clone(&dispatcher));
        Ok(dispatcher)
    }

    /// How many restarts were made.
    pub async fn restarts(&self) -> u32 {
        self.state.lock().await.restarts
    }
}
