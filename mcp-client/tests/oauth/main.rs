//! The OAuth client against a fake authorization server and a fake
//! protected resource on loopback (real HTTP, real redirect listener):
//! the test plays the browser and the user.

mod fake;

use bytes::Bytes;
use fake::{Fake, Knobs};
use http_body_util::Empty;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use mcpfn_client::auth::{
    AuthError, Authorizer, FileStore, MemoryStore, OAuthClient, OAuthConfig, Presenter, Prompt,
    TokenStore,
};
use mcpfn_client::auth::{ClientIdentity, Secret};
use mcpfn_client::{CallOptions, ClientOptions, McpClient, ServerConfig};
use mcpfn_client::{
    ClientError, Dispatcher, DispatcherConfig, HttpConfig, HttpTransport, NoHandler, RequestOptions,
};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::Arc;

/// GETs `url` and returns its `Location`, if any.
async fn get(url: &str) -> Option<String> {
    let client = Client::builder(TokioExecutor::new()).build_http::<Empty<Bytes>>();
    let response = client.get(url.parse().unwrap()).await.unwrap();
    response
        .headers()
        .get("location")
        .map(|v| v.to_str().unwrap().to_owned())
}

/// The user's browser: opens the authorization URL and follows its
/// redirect to the loopback listener; for the device flow, visits the
/// verification page (which approves).
fn browser() -> Presenter {
    Arc::new(|prompt: &Prompt| {
        let url = match prompt {
            Prompt::Authorize { url, .. } => url.clone(),
            Prompt::Device {
                verification_uri, ..
            } => verification_uri.clone(),
            _ => unreachable!(),
        };
        tokio::spawn(async move {
            if let Some(location) = get(&url).await {
                get(&location).await;
            }
        });
    })
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mcp-oauth-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn oauth(fake: &Fake, store: Arc<dyn TokenStore>) -> Arc<OAuthClient> {
    let mut config = OAuthConfig::new("remote", fake.resource_url());
    config.presenter = browser();
    Arc::new(OAuthClient::new(config, store))
}

fn connect(url: &str, authorizer: Arc<dyn Authorizer>) -> Result<Dispatcher, ClientError> {
    let mut config = HttpConfig::new("remote", url);
    config.authorizer = Some(authorizer);
    let (transport, inbox) = HttpTransport::connect(config)?;
    Ok(Dispatcher::new(
        Box::new(transport),
        inbox,
        Arc::new(NoHandler),
        DispatcherConfig::new("remote"),
    ))
}

/// `tools/call` of `name`: the scope the resource saw.
async fn call(client: &Dispatcher, name: &str) -> Result<String, ClientError> {
    let params = serde_json::value::to_raw_value(&json!({"name": name})).unwrap();
    let result = client
        .request("tools/call", Some(&params), RequestOptions::default())
        .await?;
    let result: Value = serde_json::from_str(result.get()).unwrap();
    Ok(result["scope"].as_str().unwrap().to_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn code_flow_then_a_restart_reuses_the_stored_registration_and_token() {
    let fake = Fake::start(Knobs::default()).await;
    let dir = temp_dir("restart");
    let store: Arc<dyn TokenStore> = Arc::new(FileStore::new(&dir));
    let client = connect(&fake.resource_url(), oauth(&fake, Arc::clone(&store))).unwrap();
    assert_eq!(call(&client, "echo").await.unwrap(), "tools:read");

    // One registration, for the loopback redirect.
    let registrations = fake.as_requests("/register");
    assert_eq!(registrations.len(), 1);
    let registered: Value = serde_json::from_str(&registrations[0].body).unwrap();
    let redirect = registered["redirect_uris"][0].as_str().unwrap().to_owned();
    assert!(redirect.starts_with("http://127.0.0.1:") && redirect.ends_with("/callback"));
    // SEP-837: a native application (the loopback redirect).
    assert_eq!(registered["application_type"], "native");
    // The authorization request: PKCE S256, state, resource, the
    // challenge's scope.
    let authorize = &fake.as_requests("/authorize")[0].query;
    let client_id = authorize["client_id"].clone();
    assert!(client_id.starts_with("client-"));
    assert_eq!(authorize["code_challenge_method"], "S256");
    assert_eq!(authorize["code_challenge"].len(), 43);
    assert_eq!(authorize["resource"], fake.resource_url());
    assert_eq!(authorize["scope"], "tools:read");
    assert_eq!(authorize["redirect_uri"], redirect);
    assert!(authorize["state"].len() >= 43);
    // The code exchange: verifier, resource, public client.
    let token = &fake.as_requests("/token")[0].form;
    assert_eq!(token["grant_type"], "authorization_code");
    assert_eq!(token["resource"], fake.resource_url());
    assert_eq!(token["client_id"], client_id);
    assert_eq!(token["code_verifier"].len(), 43);
    // The resource saw no token first, then the bearer.
    {
        let state = fake.lock();
        let mcp: Vec<_> = state
            .seen_resource
            .iter()
            .filter(|s| s.path == "/mcp")
            .collect();
        assert_eq!(mcp[0].authorization, None);
        assert!(
            mcp.last()
                .unwrap()
                .authorization
                .as_deref()
                .unwrap()
                .starts_with("Bearer at-")
        );
    }

    // Stored owner-only, with no token in the file name.
    let server_dir = FileStore::new(&dir).server_dir(&fake.resource_url());
    let file = std::fs::read_dir(&server_dir)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
            0o600
        );
        assert_eq!(
            std::fs::metadata(&server_dir).unwrap().permissions().mode() & 0o777,
            0o700
        );
    }
    let stored: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(stored["registration"]["client_id"], client_id.as_str());
    drop(client);

    // A restart: a new client on the same store, no second registration
    // and no second login.
    let restarted = connect(
        &fake.resource_url(),
        oauth(&fake, Arc::new(FileStore::new(&dir))),
    )
    .unwrap();
    assert_eq!(call(&restarted, "echo").await.unwrap(), "tools:read");
    assert_eq!(fake.as_requests("/register").len(), 1);
    assert_eq!(fake.as_requests("/authorize").len(), 1);
    assert_eq!(fake.as_requests("/token").len(), 1);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_about_to_expire_is_refreshed_first() {
    let fake = Fake::start(Knobs {
        expires_in: Some(1),
        ..Knobs::default()
    })
    .await;
    let client = connect(
        &fake.resource_url(),
        oauth(&fake, Arc::new(MemoryStore::default())),
    )
    .unwrap();
    call(&client, "echo").await.unwrap();
    call(&client, "echo").await.unwrap();
    // Each use of a token that expires within a fifth of its lifetime
    // refreshes it first: after the login, one refresh per call.
    let tokens = fake.as_requests("/token");
    assert_eq!(tokens.len(), 3, "{tokens:?}");
    assert_eq!(tokens[0].form["grant_type"], "authorization_code");
    assert!(
        tokens[1..]
            .iter()
            .all(|t| t.form["grant_type"] == "refresh_token")
    );
    assert!(tokens[1].form["refresh_token"].starts_with("rt-"));
    assert_eq!(tokens[1].form["resource"], fake.resource_url());
    let state = fake.lock();
    let sent: Vec<_> = state
        .seen_resource
        .iter()
        .filter_map(|s| s.authorization.clone())
        .collect();
    assert_eq!(sent.len(), 2, "{sent:?}");
    assert_ne!(
        sent[0], sent[1],
        "the second call carries the refreshed token"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_that_lives_30_s_is_not_refreshed_before_every_request() {
    let fake = Fake::start(Knobs {
        expires_in: Some(30),
        ..Knobs::default()
    })
    .await;
    let client = connect(
        &fake.resource_url(),
        oauth(&fake, Arc::new(MemoryStore::default())),
    )
    .unwrap();
    for _ in 0..3 {
        call(&client, "echo").await.unwrap();
    }
    // A fixed minute's margin would refresh it before each call; a fifth
    // of its lifetime (6 s) leaves it in use.
    let tokens = fake.as_requests("/token");
    assert_eq!(tokens.len(), 1, "{tokens:?}");
    assert_eq!(tokens[0].form["grant_type"], "authorization_code");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn offline_access_is_asked_with_prompt_consent_and_brings_a_refresh_token() {
    let fake = Fake::start(Knobs {
        offline_access: true,
        ..Knobs::default()
    })
    .await;
    let client = connect(
        &fake.resource_url(),
        oauth(&fake, Arc::new(MemoryStore::default())),
    )
    .unwrap();
    call(&client, "echo").await.unwrap();
    let authorize = &fake.as_requests("/authorize")[0].query;
    assert_eq!(authorize["scope"], "offline_access tools:read");
    assert_eq!(authorize["prompt"], "consent");
    // The access token is forgotten: the refresh token the consent
    // brought answers the 401, with no second login.
    fake.lock().access.clear();
    call(&client, "echo").await.unwrap();
    let tokens = fake.as_requests("/token");
    assert_eq!(tokens.len(), 2, "{tokens:?}");
    assert_eq!(tokens[1].form["grant_type"], "refresh_token");
    assert_eq!(fake.as_requests("/authorize").len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_clients_sharing_a_file_store_never_replay_a_rotated_refresh_token() {
    // Every use refreshes (a one-second token), and each refresh token
    // is single-use: a replay would revoke the grant.
    let fake = Fake::start(Knobs {
        expires_in: Some(1),
        rotate_refresh: true,
        ..Knobs::default()
    })
    .await;
    let dir = temp_dir("shared");
    let first = connect(
        &fake.resource_url(),
        oauth(&fake, Arc::new(FileStore::new(&dir))),
    )
    .unwrap();
    call(&first, "echo").await.unwrap();
    // A second process: its own client and its own handle on the store.
    let second = connect(
        &fake.resource_url(),
        oauth(&fake, Arc::new(FileStore::new(&dir))),
    )
    .unwrap();
    for _ in 0..3 {
        call(&second, "echo").await.unwrap();
        call(&first, "echo").await.unwrap();
        let (a, b) = tokio::join!(call(&first, "echo"), call(&second, "echo"));
        a.unwrap();
        b.unwrap();
    }
    assert_eq!(fake.lock().replays, 0);
    assert_eq!(fake.as_requests("/authorize").len(), 1);
    let refreshes = fake
        .as_requests("/token")
        .iter()
        .filter(|t| t.form["grant_type"] == "refresh_token")
        .count();
    assert!(refreshes >= 12, "{refreshes}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_401_refreshes_and_a_revoked_refresh_token_logs_in_again() {
    let fake = Fake::start(Knobs::default()).await;
    let client = connect(
        &fake.resource_url(),
        oauth(&fake, Arc::new(MemoryStore::default())),
    )
    .unwrap();
    call(&client, "echo").await.unwrap();
    // The resource forgets the access token: a 401, answered by a refresh.
    fake.lock().access.clear();
    call(&client, "echo").await.unwrap();
    let tokens = fake.as_requests("/token");
    assert_eq!(tokens.len(), 2);
    assert_eq!(tokens[1].form["grant_type"], "refresh_token");
    assert_eq!(fake.as_requests("/authorize").len(), 1);
    // Both revoked: the refresh is refused, a new login follows.
    {
        let mut state = fake.lock();
        state.access.clear();
        state.refresh.clear();
    }
    call(&client, "echo").await.unwrap();
    let tokens = fake.as_requests("/token");
    assert_eq!(tokens[2].form["grant_type"], "refresh_token");
    assert_eq!(tokens[3].form["grant_type"], "authorization_code");
    assert_eq!(fake.as_requests("/authorize").len(), 2);
    // The registration was kept.
    assert_eq!(fake.as_requests("/register").len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn insufficient_scope_steps_up_with_the_union_of_scopes() {
    let fake = Fake::start(Knobs::default()).await;
    let client = connect(
        &fake.resource_url(),
        oauth(&fake, Arc::new(MemoryStore::default())),
    )
    .unwrap();
    assert_eq!(call(&client, "echo").await.unwrap(), "tools:read");
    assert_eq!(
        call(&client, "admin").await.unwrap(),
        "tools:admin tools:read"
    );
    let authorizations = fake.as_requests("/authorize");
    assert_eq!(authorizations.len(), 2);
    assert_eq!(authorizations[1].query["scope"], "tools:admin tools:read");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_device_flow_polls_until_the_user_approves() {
    let fake = Fake::start(Knobs::default()).await;
    let oauth = oauth(&fake, Arc::new(MemoryStore::default()));
    let authorized = oauth.login(true).await.unwrap();
    assert_eq!(authorized.issuer, fake.issuer());
    assert_eq!(authorized.scope.as_deref(), Some("tools:read"));
    let device = &fake.as_requests("/device")[0].form;
    assert_eq!(device["resource"], fake.resource_url());
    assert_eq!(device["scope"], "tools:read");
    let registered: Value = serde_json::from_str(&fake.as_requests("/register")[0].body).unwrap();
    assert!(registered.get("redirect_uris").is_none());
    assert!(
        registered["grant_types"]
            .to_string()
            .contains("device_code")
    );
    assert!(
        fake.as_requests("/token")
            .iter()
            .all(|t| t.form["grant_type"].ends_with("device_code"))
    );
    let client = connect(&fake.resource_url(), oauth).unwrap();
    assert_eq!(call(&client, "echo").await.unwrap(), "tools:read");
    assert_eq!(fake.as_requests("/authorize").len(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_device_endpoint_is_an_error_naming_the_authorization_server() {
    let fake = Fake::start(Knobs {
        no_device: true,
        ..Knobs::default()
    })
    .await;
    let error = oauth(&fake, Arc::new(MemoryStore::default()))
        .login(true)
        .await
        .unwrap_err();
    assert_eq!(
        error,
        AuthError::NoDeviceFlow {
            issuer: fake.issuer()
        }
    );
    assert!(error.to_string().contains(&fake.issuer()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forged_state_is_refused_and_no_code_is_exchanged() {
    let fake = Fake::start(Knobs {
        wrong_state: true,
        ..Knobs::default()
    })
    .await;
    let error = oauth(&fake, Arc::new(MemoryStore::default()))
        .login(false)
        .await
        .unwrap_err();
    assert!(matches!(error, AuthError::Redirect { .. }), "{error}");
    assert!(error.to_string().contains("`state`"), "{error}");
    assert!(fake.as_requests("/token").is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_iss_of_another_server_is_refused_and_no_code_is_exchanged() {
    let fake = Fake::start(Knobs {
        wrong_iss: Some("https://evil.test".into()),
        ..Knobs::default()
    })
    .await;
    let error = oauth(&fake, Arc::new(MemoryStore::default()))
        .login(false)
        .await
        .unwrap_err();
    assert!(error.to_string().contains("https://evil.test"), "{error}");
    assert!(error.to_string().contains("RFC 9207"), "{error}");
    assert!(fake.as_requests("/token").is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metadata_naming_another_issuer_is_refused_before_registration() {
    let fake = Fake::start(Knobs {
        wrong_issuer: Some("https://evil.test".into()),
        ..Knobs::default()
    })
    .await;
    let client = connect(
        &fake.resource_url(),
        oauth(&fake, Arc::new(MemoryStore::default())),
    )
    .unwrap();
    let error = call(&client, "echo").await.unwrap_err();
    let text = error.to_string();
    assert!(matches!(error, ClientError::Unauthorized { .. }), "{text}");
    // Plain text, not Rust's `Some("…")`.
    assert!(
        text.contains(&format!(
            "names issuer `https://evil.test`, not `{}`; refused (RFC 8414 §3.3)",
            fake.issuer()
        )),
        "{text}"
    );
    assert!(!text.contains("Some("), "{text}");
    assert!(fake.as_requests("/register").is_empty());
    assert!(fake.as_requests("/authorize").is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_is_never_sent_to_another_origin() {
    let fake = Fake::start(Knobs::default()).await;
    let oauth = oauth(&fake, Arc::new(MemoryStore::default()));
    oauth.login(false).await.unwrap();
    // An authorizer for one origin cannot be used for another.
    let other = format!("http://127.0.0.1:{}/mcp", fake.lock().other_port);
    let refused = connect(&other, oauth.clone()).err().unwrap();
    assert!(matches!(refused, ClientError::Config { .. }), "{refused}");
    // A redirect from the resource to another origin is not followed: the
    // other origin sees nothing.
    let moved = fake.resource_url().replace("/mcp", "/moved");
    let client = connect(&moved, oauth).unwrap();
    let error = call(&client, "echo").await.unwrap_err();
    assert!(
        matches!(error, ClientError::Http { status: 307, .. }),
        "{error}"
    );
    assert!(fake.lock().seen_other.is_empty());
    // The token went to the resource's origin only.
    let moved_request = fake
        .lock()
        .seen_resource
        .iter()
        .find(|s| s.path == "/moved")
        .cloned()
        .unwrap();
    assert!(
        moved_request
            .authorization
            .unwrap()
            .starts_with("Bearer at-")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn debug_output_never_shows_a_token() {
    let fake = Fake::start(Knobs::default()).await;
    let store = Arc::new(MemoryStore::default());
    let oauth = oauth(&fake, store.clone());
    oauth.login(false).await.unwrap();
    let stored = store
        .load(&fake.resource_url(), &fake.issuer())
        .await
        .unwrap()
        .unwrap();
    let text = format!("{stored:?} {oauth:?}");
    assert!(!text.contains("at-") && !text.contains("rt-"), "{text}");
    assert!(text.contains("<redacted>"));
    assert!(
        stored
            .tokens
            .unwrap()
            .access_token
            .expose()
            .starts_with("at-")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_client_connects_lists_and_calls_through_the_authorizer() {
    let fake = Fake::start(Knobs::default()).await;
    let options = ClientOptions {
        authorizer: Some(oauth(&fake, Arc::new(MemoryStore::default()))),
        ..ClientOptions::default()
    };
    let client =
        McpClient::connect_with(ServerConfig::http("remote", fake.resource_url()), options)
            .await
            .unwrap();
    let tools = client.list_tools().await.unwrap();
    assert_eq!(tools.len(), 2);
    let result = client
        .call_tool("admin", None, CallOptions::default())
        .await
        .unwrap();
    let text = serde_json::to_value(&result.content).unwrap();
    assert_eq!(text[0]["text"], "tools:admin tools:read");
    assert_eq!(fake.as_requests("/authorize").len(), 2);
    client.close().await;
}

/// A login of a client with `identity`.
async fn login_as(fake: &Fake, identity: ClientIdentity) {
    let mut config = OAuthConfig::new("remote", fake.resource_url());
    config.presenter = browser();
    config.identity = identity;
    OAuthClient::new(config, Arc::new(MemoryStore::default()))
        .login(false)
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pre_registered_client_authenticates_with_basic_and_registers_nothing() {
    let fake = Fake::start(Knobs::default()).await;
    login_as(
        &fake,
        ClientIdentity {
            client_id: Some("pre:1".into()),
            client_secret: Some(Secret::new("s3cret")),
            ..ClientIdentity::default()
        },
    )
    .await;
    assert!(fake.as_requests("/register").is_empty());
    assert_eq!(
        fake.as_requests("/authorize")[0].query["client_id"],
        "pre:1"
    );
    let token = &fake.as_requests("/token")[0];
    // RFC 6749 §2.3.1: id and secret form-encoded, then base64.
    use base64::Engine;
    let expected = base64::engine::general_purpose::STANDARD.encode("pre%3A1:s3cret");
    assert_eq!(
        token.authorization.as_deref(),
        Some(format!("Basic {expected}").as_str())
    );
    assert!(!token.form.contains_key("client_secret"));
    assert!(!token.form.contains_key("client_id"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_id_metadata_document_is_the_client_id_where_supported() {
    let document = "https://host.example/mcp-host.json";
    let identity = ClientIdentity {
        metadata_url: Some(document.into()),
        ..ClientIdentity::default()
    };
    let fake = Fake::start(Knobs {
        metadata_documents: true,
        ..Knobs::default()
    })
    .await;
    login_as(&fake, identity.clone()).await;
    assert!(fake.as_requests("/register").is_empty());
    assert_eq!(
        fake.as_requests("/authorize")[0].query["client_id"],
        document
    );
    assert_eq!(fake.as_requests("/token")[0].form["client_id"], document);
    // Where it is not supported: dynamic registration.
    let fake = Fake::start(Knobs::default()).await;
    login_as(&fake, identity).await;
    assert_eq!(fake.as_requests("/register").len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn step_ups_stop_at_the_retry_limit() {
    let fake = Fake::start(Knobs {
        admin_never: true,
        ..Knobs::default()
    })
    .await;
    let client = connect(
        &fake.resource_url(),
        oauth(&fake, Arc::new(MemoryStore::default())),
    )
    .unwrap();
    call(&client, "echo").await.unwrap();
    let error = call(&client, "admin").await.unwrap_err();
    assert!(matches!(error, ClientError::Unauthorized { .. }), "{error}");
    assert!(
        error
            .to_string()
            .contains("still asks for more scope (tools:admin) after 2 step-ups"),
        "{error}"
    );
    // The first login and two step-ups.
    assert_eq!(fake.as_requests("/authorize").len(), 3);
}
