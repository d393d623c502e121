//! The HTTP ceiling: a minimal hand-written hyper 1.x server that answers a
//! 2026-07-28 `tools/call add` POST with the bytes `everything --http` sends.
//!
//! ```text
//! http-ceiling ADDR [--threads N]     e.g. http-ceiling 127.0.0.1:8931
//! ```
//!
//! It is what the benchmark compares `everything --http` against: hyper's
//! HTTP/1.1 server (keep-alive on, `TCP_NODELAY`), one tokio thread by default
//! like `everything` (`--threads N` for a multi-thread runtime), no framework.
//! Each POST to `/mcp` is parsed into a `serde_json::Value` and checked the way
//! the modern era requires of every server (§8.3/§8.4 of the digest, reduced to
//! what an `add` call exercises): `MCP-Protocol-Version` equals the `_meta`
//! version `2026-07-28`, `clientCapabilities` is present, `Mcp-Method` equals
//! the body's method and `Mcp-Name` equals `params.name`; a failed check is a
//! `400` with the spec's JSON-RPC error. The answer is one `application/json`
//! body:
//!
//! ```text
//! {"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"{\"sum\":7.25}"}],
//!  "structuredContent":{"sum":7.25},"resultType":"complete",
//!  "_meta":{"io.modelcontextprotocol/serverInfo":{…}}}}
//! ```
//!
//! Environment: `CEILING_SERVER_INFO`, a JSON `Implementation` object to put
//! in `_meta` (the benchmark passes `everything`'s, so both bodies have the
//! same bytes); without it, `{"name":"http-ceiling","version":"0.1.0"}`.
//! It runs until killed.

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::header::{CONTENT_TYPE, HeaderValue};
use hyper::{HeaderMap, Method, Request, Response, StatusCode};
use serde_json::Value;
use std::convert::Infallible;
use std::sync::Arc;

/// The only protocol version this server speaks.
const VERSION: &str = "2026-07-28";
/// The request body limit (the stdio message limit of `mcp-runtime`).
const BODY_LIMIT: usize = 4 << 20;

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let mut addr = None;
    let mut threads = 1;
    while let Some(arg) = args.next() {
        if arg == "--threads" {
            threads = args
                .next()
                .and_then(|n| n.parse().ok())
                .filter(|&n: &usize| n > 0)
                .ok_or_else(|| std::io::Error::other("--threads needs a positive number"))?;
        } else {
            addr = Some(arg);
        }
    }
    let addr =
        addr.ok_or_else(|| std::io::Error::other("usage: http-ceiling ADDR [--threads N]"))?;
    let server_info = match std::env::var("CEILING_SERVER_INFO") {
        Ok(text) => serde_json::from_str::<Value>(&text).map_err(std::io::Error::other)?,
        Err(_) => serde_json::json!({"name": "http-ceiling", "version": "0.1.0"}),
    };
    // Everything after the sum, made once: `}` closes structuredContent.
    let tail: Arc<[u8]> = format!(
        "}},\"resultType\":\"complete\",\"_meta\":{{\"io.modelcontextprotocol/serverInfo\":{}}}}}}}",
        serde_json::to_string(&server_info).map_err(std::io::Error::other)?
    )
    .into_bytes()
    .into();
    let runtime = if threads == 1 {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?
    } else {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(threads)
            .enable_all()
            .build()?
    };
    runtime.block_on(serve(&addr, tail))
}

/// Accepts connections forever, one task each.
async fn serve(addr: &str, tail: Arc<[u8]>) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    eprintln!("http-ceiling: listening on {}", listener.local_addr()?);
    loop {
        let (stream, _) = listener.accept().await?;
        stream.set_nodelay(true)?;
        let tail = tail.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let tail = tail.clone();
                async move { Ok::<_, Infallible>(handle(request, &tail).await) }
            });
            // A client closing its connection mid-request is not an error here.
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                .await;
        });
    }
}

/// Answers one HTTP request.
async fn handle(request: Request<Incoming>, tail: &[u8]) -> Response<Full<Bytes>> {
    if request.uri().path() != "/mcp" {
        return empty(StatusCode::NOT_FOUND);
    }
    if request.method() != Method::POST {
        return empty(StatusCode::METHOD_NOT_ALLOWED);
    }
    let (parts, body) = request.into_parts();
    let Ok(body) = Limited::new(body, BODY_LIMIT).collect().await else {
        return empty(StatusCode::PAYLOAD_TOO_LARGE);
    };
    let Ok(message) = serde_json::from_slice::<Value>(&body.to_bytes()) else {
        return error(StatusCode::BAD_REQUEST, &Value::Null, -32700, "Parse error");
    };
    let Some(method) = message.get("method").and_then(Value::as_str) else {
        return error(
            StatusCode::BAD_REQUEST,
            &Value::Null,
            -32600,
            "Invalid request",
        );
    };
    let Some(id) = message.get("id").filter(|id| !id.is_null()) else {
        // A notification: accepted, nothing to answer.
        return empty(StatusCode::ACCEPTED);
    };
    let params = &message["params"];
    let meta = &params["_meta"];
    let Some(version) = meta["io.modelcontextprotocol/protocolVersion"].as_str() else {
        return error(
            StatusCode::BAD_REQUEST,
            id,
            -32602,
            "Missing _meta protocolVersion",
        );
    };
    if meta
        .get("io.modelcontextprotocol/clientCapabilities")
        .is_none()
    {
        return error(
            StatusCode::BAD_REQUEST,
            id,
            -32602,
            "Missing _meta clientCapabilities",
        );
    }
    let name = params["name"].as_str();
    if header(&parts.headers, "mcp-protocol-version") != Some(version)
        || header(&parts.headers, "mcp-method") != Some(method)
        || (method == "tools/call" && header(&parts.headers, "mcp-name") != name)
    {
        return error(StatusCode::BAD_REQUEST, id, -32020, "Header mismatch");
    }
    if version != VERSION {
        return error(
            StatusCode::BAD_REQUEST,
            id,
            -32022,
            "Unsupported protocol version",
        );
    }
    if method != "tools/call" {
        return error(StatusCode::NOT_FOUND, id, -32601, "Method not found");
    }
    if name != Some("add") {
        return error(StatusCode::OK, id, -32602, "Unknown tool");
    }
    let arguments = params["arguments"].as_object();
    let sum = arguments.and_then(|args| {
        let a = args.get("a")?.as_f64()?;
        let b = args.get("b")?.as_f64()?;
        (args.len() == 2).then_some(a + b)
    });
    let Some(sum) = sum else {
        return error(StatusCode::OK, id, -32602, "Invalid arguments for tool add");
    };
    let number = serde_json::to_vec(&sum).unwrap_or_default();
    let mut out = Vec::with_capacity(256 + tail.len());
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    out.extend_from_slice(&serde_json::to_vec(id).unwrap_or_default());
    out.extend_from_slice(br#","result":{"content":[{"type":"text","text":"{\"sum\":"#);
    out.extend_from_slice(&number);
    out.extend_from_slice(br#"}"}],"structuredContent":{"sum":"#);
    out.extend_from_slice(&number);
    out.extend_from_slice(tail);
    json(StatusCode::OK, out)
}

/// The only value of header `name`, if it is present exactly once and text.
fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    let mut values = headers.get_all(name).iter();
    let first = values.next()?;
    // Duplicated routing headers are refused like missing ones.
    if values.next().is_some() {
        return None;
    }
    first.to_str().ok()
}

/// A response without a body.
fn empty(status: StatusCode) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = status;
    response
}

/// A JSON response.
fn json(status: StatusCode, body: Vec<u8>) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// A JSON-RPC error response.
fn error(status: StatusCode, id: &Value, code: i32, message: &str) -> Response<Full<Bytes>> {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code, "message": message},
    });
    json(status, serde_json::to_vec(&body).unwrap_or_default())
}
