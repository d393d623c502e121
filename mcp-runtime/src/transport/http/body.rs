//! Reading a request body under three bounds: its size (the message
//! limit), its time (the body timeout: a client that sends headers and then
//! trickles or stalls is answered `408` and cut off) and the bytes all
//! connections together may hold while their bodies arrive (the body
//! budget: past it, `503` with `Retry-After`), so stalled bodies cannot
//! pile up in memory.

use super::checks::{WithHeader, refuse, too_large};
use super::{HttpBody, HttpConfig};
use bytes::{Buf, Bytes};
use http_body_util::BodyExt;
use hyper::body::Body;
use hyper::header;
use hyper::{Response, StatusCode};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::Poll;

/// The bytes of request bodies held across all connections, at most `max`.
/// One atomic add and one subtract per chunk: the ordinary request (one
/// chunk) pays two uncontended atomic operations.
#[derive(Debug)]
pub(crate) struct BodyBudget {
    held: AtomicUsize,
    max: usize,
}

impl BodyBudget {
    pub(crate) fn new(max: usize) -> Arc<BodyBudget> {
        Arc::new(BodyBudget {
            held: AtomicUsize::new(0),
            max,
        })
    }

    /// Whether `len` more bytes fit now (a hint before reading: nothing is
    /// taken, so a body that only declares a length holds nothing).
    fn fits(&self, len: usize) -> bool {
        self.held.load(Ordering::Relaxed).saturating_add(len) <= self.max
    }
}

/// The bytes one body holds of the budget, given back when dropped (after
/// the message made from them is handled).
#[derive(Debug)]
pub(crate) struct Held {
    budget: Arc<BodyBudget>,
    bytes: usize,
}

impl Held {
    /// No bytes of `budget` (the body of a request whose body was not read).
    pub(super) fn none(budget: &Arc<BodyBudget>) -> Held {
        Held {
            budget: Arc::clone(budget),
            bytes: 0,
        }
    }

    /// Takes `n` more bytes, unless the budget would go over.
    fn take(&mut self, n: usize) -> bool {
        let budget = &self.budget;
        let taken = budget
            .held
            .fetch_update(Ordering::AcqRel, Ordering::Relaxed, |held| {
                held.checked_add(n).filter(|&total| total <= budget.max)
            })
            .is_ok();
        if taken {
            self.bytes += n;
        }
        taken
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        if self.bytes > 0 {
            self.budget.held.fetch_sub(self.bytes, Ordering::AcqRel);
        }
    }
}

/// The body of a request whose headers passed the checks: its bytes and
/// their share of the budget, or the refusal to answer with.
pub(super) async fn read<B>(
    config: &HttpConfig,
    budget: &Arc<BodyBudget>,
    declared: Option<u64>,
    body: B,
) -> Result<(Bytes, Held), Response<HttpBody>>
where
    B: Body,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    if declared.is_some_and(|len| len > config.max_body as u64) {
        return Err(too_large(config.max_body));
    }
    let declared = declared.map_or(0, |len| len as usize);
    if !budget.fits(declared) {
        return Err(over_budget());
    }
    let mut held = Held {
        budget: Arc::clone(budget),
        bytes: 0,
    };
    let outcome = {
        let mut collect = std::pin::pin!(collect(body, config.max_body, &mut held));
        // A body that came with its headers (the ordinary small POST) is
        // read without arming the timer: registering and cancelling one in
        // tokio's wheel is a measured cost per request (BENCHMARKS.md).
        // Only a body that is not all there yet waits under the timeout.
        match std::future::poll_fn(|cx| Poll::Ready(collect.as_mut().poll(cx))).await {
            Poll::Ready(read) => Ok(read),
            Poll::Pending => tokio::time::timeout(config.body_timeout, collect).await,
        }
    };
    match outcome {
        Ok(Ok(bytes)) => Ok((bytes, held)),
        Ok(Err(refusal)) => Err(refusal),
        Err(_) => Err(refuse(
            StatusCode::REQUEST_TIMEOUT,
            &format!(
                "Request Timeout: the body did not arrive within {} ms",
                config.body_timeout.as_millis()
            ),
        )
        // The rest of the body is not read: the connection cannot be reused.
        .with_header(header::CONNECTION, "close")),
    }
}

/// The chunks of `body`, each taken from the budget as it arrives.
async fn collect<B>(body: B, max: usize, held: &mut Held) -> Result<Bytes, Response<HttpBody>>
where
    B: Body,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let mut body = std::pin::pin!(body);
    // The first chunk, and any after it: a body in one chunk (the usual)
    // allocates nothing here.
    let mut first: Option<Bytes> = None;
    let mut more: Vec<Bytes> = Vec::new();
    let mut len = 0_usize;
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|err| {
            let err: Box<dyn std::error::Error + Send + Sync> = err.into();
            tracing::debug!(%err, "reading a request body failed");
            refuse(
                StatusCode::BAD_REQUEST,
                "Bad Request: the body could not be read",
            )
        })?;
        let Ok(mut data) = frame.into_data() else {
            continue;
        };
        let n = data.remaining();
        if len + n > max {
            return Err(too_large(max));
        }
        if !held.take(n) {
            return Err(over_budget());
        }
        len += n;
        // Zero-copy for hyper's `Bytes` chunks.
        let chunk = data.copy_to_bytes(n);
        if first.is_none() {
            first = Some(chunk);
        } else {
            more.push(chunk);
        }
    }
    Ok(match first {
        None => Bytes::new(),
        Some(only) if more.is_empty() => only,
        Some(first) => {
            let mut all = Vec::with_capacity(len);
            for chunk in std::iter::once(&first).chain(&more) {
                all.extend_from_slice(chunk);
            }
            Bytes::from(all)
        }
    })
}

/// `503`: the bodies being read hold the whole budget.
fn over_budget() -> Response<HttpBody> {
    refuse(
        StatusCode::SERVICE_UNAVAILABLE,
        "Service Unavailable: the server holds too many request bodies being received (Server::http_body_budget); retry shortly",
    )
    .with_header(header::RETRY_AFTER, "1")
    // The body is not read: the connection cannot be reused.
    .with_header(header::CONNECTION, "close")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_takes_up_to_its_max_and_gives_back_on_drop() {
        let budget = BodyBudget::new(10);
        let mut a = Held {
            budget: Arc::clone(&budget),
            bytes: 0,
        };
        assert!(a.take(6));
        let mut b = Held {
            budget: Arc::clone(&budget),
            bytes: 0,
        };
        assert!(!b.take(5));
        assert!(b.take(4));
        assert!(!budget.fits(1));
        drop(a);
        assert!(budget.fits(6));
        drop(b);
        assert_eq!(budget.held.load(Ordering::Relaxed), 0);
    }

    /// A body that yields `chunks` in order, each `None` a `Pending` first
    /// (woken at once: more is on its way).
    struct Scripted(std::collections::VecDeque<Option<&'static [u8]>>);

    impl Body for Scripted {
        type Data = Bytes;
        type Error = std::convert::Infallible;

        fn poll_frame(
            mut self: std::pin::Pin<&mut Self>,
            cx: &mut std::task::Context<'_>,
        ) -> Poll<Option<Result<hyper::body::Frame<Bytes>, Self::Error>>> {
            match self.0.pop_front() {
                None => Poll::Ready(None),
                Some(None) => {
                    cx.waker().wake_by_ref();
                    Poll::Pending
                }
                Some(Some(chunk)) => Poll::Ready(Some(Ok(hyper::body::Frame::data(
                    Bytes::from_static(chunk),
                )))),
            }
        }
    }

    async fn read_scripted(chunks: Vec<Option<&'static [u8]>>) -> (Bytes, usize) {
        let config = HttpConfig::new(1 << 20);
        let budget = BodyBudget::new(1 << 20);
        let (bytes, held) = read(&config, &budget, None, Scripted(chunks.into()))
            .await
            .unwrap_or_else(|response| panic!("refused: {}", response.status()));
        (bytes, held.bytes)
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_body_is_joined_from_its_chunks_whether_or_not_it_was_all_there() {
        // All there at the first poll: the path without a timer.
        assert_eq!(
            read_scripted(vec![Some(b"{}")]).await,
            (Bytes::from("{}"), 2)
        );
        assert_eq!(
            read_scripted(vec![Some(b"{\"a\""), Some(b":1}")]).await,
            (Bytes::from("{\"a\":1}"), 7)
        );
        // Still arriving: read under the timeout.
        assert_eq!(
            read_scripted(vec![Some(b"{\"a\""), None, Some(b":1"), None, Some(b"}")]).await,
            (Bytes::from("{\"a\":1}"), 7)
        );
        assert_eq!(read_scripted(vec![None]).await, (Bytes::new(), 0));
    }
}
