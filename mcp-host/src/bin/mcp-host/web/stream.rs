//! The conversation as the pages see it: every event (the agent's
//! [`Event`]s and the page's own: a line sent, an approval asked or
//! answered, a line done) as one JSON object, kept in a bounded log and
//! broadcast to every open page. A page that connects (a reload, a second
//! tab) gets `{"event":"reset"}` and the log, then what follows, over
//! server-sent events.

use super::lock;
use bytes::Bytes;
use hyper::body::{Body, Frame};
use mcpfn_host::agent::events::{Event, EventSink};
use serde::Serialize;
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::sync::{broadcast, mpsc};

/// The most the log keeps, in bytes of JSON: the oldest events go first
/// (a reload then shows the conversation from there).
pub(crate) const LOG_BYTES: usize = 8 << 20;

/// How many events a slow page may fall behind before its stream is ended
/// (its browser reconnects and gets the log again).
const BEHIND: usize = 1024;

/// How often an idle stream says it is alive, so a closed page is noticed.
const KEEPALIVE: Duration = Duration::from_secs(15);

/// One event of the log.
enum Entry {
    /// Text, merged with the text before it: a reload replays the
    /// answer, not each of its pieces.
    Text(String),
    Other(Arc<str>),
}

impl Entry {
    fn json(&self) -> Arc<str> {
        match self {
            Entry::Text(text) => json!({"event": "text", "text": text}).to_string().into(),
            Entry::Other(json) => Arc::clone(json),
        }
    }

    fn bytes(&self) -> usize {
        match self {
            Entry::Text(text) => text.len() + 30,
            Entry::Other(json) => json.len(),
        }
    }
}

#[derive(Default)]
struct Log {
    entries: VecDeque<Entry>,
    bytes: usize,
    /// How many events were dropped from the front.
    dropped: u64,
}

/// The log and its broadcast.
pub(crate) struct Stream {
    log: Mutex<Log>,
    /// The last call requested: id, server, tool (an approval names the
    /// call it is about).
    last_call: Mutex<Option<(String, String, String)>>,
    sender: broadcast::Sender<Arc<str>>,
}

impl Stream {
    pub(crate) fn new() -> Stream {
        Stream {
            log: Mutex::default(),
            last_call: Mutex::default(),
            sender: broadcast::channel(BEHIND).0,
        }
    }

    /// Logs `event` and sends it to every open page.
    pub(crate) fn publish(&self, event: &impl Serialize) {
        let value = serde_json::to_value(event).unwrap_or(Value::Null);
        if value["event"] == "call_requested" {
            let field = |name: &str| value[name].as_str().unwrap_or_default().to_owned();
            *lock(&self.last_call) = Some((field("id"), field("server"), field("tool")));
        }
        let mut log = lock(&self.log);
        let json: Arc<str> = value.to_string().into();
        let entry = match (&value["event"], &value["text"]) {
            (Value::String(kind), Value::String(text)) if kind == "text" => {
                if let Some(Entry::Text(last)) = log.entries.back_mut() {
                    last.push_str(text);
                    log.bytes += text.len();
                    None
                } else {
                    Some(Entry::Text(text.clone()))
                }
            }
            _ => Some(Entry::Other(Arc::clone(&json))),
        };
        if let Some(entry) = entry {
            log.bytes += entry.bytes();
            log.entries.push_back(entry);
        }
        while log.bytes > LOG_BYTES && log.entries.len() > 1 {
            if let Some(first) = log.entries.pop_front() {
                log.bytes -= first.bytes();
                log.dropped += 1;
            }
        }
        // Sent under the lock: a page that subscribes gets each event
        // once, in the log or from the channel.
        let _ = self.sender.send(json);
    }

    /// The id of the last call requested, if it was of `tool` of
    /// `server`.
    pub(crate) fn last_call(&self, server: &str, tool: &str) -> Option<String> {
        lock(&self.last_call)
            .as_ref()
            .filter(|(_, s, t)| s == server && t == tool)
            .map(|(id, _, _)| id.clone())
    }

    /// The agent's events, published.
    pub(crate) fn sink(self: &Arc<Stream>) -> EventSink {
        let stream = Arc::clone(self);
        Arc::new(move |event: &Event| stream.publish(event))
    }

    /// The log so far (after a reset naming what was dropped) and what
    /// follows.
    fn subscribe(&self) -> (Vec<Arc<str>>, broadcast::Receiver<Arc<str>>) {
        let log = lock(&self.log);
        let reset: Arc<str> = json!({"event": "reset", "dropped": log.dropped})
            .to_string()
            .into();
        let replay = std::iter::once(reset)
            .chain(log.entries.iter().map(Entry::json))
            .collect();
        (replay, self.sender.subscribe())
    }

    /// A page's stream of server-sent events: the log, then each event as
    /// it comes, until the page goes or falls [`BEHIND`].
    pub(crate) fn events(&self) -> SseBody {
        let (replay, mut receiver) = self.subscribe();
        let (sender, body) = mpsc::channel(64);
        tokio::spawn(async move {
            // A browser reconnects a second after the stream ends.
            if sender
                .send(Bytes::from_static(b"retry: 1000\n\n"))
                .await
                .is_err()
            {
                return;
            }
            for json in replay {
                if sender.send(frame(&json)).await.is_err() {
                    return;
                }
            }
            let mut keepalive = tokio::time::interval(KEEPALIVE);
            keepalive.tick().await;
            loop {
                let bytes = tokio::select! {
                    next = receiver.recv() => match next {
                        Ok(json) => frame(&json),
                        // Behind, or the program ends: the page reconnects
                        // and is sent the log again.
                        Err(_) => return,
                    },
                    _ = keepalive.tick() => Bytes::from_static(b": alive\n\n"),
                };
                if sender.send(bytes).await.is_err() {
                    return;
                }
            }
        });
        SseBody(body)
    }
}

/// One event's SSE frame (JSON has no newline of its own).
fn frame(json: &str) -> Bytes {
    Bytes::from(format!("data: {json}\n\n"))
}

/// The body of a page's event stream.
pub(crate) struct SseBody(mpsc::Receiver<Bytes>);

impl Body for SseBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.0
            .poll_recv(cx)
            .map(|next| next.map(|bytes| Ok(Frame::data(bytes))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(stream: &Stream) -> Vec<String> {
        stream
            .subscribe()
            .0
            .iter()
            .map(|json| json.to_string())
            .collect()
    }

    #[test]
    fn text_is_merged_and_the_log_is_bounded() {
        let stream = Stream::new();
        stream.publish(&json!({"event": "line", "text": "hi"}));
        stream.publish(&Event::Text { text: "Hel".into() });
        stream.publish(&Event::Text { text: "lo".into() });
        assert_eq!(
            log(&stream),
            [
                r#"{"dropped":0,"event":"reset"}"#,
                r#"{"event":"line","text":"hi"}"#,
                r#"{"event":"text","text":"Hello"}"#,
            ]
        );
        let big = "x".repeat(LOG_BYTES / 3);
        for _ in 0..4 {
            stream.publish(&json!({"event": "line", "text": big}));
        }
        let kept = log(&stream);
        // The two first events and two of the four: three would be over.
        assert_eq!(kept[0], r#"{"dropped":4,"event":"reset"}"#);
        assert_eq!(kept.len(), 3);
    }
}
