//! The paced fake model API: its answer streamed as server-sent events, one
//! text delta every `--event-ms`, so the first text's time on screen can be
//! told from the host's own cost.

use http_body_util::BodyExt;
use hyper::body::{Bytes, Frame, Incoming};
use hyper::{Request, Response};
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

/// What the fake answers: the words of the text, one a delta.
#[derive(Debug)]
pub(crate) struct Fake {
    pub(crate) words: Vec<String>,
    pub(crate) event: Duration,
}

impl Fake {
    /// The answer's whole text.
    pub(crate) fn text(&self) -> String {
        self.words.concat()
    }

    /// The SSE events of the answer, one piece each.
    pub(crate) fn events(&self) -> VecDeque<Bytes> {
        let usage = json!({"input_tokens": 20, "output_tokens": 1});
        let mut events = vec![
            (
                "message_start",
                json!({"type": "message_start", "message": {
                    "id": "msg_ttft", "type": "message", "role": "assistant",
                    "model": "claude-sonnet-4-6", "content": [], "stop_reason": null,
                    "stop_sequence": null, "usage": usage}}),
            ),
            (
                "content_block_start",
                json!({"type": "content_block_start", "index": 0,
                       "content_block": {"type": "text", "text": ""}}),
            ),
        ];
        for word in &self.words {
            events.push((
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 0,
                       "delta": {"type": "text_delta", "text": word}}),
            ));
        }
        events.push((
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ));
        events.push((
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn",
                   "stop_sequence": null}, "usage": {"output_tokens": self.words.len()}}),
        ));
        events.push(("message_stop", json!({"type": "message_stop"})));
        events
            .into_iter()
            .map(|(name, data)| Bytes::from(format!("event: {name}\ndata: {data}\n\n")))
            .collect()
    }

    /// The whole message, as a response that is not streamed.
    pub(crate) fn message(&self) -> Bytes {
        Bytes::from(
            json!({"id": "msg_ttft", "type": "message", "role": "assistant",
                   "model": "claude-sonnet-4-6",
                   "content": [{"type": "text", "text": self.text()}],
                   "stop_reason": "end_turn", "stop_sequence": null,
                   "usage": {"input_tokens": 20, "output_tokens": self.words.len()}})
            .to_string(),
        )
    }
}

/// A body sent in pieces, each `interval` after the one before (the first
/// too): the pace of a model writing.
pub(crate) struct Paced {
    pub(crate) pieces: VecDeque<Bytes>,
    pub(crate) interval: Duration,
    pub(crate) next: Pin<Box<tokio::time::Sleep>>,
}

impl Paced {
    pub(crate) fn new(pieces: VecDeque<Bytes>, interval: Duration) -> Paced {
        Paced {
            pieces,
            interval,
            next: Box::pin(tokio::time::sleep(interval)),
        }
    }
}

impl hyper::body::Body for Paced {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        if self.pieces.is_empty() {
            return Poll::Ready(None);
        }
        std::task::ready!(self.next.as_mut().poll(cx));
        // From the last deadline, not from now: a late wake-up does not
        // push every later piece back.
        let deadline = self.next.deadline() + self.interval;
        self.next.as_mut().reset(deadline);
        Poll::Ready(self.pieces.pop_front().map(|piece| Ok(Frame::data(piece))))
    }
}

/// Answers one request: streamed when it asks (`"stream": true`).
pub(crate) async fn answer(request: Request<Incoming>, fake: Arc<Fake>) -> Response<Paced> {
    let streamed = match request.into_body().collect().await {
        Ok(body) => serde_json::from_slice::<Value>(&body.to_bytes())
            .is_ok_and(|body| body["stream"] == true),
        Err(_) => false,
    };
    let events = fake.events();
    let (body, content_type) = if streamed {
        (Paced::new(events, fake.event), "text/event-stream")
    } else {
        let whole = fake.event * u32::try_from(events.len()).unwrap_or(u32::MAX);
        (
            Paced::new(VecDeque::from([fake.message()]), whole),
            "application/json",
        )
    };
    let mut response = Response::new(body);
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static(content_type),
    );
    response
}
