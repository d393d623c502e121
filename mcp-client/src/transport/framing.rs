//! Newline-delimited framing with a bound, over the server's stdout: the
//! rules (a line longer than the bound skipped as it streams past, never
//! held whole, with its top-level `"id"` picked out on the way so that the
//! request it answers fails at once instead of waiting for its timeout;
//! blank lines skipped) are the protocol crate's [`LineFramer`].

use crate::jsonrpc::our_id;
use mcpfn_protocol::id_scan::IdScanner;
use mcpfn_protocol::lines::{self, LineFramer};
use std::io;
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

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
    reader: BufReader<R>,
    framer: LineFramer,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    pub(crate) fn new(reader: R, limit: usize) -> Self {
        LineReader {
            reader: BufReader::with_capacity(CHUNK, reader),
            framer: LineFramer::new(limit.max(1)),
        }
    }

    /// The bound on one line, in bytes.
    pub(crate) fn limit(&self) -> usize {
        self.framer.max()
    }

    /// The next non-blank line; `None` at the end of the input. A last line
    /// without a `\n` is returned too.
    pub(crate) async fn next(&mut self) -> io::Result<Option<Line>> {
        loop {
            let buf = self.reader.fill_buf().await?;
            if buf.is_empty() {
                return Ok(self.framer.finish().map(owned));
            }
            let (used, complete) = self.framer.push(buf);
            self.reader.consume(used);
            if complete {
                return Ok(Some(owned(self.framer.line())));
            }
        }
    }
}

/// `line` as the reader hands it on.
fn owned(line: lines::Line<'_>) -> Line {
    match line {
        lines::Line::Text(bytes) => Line::Text(bytes.to_vec()),
        lines::Line::Oversized { len, id } => Line::TooLong {
            id: id.and_then(our_id),
            bytes: len,
        },
    }
}

/// The top-level id of message `text` that is one of our requests' (see
/// [`IdScanner`]), for a message too large or deep to parse.
pub(crate) fn scan_request_id(text: &[u8]) -> Option<u64> {
    let mut scanner = IdScanner::default();
    scanner.feed(text);
    scanner.id().and_then(our_id)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(text: &str, piece: usize) -> Option<u64> {
        let mut s = IdScanner::default();
        for chunk in text.as_bytes().chunks(piece) {
            s.feed(chunk);
        }
        s.id().and_then(our_id)
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
        // Blank lines are skipped (the reader's caller skipped them before).
        assert_eq!(lines(b"\n\n", 10).await, vec![]);
        assert_eq!(
            lines(b"\n \n{}\n", 10).await,
            vec![Line::Text(b"{}".to_vec())]
        );
    }
}
