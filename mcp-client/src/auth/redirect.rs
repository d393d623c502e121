//! How the user is sent to the authorization server and how its answer
//! comes back: the [`Prompt`] shown through a [`Presenter`] (printed on
//! stderr by default, a browser only if asked, or a program that follows
//! the URL itself), and the loopback listener of RFC 8252 §7.3 that
//! receives the redirect on `http://127.0.0.1:PORT/callback`.

use super::error::AuthError;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// What the user must do.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Prompt {
    /// Open `url` to log in to `server` (authorization code flow).
    Authorize {
        /// The MCP server's name.
        server: String,
        /// The authorization URL.
        url: String,
    },
    /// Enter `user_code` at `verification_uri` (device flow).
    Device {
        /// The MCP server's name.
        server: String,
        /// Where to go.
        verification_uri: String,
        /// The code to enter there.
        user_code: String,
        /// The URL with the code filled in, if the server gave one.
        verification_uri_complete: Option<String>,
    },
}

impl Prompt {
    /// The line shown to the user.
    pub fn text(&self) -> String {
        match self {
            Prompt::Authorize { server, url } => {
                format!("To authorize server `{server}`, open this URL: {url}")
            }
            Prompt::Device {
                server,
                verification_uri,
                user_code,
                verification_uri_complete,
            } => {
                let mut text = format!(
                    "To authorize server `{server}`, go to {verification_uri} and enter the code {user_code}"
                );
                if let Some(complete) = verification_uri_complete {
                    text.push_str(&format!(" (or open {complete})"));
                }
                text
            }
        }
    }
}

/// Shows a [`Prompt`]: prints it, opens a browser, or (a test, the
/// conformance client) follows the URL itself.
pub type Presenter = Arc<dyn Fn(&Prompt) + Send + Sync>;

/// The default presenter: the prompt's line on stderr.
pub fn print_prompt() -> Presenter {
    Arc::new(|prompt: &Prompt| eprintln!("{}", prompt.text()))
}

/// The prompt's line on stderr, and the authorization URL opened in the
/// desktop's browser (`open`, `xdg-open` or `start`).
pub fn open_browser() -> Presenter {
    Arc::new(|prompt: &Prompt| {
        eprintln!("{}", prompt.text());
        let url = match prompt {
            Prompt::Authorize { url, .. } => url,
            Prompt::Device {
                verification_uri_complete: Some(url),
                ..
            } => url,
            Prompt::Device {
                verification_uri, ..
            } => verification_uri,
        };
        let (program, args): (&str, Vec<&str>) = if cfg!(target_os = "macos") {
            ("open", vec![url])
        } else if cfg!(windows) {
            ("cmd", vec!["/C", "start", "", url])
        } else {
            ("xdg-open", vec![url])
        };
        if let Err(e) = std::process::Command::new(program).args(args).spawn() {
            eprintln!("(could not open a browser with `{program}`: {e})");
        }
    })
}

/// The redirect's query: what the authorization server sent back.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Callback {
    pub(crate) code: Option<String>,
    pub(crate) state: Option<String>,
    pub(crate) iss: Option<String>,
    pub(crate) error: Option<String>,
    pub(crate) error_description: Option<String>,
}

impl Callback {
    fn from_query(query: &str) -> Callback {
        let mut callback = Callback::default();
        for (key, value) in form_urlencoded::parse(query.as_bytes()) {
            let slot = match key.as_ref() {
                "code" => &mut callback.code,
                "state" => &mut callback.state,
                "iss" => &mut callback.iss,
                "error" => &mut callback.error,
                "error_description" => &mut callback.error_description,
                _ => continue,
            };
            slot.get_or_insert(value.into_owned());
        }
        callback
    }
}

/// A bound loopback listener waiting for one redirect.
#[derive(Debug)]
pub(crate) struct Listener {
    listener: TcpListener,
    pub(crate) redirect_uri: String,
}

/// The most of a request read from the browser.
const MAX_REQUEST_BYTES: usize = 16 * 1024;

impl Listener {
    /// Binds `127.0.0.1:port` (`0`: any free port).
    pub(crate) async fn bind(port: u16) -> Result<Listener, AuthError> {
        let listener =
            TcpListener::bind(("127.0.0.1", port))
                .await
                .map_err(|e| AuthError::Config {
                    reason: format!("the redirect listener could not bind 127.0.0.1:{port}: {e}"),
                })?;
        let port = listener
            .local_addr()
            .map_err(|e| AuthError::Config {
                reason: format!("the redirect listener has no address: {e}"),
            })?
            .port();
        Ok(Listener {
            listener,
            redirect_uri: format!("http://127.0.0.1:{port}/callback"),
        })
    }

    /// Waits (up to `timeout`) for `GET /callback?…`, answers the
    /// browser, and returns the query. Other requests (a favicon) get 404
    /// and the wait goes on.
    pub(crate) async fn wait(self, timeout: Duration) -> Result<Callback, AuthError> {
        let accept = async {
            loop {
                let Ok((mut stream, _)) = self.listener.accept().await else {
                    continue;
                };
                let Some(target) = read_request_target(&mut stream).await else {
                    continue;
                };
                let Some(query) = target
                    .strip_prefix("/callback")
                    .and_then(|rest| rest.strip_prefix('?').or((rest.is_empty()).then_some("")))
                else {
                    let _ = respond(&mut stream, "404 Not Found", "Not found.").await;
                    continue;
                };
                let callback = Callback::from_query(query);
                let page = if callback.code.is_some() && callback.error.is_none() {
                    "Authorization received. You can close this window."
                } else {
                    "Authorization failed. You can close this window."
                };
                let _ = respond(&mut stream, "200 OK", page).await;
                return callback;
            }
        };
        tokio::time::timeout(timeout, accept)
            .await
            .map_err(|_| AuthError::TimedOut {
                what: "the authorization in the browser".into(),
                seconds: timeout.as_secs(),
            })
    }
}

/// The request target of a `GET`, once its head is read.
async fn read_request_target(stream: &mut tokio::net::TcpStream) -> Option<String> {
    let mut head = Vec::new();
    let mut buffer = [0u8; 2048];
    let read = async {
        while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < MAX_REQUEST_BYTES {
            let n = stream.read(&mut buffer).await.ok()?;
            if n == 0 {
                break;
            }
            head.extend_from_slice(&buffer[..n]);
        }
        Some(())
    };
    tokio::time::timeout(Duration::from_secs(10), read)
        .await
        .ok()??;
    let line = head.split(|&b| b == b'\n').next()?;
    let line = std::str::from_utf8(line).ok()?.trim_end();
    let mut parts = line.split(' ');
    (parts.next()? == "GET").then_some(())?;
    parts.next().map(str::to_owned)
}

async fn respond(
    stream: &mut tokio::net::TcpStream,
    status: &str,
    text: &str,
) -> std::io::Result<()> {
    let response = format!(
        "HTTP/1.1 {status}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
        text.len()
    );
    stream.write_all(response.as_bytes()).await?;
    stream.shutdown().await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_query() {
        let c = Callback::from_query("code=a%20b&state=s&iss=https%3A%2F%2Fas.test&code=x");
        assert_eq!(c.code.as_deref(), Some("a b"));
        assert_eq!(c.iss.as_deref(), Some("https://as.test"));
    }
}
