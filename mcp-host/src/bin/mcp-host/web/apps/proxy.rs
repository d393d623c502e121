//! The sandbox proxy: a second listener, on the page's address at another
//! port, so an app's frame has an origin of its own (the extension: "the
//! Host and the Sandbox MUST have different origins"). It serves, for an
//! open app's id only:
//! - `/proxy/ID`: the proxy page, framed by the page that opened the app
//!   alone (`frame-ancestors`), which frames the app and relays messages;
//! - `/view/ID`: the app's HTML, with the app's policy as its
//!   `Content-Security-Policy` and framed by the proxy alone.
//!
//! Its `Host` is checked as the page's is (a DNS-rebinding name is
//! refused); nothing here reads a cookie or changes state.

use super::Apps;
use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{CONTENT_TYPE, HOST};
use hyper::server::conn::http1;
use hyper::{Response, StatusCode};
use hyper_util::rt::TokioIo;
use std::net::SocketAddr;
use std::sync::{OnceLock, Weak};
use tokio::net::TcpListener;

/// The proxy's script.
const PROXY_JS: &str = include_str!("proxy.js");

/// What every proxy response says beside its policy.
const HEADERS: &[(&str, &str)] = &[
    ("cache-control", "no-store"),
    ("x-content-type-options", "nosniff"),
    ("referrer-policy", "no-referrer"),
];

type Reply = Response<Full<Bytes>>;

/// The proxy's listener.
pub(crate) struct Proxy {
    apps: Weak<Apps>,
    bound: OnceLock<SocketAddr>,
}

impl Proxy {
    pub(super) fn unbound(apps: Weak<Apps>) -> Proxy {
        Proxy {
            apps,
            bound: OnceLock::new(),
        }
    }

    /// Listens on `page`'s address at any free port.
    pub(super) async fn listen(&self, page: SocketAddr) -> Result<(), String> {
        let listener = TcpListener::bind(SocketAddr::new(page.ip(), 0))
            .await
            .map_err(|e| {
                format!(
                    "web: cannot listen for the apps' sandbox on {}: {e}",
                    page.ip()
                )
            })?;
        let bound = listener
            .local_addr()
            .map_err(|e| format!("web: the sandbox's listening socket: {e}"))?;
        let _ = self.bound.set(bound);
        tokio::spawn(accept(listener, self.apps.clone(), bound));
        Ok(())
    }

    fn port(&self) -> u16 {
        self.bound.get().map_or(0, SocketAddr::port)
    }

    /// The proxy's origins: by its address, and by `localhost` when that
    /// is loopback.
    pub(super) fn origins(&self) -> Vec<String> {
        let Some(bound) = self.bound.get() else {
            return Vec::new();
        };
        let mut origins = vec![format!("http://{bound}")];
        if bound.ip().is_loopback() {
            origins.push(format!("http://localhost:{}", bound.port()));
        }
        origins
    }

    /// The proxy's origin as the page at `page_origin` names hosts: by
    /// the same name (`localhost` or an address), at the proxy's port.
    pub(super) fn origin_for(&self, page_origin: &str) -> String {
        let host = page_origin
            .strip_prefix("http://")
            .and_then(|authority| authority.rsplit_once(':'))
            .map_or("127.0.0.1", |(host, _)| host);
        format!("http://{host}:{}", self.port())
    }
}

async fn accept(listener: TcpListener, apps: Weak<Apps>, bound: SocketAddr) {
    loop {
        let Ok((socket, _)) = listener.accept().await else {
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            continue;
        };
        let apps = apps.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let reply = match apps.upgrade() {
                    Some(apps) => serve(&apps, bound, &request),
                    None => text(StatusCode::SERVICE_UNAVAILABLE, "mcp-host is ending"),
                };
                async move { Ok::<_, std::convert::Infallible>(reply) }
            });
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(socket), service)
                .await;
        });
    }
}

fn serve(apps: &Apps, bound: SocketAddr, request: &hyper::Request<Incoming>) -> Reply {
    let mut reply = route(apps, bound, request);
    for (name, value) in HEADERS {
        reply
            .headers_mut()
            .insert(*name, hyper::header::HeaderValue::from_static(value));
    }
    reply
}

fn route(apps: &Apps, bound: SocketAddr, request: &hyper::Request<Incoming>) -> Reply {
    let host = request
        .headers()
        .get(HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or_default();
    if !is_own_host(bound, host) {
        return text(
            StatusCode::FORBIDDEN,
            format!("Host `{host}` is not this server ({bound})"),
        );
    }
    if request.method() != hyper::Method::GET {
        return text(
            StatusCode::METHOD_NOT_ALLOWED,
            "the sandbox serves GET only",
        );
    }
    let path = request.uri().path();
    if path == "/proxy.js" {
        return Response::builder()
            .header(CONTENT_TYPE, "text/javascript; charset=utf-8")
            .body(Full::new(Bytes::from_static(PROXY_JS.as_bytes())))
            .unwrap_or_default();
    }
    let (kind, id) = match path.strip_prefix("/proxy/") {
        Some(id) => ("proxy", id),
        None => match path.strip_prefix("/view/") {
            Some(id) => ("view", id),
            None => return text(StatusCode::NOT_FOUND, format!("nothing at `{path}`")),
        },
    };
    let Some(app) = apps.get(id) else {
        return text(StatusCode::NOT_FOUND, "no such app is open");
    };
    let own = format!("http://{host}");
    if kind == "proxy" {
        let html = format!(
            "<!doctype html><html><head><meta charset=\"utf-8\">\
             <meta name=\"mcp-host-page\" content=\"{}\">\
             <style>html,body{{margin:0;height:100%;overflow:hidden}}iframe{{border:0;width:100%;height:100%;display:block}}</style>\
             <script src=\"/proxy.js\"></script></head><body></body></html>",
            app.page_origin
        );
        let policy = format!(
            "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; frame-src 'self'; \
             base-uri 'none'; form-action 'none'; frame-ancestors {}",
            app.page_origin
        );
        return Response::builder()
            .header(CONTENT_TYPE, "text/html; charset=utf-8")
            .header("content-security-policy", policy)
            .body(Full::new(Bytes::from(html)))
            .unwrap_or_default();
    }
    // The app's own policy, and a second one that only its proxy (under
    // the page that opened it) may frame it: both are enforced.
    Response::builder()
        .header(CONTENT_TYPE, "text/html; charset=utf-8")
        .header(
            "content-security-policy",
            app.policy.content_security_policy.as_str(),
        )
        .header(
            "content-security-policy",
            format!("frame-ancestors {} {own}", app.page_origin),
        )
        .body(Full::new(Bytes::from(app.document.html.clone())))
        .unwrap_or_default()
}

/// Whether `host` names the proxy: its address and port, or `localhost`
/// with its port.
fn is_own_host(bound: SocketAddr, host: &str) -> bool {
    if bound.ip().is_loopback() && host.eq_ignore_ascii_case(&format!("localhost:{}", bound.port()))
    {
        return true;
    }
    host.parse::<SocketAddr>().is_ok_and(|named| {
        named.port() == bound.port() && (named.ip() == bound.ip() || bound.ip().is_unspecified())
    })
}

fn text(status: StatusCode, message: impl Into<String>) -> Reply {
    Response::builder()
        .status(status)
        .header(CONTENT_TYPE, "text/plain; charset=utf-8")
        .body(Full::new(Bytes::from(message.into())))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_proxys_names_are_its_host() {
        let bound: SocketAddr = "127.0.0.1:4100".parse().unwrap();
        assert!(is_own_host(bound, "127.0.0.1:4100"));
        assert!(is_own_host(bound, "LOCALHOST:4100"));
        for other in ["127.0.0.1:4101", "evil.example:4100", "localhost", ""] {
            assert!(!is_own_host(bound, other), "{other}");
        }
    }
}
