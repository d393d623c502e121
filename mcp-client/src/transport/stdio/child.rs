//! The child's supervisor: its exit reported, its process group signalled when
//! it is stopped or left behind.

use super::super::children;
use std::process::ExitStatus;
use std::time::Duration;
use tokio::process::Child;
use tokio::sync::{mpsc, watch};

/// A server's entry in the table of the pids tokio waits for (Linux).
#[cfg(target_os = "linux")]
type Registered = children::Registered;
/// No orphans are reaped elsewhere: nothing to enter.
#[cfg(not(target_os = "linux"))]
type Registered = ();

/// How the supervisor is asked to stop the child.
#[derive(Debug)]
pub(super) enum Stop {
    /// SIGTERM (on Unix), then SIGKILL if it still runs after this long.
    Terminate(Duration),
    /// SIGKILL now.
    Kill,
}

/// Owns the child: reports its exit, stops it when asked, kills its group
/// when every sender of `stop` is gone (the transport was dropped). Once
/// it has exited, what is left of its group is killed: a child it started
/// could hold its stdout open and hide its end.
pub(super) async fn supervise(
    name: String,
    mut child: Child,
    // Kept while tokio may still wait for the child (its entry in the
    // table of pids the orphan reaper leaves alone).
    _registered: Registered,
    mut stop: mpsc::Receiver<Stop>,
    exit: watch::Sender<Option<ExitStatus>>,
) {
    let mut group = Group::of(&child);
    let status = tokio::select! {
        status = child.wait() => status,
        request = stop.recv() => {
            let mut status = None;
            if let Some(Stop::Terminate(grace)) = request {
                tracing::debug!(server = %name, "SIGTERM to the server's process group");
                group.signal(Signal::Term);
                if let Ok(waited) = tokio::time::timeout(grace, child.wait()).await {
                    status = Some(waited);
                } else {
                    tracing::warn!(server = %name, grace_ms = grace.as_millis() as u64, "the server outlived SIGTERM; killing its process group");
                }
            }
            match status {
                Some(status) => status,
                None => {
                    group.signal(Signal::Kill);
                    let _ = child.start_kill();
                    child.wait().await
                }
            }
        }
    };
    group.signal(Signal::Kill);
    group.disarm();
    if let Ok(status) = status {
        let _ = exit.send(Some(status));
    }
}

/// The signals sent to a child's group.
#[derive(Clone, Copy, Debug)]
pub(super) enum Signal {
    Term,
    Kill,
}

/// A child's process group (its pid: it leads the group it was started
/// in). Dropped armed (the supervisor was dropped with the runtime before
/// the child ended), it kills the group.
#[derive(Debug)]
pub(super) struct Group {
    #[cfg(unix)]
    id: Option<rustix::process::Pid>,
    armed: bool,
}

impl Group {
    fn of(child: &Child) -> Group {
        #[cfg(not(unix))]
        let _ = child;
        Group {
            #[cfg(unix)]
            id: child
                .id()
                .and_then(|id| i32::try_from(id).ok())
                .and_then(rustix::process::Pid::from_raw),
            armed: true,
        }
    }

    /// Signals every process of the group. The leader has not been reaped
    /// when this is called before its exit is reported, so the id is still
    /// its group's; after, the group's id stays reserved while any of its
    /// processes lives, and signalling an empty group does nothing.
    #[cfg(unix)]
    fn signal(&self, signal: Signal) {
        let signal = match signal {
            Signal::Term => rustix::process::Signal::TERM,
            Signal::Kill => rustix::process::Signal::KILL,
        };
        if let Some(id) = self.id {
            let _ = rustix::process::kill_process_group(id, signal);
        }
    }

    /// No groups: the child alone is killed, through its handle.
    #[cfg(not(unix))]
    fn signal(&self, _: Signal) {}

    fn disarm(&mut self) {
        self.armed = false;
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        if self.armed {
            self.signal(Signal::Kill);
        }
    }
}
