//! A call's way to ask its transport to close the stream its response goes
//! on, before the response: SSE polling (SEP-1699, legacy Streamable HTTP),
//! where the server ends a long call's stream and the client comes back
//! with `Last-Event-ID` for the rest. The call only asks; the transport
//! (`transport/http/resume.rs`) decides what closing means and keeps what
//! the call sends meanwhile. Transports without such a stream give their
//! connections none, and asking does nothing.

use crate::util::lock;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, Waker};

/// A request to close a call's response stream, from the call to the
/// stream's body.
#[derive(Debug, Default)]
pub(crate) struct StreamClose {
    requested: AtomicBool,
    /// The body waiting for the request (one stream at a time reads it).
    waker: Mutex<Option<Waker>>,
}

impl StreamClose {
    /// Asks the stream to close; it closes once it has sent what came before.
    pub(crate) fn request(&self) {
        self.requested.store(true, Ordering::SeqCst);
        if let Some(waker) = lock(&self.waker).take() {
            waker.wake();
        }
    }

    /// Ready when a close was asked for; the request stays pending
    /// (the response head is decided on it, then the body takes it).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn poll_requested(&self, cx: &mut Context<'_>) -> Poll<()> {
        // The waker is stored before the flag is read, so a request made
        // in between still wakes this task.
        *lock(&self.waker) = Some(cx.waker().clone());
        if self.requested.load(Ordering::SeqCst) {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }

    /// As [`StreamClose::poll_requested`], taking the request: a resumed
    /// stream can be closed again.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn poll_take(&self, cx: &mut Context<'_>) -> Poll<()> {
        *lock(&self.waker) = Some(cx.waker().clone());
        if self.requested.swap(false, Ordering::SeqCst) {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}
