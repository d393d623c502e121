//! A server's process group ends with it, but a process that left the group
//! (`setsid`, as a daemon does) would outlive the host. As the servers'
//! subreaper the host becomes the parent of every such orphan: it reaps
//! each as it exits (else each stays a zombie until the host ends), and
//! kills what of them still runs when it ends.

use mcpfn_client::orphans::{live_children, reap_orphans};
use rustix::process::{Pid, Signal, getpid, kill_process, set_child_subreaper};
use std::time::Duration;

/// Makes the host the parent of its servers' orphans.
pub(crate) fn adopt() {
    if let Err(e) = set_child_subreaper(Some(getpid())) {
        eprintln!("mcp-host: cannot adopt the servers' orphans: {e}");
    }
}

/// Reaps the adopted orphans that exit, on each `SIGCHLD` and, should
/// one be missed, every few seconds; runs until the runtime ends.
pub(crate) async fn reap() {
    use tokio::signal::unix::{SignalKind, signal};
    let mut exits = signal(SignalKind::child()).ok();
    let mut tick = tokio::time::interval(Duration::from_secs(5));
    loop {
        match exits.as_mut() {
            Some(exits) => tokio::select! {
                _ = exits.recv() => {}
                _ = tick.tick() => {}
            },
            None => {
                tick.tick().await;
            }
        }
        let reaped = reap_orphans();
        if reaped > 0 {
            tracing::debug!(reaped, "reaped adopted orphans");
        }
    }
}

/// SIGKILLs the host's live children, again while more come (an orphan
/// whose parent was just killed is adopted a moment later), for at most
/// about a second.
pub(crate) fn end() {
    for _ in 0..20 {
        let children = live_children();
        if children.is_empty() {
            return;
        }
        for pid in children.into_iter().filter_map(Pid::from_raw) {
            let _ = kill_process(pid, Signal::KILL);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}
