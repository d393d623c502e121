//! Newline-delimited framing with a bound: a line longer than the bound is
//! skipped as it streams past, never held in memory whole, and its top-level
//! `"id"` is picked out on the way so that the request it answers fails at
//! once instead of waiting for its timeout.

use memchr::memchr;
use std::io;
use tokio::io::{AsyncRead, AsyncReadExt};

/// What the reader read.
#[derive(Debug, PartialEq)]
pub(crate) enum Line {
    /// One line, without its `\n` (or `\r\n`).
    Text(Vec<u8>),
    /// A line over the bound, skipped; `id` is its top-level numeric `"id"`
    /// if one was seen.
    TooLong { id: Option<u64>, bytes: usize },
}

const CHUNK: usize = 64 * 1024;

/// Reads lines of at most `limit` bytes from `reader`.
#[derive(Debug)]
pub(crate) struct LineReader<R> {
    reader: R,
    buf: Vec<u8>,
    /// How much of `buf` is known to hold no `\n`.
    scanned: usize,
    limit: usize,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    pub(crate) fn new(reader: R, limit: usize) -> Self {
        LineReader {
            reader,
            buf: Vec::new(),
            scanned: 0,
            limit: limit.max(1),
        }
    }

    /// The bound on one line, in bytes.
    pub(crate) fn limit(&self) -> usize {
        self.limit
    }

    /// The next line; `None` at the end of the input. A last line without a
    /// `\n` is returned too.
    pub(crate) async fn next(&mut self) -> io::Result<Option<Line>> {
        loop {
            if let Some(at) = memchr(b'\n', &self.buf[self.scanned..]) {
                let end = self.scanned + at;
                let mut line: Vec<u8> = self.buf.drain(..=end).collect();
                line.pop();
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                self.scanned = 0;
                return Ok(Some(Line::Text(line)));
            }
            self.scanned = self.buf.len();
            if self.buf.len() > self.limit {
                return self.skip_long_line().await.map(Some);
            }
            if self.fill().await? == 0 {
                if self.buf.is_empty() {
                    return Ok(None);
                }
                let line = std::mem::take(&mut self.buf);
                self.scanned = 0;
                return Ok(Some(Line::Text(line)));
            }
        }
    }

    async fn fill(&mut self) -> io::Result<usize> {
        self.buf.reserve(CHUNK);
        self.reader.read_buf(&mut self.buf).await
    }

    /// Streams the rest of an over-long line (what `buf` holds, then the
    /// input up to the next `\n`) through the id scanner and drops it.
    async fn skip_long_line(&mut self) -> io::Result<Line> {
        let mut scan = IdScan::default();
        let mut bytes = 0;
        loop {
            if let Some(at) = memchr(b'\n', &self.buf) {
                scan.feed(&self.buf[..at]);
                bytes += at;
                self.buf.drain(..=at);
                break;
            }
            scan.feed(&self.buf);
            bytes += self.buf.len();
            self.buf.clear();
            // Keep the buffer from growing past one chunk while skipping.
            self.buf.shrink_to(CHUNK);
            if self.fill().await? == 0 {
                break;
            }
        }
        self.scanned = 0;
        Ok(Line::TooLong {
            id: scan.finish(),
            bytes,
        })
    }
}

/// Where [`IdScan`] is in the top-level object.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
enum Slot {
    #[default]
    Start,
    Key,
    Colon,
    Value,
    Next,
}

/// A streaming scanner for the top-level numeric `"id"` member of one JSON
/// object, fed in pieces. It tracks only nesting, strings and the member
/// being read at the top level; `id` members of nested objects are ignored,
/// and the member may come anywhere (the TypeScript SDK writes it last).
#[derive(Debug, Default)]
pub(crate) struct IdScan {
    depth: u32,
    in_string: bool,
    escaped: bool,
    slot: Slot,
    /// The first bytes of the member name being read (enough to tell `id`).
    key: Vec<u8>,
    key_is_long: bool,
    value_is_id: bool,
    digits: Option<Vec<u8>>,
    found: Option<u64>,
    done: bool,
}

impl IdScan {
    pub(crate) fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.done {
                return;
            }
            self.step(b);
        }
    }

    /// The id, if one was read whole.
    pub(crate) fn finish(mut self) -> Option<u64> {
        if let Some(digits) = self.digits.take() {
            self.found = std::str::from_utf8(&digits).ok()?.parse().ok();
        }
        self.found
    }

    fn step(&mut self, b: u8) {
        if self.in_string {
            if self.escaped {
                self.escaped = false;
                self.key_is_long = true;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.in_string = false;
                if self.depth == 1 && self.slot == Slot::Key {
                    self.slot = Slot::Colon;
                }
            } else if self.depth == 1 && self.slot == Slot::Key {
                if self.key.len() < 3 {
                    self.key.push(b);
                } else {
                    self.key_is_long = true;
                }
            }
            return;
        }
        if let Some(digits) = &mut self.digits {
            if b.is_ascii_digit() && digits.len() < 20 {
                digits.push(b);
                return;
            }
            if matches!(b, b'.' | b'e' | b'E') || b.is_ascii_digit() {
                // Not an integer this client could have sent.
                self.done = true;
                self.digits = None;
                return;
            }
            let digits = self.digits.take().unwrap_or_default();
            self.found = std::str::from_utf8(&digits)
                .ok()
                .and_then(|d| d.parse().ok());
            self.done = true;
            return;
        }
        match b {
            b' ' | b'\t' | b'\n' | b'\r' => {}
            b'{' | b'[' => {
                if self.depth == 0 {
                    if b == b'{' {
                        self.depth = 1;
                        self.slot = Slot::Key;
                    } else {
                        self.done = true;
                    }
                    return;
                }
                if self.depth == 1 && self.slot == Slot::Value {
                    self.slot = Slot::Next;
                }
                self.depth += 1;
            }
            b'}' | b']' => {
                self.depth = self.depth.saturating_sub(1);
                if self.depth == 0 {
                    self.done = true;
                }
            }
            b'"' => {
                self.in_string = true;
                if self.depth == 1 {
                    match self.slot {
                        Slot::Key => {
                            self.key.clear();
                            self.key_is_long = false;
                        }
                        Slot::Value => self.slot = Slot::Next,
                        _ => {}
                    }
                }
            }
            b':' if self.depth == 1 && self.slot == Slot::Colon => {
                self.slot = Slot::Value;
                self.value_is_id = !self.key_is_long && self.key == b"id";
            }
            b',' if self.depth == 1 => self.slot = Slot::Key,
            _ if self.depth == 1 && self.slot == Slot::Value => {
                if self.value_is_id && b.is_ascii_digit() {
                    self.digits = Some(vec![b]);
                } else {
                    self.slot = Slot::Next;
                }
            }
            _ if self.depth == 0 => self.done = true,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(text: &str, piece: usize) -> Option<u64> {
        let mut s = IdScan::default();
        for chunk in text.as_bytes().chunks(piece) {
            s.feed(chunk);
        }
        s.finish()
    }

    #[test]
    fn the_top_level_id_is_found_wherever_it_is() {
        for piece in [1, 3, 1000] {
            assert_eq!(
                scan(r#"{"jsonrpc":"2.0","id":42,"result":{}}"#, piece),
                Some(42)
            );
            assert_eq!(
                scan(
                    r#"{"result":{"id":9,"x":"\"id\":8"},"jsonrpc":"2.0","id":17}"#,
                    piece
                ),
                Some(17)
            );
            assert_eq!(scan(r#"{ "id" : 5 }"#, piece), Some(5));
            assert_eq!(scan(r#"{"id":"5","result":1}"#, piece), None);
            assert_eq!(scan(r#"{"idx":5,"result":[{"id":1}]}"#, piece), None);
            assert_eq!(scan(r#"{"i\"d":5}"#, piece), None);
            assert_eq!(scan(r#"{"id":1.5}"#, piece), None);
            assert_eq!(scan(r#"[{"id":1}]"#, piece), None);
            // Cut off before the line ends: the digits read so far count.
            assert_eq!(scan(r#"{"result":"aaaa","id":12"#, piece), Some(12));
        }
    }

    async fn lines(input: &[u8], limit: usize) -> Vec<Line> {
        let mut reader = LineReader::new(input, limit);
        let mut out = Vec::new();
        while let Some(line) = reader.next().await.unwrap() {
            out.push(line);
        }
        out
    }

    #[tokio::test]
    async fn lines_over_the_bound_are_skipped_and_the_rest_read() {
        let long = format!(
            r#"{{"jsonrpc":"2.0","result":"{}","id":3}}"#,
            "a".repeat(300_000)
        );
        let input = format!("first\r\n{long}\nsecond\nlast");
        let got = lines(input.as_bytes(), 1000).await;
        assert_eq!(
            got,
            vec![
                Line::Text(b"first".to_vec()),
                Line::TooLong {
                    id: Some(3),
                    bytes: long.len()
                },
                Line::Text(b"second".to_vec()),
                Line::Text(b"last".to_vec()),
            ]
        );
        assert_eq!(lines(b"", 10).await, vec![]);
        assert_eq!(
            lines(b"\n\n", 10).await,
            vec![Line::Text(vec![]), Line::Text(vec![])]
        );
    }
}
