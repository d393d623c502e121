//! The Streamable HTTP transport: each message is a POST to the server's
//! one endpoint; an answer comes back as a JSON body or as an event stream
//! (notifications first, the answer last). A legacy session's
//! `Mcp-Session-Id` is kept and sent, its GET stream opened on
//! [`listen`](Transport::listen), and the session ended with DELETE on
//! close. A request's event stream that ends before its answer, after an
//! event with an id, is resumed with a GET naming that id
//! (`Last-Event-ID`) once the server's `retry` wait has passed (2025-11-25
//! servers may close a stream at any time and expect the client to poll).
//!
//! Connections are pooled and kept alive (hyper-util's client), so calls at
//! a high rate do not pay a TCP (and TLS) handshake each.

use super::stdio::DEFAULT_MAX_MESSAGE_BYTES;
use super::{BoxFuture, Inbox, InboxSender, Outgoing, Transport};
use crate::error::ClientError;
use bytes::Bytes;
use http_body_util::Full;
use hyper::Uri;
use hyper::header::{HeaderMap, HeaderName, HeaderValue};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::task::AbortHandle;

/// The connector of [`connector`]: TCP, and rustls over it with `https`.
#[cfg(feature = "https")]
pub type Connector = hyper_rustls::HttpsConnector<HttpConnector>;
/// The connector of [`connector`]: TCP, and rustls over it with `https`.
#[cfg(not(feature = "https"))]
pub type Connector = HttpConnector;

type HttpClient = Client<Connector, Full<Bytes>>;

const SESSION_ID: HeaderName = HeaderName::from_static(mcpfn_protocol::http::SESSION_ID);
/// The header of a resuming GET: the id of the last event received.
const LAST_EVENT_ID: &str = "last-event-id";
/// The most times the stream of one request is resumed.
const MAX_RESUMPTIONS: u32 = 5;
/// How long [`listen`](Transport::listen) waits for the GET stream's answer.
const LISTEN_OPEN_TIMEOUT: Duration = Duration::from_secs(5);
/// The wait before resuming when the server gave no `retry`.
const DEFAULT_RETRY: Duration = Duration::from_secs(1);
/// The longest `retry` wait heeded (the call's timeout bounds it anyway).
const MAX_RETRY: Duration = Duration::from_secs(30);
/// How much of an error body is read and quoted.
const ERROR_BODY_BYTES: usize = 64 * 1024;
const ERROR_EXCERPT: usize = 300;

/// How to reach a Streamable HTTP server.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    /// The server's name in the configuration (for the log and errors).
    pub name: String,
    /// Its MCP endpoint (`http://…` or, with the `https` feature, `https://…`).
    pub url: String,
    /// Headers sent on every request to it (e.g. `Authorization: Bearer …`).
    pub headers: Vec<(String, String)>,
    /// The largest message read (a JSON body, or one event's data); a
    /// larger one is discarded. Default 16 MiB.
    pub max_message_bytes: usize,
    /// How many incoming messages may wait for the dispatcher before the
    /// streams are no longer read (back-pressure). Default 64.
    pub inbox_capacity: usize,
    /// How long a TCP connect may take. Default 10 s.
    pub connect_timeout: Duration,
    /// Authorization (OAuth) for a server that asks for it: its token on
    /// every request, and a 401 or 403 `insufficient_scope` handed to it
    /// before the request is sent again. The resource must be on the
    /// endpoint's origin.
    #[cfg(feature = "oauth")]
    pub authorizer: Option<Arc<dyn crate::bearer::Authorizer>>,
}

impl HttpConfig {
    /// The server called `name` at `url`, with the defaults.
    pub fn new(name: impl Into<String>, url: impl Into<String>) -> Self {
        HttpConfig {
            name: name.into(),
            url: url.into(),
            headers: Vec::new(),
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            inbox_capacity: 64,
            connect_timeout: Duration::from_secs(10),
            #[cfg(feature = "oauth")]
            authorizer: None,
        }
    }

    /// Adds a header sent on every request.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }
}

/// What the transport and its reading tasks share.
#[derive(Debug)]
struct Shared {
    name: String,
    uri: Uri,
    client: HttpClient,
    headers: HeaderMap,
    /// The legacy session's id, once the server minted one.
    session: Mutex<Option<HeaderValue>>,
    /// Headers the layer above set for the rest of the connection
    /// (`MCP-Protocol-Version` after a legacy handshake): on every POST,
    /// the GET stream and the DELETE.
    connection_headers: Mutex<HeaderMap>,
    inbox: InboxSender,
    /// The event streams being read, by the id of the request they answer.
    streams: Mutex<HashMap<u64, AbortHandle>>,
    listener: Mutex<Option<AbortHandle>>,
    limit: usize,
    #[cfg(feature = "oauth")]
    authorizer: Option<Arc<dyn crate::bearer::Authorizer>>,
}

/// A Streamable HTTP server. Dropping it stops its streams and ends its
/// session (DELETE, in the background).
#[derive(Debug)]
pub struct HttpTransport {
    shared: Arc<Shared>,
}

/// `name: value` as HTTP takes them; an error naming the header when the
/// name or the value is not valid in HTTP.
pub(crate) fn header_pair(
    name: &str,
    value: &str,
) -> Result<(HeaderName, HeaderValue), ClientError> {
    let header = HeaderName::from_bytes(name.as_bytes()).map_err(|_| ClientError::Config {
        reason: format!("`{name}` is not a valid HTTP header name"),
    })?;
    let value = HeaderValue::from_str(value).map_err(|_| ClientError::Config {
        reason: format!("the value of header `{name}` is not valid in HTTP"),
    })?;
    Ok((header, value))
}

/// An error with its causes, which hyper keeps apart (`client error
/// (Connect)` alone says little).
pub fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// A pooled HTTP(S) connector: TCP_NODELAY, `connect_timeout`, and (with
/// `https`) rustls over the compiled-in Mozilla roots. The model APIs'
/// client (mcp-host's provider) uses the same one.
pub fn connector(connect_timeout: Duration) -> Connector {
    let mut http = HttpConnector::new();
    http.set_connect_timeout(Some(connect_timeout));
    http.set_nodelay(true);
    #[cfg(feature = "https")]
    {
        http.enforce_http(false);
        hyper_rustls::HttpsConnectorBuilder::new()
            .with_webpki_roots()
            .https_or_http()
            .enable_http1()
            .wrap_connector(http)
    }
    #[cfg(not(feature = "https"))]
    http
}

impl HttpTransport {
    /// A transport to `config.url`. Nothing is sent yet. Must be called
    /// inside a tokio runtime.
    pub fn connect(config: HttpConfig) -> Result<(HttpTransport, Inbox), ClientError> {
        let uri: Uri = config.url.parse().map_err(|e| ClientError::Config {
            reason: format!("`{}` is not a URL: {e}", config.url),
        })?;
        match uri.scheme_str() {
            Some("http") => {}
            Some("https") if cfg!(feature = "https") => {}
            Some("https") => {
                return Err(ClientError::Config {
                    reason: format!(
                        "`{}` needs HTTPS, which this build leaves out (feature `https`)",
                        config.url
                    ),
                });
            }
            _ => {
                return Err(ClientError::Config {
                    reason: format!("`{}` is not an http:// or https:// URL", config.url),
                });
            }
        }
        #[cfg(feature = "oauth")]
        if let Some(authorizer) = &config.authorizer {
            let origin = crate::bearer::same_origin(authorizer.resource_url(), &config.url);
            if !origin {
                return Err(ClientError::Config {
                    reason: format!(
                        "the authorization is for `{}`, not on the origin of `{}`",
                        authorizer.resource_url(),
                        config.url
                    ),
                });
            }
        }
        let mut headers = HeaderMap::new();
        for (name, value) in &config.headers {
            let (name, value) = header_pair(name, value)?;
            headers.append(name, value);
        }
        let client = Client::builder(TokioExecutor::new())
            .pool_idle_timeout(Duration::from_secs(60))
            .build(connector(config.connect_timeout));
        let (inbox_tx, inbox) = Inbox::channel(config.inbox_capacity);
        let shared = Arc::new(Shared {
            name: config.name,
            uri,
            client,
            headers,
            session: Mutex::new(None),
            connection_headers: Mutex::new(HeaderMap::new()),
            inbox: inbox_tx,
            streams: Mutex::new(HashMap::new()),
            listener: Mutex::new(None),
            limit: config.max_message_bytes,
            #[cfg(feature = "oauth")]
            authorizer: config.authorizer,
        });
        Ok((HttpTransport { shared }, inbox))
    }

    /// The legacy session's id, once the server minted one.
    pub fn session_id(&self) -> Option<String> {
        lock(&self.shared.session)
            .as_ref()
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    }
}

mod auth;
mod post;
mod streams;

impl Transport for HttpTransport {
    fn send(&self, message: Outgoing) -> BoxFuture<'_, Result<(), ClientError>> {
        Box::pin(async move { self.shared.post(message).await })
    }

    fn abandon(&self, id: u64) {
        // Dropping the stream closes its connection: the 2026-07-28 era's
        // cancellation, and no more events for a call nobody waits for.
        if let Some(task) = lock(&self.shared.streams).remove(&id) {
            task.abort();
        }
    }

    fn set_headers(&self, headers: &[(String, String)]) -> Result<(), ClientError> {
        let mut map = HeaderMap::new();
        for (name, value) in headers {
            let (name, value) = header_pair(name, value)?;
            map.insert(name, value);
        }
        *lock(&self.shared.connection_headers) = map;
        Ok(())
    }

    fn listen(&self) -> BoxFuture<'_, Result<(), ClientError>> {
        Box::pin(async move {
            if lock(&self.shared.session).is_none() {
                // No session (the 2026-07-28 era, or a stateless legacy
                // server): there is no GET stream to open.
                return Ok(());
            }
            let opened = {
                let mut listener = lock(&self.shared.listener);
                if listener.is_some() {
                    return Ok(());
                }
                let (opened, answered) = tokio::sync::oneshot::channel();
                let task = tokio::spawn(Arc::clone(&self.shared).listen_loop(opened));
                *listener = Some(task.abort_handle());
                answered
            };
            // The stream is open before the caller goes on: a server sends
            // requests that belong to no POST (an elicitation during a
            // call) only on an open GET stream, and drops them otherwise.
            let _ = tokio::time::timeout(LISTEN_OPEN_TIMEOUT, opened).await;
            Ok(())
        })
    }

    fn close(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            self.shared.stop_streams();
            self.shared.end_session().await;
        })
    }
}

impl Drop for HttpTransport {
    fn drop(&mut self) {
        self.shared.stop_streams();
        if lock(&self.shared.session).is_some()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            let shared = Arc::clone(&self.shared);
            runtime.spawn(async move { shared.end_session().await });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Cause;
    use crate::transport::Incoming;
    use std::time::Instant;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpListener;

    #[tokio::test]
    async fn a_refused_connect_keeps_the_os_error_as_its_source() {
        // A port just freed: nothing listens on it.
        let port = TcpListener::bind("127.0.0.1:0")
            .await
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let config = HttpConfig::new("nobody", format!("http://127.0.0.1:{port}/mcp"));
        let (transport, _inbox) = HttpTransport::connect(config).unwrap();
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.to_owned();
        let err = transport
            .send(Outgoing::new(body, Some(1)))
            .await
            .unwrap_err();
        let ClientError::Disconnected {
            cause: Some(cause), ..
        } = &err
        else {
            panic!("{err:?}");
        };
        // The text is what it was: the whole chain, flattened.
        assert_eq!(
            err.to_string(),
            format!("connection to server `nobody` lost: {}", chain(cause.get()))
        );
        let top = std::error::Error::source(&err).expect("a source");
        assert!(top.downcast_ref::<Cause>().is_some(), "{top:?}");
        assert!(
            cause
                .get()
                .downcast_ref::<hyper_util::client::legacy::Error>()
                .is_some_and(|e| e.is_connect())
        );
        let mut link = Some(top);
        let mut io = None;
        while let Some(error) = link {
            io = io.or(error.downcast_ref::<std::io::Error>());
            link = error.source();
        }
        assert_eq!(
            io.map(std::io::Error::kind),
            Some(std::io::ErrorKind::ConnectionRefused)
        );
    }

    /// Reads one request's head (the test's requests have no body but the
    /// POST's, read by its length).
    async fn read_request(stream: &mut tokio::net::TcpStream) -> String {
        let mut bytes = Vec::new();
        let mut buffer = [0u8; 4096];
        loop {
            let n = stream.read(&mut buffer).await.expect("read");
            assert!(n > 0, "the client closed the connection");
            bytes.extend_from_slice(&buffer[..n]);
            let text = String::from_utf8_lossy(&bytes).into_owned();
            if let Some(end) = text.find("\r\n\r\n") {
                let length = text[..end]
                    .lines()
                    .find_map(|l| {
                        l.to_ascii_lowercase()
                            .strip_prefix("content-length:")
                            .map(|v| v.trim().parse::<usize>().unwrap())
                    })
                    .unwrap_or(0);
                if bytes.len() >= end + 4 + length {
                    return text;
                }
            }
        }
    }

    const STREAM_HEAD: &str =
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";

    #[tokio::test]
    async fn a_stream_closed_before_its_answer_is_resumed_after_the_retry_wait() {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let url = format!("http://{}/mcp", listener.local_addr().expect("address"));
        let server = tokio::spawn(async move {
            // The POST: a priming event (an id, a 300 ms retry), then the
            // stream ends without the answer.
            let (mut post, _) = listener.accept().await.expect("the POST");
            let request = read_request(&mut post).await;
            assert!(request.starts_with("POST "), "{request}");
            post.write_all(format!("{STREAM_HEAD}id: e-1\nretry: 300\ndata: \n\n").as_bytes())
                .await
                .expect("write");
            drop(post);
            let closed = Instant::now();
            // The GET that resumes it names the last event; the answer
            // comes on it.
            let (mut get, _) = listener.accept().await.expect("the GET");
            let waited = closed.elapsed();
            let request = read_request(&mut get).await;
            get.write_all(
                format!("{STREAM_HEAD}id: e-2\ndata: {{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{{}}}}\n\n")
                    .as_bytes(),
            )
            .await
            .expect("write");
            (request, waited)
        });
        let (transport, mut inbox) =
            HttpTransport::connect(HttpConfig::new("s", url)).expect("transport");
        let body = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t"}}"#;
        transport
            .send(Outgoing::new(body.into(), Some(7)))
            .await
            .expect("sent");
        let answer = tokio::time::timeout(Duration::from_secs(10), inbox.recv())
            .await
            .expect("an answer in time");
        match answer {
            Some(Incoming::Message(text)) => {
                assert_eq!(text, r#"{"jsonrpc":"2.0","id":7,"result":{}}"#);
            }
            other => panic!("not the answer: {other:?}"),
        }
        let (request, waited) = server.await.expect("the server");
        let head = request.to_ascii_lowercase();
        assert!(head.starts_with("get "), "{request}");
        assert!(head.contains("last-event-id: e-1\r\n"), "{request}");
        assert!(head.contains("accept: text/event-stream\r\n"), "{request}");
        assert!(
            waited >= Duration::from_millis(280),
            "resumed after {waited:?}"
        );
    }
}
