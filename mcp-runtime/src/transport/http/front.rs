//! The front door: the ordered steps every HTTP request meets before an
//! endpoint answers it. [`steps`] states their order, once; [`answer`] runs
//! them and then [`endpoint`]. Each step has one responsibility, reads what
//! earlier steps left on the [`Visit`], and either lets the request on
//! (`Ok`) or answers it (`Err`): a refusal, or (health, metadata, the
//! legacy GET and DELETE) the whole answer.
//!
//! Everything before [`body_limit`] reads headers only, so a refused
//! client costs no more than its headers; the bearer check comes before
//! the method so that every method on the endpoint is authenticated.
//!
//! A plain chain of calls, not a loop over a list of steps: a loop awaiting
//! one future per step costs a measurable share of an HTTP call
//! (BENCHMARKS.md, "Figures behind design choices"). The synchronous
//! steps are `#[inline(always)]`: at `opt-level = "s"` the compiler keeps
//! them out of line (a call each, and `answered` for several of them).

use super::checks::{
    WithHeader, accepts, check_origin_and_host, check_single_host, json_response, refuse,
};
use super::client_key::ClientKey;
use super::{Caller, HEALTH_PATH, HttpBody, Inner, body, headers, legacy, modern, with_challenge};
use crate::auth::{Denial, Gate};
use crate::principal::Principal;
use crate::protocol::incoming::{self, Incoming};
use crate::protocol::outgoing;
use crate::session::http_routing;
use crate::shared::Shared;
use bytes::Bytes;
use hyper::body::Body;
use hyper::header::{self, HeaderValue};
use hyper::http::request::Parts;
use hyper::{Method, Request, Response, StatusCode};
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// What a step says: `Ok` lets the request on to the next step; `Err` is
/// the answer, and no later step runs. Boxed: `Ok`, the common case, stays
/// small.
pub(super) type Flow = Result<(), Box<Response<HttpBody>>>;

/// A step's answer, if it has one, as a [`Flow`].
#[inline(always)]
fn answered(answer: Option<Response<HttpBody>>) -> Flow {
    answer.map_or(Ok(()), |response| Err(Box::new(response)))
}

/// A request going through the door, and what the steps learnt of it.
#[derive(Debug)]
pub(super) struct Visit<B> {
    parts: Parts,
    /// Taken by [`body_limit`].
    body: Option<B>,
    /// Set by [`bearer`].
    caller: Caller,
    /// The peer's address when the listener handed it over (else it is
    /// looked for in the request's extensions).
    peer: Option<SocketAddr>,
    /// Set by [`bearer`]: whom the per-client limits count.
    client: ClientKey,
    /// Set by [`admission`]: kept until the response body is dropped.
    counted: Option<Counted>,
    /// Set by [`body_limit`]: the bytes, and their share of the body
    /// budget (held until the message made from them is handed on).
    read: Option<(Bytes, body::Held)>,
}

impl<B> Visit<B> {
    pub(super) fn new(request: Request<B>, peer: Option<SocketAddr>) -> Visit<B> {
        let (parts, body) = request.into_parts();
        Visit {
            parts,
            body: Some(body),
            peer,
            caller: Caller::default(),
            client: ClientKey::Unknown,
            counted: None,
            read: None,
        }
    }
}

/// The steps, then the endpoint (`peer`: the client's address, when the
/// caller knows it; else the request's extensions may hold it). Not an
/// `async fn`: the request is taken apart before the future is made, so
/// the future does not keep a slot for it beside the [`Visit`] (the
/// listener boxes this future for every request).
pub(super) fn answer<B>(
    inner: &Arc<Inner>,
    request: Request<B>,
    peer: Option<SocketAddr>,
) -> impl Future<Output = Response<HttpBody>> + Send + '_
where
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let mut visit = Visit::new(request, peer);
    async move {
        if let Err(answer) = steps(inner, &mut visit).await {
            return *answer;
        }
        endpoint(inner, &mut visit).await
    }
}

/// The front door's order, stated once: health → metadata → Origin/Host →
/// path → bearer → method → media types → admission → body limit (after a
/// check that `Host` came once, which RFC 9112 asks of every request).
pub(super) async fn steps<B>(inner: &Arc<Inner>, visit: &mut Visit<B>) -> Flow
where
    B: Body,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    single_host(visit)?;
    health(inner, visit)?;
    metadata(inner, visit)?;
    origin_host(inner, visit)?;
    path(inner, visit)?;
    bearer(inner, visit).await?;
    method(inner, visit)?;
    media(visit)?;
    admission(inner, visit)?;
    body_limit(inner, visit).await
}

/// `400` for two `Host` headers, on every path (RFC 9112 §3.2): the one a
/// proxy routed on and the one checked later could differ.
#[inline(always)]
fn single_host<B>(visit: &Visit<B>) -> Flow {
    answered(check_single_host(&visit.parts.headers))
}

/// `GET /health` of the built-in server: `200 ok`. Before the `Host`
/// check: probes name the replica by its address, not by an allowed host,
/// and the answer reveals nothing.
#[inline(always)]
fn health<B>(inner: &Inner, visit: &Visit<B>) -> Flow {
    let parts = &visit.parts;
    let served = inner.config.path.is_some()
        && parts.uri.path() == HEALTH_PATH
        && matches!(parts.method, Method::GET | Method::HEAD);
    if !served {
        return Ok(());
    }
    let mut response = Response::new(HttpBody::full(Bytes::from_static(b"ok\n")));
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    Err(Box::new(response))
}

/// The protected resource metadata document (GET or HEAD) at its paths,
/// with authorization: it is public, clients read it before they have a
/// token, from any origin.
#[inline(always)]
fn metadata<B>(inner: &Inner, visit: &Visit<B>) -> Flow {
    let parts = &visit.parts;
    let Some(gate) = &inner.config.auth else {
        return Ok(());
    };
    if !gate.is_metadata_path(parts.uri.path()) {
        return Ok(());
    }
    if parts.method != Method::GET && parts.method != Method::HEAD {
        return Err(Box::new(
            refuse(
                StatusCode::METHOD_NOT_ALLOWED,
                "Method Not Allowed: the metadata document takes GET",
            )
            .with_header(header::ALLOW, "GET, HEAD"),
        ));
    }
    let document = gate.metadata(http_routing::every_scope(&inner.shared).iter());
    Err(Box::new(json_response(StatusCode::OK, document)))
}

/// `403` for an `Origin` or `Host` not allowed (DNS rebinding).
#[inline(always)]
fn origin_host<B>(inner: &Inner, visit: &Visit<B>) -> Flow {
    answered(check_origin_and_host(&inner.config, &visit.parts.headers))
}

/// `404` off the built-in server's one path.
#[inline(always)]
fn path<B>(inner: &Inner, visit: &Visit<B>) -> Flow {
    let off = inner
        .config
        .path
        .is_some_and(|path| visit.parts.uri.path() != path);
    answered(off.then(|| refuse(StatusCode::NOT_FOUND, "Not Found: the MCP endpoint is /mcp")))
}

/// With authorization, the request's principal, or the gate's `401`,
/// `400` or `503`; and, with or without, whom the per-client limits count
/// the request against.
async fn bearer<B>(inner: &Inner, visit: &mut Visit<B>) -> Flow {
    let parts = &visit.parts;
    let principal = match &inner.config.auth {
        None => None,
        Some(gate) => match authenticate(gate, &inner.shared, parts).await {
            Ok(principal) => Some(principal),
            Err(denial) => return Err(Box::new(denied(denial))),
        },
    };
    visit.client = ClientKey::of(principal.as_deref(), visit.peer, &parts.extensions);
    visit.caller = Caller {
        client: visit.client.label(),
        principal,
    };
    Ok(())
}

/// The principal of a request to the endpoint, or the gate's refusal.
async fn authenticate(
    gate: &Gate,
    shared: &Shared,
    parts: &Parts,
) -> Result<Arc<Principal>, Denial> {
    let needed = named_scopes(shared, &parts.headers);
    gate.authenticate(&parts.headers, parts.uri.query(), &needed)
        .await
}

/// POST goes on; a legacy session's GET (its push stream) and DELETE are
/// answered here; anything else is `405`.
#[inline(always)]
fn method<B>(inner: &Inner, visit: &mut Visit<B>) -> Flow {
    let headers = &visit.parts.headers;
    let legacy_session = headers.contains_key(headers::SESSION_ID);
    let answer = match visit.parts.method {
        Method::POST => return Ok(()),
        Method::GET if legacy_session => {
            if !accepts(headers).1 {
                refuse(
                    StatusCode::NOT_ACCEPTABLE,
                    "Not Acceptable: Accept must list text/event-stream",
                )
            } else if let Some(slot) = inner.streams.enter(visit.client.clone()) {
                let caller = std::mem::take(&mut visit.caller);
                legacy::get(&inner.shared, &inner.sessions, headers, caller)
                    .map(|body| body.holding(slot))
            } else {
                too_many_streams(inner.streams.max())
            }
        }
        Method::DELETE if legacy_session => {
            legacy::delete(&inner.sessions, headers, visit.caller.principal.as_ref())
        }
        Method::GET | Method::DELETE => refuse(
            StatusCode::METHOD_NOT_ALLOWED,
            "Method Not Allowed: without Mcp-Session-Id this endpoint takes POST only (the 2026-07-28 era has no GET stream or session to delete)",
        )
        .with_header(header::ALLOW, "POST"),
        _ => refuse(
            StatusCode::METHOD_NOT_ALLOWED,
            "Method Not Allowed: use POST",
        )
        .with_header(header::ALLOW, "POST"),
    };
    Err(Box::new(answer))
}

/// A POST's `Content-Type` (`415`) and `Accept` (`406`).
#[inline(always)]
fn media<B>(visit: &Visit<B>) -> Flow {
    let headers = &visit.parts.headers;
    let json = |v: &HeaderValue| {
        v.to_str()
            .ok()
            .and_then(|t| t.split(';').next())
            .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"))
    };
    if !headers.get(header::CONTENT_TYPE).is_some_and(json) {
        return Err(Box::new(refuse(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Unsupported Media Type: the body must be application/json",
        )));
    }
    if accepts(headers) != (true, true) {
        return Err(Box::new(refuse(
            StatusCode::NOT_ACCEPTABLE,
            "Not Acceptable: Accept must list application/json and text/event-stream",
        )));
    }
    Ok(())
}

/// `503` past the server's pending-call limit; else the request is counted
/// until its response body is dropped.
#[inline(always)]
fn admission<B>(inner: &Inner, visit: &mut Visit<B>) -> Flow {
    let Some(counted) = Counted::enter(&inner.requests, inner.shared.limits.max_pending) else {
        return Err(Box::new(
            refuse(
                StatusCode::SERVICE_UNAVAILABLE,
                "Service Unavailable: too many requests in flight; retry shortly",
            )
            .with_header(header::RETRY_AFTER, "1"),
        ));
    };
    visit.counted = Some(counted);
    Ok(())
}

/// The body, read under the message limit (`413`), the body timeout
/// (`408`) and the body budget (`503`).
async fn body_limit<B>(inner: &Inner, visit: &mut Visit<B>) -> Flow
where
    B: Body,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let Some(body) = visit.body.take() else {
        // Only this step takes the body, once.
        return Ok(());
    };
    let declared = visit
        .parts
        .headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    let read = body::read(&inner.config, &inner.budget, declared, body)
        .await
        .map_err(Box::new)?;
    visit.read = Some(read);
    Ok(())
}

/// After the steps: the message, to the legacy or the 2026-07-28 endpoint.
async fn endpoint<B>(inner: &Arc<Inner>, visit: &mut Visit<B>) -> Response<HttpBody> {
    // `_held` keeps the body's bytes counted until this request is handed
    // on (the message borrows them until then). Without a body read (only
    // if a step was skipped), the empty body: not JSON, so `400`.
    let (body, _held) = visit
        .read
        .take()
        .unwrap_or_else(|| (Bytes::new(), body::Held::none(&inner.budget)));
    let headers = &visit.parts.headers;
    let caller = std::mem::take(&mut visit.caller);
    // The body is parsed once, its params included: the era choice, the
    // header ladder, the scope check and the call all read that one parse.
    let message = incoming::parse(&body);
    // A listen stream lives until the server stops: counted per client.
    let slot = match &message {
        Ok(Incoming::Request { method, .. })
            if *method == crate::protocol::model::method::SUBSCRIPTIONS_LISTEN =>
        {
            let client = std::mem::replace(&mut visit.client, ClientKey::Unknown);
            match inner.streams.enter(client) {
                Some(slot) => Some(slot),
                None => return too_many_streams(inner.streams.max()),
            }
        }
        _ => None,
    };
    let stop = inner.stop.subscribe();
    let gate = inner.config.auth.as_deref();
    let response = if legacy::claims(headers, &message) {
        legacy::post(
            &inner.shared,
            &stop,
            &inner.sessions,
            headers,
            message,
            caller,
            gate,
        )
        .await
    } else {
        modern::post(&inner.shared, &stop, headers, message, caller, gate).await
    };
    response.map(|body| body.holding((visit.counted.take(), slot)))
}
/// `429`: the client holds its quota of event streams.
fn too_many_streams(max: usize) -> Response<HttpBody> {
    refuse(
        StatusCode::TOO_MANY_REQUESTS,
        &format!(
            "Too Many Requests: this client already holds {max} open event streams (subscriptions/listen or GET; Server::max_streams_per_client); close one or retry later"
        ),
    )
    .with_header(header::RETRY_AFTER, "5")
    // Refused clients do not keep a connection (a descriptor) for it.
    .with_header(header::CONNECTION, "close")
}

/// The scopes the request a 2026-07-28 POST names in its `Mcp-Method` and
/// `Mcp-Name` headers needs (for the `scope` of a `401`, before the body
/// is read); none when it names nothing.
fn named_scopes(shared: &Shared, headers: &hyper::HeaderMap) -> Vec<String> {
    let Some(method) = headers::single(headers, &headers::METHOD).ok().flatten() else {
        return Vec::new();
    };
    let Some(name) = headers::single(headers, &headers::NAME).ok().flatten() else {
        return Vec::new();
    };
    http_routing::required_scopes(shared, &method, &name)
}

/// A refusal of the authorization gate, with its `WWW-Authenticate`.
fn denied(denial: Denial) -> Response<HttpBody> {
    let body = outgoing::rpc_error(None, &denial.error).into_bytes();
    let response = json_response(denial.status, body);
    with_challenge(response, denial)
}

/// A POST being answered, counted until its response body is dropped.
#[derive(Debug)]
pub(super) struct Counted(Arc<AtomicUsize>);

impl Counted {
    /// Counts one more, unless `max` are being answered already.
    fn enter(count: &Arc<AtomicUsize>, max: usize) -> Option<Counted> {
        count
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < max).then_some(n + 1)
            })
            .ok()
            .map(|_| Counted(Arc::clone(count)))
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::{Auth, Bearer, Rejection, TokenVerifier, VerifyFuture};
    use crate::transport::http::{HttpConfig, HttpService};
    use http_body_util::BodyExt;
    use std::net::SocketAddr;

    /// Token `good` is alice's; any other is refused.
    struct Alice;

    impl TokenVerifier for Alice {
        fn verify<'a>(&'a self, bearer: Bearer<'a>) -> VerifyFuture<'a> {
            Box::pin(async move {
                match bearer.token() {
                    "good" => Ok(Principal::new("alice", ["s"], Default::default())),
                    _ => Err(Rejection::Invalid("not good".to_owned())),
                }
            })
        }
    }

    /// The service's state: the built-in server's (one path, `/mcp`) or a
    /// router's (`path: None`), with authorization when `auth`.
    fn door(path: Option<&'static str>, auth: bool) -> Arc<Inner> {
        let mut server = crate::Server::new("door", "1");
        if auth {
            server = server.auth(
                Auth::new("http://localhost/mcp", Alice)
                    .authorization_server("https://auth.example.com"),
            );
        }
        let service = server.http_service().unwrap();
        let config = HttpConfig {
            path,
            ..service.inner.config.clone()
        };
        HttpService::new(Arc::clone(&service.inner.shared), config).inner
    }

    /// A request that passes every step before the body is read.
    fn post() -> hyper::http::request::Builder {
        Request::post("/mcp")
            .header(header::HOST, "localhost")
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::ACCEPT, "application/json, text/event-stream")
    }

    fn visit(request: hyper::http::request::Builder, body: &str) -> Visit<String> {
        Visit::new(request.body(body.to_owned()).unwrap(), None)
    }

    /// A step's answer; `None` when it lets the request on.
    fn answer_of(flow: Flow) -> Option<Response<HttpBody>> {
        flow.err().map(|response| *response)
    }

    /// A step's answer's status; `0` when it lets the request on.
    fn code(flow: Flow) -> u16 {
        answer_of(flow).map_or(0, |response| response.status().as_u16())
    }

    async fn text(response: Response<HttpBody>) -> String {
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        String::from_utf8(bytes.to_vec()).unwrap()
    }

    #[tokio::test(flavor = "current_thread")]
    async fn single_host_refuses_two_host_headers() {
        let two = post().header(header::HOST, "localhost");
        assert_eq!(code(single_host(&visit(two, ""))), 400);
        assert_eq!(code(single_host(&visit(post(), ""))), 0);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn health_answers_get_and_head_on_the_built_in_server_only() {
        let inner = door(Some("/mcp"), false);
        let response = answer_of(health(&inner, &visit(Request::get("/health"), ""))).unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(
            response.headers()[header::CONTENT_TYPE],
            "text/plain; charset=utf-8"
        );
        assert_eq!(text(response).await, "ok\n");
        assert_eq!(
            code(health(&inner, &visit(Request::head("/health"), ""))),
            200
        );
        assert_eq!(
            code(health(&inner, &visit(Request::post("/health"), ""))),
            0
        );
        assert_eq!(code(health(&inner, &visit(post(), ""))), 0);
        let routed = door(None, false);
        assert_eq!(
            code(health(&routed, &visit(Request::get("/health"), ""))),
            0
        );
    }

    #[tokio::test(flavor = "current_thread")]
    async fn metadata_is_served_at_its_paths_with_authorization_only() {
        let inner = door(Some("/mcp"), true);
        let path = "/.well-known/oauth-protected-resource/mcp";
        let response = answer_of(metadata(&inner, &visit(Request::get(path), ""))).unwrap();
        assert_eq!(response.status(), 200);
        assert!(
            text(response)
                .await
                .contains("\"resource\":\"http://localhost/mcp\"")
        );
        let response = answer_of(metadata(&inner, &visit(Request::post(path), ""))).unwrap();
        assert_eq!(response.status(), 405);
        assert_eq!(response.headers()[header::ALLOW], "GET, HEAD");
        assert_eq!(code(metadata(&inner, &visit(post(), ""))), 0);
        let open = door(Some("/mcp"), false);
        assert_eq!(code(metadata(&open, &visit(Request::get(path), ""))), 0);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn origin_and_host_must_be_allowed() {
        let inner = door(Some("/mcp"), false);
        assert_eq!(code(origin_host(&inner, &visit(post(), ""))), 0);
        let origin = post().header(header::ORIGIN, "https://evil.example");
        assert_eq!(code(origin_host(&inner, &visit(origin, ""))), 403);
        let local = post().header(header::ORIGIN, "http://localhost:3000");
        assert_eq!(code(origin_host(&inner, &visit(local, ""))), 0);
        let host = Request::post("/mcp").header(header::HOST, "evil.example");
        assert_eq!(code(origin_host(&inner, &visit(host, ""))), 403);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn path_is_the_built_in_servers_one_path() {
        let inner = door(Some("/mcp"), false);
        assert_eq!(code(path(&inner, &visit(post(), ""))), 0);
        assert_eq!(code(path(&inner, &visit(Request::post("/other"), ""))), 404);
        let routed = door(None, false);
        assert_eq!(code(path(&routed, &visit(Request::post("/other"), ""))), 0);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn bearer_sets_the_caller_or_refuses_with_a_challenge() {
        let peer: SocketAddr = "192.0.2.7:4000".parse().unwrap();
        // Without authorization: no principal, the peer is the client.
        let inner = door(Some("/mcp"), false);
        let mut open = visit(post().extension(peer), "");
        assert!(bearer(&inner, &mut open).await.is_ok());
        assert!(open.caller.principal.is_none());
        assert_eq!(open.client, ClientKey::Address(peer.ip()));
        assert_eq!(open.caller.client.as_deref(), Some("ip:192.0.2.7"));

        let inner = door(Some("/mcp"), true);
        let response = answer_of(bearer(&inner, &mut visit(post(), "")).await).unwrap();
        assert_eq!(response.status(), 401);
        assert!(
            response.headers()[header::WWW_AUTHENTICATE]
                .to_str()
                .unwrap()
                .starts_with("Bearer resource_metadata=")
        );
        let bad = post().header(header::AUTHORIZATION, "Bearer bad");
        assert_eq!(code(bearer(&inner, &mut visit(bad, "")).await), 401);
        let mut good = visit(
            post()
                .extension(peer)
                .header(header::AUTHORIZATION, "Bearer good"),
            "",
        );
        assert!(bearer(&inner, &mut good).await.is_ok());
        assert_eq!(good.caller.principal.as_ref().unwrap().subject(), "alice");
        assert_eq!(good.caller.client.as_deref(), Some("sub: alice"));
    }

    #[tokio::test(flavor = "current_thread")]
    async fn method_lets_post_on_answers_a_sessions_get_and_delete_and_refuses_the_rest() {
        let inner = door(Some("/mcp"), false);
        assert_eq!(code(method(&inner, &mut visit(post(), ""))), 0);
        let response = answer_of(method(&inner, &mut visit(Request::get("/mcp"), ""))).unwrap();
        assert_eq!(response.status(), 405);
        assert_eq!(response.headers()[header::ALLOW], "POST");
        assert_eq!(
            code(method(&inner, &mut visit(Request::put("/mcp"), ""))),
            405
        );
        let session = |request: hyper::http::request::Builder| {
            request.header(headers::SESSION_ID, "no-such-session")
        };
        // A session's GET must accept SSE; then the session is looked up.
        assert_eq!(
            code(method(
                &inner,
                &mut visit(session(Request::get("/mcp")), "")
            )),
            406
        );
        let get = session(Request::get("/mcp")).header(header::ACCEPT, "text/event-stream");
        assert_eq!(code(method(&inner, &mut visit(get, ""))), 404);
        assert_eq!(
            code(method(
                &inner,
                &mut visit(session(Request::delete("/mcp")), "")
            )),
            404
        );
    }

    #[tokio::test(flavor = "current_thread")]
    async fn media_needs_a_json_body_and_both_accepted_types() {
        assert_eq!(code(media(&visit(post(), ""))), 0);
        let charset = Request::post("/mcp")
            .header(header::CONTENT_TYPE, "Application/JSON; charset=utf-8")
            .header(header::ACCEPT, "*/*");
        assert_eq!(code(media(&visit(charset, ""))), 0);
        let text = Request::post("/mcp")
            .header(header::CONTENT_TYPE, "text/plain")
            .header(header::ACCEPT, "*/*");
        assert_eq!(code(media(&visit(text, ""))), 415);
        let json_only = Request::post("/mcp")
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::ACCEPT, "application/json");
        assert_eq!(code(media(&visit(json_only, ""))), 406);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn admission_counts_requests_until_the_limit() {
        let inner = door(Some("/mcp"), false);
        let max = inner.shared.limits.max_pending;
        let mut first = visit(post(), "");
        assert!(admission(&inner, &mut first).is_ok());
        assert_eq!(inner.requests.load(Ordering::SeqCst), 1);
        drop(first);
        assert_eq!(inner.requests.load(Ordering::SeqCst), 0);
        inner.requests.store(max, Ordering::SeqCst);
        let response = answer_of(admission(&inner, &mut visit(post(), ""))).unwrap();
        assert_eq!(response.status(), 503);
        assert_eq!(response.headers()[header::RETRY_AFTER], "1");
        inner.requests.store(0, Ordering::SeqCst);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn body_limit_reads_the_body_under_the_message_limit() {
        let inner = door(Some("/mcp"), false);
        let mut small = visit(post(), "{}");
        assert!(body_limit(&inner, &mut small).await.is_ok());
        assert_eq!(small.read.as_ref().unwrap().0, "{}");
        let max = inner.config.max_body;
        let mut large = visit(post(), &"x".repeat(max + 1));
        let Some(response) = answer_of(body_limit(&inner, &mut large).await) else {
            panic!("a body over the limit went on");
        };
        assert_eq!(response.status(), 413);
        assert_eq!(response.headers()[header::CONNECTION], "close");
        let declared = post().header(header::CONTENT_LENGTH, (max + 1).to_string());
        assert_eq!(
            code(body_limit(&inner, &mut visit(declared, "")).await),
            413
        );
    }

    /// [`steps`] runs them in their order: a request that two neighbouring
    /// steps would refuse gets the earlier one's answer.
    #[tokio::test(flavor = "current_thread")]
    async fn the_steps_run_in_their_order() {
        let plain = door(Some("/mcp"), false);
        let auth = door(Some("/mcp"), true);
        let answer = |inner: &Arc<Inner>, request: hyper::http::request::Builder, body: &str| {
            let inner = Arc::clone(inner);
            let request = request.body(body.to_owned()).unwrap();
            async move { super::answer(&inner, request, None).await.status().as_u16() }
        };
        let metadata = "/.well-known/oauth-protected-resource/mcp";
        let evil = |request: hyper::http::request::Builder| {
            request.header(header::ORIGIN, "https://evil.example")
        };
        // SingleHost before Health.
        let health = Request::get("/health")
            .header(header::HOST, "a")
            .header(header::HOST, "b");
        assert_eq!(answer(&plain, health, "").await, 400);
        // Health and Metadata before OriginHost.
        let health = Request::get("/health").header(header::HOST, "evil.example");
        assert_eq!(answer(&plain, health, "").await, 200);
        assert_eq!(answer(&auth, evil(Request::get(metadata)), "").await, 200);
        // OriginHost before Path.
        assert_eq!(answer(&plain, evil(Request::post("/other")), "").await, 403);
        // Path before Bearer.
        let other = Request::post("/other").header(header::HOST, "localhost");
        assert_eq!(answer(&auth, other, "").await, 404);
        // Bearer before Method.
        let put = Request::put("/mcp").header(header::HOST, "localhost");
        assert_eq!(answer(&auth, put, "").await, 401);
        // Method before Media.
        let get = Request::get("/mcp").header(header::HOST, "localhost");
        assert_eq!(answer(&plain, get, "").await, 405);
        // Media before Admission, Admission before BodyLimit.
        let max = plain.shared.limits.max_pending;
        plain.requests.store(max, Ordering::SeqCst);
        let text = Request::post("/mcp")
            .header(header::HOST, "localhost")
            .header(header::CONTENT_TYPE, "text/plain")
            .header(header::ACCEPT, "*/*");
        assert_eq!(answer(&plain, text, "").await, 415);
        let large = "x".repeat(plain.config.max_body + 1);
        assert_eq!(answer(&plain, post(), &large).await, 503);
        plain.requests.store(0, Ordering::SeqCst);
        // BodyLimit before the endpoint.
        assert_eq!(answer(&plain, post(), &large).await, 413);
        // And past every step, the endpoint answers (an empty body is not
        // JSON).
        assert_eq!(answer(&plain, post(), "").await, 400);
    }
}
