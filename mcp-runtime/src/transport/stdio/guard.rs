//! The stdout and stderr guard (Unix): fd 1 and fd 2 diverted to a pipe
//! that a thread drains into the stderr queue, and restored when serving
//! ends.

#[cfg(unix)]
use crate::util::lock;
#[cfg(unix)]
use std::fs::File;
#[cfg(unix)]
use std::io::{self, Read, Write};

/// Points fd 1 and fd 2 at a pipe, to be read by a thread of its own
/// ([`start_stdout_guard`]) which hands what arrives to the stderr queue. A
/// thread, not the reactor, drains it: a tool that prints on the runtime's
/// thread would otherwise fill the pipe and then wait on itself. One pipe
/// for both: they go to the same queue, writes up to `PIPE_BUF` stay whole
/// either way, and one thread is enough. The original fd 2 is kept first
/// ([`crate::logging::real_stderr`]) for the queue's writer.
///
/// The thread is started later, by the main loop, because creating it would
/// add a tenth to the time from spawn to the `initialize` response. Until it
/// runs, prints wait in the pipe (64 KiB); nothing can fill that first, as no
/// tool runs before it starts.
#[cfg(unix)]
pub(super) fn divert_stdout() -> io::Result<()> {
    let (read, write) = rustix::pipe::pipe()?;
    // Child processes inherit fd 1 (their prints are diverted too), never the
    // read end.
    rustix::io::fcntl_setfd(&read, rustix::io::FdFlags::CLOEXEC)?;
    crate::logging::real_stderr()?;
    rustix::stdio::dup2_stdout(&write)?;
    rustix::stdio::dup2_stderr(&write)?;
    *lock(&DIVERTED) = Diverted::Waiting(File::from(read));
    Ok(())
}

/// Starts the thread that drains diverted stdout, if it waits to be. It ends
/// when [`end_stdout_guard`] closes the pipe's write ends, or with the
/// process. Should the thread not start, fd 1 and fd 2 go to the original
/// stderr instead.
#[cfg(unix)]
pub(super) fn start_stdout_guard() {
    // The buffer is on the thread's stack, not the heap: a thread's first
    // allocation gives it a malloc arena of its own, resident pages the
    // process would keep for a thread that mostly sleeps.
    const GUARD_READ: usize = 4096;
    const GUARD_STACK: usize = 64 * 1024;
    let mut diverted = lock(&DIVERTED);
    let mut read = match std::mem::replace(&mut *diverted, Diverted::Off) {
        Diverted::Waiting(read) => read,
        // Not diverted, or the thread runs already.
        other => {
            *diverted = other;
            return;
        }
    };
    let reader = std::thread::Builder::new()
        .name("mcp-stdout-guard".into())
        .stack_size(GUARD_STACK)
        .spawn(move || {
            let mut buf = [0u8; GUARD_READ];
            loop {
                match read.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => crate::logging::write(&buf[..n]),
                    Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
        });
    match reader {
        Ok(reader) => *diverted = Diverted::Running(reader),
        Err(err) => {
            restore_stdio();
            tracing::warn!(error = %err, "the stdout guard could not start; stdout now goes to stderr");
        }
    }
}

/// Points fd 1 and fd 2 at the original stderr; fd 2 is the original
/// stderr again, not the guard's pipe.
#[cfg(unix)]
fn restore_stdio() -> bool {
    let Ok(real) = crate::logging::real_stderr() else {
        return false;
    };
    let err = rustix::stdio::dup2_stderr(real).is_err();
    rustix::stdio::dup2_stdout(real).is_ok() && !err
}

/// Where diverted stdout stands.
#[cfg(unix)]
enum Diverted {
    /// Not diverted, or no longer.
    Off,
    /// Diverted; the read end of the pipe waits for its thread.
    Waiting(File),
    /// Diverted, and this thread reads the pipe.
    Running(std::thread::JoinHandle<()>),
}

#[cfg(unix)]
static DIVERTED: std::sync::Mutex<Diverted> = std::sync::Mutex::new(Diverted::Off);

/// Ends the guard once serving is over: what is buffered in `stdout` or
/// still in the pipe reaches the stderr queue (waiting at most `wait`, as a
/// child process may hold the pipe open), and fd 1 and fd 2 are the original
/// stderr from then on.
pub(crate) fn end_stdout_guard(wait: std::time::Duration) {
    #[cfg(unix)]
    {
        // A loop that ended before it ever waited did not start the reader.
        start_stdout_guard();
        let Diverted::Running(reader) = std::mem::replace(&mut *lock(&DIVERTED), Diverted::Off)
        else {
            return;
        };
        let _ = io::stdout().flush();
        // Replacing fd 1 and fd 2 closes the pipe's last write ends in this
        // process: the reader reads to the end of what was written and ends.
        if !restore_stdio() {
            return;
        }
        let deadline = std::time::Instant::now() + wait;
        while !reader.is_finished() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_micros(100));
        }
    }
    #[cfg(not(unix))]
    let _ = wait;
}
