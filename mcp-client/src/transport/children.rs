//! The host's child processes on Linux, where a host that is its servers'
//! subreaper (`PR_SET_CHILD_SUBREAPER`) becomes the parent of every process
//! they leave behind: which of its children are its own servers, which are
//! adopted orphans, and the reaping of the orphans that exited.
//!
//! A server's exit status is tokio's to collect (it waits on that one pid):
//! reaping it here would steal it. So every server is entered in one table
//! as it is spawned, under the lock the reaper also takes, and the reaper
//! waits on exactly the pids of zombie children that are not in it, never
//! on "any child" (`waitpid(-1)`).

use rustix::process::{Pid, WaitOptions, getpid, waitpid};
use std::collections::HashSet;
use std::sync::{Mutex, MutexGuard};

/// The pids of the stdio servers spawned and not yet waited for.
static SPAWNED: Mutex<Option<HashSet<i32>>> = Mutex::new(None);

fn spawned() -> MutexGuard<'static, Option<HashSet<i32>>> {
    SPAWNED.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `spawn` (which starts one child and returns its pid) and enters the
/// pid in the table, both under its lock: a child that exits at once cannot
/// be taken for an orphan before it is entered.
pub(crate) fn spawn_registered<T>(spawn: impl FnOnce() -> (T, Option<u32>)) -> (T, Registered) {
    let mut table = spawned();
    let (spawned, pid) = spawn();
    let pid = pid.and_then(|pid| i32::try_from(pid).ok());
    if let Some(pid) = pid {
        table.get_or_insert_with(HashSet::new).insert(pid);
    }
    (spawned, Registered(pid))
}

/// A server's entry in the table, removed when dropped (once tokio has
/// waited for it, or given it to its own orphan queue).
#[derive(Debug)]
pub(crate) struct Registered(Option<i32>);

impl Drop for Registered {
    fn drop(&mut self) {
        if let (Some(pid), Some(table)) = (self.0, spawned().as_mut()) {
            table.remove(&pid);
        }
    }
}

/// One child of this process, from `/proc/<pid>/stat`.
struct Child {
    pid: i32,
    zombie: bool,
}

/// This process's children, from `/proc/*/stat` (each thread's
/// `task/*/children` needs a kernel option; this does not).
fn children() -> Vec<Child> {
    let me = getpid().as_raw_nonzero().get();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| {
            let pid: i32 = entry.ok()?.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // After the command name, which may hold spaces and `)`: the
            // state, then the parent's pid.
            let mut rest = stat.rsplit_once(')')?.1.split_whitespace();
            let state = rest.next()?;
            let parent: i32 = rest.next()?.parse().ok()?;
            (parent == me).then_some(Child {
                pid,
                zombie: state == "Z",
            })
        })
        .collect()
}

/// Reaps the exited children of this process that are not its stdio
/// servers (orphans it adopted as their subreaper, or a process it started
/// and never waited for); returns how many. Call it on `SIGCHLD`: without
/// it each such exit stays a zombie, holding its pid, until the host ends.
pub fn reap_orphans() -> usize {
    let table = spawned();
    let mut reaped = 0;
    for child in children() {
        let ours = table.as_ref().is_some_and(|t| t.contains(&child.pid));
        if !child.zombie || ours {
            continue;
        }
        let Some(pid) = Pid::from_raw(child.pid) else {
            continue;
        };
        if let Ok(Some(_)) = waitpid(Some(pid), WaitOptions::NOHANG) {
            reaped += 1;
        }
    }
    reaped
}

/// The pids of this process's children that still run (zombies left out):
/// what a subreaper ends when it ends.
pub fn live_children() -> Vec<i32> {
    children()
        .into_iter()
        .filter(|child| !child.zombie)
        .map(|child| child.pid)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;
    use std::time::{Duration, Instant};

    /// Waits (at most 5 s) until `pid` has exited and is not yet reaped.
    fn until_zombie(pid: u32) {
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            let zombie = children().iter().any(|c| c.pid == pid as i32 && c.zombie);
            if zombie {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        panic!("{pid} did not become a zombie");
    }

    #[test]
    fn orphans_are_reaped_and_a_registered_childs_status_is_left_to_its_waiter() {
        let (ours, registered) = spawn_registered(|| {
            let child = Command::new("sh").args(["-c", "exit 3"]).spawn().unwrap();
            let pid = child.id();
            (child, Some(pid))
        });
        let mut ours = ours;
        // Never waited for: the reaper's to collect.
        #[allow(clippy::zombie_processes)]
        let stray = Command::new("sh").args(["-c", "exit 4"]).spawn().unwrap();
        until_zombie(ours.id());
        until_zombie(stray.id());
        assert!(reap_orphans() >= 1);
        assert!(!std::path::Path::new(&format!("/proc/{}", stray.id())).exists());
        assert!(!live_children().contains(&(ours.id() as i32)));
        // Its status is still its waiter's.
        assert_eq!(ours.wait().unwrap().code(), Some(3));
        drop(registered);
    }
}
