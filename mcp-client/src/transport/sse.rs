//! An incremental, bounded parser of `text/event-stream` (the WHATWG
//! server-sent events format): fed the body in whatever pieces the network
//! delivers, it yields each event's data once its blank line arrives. An
//! event whose data grows past the bound is dropped as it streams past.
//! It keeps what resuming a broken stream needs: the id of the last event
//! (`id:`) and the wait the server asked for before reconnecting
//! (`retry:`).

/// What the parser yields.
#[derive(Debug, PartialEq)]
pub enum Event {
    /// A complete event's data (its `data:` lines joined by `\n`).
    Data(String),
    /// An event over the bound, discarded.
    TooLarge,
}

/// The parser's state between pieces.
#[derive(Debug)]
pub struct SseParser {
    /// The current line, up to the bound.
    line: Vec<u8>,
    /// The current line passed the bound: skip to its end.
    line_too_long: bool,
    /// The current event's data.
    data: Vec<u8>,
    has_data: bool,
    /// The current event passed the bound: drop it at its end.
    event_too_large: bool,
    /// The last byte was `\r`: a `\n` right after it ends no second line.
    after_cr: bool,
    /// At the very start, where a byte-order mark is skipped.
    at_start: bool,
    limit: usize,
    /// The last `id:` field seen (the WHATWG "last event ID buffer").
    id_buffer: Option<String>,
    /// The id of the last event dispatched: what `Last-Event-ID` names.
    last_event_id: Option<String>,
    /// The last valid `retry:` field, in milliseconds.
    retry_ms: Option<u64>,
}

impl SseParser {
    /// A parser whose lines and events may each be at most `limit` bytes.
    pub fn new(limit: usize) -> Self {
        SseParser {
            line: Vec::new(),
            line_too_long: false,
            data: Vec::new(),
            has_data: false,
            event_too_large: false,
            after_cr: false,
            at_start: true,
            limit,
            id_buffer: None,
            last_event_id: None,
            retry_ms: None,
        }
    }

    /// A parser for the stream that resumes this one: empty, but for the
    /// last event id and the `retry` wait, which carry over.
    pub(crate) fn resumed(&self) -> Self {
        SseParser {
            id_buffer: self.last_event_id.clone(),
            last_event_id: self.last_event_id.clone(),
            retry_ms: self.retry_ms,
            ..SseParser::new(self.limit)
        }
    }

    /// The id of the last event, unless none had one (or the last id was
    /// empty, which resets it).
    pub(crate) fn last_event_id(&self) -> Option<&str> {
        self.last_event_id.as_deref().filter(|id| !id.is_empty())
    }

    /// The wait before reconnecting the server asked for (`retry:`).
    pub(crate) fn retry(&self) -> Option<std::time::Duration> {
        self.retry_ms.map(std::time::Duration::from_millis)
    }

    /// Feeds a piece of the body; complete events are pushed on `out`.
    pub fn feed(&mut self, mut bytes: &[u8], out: &mut Vec<Event>) {
        if self.at_start && !bytes.is_empty() {
            if let Some(rest) = bytes.strip_prefix(b"\xEF\xBB\xBF") {
                bytes = rest;
            }
            self.at_start = false;
        }
        while !bytes.is_empty() {
            if self.after_cr && bytes[0] == b'\n' {
                bytes = &bytes[1..];
                self.after_cr = false;
                continue;
            }
            self.after_cr = false;
            match memchr::memchr2(b'\n', b'\r', bytes) {
                Some(at) => {
                    self.push_line_bytes(&bytes[..at]);
                    self.after_cr = bytes[at] == b'\r';
                    bytes = &bytes[at + 1..];
                    self.end_line(out);
                }
                None => {
                    self.push_line_bytes(bytes);
                    bytes = &[];
                }
            }
        }
    }

    fn push_line_bytes(&mut self, bytes: &[u8]) {
        if self.line_too_long {
            return;
        }
        if self.line.len() + bytes.len() > self.limit {
            self.line_too_long = true;
            self.line.clear();
            return;
        }
        self.line.extend_from_slice(bytes);
    }

    fn end_line(&mut self, out: &mut Vec<Event>) {
        let line = std::mem::take(&mut self.line);
        if std::mem::take(&mut self.line_too_long) {
            // Only a data line can be that long: its event is lost.
            self.event_too_large = true;
            return;
        }
        if line.is_empty() {
            self.dispatch(out);
            return;
        }
        if line[0] == b':' {
            return;
        }
        let (field, value) = match memchr::memchr(b':', &line) {
            Some(at) => {
                let value = &line[at + 1..];
                (&line[..at], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (&line[..], &b""[..]),
        };
        // `event` means nothing to MCP's streams: every event is a
        // JSON-RPC message. `id` and `retry` are kept for resumption, as
        // WHATWG reads them (an id with NUL, a retry not all digits, are
        // ignored); the bound on the line bounds them too.
        if field == b"id" {
            if !value.contains(&0) {
                self.id_buffer = Some(String::from_utf8_lossy(value).into_owned());
            }
            return;
        }
        if field == b"retry" {
            if !value.is_empty() && value.iter().all(u8::is_ascii_digit) {
                self.retry_ms = std::str::from_utf8(value).ok().and_then(|v| v.parse().ok());
            }
            return;
        }
        if field == b"data" && !self.event_too_large {
            if self.data.len() + value.len() + 1 > self.limit {
                self.event_too_large = true;
                self.data = Vec::new();
                return;
            }
            if self.has_data {
                self.data.push(b'\n');
            }
            self.data.extend_from_slice(value);
            self.has_data = true;
        }
    }

    fn dispatch(&mut self, out: &mut Vec<Event>) {
        self.last_event_id.clone_from(&self.id_buffer);
        if std::mem::take(&mut self.event_too_large) {
            out.push(Event::TooLarge);
        } else if self.has_data {
            let data = std::mem::take(&mut self.data);
            out.push(Event::Data(String::from_utf8_lossy(&data).into_owned()));
        }
        self.data.clear();
        self.has_data = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(body: &[u8], piece: usize, limit: usize) -> Vec<Event> {
        let mut parser = SseParser::new(limit);
        let mut out = Vec::new();
        for chunk in body.chunks(piece) {
            parser.feed(chunk, &mut out);
        }
        out
    }

    #[test]
    fn events_are_read_across_any_split() {
        let body = b"\xEF\xBB\xBF: comment\r\nid: 1\r\nevent: message\r\ndata: {\"a\":1}\r\n\r\ndata:x\ndata: y\n\nretry: 10\n\ndata: z\r\rdata:w\n\n";
        for piece in [1, 2, 5, body.len()] {
            assert_eq!(
                parse(body, piece, 1000),
                vec![
                    Event::Data("{\"a\":1}".into()),
                    Event::Data("x\ny".into()),
                    Event::Data("z".into()),
                    Event::Data("w".into()),
                ],
                "piece {piece}"
            );
        }
    }

    #[test]
    fn the_last_event_id_and_the_retry_wait_are_kept_for_resumption() {
        let mut parser = SseParser::new(1000);
        let mut out = Vec::new();
        parser.feed(b"id: event-1\nretry: 500\ndata: \n\n", &mut out);
        assert_eq!(parser.last_event_id(), Some("event-1"));
        assert_eq!(parser.retry(), Some(std::time::Duration::from_millis(500)));
        // An id whose event has not ended yet is not the last event's.
        parser.feed(b"retry: soon\nid: event-2\ndata: {}", &mut out);
        assert_eq!(parser.last_event_id(), Some("event-1"));
        assert_eq!(parser.retry(), Some(std::time::Duration::from_millis(500)));
        let resumed = parser.resumed();
        assert_eq!(resumed.last_event_id(), Some("event-1"));
        assert_eq!(resumed.retry(), Some(std::time::Duration::from_millis(500)));
        parser.feed(b"\n\nid\n\n", &mut out);
        assert_eq!(parser.last_event_id(), None, "an empty id resets it");
        assert_eq!(
            out,
            vec![Event::Data(String::new()), Event::Data("{}".into())]
        );
    }

    #[test]
    fn an_event_over_the_bound_is_dropped_and_the_next_read() {
        let big = "a".repeat(5000);
        let body = format!("data: {big}\n\ndata: {big}\ndata: {big}\n\ndata: ok\n\n");
        for piece in [7, 4096] {
            assert_eq!(
                parse(body.as_bytes(), piece, 8000),
                vec![
                    Event::Data(big.clone()),
                    Event::TooLarge,
                    Event::Data("ok".into())
                ]
            );
            assert_eq!(
                parse(body.as_bytes(), piece, 100),
                vec![Event::TooLarge, Event::TooLarge, Event::Data("ok".into())]
            );
        }
    }
}
