//! Resumable event streams of legacy POSTs (SSE polling, SEP-1699): each
//! event of a call's stream carries an id (`<stream>-<n>`); a call may ask
//! its stream to close ([`Context::close_sse_stream`](crate::Context::close_sse_stream)),
//! which ends it with an event carrying `retry` while the call runs on; the
//! client's `GET` with `Last-Event-ID` then resumes the stream: the events
//! after that id it missed, and then the rest of the call's.
//!
//! Bounded: a stream keeps its last [`RING_EVENTS`] events (at most
//! [`RING_BYTES`]) to replay; a closed stream's later events wait in the
//! call's outbox, bounded like any stream's (`Server::max_sse_unwritten`);
//! a session holds at most [`PARKED_PER_SESSION`] closed streams, the
//! oldest dropped (its call cancelled) for a new one. A `Last-Event-ID` the
//! session cannot resume from (unknown stream, resumed already, events no
//! longer held) gets `400`, never another stream's events.

use super::cancel::CancelOnDrop;
use crate::conn::outbox::Frames;
use crate::conn::stream_close::StreamClose;
use crate::util::lock;
use bytes::Bytes;
use std::collections::VecDeque;
use std::fmt;
use std::sync::{Arc, Mutex};

/// The `retry` (milliseconds) a closed stream tells the client to wait
/// before it reconnects.
pub(crate) const RETRY_MS: u64 = 1_000;
/// Events a stream keeps to replay to a client that missed them.
pub(crate) const RING_EVENTS: usize = 32;
/// Bytes of events a stream keeps to replay, at most (a larger event is not
/// kept: a client that misses it cannot resume past it).
pub(crate) const RING_BYTES: usize = 64 * 1024;
/// Closed streams one legacy session holds for resumption at most.
pub(crate) const PARKED_PER_SESSION: usize = 16;

/// The ids of one stream's events, and its last events, to replay.
#[derive(Debug)]
pub(crate) struct EventLog {
    stream: String,
    /// The number of the next event.
    next: u64,
    /// Events sent, oldest first, by number, without gaps; a close event
    /// is held as `None` (it is not replayed).
    ring: VecDeque<(u64, Option<Bytes>)>,
    ring_bytes: usize,
}

impl EventLog {
    /// A log with a fresh random stream id.
    pub(crate) fn new() -> EventLog {
        let mut bytes = [0u8; 9];
        // Without OS randomness a client could guess another stream's id.
        getrandom::fill(&mut bytes).expect("the operating system provides randomness");
        EventLog {
            stream: bytes.iter().map(|b| format!("{b:02x}")).collect(),
            next: 1,
            ring: VecDeque::new(),
            ring_bytes: 0,
        }
    }

    /// The id of event `n`.
    fn id(&self, n: u64) -> String {
        format!("{}-{n}", self.stream)
    }

    /// `message` (an SSE `message` event, without id) as the stream's next
    /// event, kept for replay.
    pub(crate) fn event(&mut self, message: &[u8]) -> Bytes {
        let n = self.next;
        self.next += 1;
        let id = self.id(n);
        let mut event = Vec::with_capacity(message.len() + id.len() + 5);
        event.extend_from_slice(b"id: ");
        event.extend_from_slice(id.as_bytes());
        event.push(b'\n');
        event.extend_from_slice(message);
        let event = Bytes::from(event);
        if event.len() <= RING_BYTES {
            self.hold(n, Some(event.clone()));
        } else {
            // Too large to keep: no resumption from before it.
            self.ring.clear();
            self.ring_bytes = 0;
        }
        event
    }

    fn hold(&mut self, n: u64, event: Option<Bytes>) {
        self.ring_bytes += event.as_ref().map_or(0, Bytes::len);
        self.ring.push_back((n, event));
        while self.ring.len() > RING_EVENTS || self.ring_bytes > RING_BYTES {
            if let Some((_, old)) = self.ring.pop_front() {
                self.ring_bytes -= old.as_ref().map_or(0, Bytes::len);
            }
        }
    }

    /// The event that closes the stream: an id to resume from and the
    /// `retry` to wait, no data.
    pub(crate) fn close_event(&mut self) -> Bytes {
        let n = self.next;
        self.next += 1;
        self.hold(n, None);
        Bytes::from(format!("id: {}\nretry: {RETRY_MS}\ndata:\n\n", self.id(n)))
    }

    /// The events after `last` (an id of this stream), to replay.
    fn after(&self, last: u64) -> Result<VecDeque<Bytes>, NotResumed> {
        if last == 0 || last >= self.next {
            return Err(NotResumed::Unknown);
        }
        // The ring has no gaps: it holds every event after `last` when it
        // starts at or before the one right after it.
        let first_held = self.ring.front().map_or(self.next, |(n, _)| *n);
        if first_held > last + 1 {
            return Err(NotResumed::Lost);
        }
        Ok(self
            .ring
            .iter()
            .filter(|(n, _)| *n > last)
            .filter_map(|(_, event)| event.clone())
            .collect())
    }
}

/// What makes a stream's body resumable: its event log, the call's close
/// request, where a closed stream waits for the client, and (resumed) the
/// events to replay first.
#[derive(Debug)]
pub(crate) struct Resumable {
    pub(crate) log: EventLog,
    pub(crate) close: Arc<StreamClose>,
    pub(crate) parked: Arc<ParkedStreams>,
    pub(crate) replay: VecDeque<Bytes>,
}

impl Resumable {
    /// A new stream's: a fresh log, nothing to replay.
    pub(crate) fn new(close: Arc<StreamClose>, parked: Arc<ParkedStreams>) -> Resumable {
        Resumable {
            log: EventLog::new(),
            close,
            parked,
            replay: VecDeque::new(),
        }
    }
}

/// A stream the server closed while its call runs: the rest of the call's
/// frames, and what the stream's body held.
pub(crate) struct Parked {
    pub(crate) resumable: Box<Resumable>,
    pub(crate) frames: Frames,
    /// Cancels the call when dropped unresumed (evicted, session ended).
    pub(crate) cancel: CancelOnDrop,
    pub(crate) keep: Option<Box<dyn std::any::Any + Send + Sync>>,
}

impl fmt::Debug for Parked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Parked")
            .field("stream", &self.resumable.log.stream)
            .finish_non_exhaustive()
    }
}

/// A legacy session's closed streams, waiting for the client.
#[derive(Debug, Default)]
pub(crate) struct ParkedStreams(Mutex<VecDeque<Parked>>);

/// Why a `Last-Event-ID` does not resume a stream.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum NotResumed {
    /// No closed stream of the session sent an event of that id (unknown,
    /// resumed already, or dropped).
    Unknown,
    /// The stream is known, but not the events after that id.
    Lost,
}

impl ParkedStreams {
    /// Keeps `parked` for the client; the oldest goes when the session
    /// holds [`PARKED_PER_SESSION`].
    pub(crate) fn park(&self, parked: Parked) {
        let evicted = {
            let mut streams = lock(&self.0);
            streams.push_back(parked);
            (streams.len() > PARKED_PER_SESSION)
                .then(|| streams.pop_front())
                .flatten()
        };
        // Dropped outside the lock: it cancels its call.
        drop(evicted);
    }

    /// The stream `last_event_id` names, with the events after it to
    /// replay; it is no longer parked.
    pub(crate) fn resume(
        &self,
        last_event_id: &str,
    ) -> Result<(Parked, VecDeque<Bytes>), NotResumed> {
        let (stream, n) = last_event_id.rsplit_once('-').ok_or(NotResumed::Unknown)?;
        let n: u64 = n.parse().map_err(|_| NotResumed::Unknown)?;
        let mut streams = lock(&self.0);
        let at = streams
            .iter()
            .position(|p| p.resumable.log.stream == stream)
            .ok_or(NotResumed::Unknown)?;
        let missed = streams[at].resumable.log.after(n)?;
        let parked = streams.remove(at).ok_or(NotResumed::Unknown)?;
        Ok((parked, missed))
    }

    /// Drops every closed stream (the session ended).
    pub(crate) fn clear(&self) {
        let streams = std::mem::take(&mut *lock(&self.0));
        drop(streams);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(bytes: &Bytes) -> &str {
        std::str::from_utf8(bytes).unwrap()
    }

    #[test]
    fn events_carry_ids_and_the_close_event_carries_retry() {
        let mut log = EventLog::new();
        let stream = log.stream.clone();
        assert_eq!(stream.len(), 18);
        let first = log.event(b"event: message\ndata: {}\n\n");
        assert_eq!(
            text(&first),
            format!("id: {stream}-1\nevent: message\ndata: {{}}\n\n")
        );
        let close = log.close_event();
        assert_eq!(
            text(&close),
            format!("id: {stream}-2\nretry: 1000\ndata:\n\n")
        );
        // From the close event: nothing missed; from the first: nothing
        // but the close event, which is not replayed.
        assert_eq!(log.after(2), Ok(VecDeque::new()));
        assert_eq!(log.after(1), Ok(VecDeque::new()));
        // Ids it never sent.
        assert_eq!(log.after(3), Err(NotResumed::Unknown));
        assert_eq!(log.after(0), Err(NotResumed::Unknown));
    }

    #[test]
    fn the_ring_replays_what_was_missed_and_refuses_what_it_no_longer_holds() {
        let mut log = EventLog::new();
        for i in 0..(RING_EVENTS as u64 + 4) {
            log.event(format!("data: {i}\n\n").as_bytes());
        }
        let last = RING_EVENTS as u64 + 4;
        let missed = log.after(last - 2).unwrap();
        assert_eq!(missed.len(), 2);
        assert!(text(&missed[0]).ends_with("data: 34\n\n"), "{missed:?}");
        assert!(text(&missed[1]).ends_with("data: 35\n\n"), "{missed:?}");
        // Event 4 is the newest no longer held: resuming after 3 would skip it.
        assert_eq!(log.after(3), Err(NotResumed::Lost));
        assert_eq!(log.after(4).map(|m| m.len()), Ok(RING_EVENTS));
        let big = vec![b'x'; RING_BYTES + 1];
        log.event(&big);
        assert_eq!(
            log.after(last),
            Err(NotResumed::Lost),
            "the large event is not held"
        );
    }

    #[test]
    fn a_session_parks_a_bounded_number_of_streams_and_resumes_each_once() {
        let parked = ParkedStreams::default();
        let mut ids = Vec::new();
        for _ in 0..=PARKED_PER_SESSION {
            let mut log = EventLog::new();
            log.event(b"data: 1\n\n");
            ids.push(format!("{}-1", log.stream));
            parked.park(Parked {
                resumable: Box::new(Resumable {
                    log,
                    close: Arc::default(),
                    parked: Arc::default(),
                    replay: VecDeque::new(),
                }),
                frames: crate::conn::outbox::channel(0).1,
                cancel: CancelOnDrop(std::sync::Weak::new()),
                keep: None,
            });
        }
        assert_eq!(
            parked.resume(&ids[0]).unwrap_err(),
            NotResumed::Unknown,
            "the oldest made room"
        );
        assert!(parked.resume(&ids[1]).is_ok());
        assert_eq!(parked.resume(&ids[1]).unwrap_err(), NotResumed::Unknown);
        assert_eq!(parked.resume("nonsense").unwrap_err(), NotResumed::Unknown);
        let stream = ids[2].trim_end_matches("-1");
        assert_eq!(
            parked.resume(&format!("{stream}-9")).unwrap_err(),
            NotResumed::Unknown
        );
        assert!(
            parked.resume(&ids[2]).is_ok(),
            "still parked after a refusal"
        );
    }
}
