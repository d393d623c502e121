//! SIGINT and SIGTERM (Ctrl-C where there are no Unix signals): what
//! each ends, once the program listens for them.

/// SIGINT and SIGTERM, once listened for: no longer the default of
/// ending the process on the spot.
pub(crate) struct Signals {
    #[cfg(unix)]
    interrupt: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    terminate: Option<tokio::signal::unix::Signal>,
}

impl Signals {
    pub(crate) fn new() -> Signals {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Signals {
                interrupt: signal(SignalKind::interrupt()).ok(),
                terminate: signal(SignalKind::terminate()).ok(),
            }
        }
        #[cfg(not(unix))]
        Signals {}
    }

    /// The name of the next signal and the status to exit with (never,
    /// when they could not be listened for).
    #[cfg(unix)]
    pub(crate) async fn next(&mut self) -> (&'static str, u8) {
        let (Some(interrupt), Some(terminate)) = (&mut self.interrupt, &mut self.terminate) else {
            return std::future::pending().await;
        };
        tokio::select! {
            _ = interrupt.recv() => ("SIGINT", 130),
            _ = terminate.recv() => ("SIGTERM", 143),
        }
    }

    /// Ctrl-C, where there are no Unix signals.
    #[cfg(not(unix))]
    pub(crate) async fn next(&mut self) -> (&'static str, u8) {
        if tokio::signal::ctrl_c().await.is_err() {
            return std::future::pending().await;
        }
        ("Ctrl-C", 130)
    }
}

/// The status [`Signals::next`] gives SIGINT (Ctrl-C): it interrupts a
/// line before it ends the program.
pub(crate) const INTERRUPT_STATUS: u8 = 130;
