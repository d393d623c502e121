//! OAuth 2.1 resource server over a real socket: `everything --http` with
//! `MCP_AUTH_*`, keys made here (RS256 with `rsa`, ES256 with `p256`), a
//! JWKS file in a temporary directory, tokens signed with jsonwebtoken.

use crate::common;

use common::auth::{
    ISSUER, METADATA_URL, RESOURCE, bearer, claims, es256, keys, now, rs256, sign, start_example,
};
use common::http::{
    MODERN, Response, Server, Tap, call, modern_to, raw_to, read_response, request, request_bytes,
    request_bytes_at,
};
use common::{assert_valid, example_binary};
use jsonwebtoken::Algorithm;
use serde_json::{Value, json};

const LEGACY: &str = "2025-11-25";

/// `everything --http` with authorization on, plus `extra` environment.
fn start(extra: &[(&str, &str)]) -> Server {
    start_example("everything", extra)
}

/// A GET of `path` on `server` with `headers`.
fn get(server: &Server, path: &str, headers: &[(&str, &str)]) -> Response {
    raw_to(
        &server.addr,
        &request_bytes_at(&server.addr, "GET", path, headers, ""),
    )
}

/// A 2026-07-28 call of `tool` with `authorization` (if any).
fn modern_call(server: &Server, tool: &str, authorization: Option<&str>) -> Response {
    let headers: Vec<(&str, &str)> = authorization
        .map(|a| ("Authorization", a))
        .into_iter()
        .collect();
    server.modern(&call(1, tool, json!({})), &headers)
}

/// Asserts a refusal with `status` and exactly this `WWW-Authenticate`.
#[track_caller]
fn assert_challenge(response: &Response, status: u16, challenge: &str) {
    assert_eq!(response.status, status, "{response:?}");
    assert_eq!(
        response.header("www-authenticate"),
        Some(challenge),
        "{response:?}"
    );
    let body = response.json();
    if status == 403 {
        // The session refused the call it resolved: its error response,
        // with the request's id and the server-defined code -32003.
        assert_eq!(body["error"]["code"], -32003, "{body}");
        assert!(body.get("id").is_some(), "{body}");
    } else {
        // The body is an id-less JSON-RPC error, as for every refusal of
        // the front door.
        assert_eq!(body["error"]["code"], -32600, "{body}");
    }
}

/// The `invalid_token` challenge with this description.
fn invalid_token(description: &str) -> String {
    format!(
        "Bearer error=\"invalid_token\", error_description=\"{description}\", resource_metadata=\"{METADATA_URL}\""
    )
}

#[test]
fn the_metadata_document_is_served_at_both_well_known_paths_without_a_token() {
    let server = start(&[]);
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let response = get(&server, path, &[]);
        assert_eq!(response.status, 200, "{path}: {response:?}");
        assert_eq!(response.header("content-type"), Some("application/json"));
        let document: Value = serde_json::from_str(&response.body).unwrap();
        // RFC 9728 §2 and MCP authorization: `resource` is the canonical
        // URI, at least one authorization server, bearer tokens in the
        // header only.
        assert_eq!(document["resource"], RESOURCE, "{document}");
        assert_eq!(document["authorization_servers"], json!([ISSUER]));
        assert_eq!(document["bearer_methods_supported"], json!(["header"]));
        assert_eq!(
            document["scopes_supported"],
            json!(["tools:admin"]),
            "the tools' scopes"
        );
        assert_eq!(
            document["resource_name"],
            "Everything (mcp-runtime example)"
        );
        let unknown: Vec<&String> = document
            .as_object()
            .unwrap()
            .keys()
            .filter(|k| {
                ![
                    "resource",
                    "authorization_servers",
                    "scopes_supported",
                    "bearer_methods_supported",
                    "resource_name",
                ]
                .contains(&k.as_str())
            })
            .collect();
        assert!(unknown.is_empty(), "{unknown:?}");
    }
    let other = get(&server, "/.well-known/oauth-protected-resource/other", &[]);
    assert_eq!(other.status, 404, "{other:?}");
    let post = raw_to(
        &server.addr,
        &request_bytes_at(
            &server.addr,
            "POST",
            "/.well-known/oauth-protected-resource",
            &[],
            "{}",
        ),
    );
    assert_eq!(post.status, 405, "{post:?}");
    assert_eq!(post.header("allow"), Some("GET, HEAD"));
}

#[test]
fn requests_without_a_usable_bearer_token_get_401_with_the_metadata_url() {
    let server = start(&[]);
    let plain = format!("Bearer resource_metadata=\"{METADATA_URL}\"");
    // No credentials, or another scheme: RFC 6750 §3.1 says no error code.
    assert_challenge(&modern_call(&server, "add", None), 401, &plain);
    assert_challenge(
        &modern_call(&server, "add", Some("Basic dXNlcjpwYXNz")),
        401,
        &plain,
    );
    // A call of a tool with scopes names them, so a client asks for them
    // the first time.
    assert_challenge(
        &modern_call(&server, "toggle_bonus", None),
        401,
        &format!("Bearer scope=\"tools:admin\", resource_metadata=\"{METADATA_URL}\""),
    );
    // Every method on the endpoint needs the token: the legacy GET stream
    // and DELETE too.
    for method in ["GET", "DELETE"] {
        let response = raw_to(
            &server.addr,
            &request_bytes_at(
                &server.addr,
                method,
                "/mcp",
                &[("Mcp-Session-Id", "0123456789abcdef0123456789abcdef")],
                "",
            ),
        );
        assert_challenge(&response, 401, &plain);
    }
}

#[test]
fn invalid_tokens_get_401_invalid_token() {
    let server = start(&[]);
    let base = claims("alice", "");
    let with = |change: &dyn Fn(&mut Value)| {
        let mut claims = base.clone();
        change(&mut claims);
        claims
    };
    let cases: Vec<(&str, String, &str)> = vec![
        ("garbage", "not-a-jwt".to_owned(), "the token is malformed"),
        (
            "bad signature",
            sign(Algorithm::ES256, "ec1", &keys().stranger, &base),
            "the token's signature is invalid",
        ),
        (
            "unknown key id",
            sign(Algorithm::ES256, "ec9", &keys().stranger, &base),
            "the token is signed with an unknown key",
        ),
        (
            "expired beyond the leeway",
            rs256(&with(&|c| c["exp"] = json!(now() - 120))),
            "the token has expired",
        ),
        (
            "not valid before a time beyond the leeway",
            es256(&with(&|c| c["nbf"] = json!(now() + 300))),
            "the token is not valid yet",
        ),
        (
            "another issuer",
            rs256(&with(&|c| c["iss"] = json!("https://evil.example.test"))),
            "the token is from another issuer",
        ),
        (
            "another audience",
            es256(&with(&|c| {
                c["aud"] = json!("https://other.example.test/mcp");
            })),
            "the token is meant for another resource",
        ),
        (
            "another audience, in an array",
            rs256(&with(&|c| {
                c["aud"] = json!(["https://other.example.test/mcp", "https://mcp.example.test"]);
            })),
            "the token is meant for another resource",
        ),
        (
            "no audience",
            rs256(&with(&|c| {
                c.as_object_mut().unwrap().remove("aud");
            })),
            "the token has no valid `aud` claim",
        ),
        (
            "no subject",
            es256(&with(&|c| {
                c.as_object_mut().unwrap().remove("sub");
            })),
            "the token has no valid `sub` claim",
        ),
    ];
    for (case, token, description) in cases {
        let response = modern_call(&server, "add", Some(&bearer(&token)));
        assert_eq!(response.status, 401, "{case}: {response:?}");
        assert_eq!(
            response.header("www-authenticate"),
            Some(invalid_token(description).as_str()),
            "{case}"
        );
    }
    // Within the 30 s leeway, a token just expired or not quite valid yet
    // is accepted (clock skew).
    let skewed = with(&|c| {
        c["exp"] = json!(now() - 5);
        c["nbf"] = json!(now() + 5);
    });
    let response = modern_call(&server, "add", Some(&bearer(&rs256(&skewed))));
    assert_eq!(response.status, 200, "{response:?}");
}

#[test]
fn a_token_with_an_empty_subject_is_an_invalid_token() {
    let server = start(&[]);
    let description = "the token is invalid: its subject (`sub`) is empty";
    for (case, token) in [
        ("empty, RS256", rs256(&claims("", "tools:admin"))),
        ("empty, ES256", es256(&claims("", ""))),
        ("whitespace", rs256(&claims(" \t ", ""))),
    ] {
        // A modern call, and a legacy initialize: such tokens would all be
        // one subject, sharing legacy sessions and handles.
        let response = modern_call(&server, "whoami", Some(&bearer(&token)));
        assert_challenge(&response, 401, &invalid_token(description));
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": LEGACY, "capabilities": {},
            "clientInfo": {"name": "auth-tests", "version": "1"}}});
        let response = server.post(&[("Authorization", &bearer(&token))], &init.to_string());
        assert_eq!(response.status, 401, "{case}: {response:?}");
        assert!(response.header("mcp-session-id").is_none(), "{case}");
    }
    // A one-character subject is a subject.
    let response = modern_call(&server, "whoami", Some(&bearer(&rs256(&claims("a", "")))));
    assert_eq!(response.status, 200, "{response:?}");
}

#[test]
fn malformed_credentials_get_400_invalid_request() {
    let server = start(&[]);
    let token = rs256(&claims("alice", ""));
    let invalid_request = |why: &str| {
        format!(
            "Bearer error=\"invalid_request\", error_description=\"{why}\", resource_metadata=\"{METADATA_URL}\""
        )
    };
    assert_challenge(
        &modern_call(&server, "add", Some("Bearer")),
        400,
        &invalid_request("the Bearer credentials have no token"),
    );
    assert_challenge(
        &modern_call(&server, "add", Some("Bearer a b")),
        400,
        &invalid_request("the bearer token has characters RFC 6750 does not allow"),
    );
    // Two methods at once (RFC 6750 §2): the header and the query string.
    let message = call(1, "add", json!({"a": 1, "b": 2}));
    let both = raw_to(
        &server.addr,
        &request_bytes_at(
            &server.addr,
            "POST",
            &format!("/mcp?access_token={token}"),
            &[
                ("MCP-Protocol-Version", "2026-07-28"),
                ("Mcp-Method", "tools/call"),
                ("Mcp-Name", "add"),
                ("Authorization", &bearer(&token)),
            ],
            &message.to_string(),
        ),
    );
    assert_challenge(
        &both,
        400,
        &invalid_request(
            "a token in the query string too; send it only in the Authorization header",
        ),
    );
}

#[test]
fn a_token_in_the_query_string_is_never_read() {
    let server = start(&[]);
    let token = rs256(&claims("alice", "tools:admin"));
    let message = call(1, "add", json!({"a": 1, "b": 2}));
    let response = raw_to(
        &server.addr,
        &request_bytes_at(
            &server.addr,
            "POST",
            &format!("/mcp?access_token={token}"),
            &[
                ("MCP-Protocol-Version", "2026-07-28"),
                ("Mcp-Method", "tools/call"),
                ("Mcp-Name", "add"),
            ],
            &message.to_string(),
        ),
    );
    // 401, the challenge of a request without credentials: a valid token
    // there counts for nothing, and the client learns how to authenticate.
    assert_challenge(
        &response,
        401,
        &format!("Bearer resource_metadata=\"{METADATA_URL}\""),
    );
    assert!(
        response.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("query string"),
        "{response:?}"
    );
}

#[test]
fn valid_tokens_of_both_algorithms_reach_the_tool_as_its_principal() {
    let server = start(&[]);
    for (alg, token) in [
        ("RS256", rs256(&claims("alice", "files:read tools:admin"))),
        ("ES256", es256(&claims("bob", "files:read"))),
    ] {
        let response = modern_call(&server, "whoami", Some(&bearer(&token)));
        assert_eq!(response.status, 200, "{alg}: {response:?}");
        let message = response.json();
        assert_valid("2026-07-28", "CallToolResult", &message["result"]);
        let expected = if alg == "RS256" {
            json!({"subject": "alice", "scopes": ["files:read", "tools:admin"]})
        } else {
            json!({"subject": "bob", "scopes": ["files:read"]})
        };
        assert_eq!(message["result"]["structuredContent"], expected, "{alg}");
        let add = server.modern(
            &call(2, "add", json!({"a": 1, "b": 2})),
            &[("Authorization", &bearer(&token))],
        );
        assert_eq!(
            add.json()["result"]["structuredContent"],
            json!({"sum": 3.0})
        );
    }
    // `scp` as an array, as some providers send scopes.
    let mut scp = claims("carol", "");
    scp.as_object_mut().unwrap().remove("scope");
    scp["scp"] = json!(["tools:admin"]);
    let response = modern_call(&server, "whoami", Some(&bearer(&es256(&scp))));
    assert_eq!(
        response.json()["result"]["structuredContent"]["scopes"],
        json!(["tools:admin"])
    );
}

#[test]
fn a_tool_whose_scope_the_token_lacks_is_403_before_it_runs() {
    let server = start(&[]);
    let insufficient = format!(
        "Bearer error=\"insufficient_scope\", scope=\"tools:admin\", resource_metadata=\"{METADATA_URL}\""
    );
    let reader = bearer(&es256(&claims("bob", "files:read")));
    assert_challenge(
        &modern_call(&server, "toggle_bonus", Some(&reader)),
        403,
        &insufficient,
    );
    // It did not run: `bonus` is still listed.
    let list = server.modern(&request(2, "tools/list"), &[("Authorization", &reader)]);
    let names = tool_names(&list.json());
    assert!(names.contains(&"bonus".to_owned()), "{names:?}");
    let admin = bearer(&rs256(&claims("alice", "tools:admin")));
    let toggled = modern_call(&server, "toggle_bonus", Some(&admin));
    assert_eq!(toggled.status, 200, "{toggled:?}");
    assert_eq!(
        toggled.json()["result"]["content"][0]["text"],
        "bonus is now hidden"
    );
    // The legacy era checks the name in the body, before the call runs.
    let session = open_session(&server, &reader);
    let response = server.post(
        &[("Mcp-Session-Id", &session), ("Authorization", &reader)],
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "toggle_bonus", "arguments": {}}})
        .to_string(),
    );
    assert_challenge(&response, 403, &insufficient);
}

fn tool_names(list: &Value) -> Vec<String> {
    list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn tools_list_hides_what_the_caller_cannot_call_only_when_asked() {
    let reader = bearer(&es256(&claims("bob", "files:read")));
    let admin = bearer(&rs256(&claims("alice", "tools:admin")));
    let list = |server: &Server, token: &str| {
        let list = server
            .modern(&request(1, "tools/list"), &[("Authorization", token)])
            .json();
        assert_valid("2026-07-28", "ListToolsResult", &list["result"]);
        list
    };
    // By default everyone gets one list, shareable by caches.
    let server = start(&[]);
    let shared = list(&server, &reader);
    assert!(tool_names(&shared).contains(&"toggle_bonus".to_owned()));
    assert_eq!(shared["result"]["cacheScope"], "public");
    let toggle = shared["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "toggle_bonus")
        .unwrap();
    assert_eq!(
        toggle["_meta"]["rs.mcp-runtime/scopes"],
        json!(["tools:admin"]),
        "the scopes are advertised"
    );
    drop(server);
    let server = start(&[("MCP_AUTH_HIDE_TOOLS", "1")]);
    let hidden = list(&server, &reader);
    let names = tool_names(&hidden);
    assert!(!names.contains(&"toggle_bonus".to_owned()), "{names:?}");
    assert!(names.contains(&"add".to_owned()), "{names:?}");
    assert_eq!(hidden["result"]["cacheScope"], "private");
    let full = list(&server, &admin);
    assert!(tool_names(&full).contains(&"toggle_bonus".to_owned()));
    assert_eq!(full["result"]["cacheScope"], "private");
}

/// Opens a legacy session with `authorization`; returns its id.
fn open_session(server: &Server, authorization: &str) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": LEGACY, "capabilities": {},
        "clientInfo": {"name": "auth-tests", "version": "1"}}});
    let response = server.post(&[("Authorization", authorization)], &init.to_string());
    assert_eq!(response.status, 200, "{response:?}");
    let id = response.header("mcp-session-id").unwrap().to_owned();
    let done = server.post(
        &[("Mcp-Session-Id", &id), ("Authorization", authorization)],
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
    );
    assert_eq!(done.status, 202, "{done:?}");
    id
}

#[test]
fn a_legacy_session_serves_only_the_subject_that_opened_it() {
    let server = start(&[]);
    let alice = bearer(&rs256(&claims("alice", "files:read")));
    // A fresh token of alice's (other scopes): the same subject.
    let alice_again = bearer(&es256(&claims("alice", "tools:admin")));
    let mallory = bearer(&es256(&claims("mallory", "tools:admin")));
    let session = open_session(&server, &alice);
    let whoami = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "whoami", "arguments": {}}})
    .to_string();
    let as_ = |token: &str| {
        server.post(
            &[("Mcp-Session-Id", &session), ("Authorization", token)],
            &whoami,
        )
    };
    // Another subject gets the 404 of an unknown session: the id is
    // useless to them, and it does not say the session exists.
    let stolen = as_(&mallory);
    assert_eq!(stolen.status, 404, "{stolen:?}");
    assert!(stolen.body.contains("no such session"), "{stolen:?}");
    for method in ["GET", "DELETE"] {
        let response = raw_to(
            &server.addr,
            &request_bytes_at(
                &server.addr,
                method,
                "/mcp",
                &[
                    ("Mcp-Session-Id", &session),
                    ("Authorization", &mallory),
                    ("Accept", "text/event-stream"),
                ],
                "",
            ),
        );
        assert_eq!(response.status, 404, "{method}: {response:?}");
    }
    // Alice, with either token, still has her session; each request's
    // calls see that request's token.
    for (token, scopes) in [
        (&alice, json!(["files:read"])),
        (&alice_again, json!(["tools:admin"])),
    ] {
        let response = as_(token);
        assert_eq!(response.status, 200, "{response:?}");
        let body: Value = serde_json::from_str(&response.body).unwrap();
        assert_eq!(
            body["result"]["structuredContent"],
            json!({"subject": "alice", "scopes": scopes})
        );
    }
}

#[test]
fn authorization_needs_all_four_variables() {
    let mut child = std::process::Command::new(example_binary("everything"))
        .args(["--http", "127.0.0.1:0"])
        .env("MCP_AUTH_ISSUER", ISSUER)
        .env("MCP_RESOURCE_URL", RESOURCE)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // A server that starts anyway would serve unprotected: it must exit.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("everything served with only some MCP_AUTH_* variables set");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("missing: MCP_AUTH_JWKS, MCP_AUTH_SERVER"),
        "{stderr}"
    );
}

#[test]
fn without_authorization_scopes_are_not_enforced() {
    // No MCP_AUTH_*: no caller identity, so `toggle_bonus` runs for anyone
    // (as on stdio) and `whoami` is not registered.
    let server = Server::start(&[]);
    let toggled = modern_to(&server.addr, &call(1, "toggle_bonus", json!({})), &[]);
    assert_eq!(toggled.status, 200, "{toggled:?}");
    assert_eq!(
        toggled.json()["result"]["content"][0]["text"],
        "bonus is now hidden"
    );
    let metadata = get(&server, "/.well-known/oauth-protected-resource", &[]);
    assert_eq!(metadata.status, 404, "no metadata without authorization");
}

#[test]
fn a_handle_belongs_to_the_subject_that_made_it() {
    let server = start_example("basket", &[]);
    let alice = bearer(&rs256(&claims("alice", "")));
    let bob = bearer(&es256(&claims("bob", "")));
    let call_as = |who: &str, id: u64, tool: &str, arguments: Value| {
        let response = server.modern(&call(id, tool, arguments), &[("Authorization", who)]);
        assert_eq!(response.status, 200, "{response:?}");
        let message = response.json();
        assert_valid("2026-07-28", "CallToolResult", &message["result"]);
        message["result"].clone()
    };
    let made = call_as(&alice, 1, "create_basket", json!({}));
    let id = made["structuredContent"]["basket_id"]
        .as_str()
        .unwrap_or_else(|| panic!("a basket id: {made}"))
        .to_owned();
    let added = call_as(
        &alice,
        2,
        "add_item",
        json!({"basket_id": id, "item": "milk"}),
    );
    assert_ne!(added["isError"], true, "{added}");
    // Bob's view of Alice's basket reads exactly like a basket that does not exist.
    let foreign = call_as(&bob, 3, "view_basket", json!({"basket_id": id}));
    let unknown_id = format!("basket_{}", "0".repeat(32));
    let unknown = call_as(&bob, 4, "view_basket", json!({"basket_id": unknown_id}));
    assert_eq!(foreign["isError"], true, "{foreign}");
    assert_eq!(
        foreign["content"][0]["text"]
            .as_str()
            .unwrap()
            .replace(&id, "ID"),
        unknown["content"][0]["text"]
            .as_str()
            .unwrap()
            .replace(&unknown_id, "ID"),
    );
    let changed = call_as(
        &bob,
        5,
        "add_item",
        json!({"basket_id": id, "item": "bread"}),
    );
    assert_eq!(changed["isError"], true, "{changed}");
    let own = call_as(&alice, 6, "view_basket", json!({"basket_id": id}));
    assert_eq!(
        own["structuredContent"]["items"],
        json!({"milk": 1}),
        "{own}"
    );
}

/// `_meta` shapes that an earlier front door could not read (so it skipped
/// the scope check and the header ladder) while the session read them
/// leniently and ran the tool.
fn odd_meta_shapes() -> Vec<Value> {
    vec![
        json!(0),
        json!("x"),
        json!([1]),
        json!(null),
        json!(true),
        json!(["2026-07-28", {}, null]),
        json!([common::http::MODERN, {}, {"name": "c", "version": "1"}, "info"]),
        json!({"io.modelcontextprotocol/protocolVersion": 20260728,
            "io.modelcontextprotocol/clientCapabilities": {}}),
        json!({"io.modelcontextprotocol/protocolVersion": common::http::MODERN,
            "io.modelcontextprotocol/clientCapabilities": []}),
    ]
}

/// Whether `bonus` is still listed (`toggle_bonus` did not run).
fn bonus_listed(server: &Server, token: &str) -> bool {
    let list = server.modern(&request(99, "tools/list"), &[("Authorization", token)]);
    tool_names(&list.json()).contains(&"bonus".to_owned())
}

#[test]
fn a_scoped_tool_never_runs_for_a_token_without_its_scope_whatever_meta_is() {
    let server = start(&[]);
    let reader = bearer(&es256(&claims("bob", "tools:read")));
    let insufficient = format!(
        "Bearer error=\"insufficient_scope\", scope=\"tools:admin\", resource_metadata=\"{METADATA_URL}\""
    );
    let session = open_session(&server, &reader);
    for meta in odd_meta_shapes() {
        let params = json!({"name": "toggle_bonus", "arguments": {}, "_meta": meta});
        let body = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": params});
        // 2026-07-28: the routing headers agree with the body's name.
        let modern = server.modern(&body, &[("Authorization", &reader)]);
        let refusal = modern.expect_error(400, -32602);
        assert_eq!(refusal["id"], 5, "{refusal}");
        assert!(
            refusal["error"]["message"]
                .as_str()
                .unwrap()
                .contains("_meta"),
            "{refusal}"
        );
        // A legacy session, and a legacy request with no session at all.
        for headers in [
            vec![
                ("Mcp-Session-Id", session.as_str()),
                ("Authorization", &reader),
            ],
            vec![("Authorization", &reader)],
        ] {
            let legacy = server.post(&headers, &body.to_string());
            assert_eq!(legacy.status, 400, "{meta}: {legacy:?}");
            assert_ne!(legacy.status, 200, "{legacy:?}");
        }
        assert!(
            bonus_listed(&server, &reader),
            "toggle_bonus ran with _meta {meta}"
        );
    }
    // A name the front door and the session read alike, spelt with an
    // escape, or sent twice: refused, and the tool did not run.
    let escaped = r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"toggle\u005fbonus","arguments":{}}}"#;
    let response = server.post(
        &[("Mcp-Session-Id", &session), ("Authorization", &reader)],
        escaped,
    );
    assert_challenge(&response, 403, &insufficient);
    assert_eq!(response.json()["error"]["code"], -32003, "{response:?}");
    assert_eq!(response.json()["id"], 6, "the denial answers the request");
    let twice = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"whoami","name":"toggle_bonus","arguments":{}}}"#;
    let response = server.post(
        &[("Mcp-Session-Id", &session), ("Authorization", &reader)],
        twice,
    );
    assert_eq!(response.status, 400, "{response:?}");
    assert!(response.body.contains("duplicate field"), "{response:?}");
    // The 2026-07-28 era: the denial is decided by the session, on the
    // tool it resolved, and answered 403 with the challenge.
    let denied = modern_call(&server, "toggle_bonus", Some(&reader));
    assert_challenge(&denied, 403, &insufficient);
    assert_eq!(denied.json()["error"]["code"], -32003);
    assert!(bonus_listed(&server, &reader));
}

#[test]
fn mirrored_headers_are_checked_whatever_shape_meta_or_arguments_have() {
    let server = start(&[]);
    let token = bearer(&es256(&claims("bob", "tools:read")));
    let auth = ("Authorization", token.as_str());
    let locate = |meta: Value, arguments: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"locate","arguments":{arguments},"_meta":{meta}}}}}"#
        )
    };
    let modern_headers = [
        ("MCP-Protocol-Version", common::http::MODERN),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "locate"),
        ("Mcp-Param-Region", "eu-west1"),
        auth,
    ];
    // A well-formed envelope: the header disagrees with the body: -32020.
    let good_meta = common::http::meta(json!({}));
    let body = locate(good_meta.clone(), r#"{"region":"us-east1"}"#);
    server
        .post(&modern_headers, &body)
        .expect_error(400, -32020);
    // A key given twice: the header cannot be held to one of them.
    let body = locate(good_meta, r#"{"region":"eu-west1","region":"us-east1"}"#);
    let twice = server.post(&modern_headers, &body);
    assert_eq!(twice.status, 400, "{twice:?}");
    assert!(twice.body.contains("twice"), "{twice:?}");
    // The odd `_meta` shapes: refused before anything runs (the envelope
    // step of the ladder comes before the header step), never 200.
    for meta in odd_meta_shapes() {
        let body = locate(meta.clone(), r#"{"region":"us-east1"}"#);
        let response = server.post(&modern_headers, &body);
        assert_eq!(response.status, 400, "{meta}: {response:?}");
        assert_eq!(response.json()["error"]["code"], -32602, "{response:?}");
        assert!(
            !response.body.contains("us-east1"),
            "the tool ran: {response:?}"
        );
    }
}

/// A small deterministic generator (xorshift64*), so the property test
/// below replays the same cases on every run and a failure names its seed.
struct Cases(u64);

impl Cases {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn pick<'a>(&mut self, items: &'a [&'a str]) -> &'a str {
        items[(self.next() % items.len() as u64) as usize]
    }

    /// A JSON text for `_meta`: objects with the envelope's keys of every
    /// type, arrays in the envelope's order, scalars, repeated keys.
    fn meta(&mut self) -> String {
        let version = self.pick(&[
            "\"2026-07-28\"",
            "\"2025-11-25\"",
            "20260728",
            "null",
            "[\"2026-07-28\"]",
            "{}",
            "\"2026-07-28\\u0000\"",
        ]);
        let capabilities = self.pick(&["{}", "[]", "null", "\"{}\"", "{\"elicitation\":{}}", "0"]);
        let info = self.pick(&["{\"name\":\"c\",\"version\":\"1\"}", "null", "\"c\"", "[]"]);
        let key_v = "\"io.modelcontextprotocol/protocolVersion\"";
        let key_c = "\"io.modelcontextprotocol/clientCapabilities\"";
        let key_i = "\"io.modelcontextprotocol/clientInfo\"";
        match self.next() % 8 {
            0 => format!("{{{key_v}:{version},{key_c}:{capabilities},{key_i}:{info}}}"),
            1 => format!("[{version},{capabilities},{info},\"info\"]"),
            2 => format!("[{version},{capabilities}]"),
            3 => format!("{{{key_v}:{version},{key_v}:\"2026-07-28\",{key_c}:{capabilities}}}"),
            4 => format!("{{{key_c}:{capabilities},\"progressToken\":{version}}}"),
            5 => self
                .pick(&["0", "\"x\"", "[1]", "null", "true", "{}", "[]"])
                .to_owned(),
            6 => format!("{{\"nested\":[{version}],{key_v}:{version}}}"),
            _ => format!("{{{key_v}:\"2026-07-28\",{key_c}:{{}},{key_i}:{info}}}"),
        }
    }

    /// Params naming `tool` in many spellings, with `meta` and `arguments`.
    fn params(&mut self, tool: &str, meta: &str, arguments: &str) -> String {
        let escaped: String = tool
            .chars()
            .map(|c| {
                if c == '_' {
                    "\\u005f".to_owned()
                } else {
                    c.to_string()
                }
            })
            .collect();
        match self.next() % 6 {
            0 => format!(r#"{{"name":"{escaped}","arguments":{arguments},"_meta":{meta}}}"#),
            1 => format!(r#"{{"_meta":{meta},"arguments":{arguments},"name":"{tool}"}}"#),
            2 => format!(
                r#"{{"name":"whoami","name":"{tool}","arguments":{arguments},"_meta":{meta}}}"#
            ),
            3 => format!(
                r#"{{"name":"{tool}","arguments":{arguments},"_meta":{meta},"_meta":{{}}}}"#
            ),
            4 => format!(r#"{{"name":"{tool}","arguments":{arguments}}}"#),
            _ => format!(r#"{{"name":"{tool}","arguments":{arguments},"_meta":{meta}}}"#),
        }
    }
}

/// Whatever shape params and `_meta` take, a `tools:read` token never runs
/// the `tools:admin` tool, and a mirrored header that disagrees with the
/// body never lets the call run, in either era, with or without a session:
/// the front door's decisions are the session's, made on one parse.
#[test]
fn mutated_params_never_bypass_scopes_or_mirrored_headers() {
    let server = start(&[]);
    let reader = bearer(&es256(&claims("bob", "tools:read")));
    let session = open_session(&server, &reader);
    let mut cases = Cases(0x5eed_0f16);
    for case in 0..240 {
        let meta = cases.meta();
        let era = cases.next() % 3;
        let (tool, arguments) = if case % 2 == 0 {
            ("toggle_bonus", "{}".to_owned())
        } else {
            let region = cases.pick(&[
                r#"{"region":"us-east1"}"#,
                r#"{"region":"eu-west1","region":"us-east1"}"#,
                r#"{"region":"us-east1","shard":1}"#,
            ]);
            ("locate", region.to_owned())
        };
        let params = cases.params(tool, &meta, &arguments);
        let body =
            format!(r#"{{"jsonrpc":"2.0","id":{case},"method":"tools/call","params":{params}}}"#);
        let mut headers = vec![("Authorization", reader.as_str())];
        match era {
            0 => headers.extend([
                ("MCP-Protocol-Version", common::http::MODERN),
                ("Mcp-Method", "tools/call"),
                ("Mcp-Name", tool),
                ("Mcp-Param-Region", "eu-west1"),
            ]),
            1 => headers.push(("Mcp-Session-Id", session.as_str())),
            _ => {}
        }
        let response = server.post(&headers, &body);
        let ran = response.body.contains("\"result\"");
        // Only the 2026-07-28 era mirrors arguments into headers: a legacy
        // `locate` call runs, and says it.
        let must_not_run = tool == "toggle_bonus" || era == 0;
        assert!(
            !(ran && must_not_run),
            "case {case} (era {era}) ran {tool}: {body}\n{response:?}"
        );
        assert!(
            [400, 403, 404].contains(&response.status) || response.status == 200,
            "case {case}: {response:?}"
        );
    }
    assert!(bonus_listed(&server, &reader), "toggle_bonus ran");
}

/// A 2026-07-28 `tools/call` of `tool` with `arguments` from a client that
/// can answer questions, with `token`.
fn modern_call_with(
    server_addr: &str,
    id: u64,
    tool: &str,
    arguments: Value,
    token: &str,
) -> Response {
    let mut message = call(id, tool, arguments);
    message["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] =
        json!({"elicitation": {}});
    modern_to(server_addr, &message, &[("Authorization", token)])
}

#[test]
fn one_subject_holding_long_calls_leaves_the_others_their_run_slots() {
    let server = start(&[
        ("MAX_CONCURRENT", "8"),
        ("MAX_CONCURRENT_PER_CLIENT", "4"),
        ("QUEUE_TIMEOUT_MS", "1000"),
    ]);
    let mallory = bearer(&es256(&claims("mallory", "tools:read")));
    let alice = bearer(&es256(&claims("alice", "tools:read")));
    // Mallory takes every slot she can (and queues for more): four run,
    // which each report progress.
    let (progress, running) = std::sync::mpsc::channel();
    let holders: Vec<_> = (0..8)
        .map(|i| {
            let (addr, token, progress) = (server.addr.clone(), mallory.clone(), progress.clone());
            std::thread::spawn(move || {
                let mut message = call(100 + i, "slow", json!({"ms": 3000, "steps": 300}));
                message["params"]["_meta"]["progressToken"] = "p".into();
                let headers = [
                    ("MCP-Protocol-Version", MODERN),
                    ("Mcp-Method", "tools/call"),
                    ("Mcp-Name", "slow"),
                    ("Authorization", token.as_str()),
                ];
                let mut stream = std::net::TcpStream::connect(&addr).unwrap();
                stream
                    .set_read_timeout(Some(std::time::Duration::from_secs(60)))
                    .unwrap();
                std::io::Write::write_all(
                    &mut stream,
                    &request_bytes(&addr, "POST", &headers, &message.to_string()),
                )
                .unwrap();
                read_response(&mut Tap::new(stream, "notifications/progress", progress))
            })
        })
        .collect();
    for _ in 0..4 {
        running
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("four of mallory's calls run");
    }
    // Alice is served while they hold mallory's share: had she waited for
    // a slot, the queue timeout (1 s) would have answered her busy.
    let started = std::time::Instant::now();
    let honest = modern_call_with(&server.addr, 1, "slow", json!({"ms": 10}), &alice);
    let waited = started.elapsed();
    let body = honest.json();
    assert_eq!(body["result"]["structuredContent"]["ms"], 10, "{body}");
    // Of mallory's eight, four ran; four waited for her own slots and were
    // answered busy at the queue timeout.
    let outcomes: Vec<Value> = holders
        .into_iter()
        .map(|h| {
            let response = h.join().unwrap();
            match response.header("content-type") {
                Some("text/event-stream") => response.events().pop().unwrap(),
                _ => response.json(),
            }
        })
        .collect();
    let ran = outcomes
        .iter()
        .filter(|o| o["result"]["structuredContent"]["ms"] == 3000)
        .count();
    assert_eq!(ran, 4, "{outcomes:?}");
    println!("alice's call waited {waited:?} with mallory holding her share");
}

#[test]
fn one_subject_cannot_take_every_input_request_from_the_others() {
    let server = start(&[("OPEN_STATES_PER_CLIENT", "3")]);
    let mallory = bearer(&es256(&claims("mallory", "tools:read")));
    let alice = bearer(&es256(&claims("alice", "tools:read")));
    let book = |id: u64, token: &str| {
        modern_call_with(&server.addr, id, "book_table", json!({"party": 2}), token).json()
    };
    let mut rounds = Vec::new();
    for id in 0..3 {
        let round = book(id, &mallory);
        assert_eq!(round["result"]["resultType"], "input_required", "{round}");
        rounds.push(round);
    }
    let over = book(3, &mallory);
    assert_eq!(over["result"]["isError"], true, "{over}");
    let text = over["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("unanswered input requests"), "{text}");
    // Alice is asked, and her answer is taken.
    let round = book(10, &alice);
    assert_eq!(round["result"]["resultType"], "input_required", "{round}");
    let answer = |id: u64, round: &Value, token: &str| {
        let mut message = call(id, "book_table", json!({"party": 2}));
        message["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] =
            json!({"elicitation": {}});
        message["params"]["requestState"] = round["result"]["requestState"].clone();
        message["params"]["inputResponses"] =
            json!({"guest": {"action": "accept", "content": {"name": "Ada"}}});
        modern_to(&server.addr, &message, &[("Authorization", token)]).json()
    };
    let booked = answer(11, &round, &alice);
    assert_eq!(
        booked["result"]["structuredContent"]["booked"], true,
        "{booked}"
    );
    // Mallory's issued rounds are still answered.
    let booked = answer(12, &rounds[0], &mallory);
    assert_eq!(
        booked["result"]["structuredContent"]["booked"], true,
        "{booked}"
    );
}

/// Whether the legacy session `id` is still served for `token`.
fn session_alive(server: &Server, id: &str, token: &str) -> bool {
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string();
    let response = server.post(&[("Mcp-Session-Id", id), ("Authorization", token)], &list);
    match response.status {
        200 => true,
        404 => false,
        other => panic!("unexpected {other}: {response:?}"),
    }
}

#[test]
fn one_subject_opening_sessions_never_locks_out_another() {
    let server = start(&[
        ("LEGACY_SESSIONS", "8"),
        ("LEGACY_SESSIONS_PER_CLIENT", "4"),
    ]);
    let mallory = bearer(&es256(&claims("mallory", "tools:read")));
    let alice = bearer(&es256(&claims("alice", "tools:read")));
    // Over her quota, mallory's own least recently used sessions make room.
    let opened: Vec<String> = (0..10).map(|_| open_session(&server, &mallory)).collect();
    let alive: Vec<bool> = opened
        .iter()
        .map(|id| session_alive(&server, id, &mallory))
        .collect();
    assert_eq!(alive.iter().filter(|a| **a).count(), 4, "{alive:?}");
    assert!(alive[6..].iter().all(|a| *a), "the newest stay: {alive:?}");
    // Alice is served at once, her sessions untouched by mallory's.
    let hers = open_session(&server, &alice);
    for _ in 0..6 {
        open_session(&server, &mallory);
    }
    assert!(session_alive(&server, &hers, &alice));
}

#[test]
fn a_full_session_table_makes_room_for_a_new_subject() {
    let server = start(&[
        ("LEGACY_SESSIONS", "6"),
        ("LEGACY_SESSIONS_PER_CLIENT", "6"),
    ]);
    let mallory = bearer(&es256(&claims("mallory", "tools:read")));
    let alice = bearer(&es256(&claims("alice", "tools:read")));
    let opened: Vec<String> = (0..6).map(|_| open_session(&server, &mallory)).collect();
    // Every one of mallory's sessions holds a GET stream.
    let streams: Vec<std::net::TcpStream> = opened
        .iter()
        .map(|id| {
            use std::io::{Read, Write};
            let mut push = std::net::TcpStream::connect(&server.addr).unwrap();
            let get = format!(
                "GET /mcp HTTP/1.1\r\nHost: {}\r\nAccept: text/event-stream\r\nMcp-Session-Id: {id}\r\nAuthorization: {mallory}\r\n\r\n",
                server.addr
            );
            push.write_all(get.as_bytes()).unwrap();
            let mut head = [0u8; 12];
            push.read_exact(&mut head).unwrap();
            assert_eq!(&head, b"HTTP/1.1 200", "{}", String::from_utf8_lossy(&head));
            push
        })
        .collect();
    // Her seventh is refused: each of hers has a stream, she must end one.
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": LEGACY, "capabilities": {},
        "clientInfo": {"name": "auth-tests", "version": "1"}}})
    .to_string();
    let refused = server.post(&[("Authorization", &mallory)], &init);
    assert_eq!(refused.status, 429, "{refused:?}");
    // Alice still gets a session: mallory's least recently used one ends.
    let hers = open_session(&server, &alice);
    assert!(session_alive(&server, &hers, &alice));
    let left = opened
        .iter()
        .filter(|id| session_alive(&server, id, &mallory))
        .count();
    assert_eq!(left, 5);
    drop(streams);
}

#[test]
fn one_subject_cannot_take_every_handle_from_the_others() {
    let server = start_example("basket", &[("HANDLES_PER_CLIENT", "3")]);
    let mallory = bearer(&es256(&claims("mallory", "")));
    let alice = bearer(&es256(&claims("alice", "")));
    let create = |who: &str, id: u64| {
        let response = server.modern(
            &call(id, "create_basket", json!({})),
            &[("Authorization", who)],
        );
        response.json()["result"].clone()
    };
    for id in 0..3 {
        let made = create(&mallory, id);
        assert!(made["structuredContent"]["basket_id"].is_string(), "{made}");
    }
    let refused = create(&mallory, 3);
    assert_eq!(refused["isError"], true, "{refused}");
    let text = refused["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("as many basket handles as the server allows"),
        "{text}"
    );
    // Alice's baskets are made as ever.
    let hers = create(&alice, 4);
    assert!(hers["structuredContent"]["basket_id"].is_string(), "{hers}");
}

#[test]
fn one_subject_spending_its_rate_leaves_the_others_theirs() {
    // One call a second, a burst of two: a burst of three calls is refused
    // however slow the machine is, unless each takes a second.
    let server = start(&[("RATE_LIMIT", "1")]);
    let mallory = bearer(&es256(&claims("mallory", "tools:read")));
    let alice = bearer(&es256(&claims("alice", "tools:read")));
    let add = |id: u64, token: &str| {
        server
            .modern(
                &call(id, "add", json!({"a": 1, "b": 2})),
                &[("Authorization", token)],
            )
            .json()
    };
    let refused = |result: &Value| {
        result["result"]["isError"] == true
            && result["result"]["content"][0]["text"]
                .as_str()
                .is_some_and(|t| t.starts_with("Rate limit exceeded: 'add' was not run. Retry in "))
    };
    let mut spent = 0;
    let first_refusal = loop {
        let result = add(spent, &mallory);
        spent += 1;
        if refused(&result) {
            break result;
        }
        assert_eq!(
            result["result"]["structuredContent"]["sum"], 3.0,
            "{result}"
        );
        assert!(spent < 100, "100 of mallory's calls ran: no rate limit");
    };
    assert!(spent >= 3, "refused after {spent}: {first_refusal}");
    let hers = add(100, &alice);
    assert_eq!(hers["result"]["structuredContent"]["sum"], 3.0, "{hers}");
}
