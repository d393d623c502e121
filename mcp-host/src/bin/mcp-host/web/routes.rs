//! The page's one route table, behind the [`guard`](super::guard): the
//! page and its files, the event stream, and the API the page posts to.
//! Each part of the page adds its routes here, a line each.

use super::Web;
use super::guard::Refusal;
use super::reply::{MAX_BODY, Reply, Request, body, error, read_json, reply, too_large};
use bytes::Bytes;
use http_body_util::{BodyExt, Limited};
use hyper::body::Incoming;
use hyper::header::{CONTENT_LENGTH, CONTENT_TYPE, HeaderValue};
use hyper::{Response, StatusCode};
use mcpfn_client::BoxFuture;
use serde_json::json;
use std::sync::Arc;

/// What answers a route.
pub(crate) type Handler = fn(Arc<Web>, Request) -> BoxFuture<'static, Reply>;

/// One route: a method, a path (one ending in `/` takes every path under
/// it), and its handler.
pub(crate) struct Route {
    method: &'static str,
    path: &'static str,
    handler: Handler,
}

const fn get(path: &'static str, handler: Handler) -> Route {
    Route {
        method: "GET",
        path,
        handler,
    }
}

const fn post(path: &'static str, handler: Handler) -> Route {
    Route {
        method: "POST",
        path,
        handler,
    }
}

/// Every route of the page.
const ROUTES: &[Route] = &[
    get("/", |_, _| Box::pin(async { index() })),
    get("/app.css", |_, _| {
        Box::pin(async { file("text/css", APP_CSS) })
    }),
    get("/app.js", |_, _| {
        Box::pin(async { file("text/javascript", APP_JS) })
    }),
    get("/api/events", |web, _| {
        Box::pin(async move { events(&web) })
    }),
    post("/api/send", |web, request| Box::pin(send(web, request))),
    post("/api/stop", |web, _| Box::pin(async move { stop(&web) })),
    post("/api/approve", |web, request| {
        Box::pin(approve(web, request))
    }),
    get("/panel.js", |_, _| {
        Box::pin(async { file("text/javascript", super::panel::PANEL_JS) })
    }),
    get("/api/panel/", super::panel::get),
    post("/api/panel/", super::panel::post),
    get("/apps.js", |_, _| {
        Box::pin(async { file("text/javascript", super::apps::APPS_JS) })
    }),
    post("/api/apps/", |web, request| {
        Box::pin(super::apps::route(web, request))
    }),
];

const INDEX_HTML: &str = include_str!("page/index.html");
const APP_CSS: &str = include_str!("page/app.css");
const APP_JS: &str = include_str!("page/app.js");

/// The scripts of the page's other parts, loaded when the table has them.
const PARTS: &[&str] = &["/panel.js", "/apps.js"];

/// What every response says: never cached (the conversation is private),
/// never framed by another page, nothing loaded from elsewhere, no
/// referrer (the first URL had the token).
const HEADERS: &[(&str, &str)] = &[
    ("cache-control", "no-store"),
    ("x-content-type-options", "nosniff"),
    ("referrer-policy", "no-referrer"),
    (
        "content-security-policy",
        "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    ),
];

/// The name of this page's session cookie, the token's query key.
const TOKEN_KEY: &str = "token";

/// Answers `request`: the guard's checks first, then its route.
pub(crate) async fn serve(web: Arc<Web>, request: hyper::Request<Incoming>) -> Reply {
    let apps = Arc::clone(&web.apps);
    let mut reply = guarded(web, request).await;
    let headers = reply.headers_mut();
    for (name, value) in HEADERS {
        headers.insert(*name, HeaderValue::from_static(value));
    }
    // Apps are framed from the sandbox's origin.
    if let Some((_, base)) = HEADERS
        .iter()
        .find(|(name, _)| *name == "content-security-policy")
        && let Ok(policy) = HeaderValue::from_str(&apps.page_policy(base))
    {
        headers.insert("content-security-policy", policy);
    }
    reply
}

async fn guarded(web: Arc<Web>, request: hyper::Request<Incoming>) -> Reply {
    if let Err(refused) = web.guard.check_origin(request.headers()) {
        return refusal(refused);
    }
    let path = request.uri().path().to_owned();
    if request.method() == "GET"
        && path == "/"
        && let Some(token) = query_value(request.uri().query(), TOKEN_KEY)
    {
        // Already in: the same URL again (a second tab) is the page.
        if web.guard.check_session(request.headers()).is_ok() {
            return redirect_home(None);
        }
        return match web.guard.exchange(&token) {
            Ok(cookie) => redirect_home(Some(cookie)),
            Err(refused) => refusal(refused),
        };
    }
    if let Err(refused) = web.guard.check_session(request.headers()) {
        return refusal(refused);
    }
    let length = request
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if length.is_some_and(|n| n > MAX_BODY as u64) {
        return too_large();
    }
    let matching: Vec<&Route> = ROUTES.iter().filter(|r| r.matches(&path)).collect();
    let Some(route) = matching.iter().find(|r| request.method() == r.method) else {
        return if matching.is_empty() {
            error(StatusCode::NOT_FOUND, format!("no page or API at `{path}`"))
        } else {
            error(
                StatusCode::METHOD_NOT_ALLOWED,
                format!("`{path}` does not take {}", request.method()),
            )
        };
    };
    if route.method == "POST" && !is_json(&request) {
        return error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "a POST's body is JSON (Content-Type: application/json)",
        );
    }
    (route.handler)(web, request.map(|body| Limited::new(body, MAX_BODY))).await
}

impl Route {
    fn matches(&self, path: &str) -> bool {
        match self.path.strip_suffix('/') {
            Some(prefix) if !prefix.is_empty() => path.starts_with(self.path),
            _ => path == self.path,
        }
    }
}

fn is_json<B>(request: &hyper::Request<B>) -> bool {
    request
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"))
}

/// A query's value of `key`, as sent (the token is hex: nothing to
/// decode).
fn query_value(query: Option<&str>, key: &str) -> Option<String> {
    query?
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(k, _)| *k == key)
        .map(|(_, v)| v.to_owned())
}

fn redirect_home(cookie: Option<String>) -> Reply {
    let mut builder = Response::builder()
        .status(StatusCode::SEE_OTHER)
        .header("location", "/");
    if let Some(cookie) = cookie {
        builder = builder.header("set-cookie", cookie);
    }
    builder.body(body(Bytes::new())).unwrap_or_default()
}

fn refusal(refused: Refusal) -> Reply {
    error(refused.status, refused.reason)
}

fn file(kind: &'static str, text: &'static str) -> Reply {
    Response::builder()
        .header(CONTENT_TYPE, format!("{kind}; charset=utf-8"))
        .body(body(text))
        .unwrap_or_default()
}

/// The page, with a script tag for each part in the table.
fn index() -> Reply {
    let scripts: String = PARTS
        .iter()
        .filter(|part| ROUTES.iter().any(|r| r.method == "GET" && r.path == **part))
        .map(|part| format!("<script src=\"{part}\" defer></script>\n"))
        .collect();
    let html = INDEX_HTML.replace("<!-- parts -->\n", &scripts);
    Response::builder()
        .header(CONTENT_TYPE, "text/html; charset=utf-8")
        .body(body(html))
        .unwrap_or_default()
}

fn events(web: &Web) -> Reply {
    Response::builder()
        .header(CONTENT_TYPE, "text/event-stream")
        .body(web.stream.events().boxed())
        .unwrap_or_default()
}

async fn send(web: Arc<Web>, request: Request) -> Reply {
    let value = match read_json(request).await {
        Ok(value) => value,
        Err(reply) => return reply,
    };
    let Some(text) = value["text"].as_str().filter(|t| !t.trim().is_empty()) else {
        return error(StatusCode::BAD_REQUEST, "`text` is the line, not empty");
    };
    match web.send(text.to_owned()) {
        Ok(()) => reply(StatusCode::ACCEPTED, &json!({})),
        Err(super::Refused::Busy) => error(
            StatusCode::CONFLICT,
            "a line is running: wait for its answer, or Stop it",
        ),
        Err(super::Refused::Closing) => {
            error(StatusCode::SERVICE_UNAVAILABLE, "mcp-host is ending")
        }
    }
}

fn stop(web: &Web) -> Reply {
    reply(StatusCode::OK, &json!({"stopped": web.stop()}))
}

async fn approve(web: Arc<Web>, request: Request) -> Reply {
    let value = match read_json(request).await {
        Ok(value) => value,
        Err(reply) => return reply,
    };
    let (Some(ask), Some(answer)) = (value["ask"].as_u64(), value["answer"].as_str()) else {
        return error(
            StatusCode::BAD_REQUEST,
            "`ask` (the question's number) and `answer` (once, tool, server or deny) are needed",
        );
    };
    match web.person.answer(ask, answer) {
        Ok(()) => reply(StatusCode::OK, &json!({})),
        Err(e @ super::approve::NotTaken::NotAsked(_)) => {
            error(StatusCode::CONFLICT, e.to_string())
        }
        Err(e) => error(StatusCode::BAD_REQUEST, e.to_string()),
    }
}
