//! The transport seam: sends one JSON-RPC message, and yields what comes in.
//!
//! A transport only frames messages; it never reads them beyond what it must
//! to report a failure to the right request. Each connection is a pair: the
//! [`Transport`] (shared, for sending) and its [`Inbox`] (owned by the one
//! task that routes incoming messages).

#[cfg(target_os = "linux")]
pub(crate) mod children;
pub(crate) mod factory;
pub(crate) mod framing;
#[cfg(feature = "http")]
pub(crate) mod http;
#[cfg(feature = "http")]
pub(crate) mod sse;
pub(crate) mod stdio;

use crate::error::ClientError;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use tokio::sync::{Semaphore, mpsc};

/// The default bound on the bytes of messages waiting in an [`Inbox`]
/// (32 MiB): with the count bound alone, 64 messages of 16 MiB could wait
/// while the dispatcher is held up by a server that stopped reading.
pub const DEFAULT_INBOX_BYTES: usize = 32 * 1024 * 1024;

/// A boxed future, so that [`Transport`] is object-safe.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// One message to send.
#[derive(Debug, Clone)]
pub struct Outgoing {
    /// The message, one JSON text with no raw newline.
    pub body: String,
    /// The id of the request this message is, if it is one: a transport
    /// reports a failure to deliver its answer as [`Incoming::Failed`].
    pub request_id: Option<u64>,
    /// Extra HTTP headers for this message only (`MCP-Protocol-Version`,
    /// `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`); stdio ignores them.
    pub headers: Vec<(String, String)>,
}

impl Outgoing {
    /// A message with no extra headers.
    pub fn new(body: String, request_id: Option<u64>) -> Self {
        Outgoing {
            body,
            request_id,
            headers: Vec::new(),
        }
    }
}

/// What a transport yields.
#[derive(Debug)]
pub enum Incoming {
    /// One message's JSON text.
    Message(String),
    /// The answer to request `id` cannot come: its HTTP response was not
    /// JSON-RPC, its event stream ended early, the line was too long…
    Failed {
        /// The request's id.
        id: u64,
        /// Why.
        error: ClientError,
    },
    /// The connection is over; nothing more will come.
    Closed(ClientError),
}

/// The sending half of an [`Inbox`], for a transport's reading tasks.
#[derive(Debug, Clone)]
pub struct InboxSender {
    queue: mpsc::Sender<Incoming>,
    bytes: Arc<Semaphore>,
    max_bytes: usize,
}

/// What a message counts against the inbox's byte bound: its length, or
/// the whole bound for a larger one (which then waits alone).
fn charge(message: &Incoming, max_bytes: usize) -> u32 {
    match message {
        Incoming::Message(text) => {
            u32::try_from(text.len().clamp(1, max_bytes)).unwrap_or(u32::MAX)
        }
        _ => 0,
    }
}

impl InboxSender {
    /// Queues `incoming`, waiting while the inbox is full, in messages or
    /// in bytes (back-pressure on the server). `false` when the inbox is
    /// gone: stop reading.
    pub async fn send(&self, incoming: Incoming) -> bool {
        let bytes = charge(&incoming, self.max_bytes);
        if bytes > 0 {
            match self.bytes.acquire_many(bytes).await {
                // Given back by the inbox when the message is taken out.
                Ok(permit) => permit.forget(),
                Err(_) => return false,
            }
        }
        self.queue.send(incoming).await.is_ok()
    }

    /// Whether the receiving side is gone.
    pub fn is_closed(&self) -> bool {
        self.queue.is_closed()
    }
}

/// The incoming messages of one connection, in arrival order.
#[derive(Debug)]
pub struct Inbox {
    queue: mpsc::Receiver<Incoming>,
    bytes: Arc<Semaphore>,
    max_bytes: usize,
}

impl Inbox {
    /// A bounded inbox of `capacity` messages (and [`DEFAULT_INBOX_BYTES`])
    /// and its sender.
    pub fn channel(capacity: usize) -> (InboxSender, Inbox) {
        Inbox::bounded(capacity, DEFAULT_INBOX_BYTES)
    }

    /// An inbox of at most `capacity` messages and `max_bytes` bytes of
    /// them (a larger message is let in alone), and its sender.
    pub fn bounded(capacity: usize, max_bytes: usize) -> (InboxSender, Inbox) {
        let max_bytes = max_bytes
            .clamp(1, Semaphore::MAX_PERMITS)
            .min(u32::MAX as usize);
        let (tx, rx) = mpsc::channel(capacity.max(1));
        let bytes = Arc::new(Semaphore::new(max_bytes));
        (
            InboxSender {
                queue: tx,
                bytes: Arc::clone(&bytes),
                max_bytes,
            },
            Inbox {
                queue: rx,
                bytes,
                max_bytes,
            },
        )
    }

    /// The next incoming event; `None` when every sender is gone.
    pub async fn recv(&mut self) -> Option<Incoming> {
        let incoming = self.queue.recv().await?;
        self.bytes
            .add_permits(charge(&incoming, self.max_bytes) as usize);
        Some(incoming)
    }
}

impl Drop for Inbox {
    fn drop(&mut self) {
        // A sender waiting for room in bytes learns the inbox is gone.
        self.bytes.close();
    }
}

/// How messages get to a server and back.
///
/// `send` may be called from many tasks at once; each message is sent
/// whole. Answers and server messages arrive through the [`Inbox`] made
/// with the transport.
pub trait Transport: Send + Sync + fmt::Debug + 'static {
    /// Sends one message. `Ok` when it was handed over: written to the
    /// child's stdin, or accepted by the HTTP server (whose answer, for a
    /// request, then comes through the inbox).
    fn send(&self, message: Outgoing) -> BoxFuture<'_, Result<(), ClientError>>;

    /// Stops waiting for the answer to request `id` (it was cancelled): an
    /// HTTP transport drops that request's response stream, which the
    /// 2026-07-28 era reads as the cancellation. Nothing for stdio.
    fn abandon(&self, id: u64) {
        let _ = id;
    }

    /// Sets the HTTP headers of every later request of this connection
    /// (POSTs, the GET stream, the DELETE), in place of those set before:
    /// `MCP-Protocol-Version` once a legacy handshake chose it. Nothing for
    /// stdio.
    fn set_headers(&self, headers: &[(String, String)]) -> Result<(), ClientError> {
        let _ = headers;
        Ok(())
    }

    /// Opens the channel on which the server sends messages unprompted,
    /// where the transport needs one: a legacy HTTP session's GET stream.
    /// Nothing for stdio, whose stdout already is that channel.
    fn listen(&self) -> BoxFuture<'_, Result<(), ClientError>> {
        Box::pin(async { Ok(()) })
    }

    /// Ends the connection: closes the child's stdin and waits a moment for
    /// it to exit before killing it; ends an HTTP session with DELETE.
    fn close(&self) -> BoxFuture<'_, ()>;

    /// Ends the connection now, without waiting on anything the peer must
    /// do (a server that stopped reading would hold a polite close up):
    /// kills a stdio child. Nothing for HTTP, whose sends time out.
    fn terminate(&self) {}

    /// What the server reads this client's messages from, for errors
    /// (`its stdin`).
    fn input(&self) -> &'static str {
        "the messages sent to it"
    }
}

/// A new connection: the transport and its inbox.
pub type Connection = (Box<dyn Transport>, Inbox);

/// Makes connections to one server: the first, and a new one when the
/// last is lost (see [`Reconnector`](crate::Reconnector)).
pub trait TransportFactory: Send + Sync + fmt::Debug + 'static {
    /// Starts a new connection.
    fn connect(&self) -> BoxFuture<'_, Result<Connection, ClientError>>;
}

/// A shared transport, so that the layer above can keep a handle on it
/// (an HTTP session's id) while a dispatcher sends through it.
impl<T: Transport> Transport for std::sync::Arc<T> {
    fn send(&self, message: Outgoing) -> BoxFuture<'_, Result<(), ClientError>> {
        (**self).send(message)
    }

    fn abandon(&self, id: u64) {
        (**self).abandon(id);
    }

    fn set_headers(&self, headers: &[(String, String)]) -> Result<(), ClientError> {
        (**self).set_headers(headers)
    }

    fn listen(&self) -> BoxFuture<'_, Result<(), ClientError>> {
        (**self).listen()
    }

    fn close(&self) -> BoxFuture<'_, ()> {
        (**self).close()
    }

    fn terminate(&self) {
        (**self).terminate();
    }

    fn input(&self) -> &'static str {
        (**self).input()
    }
}
