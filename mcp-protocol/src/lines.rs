//! Newline-delimited JSON-RPC framing with a size cap, without I/O: the
//! stdio server and the stdio client feed it what their reader has
//! buffered and take the lines it completes.
//!
//! The cap is enforced while reading: an oversized line is skipped through
//! to its newline without ever being held whole, then reported as one
//! [`Line::Oversized`] with the request's `id`, found by a streaming scan
//! of the skipped bytes ([`IdScanner`]), so the error reaches the request
//! that caused it instead of leaving the peer waiting. Blank lines are
//! skipped; a trailing `\r` is dropped.
//!
//! ```
//! use mcpfn_protocol::lines::{Line, LineFramer};
//!
//! let mut framer = LineFramer::new(16);
//! let mut input: &[u8] = b"{\"id\":1}\r\n\n{\"id\":2,\"pad\":\"......\"}\nlast";
//! let mut lines = Vec::new();
//! loop {
//!     let (used, complete) = framer.push(input);
//!     input = &input[used..];
//!     if complete {
//!         lines.push(format!("{:?}", framer.line()));
//!     } else if input.is_empty() {
//!         if let Some(line) = framer.finish() {
//!             lines.push(format!("{line:?}"));
//!         }
//!         break;
//!     }
//! }
//! assert_eq!(
//!     lines,
//!     [
//!         r#"Text("{\"id\":1}")"#,
//!         r#"Oversized { len: 23, id: Some("2") }"#,
//!         r#"Text("last")"#,
//!     ]
//! );
//! ```

use crate::id_scan::IdScanner;
use std::fmt;

/// A line buffer grown past this by a large message is given back after it.
const KEEP_CAPACITY: usize = 1 << 20;

/// A line the framer completed.
#[derive(PartialEq, Eq)]
pub enum Line<'a> {
    /// A line within the cap, without its newline and a trailing `\r`.
    Text(&'a [u8]),
    /// A line over the cap, skipped: `len` bytes without its newline, and
    /// its top-level `id` as JSON text if one was found.
    Oversized {
        /// The line's length in bytes, without its newline.
        len: usize,
        /// The top-level `id`, as JSON text (see [`IdScanner::id`]).
        id: Option<&'a str>,
    },
}

impl fmt::Debug for Line<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Line::Text(bytes) => f
                .debug_tuple("Text")
                .field(&String::from_utf8_lossy(bytes))
                .finish(),
            Line::Oversized { len, id } => f
                .debug_struct("Oversized")
                .field("len", len)
                .field("id", id)
                .finish(),
        }
    }
}

/// Splits a byte stream into lines of at most `max` bytes.
///
/// The framer keeps the progress of the line being read, so a reader can
/// stop between two pushes (a `select!` that chose another branch) and
/// lose nothing.
#[derive(Debug)]
pub struct LineFramer {
    line: Vec<u8>,
    max: usize,
    /// Bytes of an oversized line skipped so far.
    skipped: usize,
    /// Looks for the request id in the oversized line being skipped.
    scanner: IdScanner,
    /// The line was handed out; the next push starts a new one.
    taken: bool,
}

impl LineFramer {
    /// A framer refusing lines longer than `max` bytes.
    pub fn new(max: usize) -> LineFramer {
        LineFramer {
            line: Vec::with_capacity(4096),
            max,
            skipped: 0,
            scanner: IdScanner::default(),
            taken: false,
        }
    }

    /// The cap on one line, in bytes.
    pub fn max(&self) -> usize {
        self.max
    }

    /// Reads `buf` up to and including the first newline: returns how many
    /// bytes were used (the reader consumes them) and whether a line is
    /// complete (then [`line`](Self::line) hands it out). A blank line is
    /// used up and not reported.
    pub fn push(&mut self, buf: &[u8]) -> (usize, bool) {
        if self.taken {
            self.line.clear();
            // A rare huge line does not pin its buffer for the connection's life.
            if self.line.capacity() > KEEP_CAPACITY {
                self.line = Vec::with_capacity(4096);
            }
            self.taken = false;
        }
        let (chunk, used, done) = match memchr::memchr(b'\n', buf) {
            Some(pos) => (&buf[..pos], pos + 1, true),
            None => (buf, buf.len(), false),
        };
        if self.skipped > 0 || self.line.len() + chunk.len() > self.max {
            if self.skipped == 0 {
                // The line just went over the cap: scan what was kept.
                self.scanner.reset();
                self.scanner.feed(&self.line);
            }
            self.scanner.feed(chunk);
            self.skipped += self.line.len() + chunk.len();
            self.line.clear();
        } else {
            self.line.extend_from_slice(chunk);
        }
        if done && self.skipped == 0 && self.line.iter().all(u8::is_ascii_whitespace) {
            self.line.clear();
            return (used, false);
        }
        (used, done)
    }

    /// The line the last [`push`](Self::push) completed.
    pub fn line(&mut self) -> Line<'_> {
        self.taken = true;
        if self.skipped > 0 {
            return Line::Oversized {
                len: std::mem::take(&mut self.skipped),
                id: self.scanner.id(),
            };
        }
        if self.line.last() == Some(&b'\r') {
            self.line.pop();
        }
        Line::Text(&self.line)
    }

    /// At the end of the input: the last line, which had no newline;
    /// `None` when there is none, or it is blank.
    pub fn finish(&mut self) -> Option<Line<'_>> {
        let handed_out = self.taken;
        if handed_out || self.skipped == 0 && self.line.iter().all(u8::is_ascii_whitespace) {
            self.taken = true;
            return None;
        }
        Some(self.line())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every line of `input` pushed in pieces of `piece` bytes, as text.
    fn lines(input: &[u8], max: usize, piece: usize) -> Vec<String> {
        let mut framer = LineFramer::new(max);
        let mut out = Vec::new();
        for mut chunk in input.chunks(piece) {
            while !chunk.is_empty() {
                let (used, complete) = framer.push(chunk);
                chunk = &chunk[used..];
                if complete {
                    out.push(show(framer.line()));
                }
            }
        }
        out.extend(framer.finish().map(show));
        out
    }

    fn show(line: Line<'_>) -> String {
        match line {
            Line::Text(bytes) => String::from_utf8_lossy(bytes).into_owned(),
            Line::Oversized { len, id } => format!("<oversized {len} id {id:?}>"),
        }
    }

    #[test]
    fn splits_strips_cr_and_skips_blank_lines() {
        for piece in [1, 3, 100] {
            assert_eq!(lines(b"a\r\n\n  \nb\nlast", 100, piece), ["a", "b", "last"]);
            assert!(lines(b"", 10, piece).is_empty());
            assert!(lines(b"\n\n \r\n", 10, piece).is_empty());
            assert!(lines(b"a\n  ", 10, piece) == ["a"]);
        }
    }

    #[test]
    fn an_oversized_line_is_skipped_and_the_next_one_served() {
        let mut input = vec![b'x'; 10_000];
        input.extend_from_slice(b"\nok\n");
        for piece in [7, 4096, 20_000] {
            assert_eq!(
                lines(&input, 100, piece),
                ["<oversized 10000 id None>", "ok"]
            );
        }
    }

    #[test]
    fn an_oversized_line_keeps_its_id_wherever_it_is_cut() {
        let text = "y".repeat(5_000);
        let line = format!(
            r#"{{"jsonrpc":"2.0","method":"tools/call","params":{{"name":"echo","arguments":{{"id":1,"text":"{text}"}}}},"id":"last"}}"#
        );
        let input = format!("{line}\n{{\"id\":2}}\n");
        for piece in [1, 7, 64, 100_000] {
            assert_eq!(
                lines(input.as_bytes(), 100, piece),
                [
                    format!(r#"<oversized {} id Some("\"last\"")>"#, line.len()),
                    r#"{"id":2}"#.to_owned()
                ]
            );
        }
    }

    #[test]
    fn a_line_of_exactly_the_cap_is_served() {
        assert_eq!(
            lines(b"12345\n123456\n", 5, 2),
            ["12345", "<oversized 6 id None>"]
        );
    }

    #[test]
    fn an_oversized_last_line_without_a_newline_is_reported() {
        assert_eq!(
            lines(br#"{"result":"aaaaaaaaaa","id":12"#, 10, 4),
            [r#"<oversized 30 id Some("12")>"#]
        );
    }
}
