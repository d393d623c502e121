//! A fake authorization server and a fake protected MCP resource, each a
//! hyper server on its own loopback port (two origins), recording every
//! request. Knobs make the authorization server misbehave.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::net::TcpListener;

/// One request as the fake saw it.
#[derive(Debug, Clone)]
pub(crate) struct Seen {
    pub(crate) path: String,
    pub(crate) query: HashMap<String, String>,
    pub(crate) form: HashMap<String, String>,
    pub(crate) authorization: Option<String>,
    /// Its `X-Api-Key` header.
    pub(crate) api_key: Option<String>,
    pub(crate) body: String,
}

/// What a code stands for.
#[derive(Debug, Clone)]
struct Code {
    challenge: String,
    scope: String,
    redirect_uri: String,
    /// Whether the request asked the user to consent (`prompt=consent`).
    consent: bool,
}

/// How the fake authorization server behaves.
#[derive(Debug, Clone, Default)]
pub(crate) struct Knobs {
    /// `expires_in` of access tokens (default 3600).
    pub(crate) expires_in: Option<u64>,
    /// The metadata names this issuer instead of its own.
    pub(crate) wrong_issuer: Option<String>,
    /// The redirect carries this `state` instead of the one sent.
    pub(crate) wrong_state: bool,
    /// The redirect carries this `iss` instead of the issuer.
    pub(crate) wrong_iss: Option<String>,
    /// No `device_authorization_endpoint`.
    pub(crate) no_device: bool,
    /// `client_id_metadata_document_supported: true`.
    pub(crate) metadata_documents: bool,
    /// The `admin` tool refuses every token (403 `insufficient_scope`).
    pub(crate) admin_never: bool,
    /// OpenID Connect's rule: the metadata lists `offline_access`, and a
    /// refresh token is issued only for it, asked with `prompt=consent`.
    pub(crate) offline_access: bool,
    /// Refresh tokens are single-use; one used again revokes every token
    /// (a replay, as oidc-provider and others detect it).
    pub(crate) rotate_refresh: bool,
    /// With `offline_access`: no refresh token, consent or not.
    pub(crate) never_refresh: bool,
    /// The resource sits behind a gateway that refuses (403) every
    /// request without this `X-Api-Key`.
    pub(crate) api_key: Option<String>,
}

#[derive(Debug, Default)]
pub(crate) struct State {
    pub(crate) knobs: Knobs,
    pub(crate) seen_as: Vec<Seen>,
    pub(crate) seen_resource: Vec<Seen>,
    pub(crate) seen_other: Vec<Seen>,
    codes: HashMap<String, Code>,
    /// access token -> scope
    pub(crate) access: HashMap<String, String>,
    /// refresh token -> scope
    pub(crate) refresh: HashMap<String, String>,
    /// Refresh tokens used once (with `rotate_refresh`).
    pub(crate) used_refresh: Vec<String>,
    /// How many times a used refresh token came back (each revoked all).
    pub(crate) replays: u32,
    /// device code -> (approved, scope)
    device: HashMap<String, (bool, String)>,
    counter: u64,
    pub(crate) as_port: u16,
    pub(crate) resource_port: u16,
    pub(crate) other_port: u16,
}

#[derive(Clone, Debug)]
pub(crate) struct Fake {
    pub(crate) state: Arc<Mutex<State>>,
}

fn parse(text: &str) -> HashMap<String, String> {
    form_urlencoded::parse(text.as_bytes())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

fn json_response(status: u16, value: Value) -> Response<Full<Bytes>> {
    Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(value.to_string())))
        .unwrap()
}

async fn read(request: Request<Incoming>) -> (Seen, hyper::HeaderMap) {
    let (parts, body) = request.into_parts();
    let body = body.collect().await.unwrap().to_bytes();
    let body = String::from_utf8_lossy(&body).into_owned();
    let seen = Seen {
        path: parts.uri.path().to_owned(),
        query: parse(parts.uri.query().unwrap_or("")),
        form: parse(&body),
        authorization: parts
            .headers
            .get("authorization")
            .map(|v| v.to_str().unwrap().to_owned()),
        api_key: parts
            .headers
            .get("x-api-key")
            .map(|v| v.to_str().unwrap().to_owned()),
        body,
    };
    (seen, parts.headers)
}

async fn listen<F>(handler: F) -> u16
where
    F: Fn(Seen) -> Response<Full<Bytes>> + Send + Sync + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let handler = Arc::new(handler);
    tokio::spawn(async move {
        loop {
            let (stream, _) = listener.accept().await.unwrap();
            let handler = Arc::clone(&handler);
            tokio::spawn(async move {
                let service = service_fn(move |request| {
                    let handler = Arc::clone(&handler);
                    async move {
                        let (seen, _) = read(request).await;
                        Ok::<_, std::convert::Infallible>(handler(seen))
                    }
                });
                let _ = http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    port
}

impl Fake {
    pub(crate) async fn start(knobs: Knobs) -> Fake {
        let fake = Fake {
            state: Arc::new(Mutex::new(State {
                knobs,
                ..State::default()
            })),
        };
        let (a, r, o) = (fake.clone(), fake.clone(), fake.clone());
        let as_port = listen(move |seen| a.authorization_server(seen)).await;
        let resource_port = listen(move |seen| r.resource(seen)).await;
        let other_port = listen(move |seen| {
            o.lock().seen_other.push(seen);
            json_response(200, json!({}))
        })
        .await;
        {
            let mut state = fake.lock();
            state.as_port = as_port;
            state.resource_port = resource_port;
            state.other_port = other_port;
        }
        fake
    }

    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap()
    }

    pub(crate) fn issuer(&self) -> String {
        format!("http://127.0.0.1:{}", self.lock().as_port)
    }

    pub(crate) fn resource_url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.lock().resource_port)
    }

    /// The requests the authorization server saw at `path`.
    pub(crate) fn as_requests(&self, path: &str) -> Vec<Seen> {
        self.lock()
            .seen_as
            .iter()
            .filter(|s| s.path == path)
            .cloned()
            .collect()
    }

    fn authorization_server(&self, seen: Seen) -> Response<Full<Bytes>> {
        let mut state = self.lock();
        state.seen_as.push(seen.clone());
        let issuer = format!("http://127.0.0.1:{}", state.as_port);
        state.counter += 1;
        let n = state.counter;
        match seen.path.as_str() {
            "/.well-known/oauth-authorization-server" => {
                let mut metadata = json!({
                    "issuer": state.knobs.wrong_issuer.clone().unwrap_or(issuer.clone()),
                    "authorization_endpoint": format!("{issuer}/authorize"),
                    "token_endpoint": format!("{issuer}/token"),
                    "registration_endpoint": format!("{issuer}/register"),
                    "device_authorization_endpoint": format!("{issuer}/device"),
                    "code_challenge_methods_supported": ["S256"],
                    "authorization_response_iss_parameter_supported": true,
                    "token_endpoint_auth_methods_supported": ["none", "client_secret_basic"],
                });
                if state.knobs.offline_access {
                    metadata["scopes_supported"] = json!(["tools:read", "offline_access"]);
                }
                if state.knobs.metadata_documents {
                    metadata["client_id_metadata_document_supported"] = json!(true);
                }
                if state.knobs.no_device {
                    metadata
                        .as_object_mut()
                        .unwrap()
                        .remove("device_authorization_endpoint");
                }
                json_response(200, metadata)
            }
            "/register" => {
                let body: Value = serde_json::from_str(&seen.body).unwrap();
                // RFC 7591 §2: no `response_types` means `["code"]`, which
                // needs a redirect URI (oidc-provider's answer).
                let code = body
                    .get("response_types")
                    .is_none_or(|r| r.as_array().unwrap().iter().any(|t| t == "code"));
                if code && body.get("redirect_uris").is_none() {
                    return json_response(
                        400,
                        json!({"error": "invalid_redirect_uri",
                        "error_description": "redirect_uris is mandatory property"}),
                    );
                }
                json_response(
                    201,
                    json!({"client_id": format!("client-{n}"), "redirect_uris": body["redirect_uris"],
                        "token_endpoint_auth_method": "none"}),
                )
            }
            "/authorize" => {
                let q = &seen.query;
                assert_eq!(q["response_type"], "code");
                assert_eq!(q["code_challenge_method"], "S256");
                let code = format!("code-{n}");
                state.codes.insert(
                    code.clone(),
                    Code {
                        challenge: q["code_challenge"].clone(),
                        scope: q.get("scope").cloned().unwrap_or_default(),
                        redirect_uri: q["redirect_uri"].clone(),
                        consent: q.get("prompt").is_some_and(|p| p == "consent"),
                    },
                );
                let s = if state.knobs.wrong_state {
                    "forged".to_owned()
                } else {
                    q["state"].clone()
                };
                let iss = state.knobs.wrong_iss.clone().unwrap_or(issuer);
                let location = format!(
                    "{}?{}",
                    q["redirect_uri"],
                    form_urlencoded::Serializer::new(String::new())
                        .extend_pairs([("code", code.as_str()), ("state", &s), ("iss", &iss)])
                        .finish()
                );
                Response::builder()
                    .status(StatusCode::FOUND)
                    .header("location", location)
                    .body(Full::new(Bytes::new()))
                    .unwrap()
            }
            "/device" => {
                let code = format!("device-{n}");
                let scope = seen.form.get("scope").cloned().unwrap_or_default();
                state.device.insert(code.clone(), (false, scope));
                json_response(
                    200,
                    json!({"device_code": code, "user_code": format!("USER-{n}"),
                        "verification_uri": format!("{issuer}/activate"),
                        "expires_in": 60, "interval": 0}),
                )
            }
            "/activate" => {
                // The user entering the code: approves every pending device.
                for entry in state.device.values_mut() {
                    entry.0 = true;
                }
                json_response(200, json!({}))
            }
            "/token" => {
                let form = &seen.form;
                let mut refreshable = !state.knobs.offline_access;
                let scope = match form["grant_type"].as_str() {
                    "authorization_code" => {
                        let Some(code) = state.codes.remove(&form["code"]) else {
                            return json_response(400, json!({"error": "invalid_grant"}));
                        };
                        let verified = URL_SAFE_NO_PAD
                            .encode(Sha256::digest(form["code_verifier"].as_bytes()));
                        if verified != code.challenge || code.redirect_uri != form["redirect_uri"] {
                            return json_response(400, json!({"error": "invalid_grant"}));
                        }
                        refreshable |=
                            code.consent && code.scope.split(' ').any(|s| s == "offline_access");
                        code.scope
                    }
                    "refresh_token" => {
                        let used = &form["refresh_token"];
                        let rotate = state.knobs.rotate_refresh;
                        match state.refresh.get(used).cloned() {
                            Some(scope) => {
                                if rotate {
                                    state.refresh.remove(used);
                                    state.used_refresh.push(used.clone());
                                }
                                refreshable = true;
                                scope
                            }
                            None => {
                                if state.used_refresh.contains(used) {
                                    state.replays += 1;
                                    state.access.clear();
                                    state.refresh.clear();
                                }
                                return json_response(400, json!({"error": "invalid_grant"}));
                            }
                        }
                    }
                    "urn:ietf:params:oauth:grant-type:device_code" => {
                        match state.device.get(&form["device_code"]).cloned() {
                            Some((true, scope)) => {
                                refreshable |= scope.split(' ').any(|s| s == "offline_access");
                                scope
                            }
                            Some((false, _)) => {
                                return json_response(
                                    400,
                                    json!({"error": "authorization_pending"}),
                                );
                            }
                            None => return json_response(400, json!({"error": "invalid_grant"})),
                        }
                    }
                    _ => return json_response(400, json!({"error": "unsupported_grant_type"})),
                };
                let access = format!("at-{n}");
                state.access.insert(access.clone(), scope.clone());
                let mut answer = json!({"access_token": access, "token_type": "Bearer",
                    "expires_in": state.knobs.expires_in.unwrap_or(3600), "scope": scope});
                if refreshable && !state.knobs.never_refresh {
                    let refresh = format!("rt-{n}");
                    state.refresh.insert(refresh.clone(), scope.clone());
                    answer["refresh_token"] = json!(refresh);
                }
                json_response(200, answer)
            }
            _ => json_response(404, json!({"error": "not found"})),
        }
    }

    fn resource(&self, seen: Seen) -> Response<Full<Bytes>> {
        let mut state = self.lock();
        state.seen_resource.push(seen.clone());
        let base = format!("http://127.0.0.1:{}", state.resource_port);
        let metadata_url = format!("{base}/.well-known/oauth-protected-resource/mcp");
        if let Some(key) = &state.knobs.api_key
            && seen.api_key.as_ref() != Some(key)
        {
            return json_response(403, json!({"error": "the gateway wants X-Api-Key"}));
        }
        match seen.path.as_str() {
            "/.well-known/oauth-protected-resource/mcp" => json_response(
                200,
                json!({"resource": format!("{base}/mcp"),
                    "authorization_servers": [format!("http://127.0.0.1:{}", state.as_port)],
                    "scopes_supported": ["tools:read", "tools:admin"]}),
            ),
            "/moved" => Response::builder()
                .status(StatusCode::TEMPORARY_REDIRECT)
                .header(
                    "location",
                    format!("http://127.0.0.1:{}/mcp", state.other_port),
                )
                .body(Full::new(Bytes::new()))
                .unwrap(),
            "/mcp" => {
                let token = seen
                    .authorization
                    .as_deref()
                    .and_then(|v| v.strip_prefix("Bearer "));
                let Some(scope) = token.and_then(|t| state.access.get(t)).cloned() else {
                    return Response::builder()
                        .status(401)
                        .header(
                            "www-authenticate",
                            format!(
                                r#"Bearer resource_metadata="{metadata_url}", scope="tools:read""#
                            ),
                        )
                        .body(Full::new(Bytes::new()))
                        .unwrap();
                };
                let message: Value = serde_json::from_str(&seen.body).unwrap_or(Value::Null);
                let wants_admin = message["params"]["name"] == "admin";
                if wants_admin
                    && (state.knobs.admin_never || !scope.split(' ').any(|s| s == "tools:admin"))
                {
                    return Response::builder()
                        .status(403)
                        .header(
                            "www-authenticate",
                            format!(
                                r#"Bearer error="insufficient_scope", scope="tools:admin", resource_metadata="{metadata_url}""#
                            ),
                        )
                        .body(Full::new(Bytes::new()))
                        .unwrap();
                }
                // A small MCP server (the legacy handshake): its tool
                // results name the scope of the token they were called with.
                let Some(id) = message.get("id").cloned() else {
                    return Response::builder()
                        .status(202)
                        .body(Full::new(Bytes::new()))
                        .unwrap();
                };
                let tool = |name: &str| json!({"name": name, "inputSchema": {"type": "object"}});
                let result = match message["method"].as_str().unwrap_or("") {
                    "initialize" => json!({"protocolVersion": "2025-11-25",
                        "capabilities": {"tools": {}}, "serverInfo": {"name": "fake", "version": "1"}}),
                    "tools/list" => json!({"tools": [tool("echo"), tool("admin")]}),
                    "tools/call" => {
                        json!({"content": [{"type": "text", "text": scope}], "scope": scope})
                    }
                    "ping" => json!({}),
                    _ => {
                        return json_response(
                            200,
                            json!({"jsonrpc": "2.0", "id": id,
                                "error": {"code": -32601, "message": "method not found"}}),
                        );
                    }
                };
                json_response(200, json!({"jsonrpc": "2.0", "id": id, "result": result}))
            }
            _ => json_response(404, json!({})),
        }
    }
}
