//! Newline-delimited framing with a size cap, over an async reader: the
//! rules (the cap, oversized lines skipped with their request's `id`,
//! blank lines skipped) are the protocol crate's [`LineFramer`], fed from
//! the reader's buffer.

use super::driver::Message;
use crate::protocol::lines::{Line, LineFramer};
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use tokio::io::{AsyncBufRead, AsyncRead, BufReader};

/// Reads newline-delimited messages of at most `max` bytes each.
///
/// Reading is poll-based and keeps its progress in the framer, so a read
/// interrupted midway (a `select!` that chose another branch) loses nothing.
#[derive(Debug)]
pub(crate) struct LineReader<R> {
    reader: BufReader<R>,
    framer: LineFramer,
    /// The input ended (after the line being read, if any).
    ended: bool,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    /// Frames `reader`, refusing lines longer than `max` bytes.
    pub(crate) fn new(reader: R, max: usize) -> Self {
        LineReader {
            reader: BufReader::with_capacity(16 * 1024, reader),
            framer: LineFramer::new(max),
            ended: false,
        }
    }

    /// The next non-blank line, or `None` at end of input. A last line
    /// without a newline still counts.
    #[cfg(test)]
    async fn next_line(&mut self) -> io::Result<Option<Message<'_>>> {
        std::future::poll_fn(|cx| self.poll_ready(cx)).await?;
        Ok(self.take_ready())
    }

    /// The next non-blank line, `None` at end of input (a last line without
    /// a newline still counts), without its newline and a trailing `\r`;
    /// an oversized one as [`Message::Oversized`].
    pub(crate) fn poll_next(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<Option<Message<'_>>>> {
        ready!(self.poll_ready(cx))?;
        Poll::Ready(Ok(self.take_ready()))
    }

    /// Polls until a line (or the end of input) is ready; then
    /// [`LineReader::take_ready`] returns it.
    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        loop {
            let buf = ready!(Pin::new(&mut self.reader).poll_fill_buf(cx))?;
            if buf.is_empty() {
                self.ended = true;
                return Poll::Ready(Ok(()));
            }
            let (used, complete) = self.framer.push(buf);
            Pin::new(&mut self.reader).consume(used);
            if complete {
                return Poll::Ready(Ok(()));
            }
        }
    }

    /// The line made ready by [`LineReader::poll_ready`]; `None` at end of input.
    fn take_ready(&mut self) -> Option<Message<'_>> {
        let line = if self.ended {
            self.framer.finish()?
        } else {
            self.framer.line()
        };
        Some(match line {
            Line::Text(bytes) => Message::Bytes(bytes),
            Line::Oversized { len, id } => Message::Oversized { len, id },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn lines(input: &[u8], max: usize) -> Vec<String> {
        let mut reader = LineReader::new(input, max);
        let mut out = Vec::new();
        while let Some(line) = reader.next_line().await.unwrap() {
            out.push(match line {
                Message::Bytes(bytes) => String::from_utf8_lossy(bytes).into_owned(),
                Message::Oversized { len, id } => format!("<oversized {len} id {id:?}>"),
            });
        }
        out
    }

    #[tokio::test]
    async fn splits_strips_cr_and_skips_blank_lines() {
        let got = lines(b"a\r\n\n  \nb\nlast", 100).await;
        assert_eq!(got, ["a", "b", "last"]);
    }

    #[tokio::test]
    async fn oversized_line_is_skipped_and_the_next_one_served() {
        let mut input = vec![b'x'; 10_000];
        input.extend_from_slice(b"\nok\n");
        assert_eq!(
            lines(&input, 100).await,
            ["<oversized 10000 id None>", "ok"]
        );
    }

    #[tokio::test]
    async fn an_oversized_request_keeps_its_id_across_reads() {
        let (mut tx, rx) = tokio::io::duplex(64);
        let text = "y".repeat(5_000);
        let line = format!(
            r#"{{"jsonrpc":"2.0","method":"tools/call","params":{{"name":"echo","arguments":{{"id":1,"text":"{text}"}}}},"id":"last"}}"#
        );
        let len = line.len();
        let writer = tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            // Pieces of 7 bytes split the id, and the kept prefix ends mid-name.
            for piece in line.as_bytes().chunks(7) {
                tx.write_all(piece).await.unwrap();
            }
            tx.write_all(b"\n{\"id\":2}\n").await.unwrap();
        });
        let mut reader = LineReader::new(rx, 100);
        assert_eq!(
            reader.next_line().await.unwrap(),
            Some(Message::Oversized {
                len,
                id: Some("\"last\"")
            })
        );
        assert_eq!(
            reader.next_line().await.unwrap(),
            Some(Message::Bytes(b"{\"id\":2}"))
        );
        writer.await.unwrap();
    }

    #[tokio::test]
    async fn partial_reads_assemble_one_line() {
        let (mut tx, rx) = tokio::io::duplex(8);
        let writer = tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            for part in [&b"{\"a\""[..], b":1", b"}\n{\"b\":2}\n"] {
                tx.write_all(part).await.unwrap();
            }
        });
        let mut reader = LineReader::new(rx, 100);
        assert_eq!(
            reader.next_line().await.unwrap(),
            Some(Message::Bytes(b"{\"a\":1}"))
        );
        assert_eq!(
            reader.next_line().await.unwrap(),
            Some(Message::Bytes(b"{\"b\":2}"))
        );
        writer.await.unwrap();
        assert_eq!(reader.next_line().await.unwrap(), None);
    }
}
