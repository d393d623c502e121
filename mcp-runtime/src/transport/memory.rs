//! An in-memory transport: the client half of a pipe pair whose other half a
//! server serves, for tests and doctests without processes.

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};

/// The client's end of an in-memory connection: write lines, read lines.
#[derive(Debug)]
pub struct MemoryTransport {
    reader: BufReader<ReadHalf<DuplexStream>>,
    writer: WriteHalf<DuplexStream>,
}

/// A connected pair: give the second value to [`Server::serve`](crate::Server::serve), talk
/// through the first.
pub fn memory() -> (MemoryTransport, DuplexStream) {
    let (client, server) = tokio::io::duplex(1 << 20);
    let (reader, writer) = tokio::io::split(client);
    (
        MemoryTransport {
            reader: BufReader::new(reader),
            writer,
        },
        server,
    )
}

impl MemoryTransport {
    /// Sends one line (a newline is added).
    pub async fn send(&mut self, line: &str) -> std::io::Result<()> {
        self.send_bytes(line.as_bytes()).await
    }

    /// Sends one line of raw bytes, valid UTF-8 or not (a newline is added).
    pub async fn send_bytes(&mut self, line: &[u8]) -> std::io::Result<()> {
        self.writer.write_all(line).await?;
        self.writer.write_all(b"\n").await?;
        self.writer.flush().await
    }

    /// Reads the next line the server wrote, without its newline; `None` once
    /// the server has closed its side.
    pub async fn recv(&mut self) -> std::io::Result<Option<String>> {
        let mut line = String::new();
        if self.reader.read_line(&mut line).await? == 0 {
            return Ok(None);
        }
        if line.ends_with('\n') {
            line.pop();
        }
        Ok(Some(line))
    }

    /// Closes the client's writing side: the server sees end of input.
    pub async fn close(&mut self) -> std::io::Result<()> {
        self.writer.shutdown().await
    }
}
