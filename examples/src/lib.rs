//! Runnable examples live beside this file; see `everything/` and
//! `notes.rs`. This library holds what the remote-capable examples
//! (`everything`, `basket`, `conformance`) read from the environment to run as replicas
//! behind a load balancer: the deployment variables of docs/deployment.md.

use mcpfn_runtime::Server;

/// Applies the deployment variables to `server`, named `name` (the prefix of
/// its keys in a shared Redis) and `title` (the resource name in the
/// authorization metadata):
///
/// - `MCP_SEAL_KEY` (at least 32 bytes): the key sealing 2026-07-28
///   `requestState`; replicas must share it;
/// - `MCP_REPLICA` (HTTP): this replica's tag in legacy session ids;
/// - `REDIS_URL` (feature `redis`): handles and spent request states in that
///   Redis, under keys starting `{name}:`;
/// - `MCP_AUTH_JWKS`, `MCP_AUTH_ISSUER`, `MCP_RESOURCE_URL`,
///   `MCP_AUTH_SERVER` (feature `auth`; all four or none), and
///   `MCP_AUTH_HIDE_TOOLS=1`: an OAuth-protected HTTP server;
/// - `HANDLES_PER_CLIENT=N`: the handles one HTTP client may create within
///   their lifetime.
///
/// Returns the server and whether authorization is on. A variable set to
/// something unusable ends the process with status 2 and a line naming it.
pub fn deployment(mut server: Server, name: &str, title: &str) -> (Server, bool) {
    require_features(name);
    if let Some(key) = seal_key() {
        server = server.request_state_key(key);
    }
    #[cfg(feature = "http")]
    if let Ok(tag) = std::env::var("MCP_REPLICA") {
        server = server.replica_tag(tag);
    }
    server = with_shared_store(server, name);
    // HANDLES_PER_CLIENT=N: handles one HTTP client may create within their
    // lifetime.
    if let Some(n) = std::env::var("HANDLES_PER_CLIENT")
        .ok()
        .and_then(|n| n.parse::<usize>().ok())
    {
        server = server.max_handles_per_client(n);
    }
    #[cfg(feature = "auth")]
    if let Some(auth) = auth_from_env(title) {
        return (server.auth(auth), true);
    }
    #[cfg(not(feature = "auth"))]
    let _ = title;
    (server, false)
}

/// Ends the process, naming the cargo feature to build `example` with, when
/// an argument or variable asks for something this build left out: `--http`
/// (feature `http`), `MCP_REPLICA` (`http`), `MCP_AUTH_*` (`auth`).
/// `REDIS_URL` without `redis` is refused where the store is set up.
pub fn require_features(example: &str) {
    #[cfg(not(feature = "http"))]
    if std::env::args()
        .skip(1)
        .any(|arg| arg == "--http" || arg.starts_with("--http="))
    {
        refuse(format_args!(
            "--http needs the examples' `http` feature: \
             cargo run --release --example {example} --features http -- --http 127.0.0.1:8931"
        ));
    }
    #[cfg(not(feature = "http"))]
    if std::env::var_os("MCP_REPLICA").is_some() {
        refuse(format_args!(
            "MCP_REPLICA (HTTP) needs the examples' `http` feature: \
             cargo run --release --example {example} --features http -- --http ADDR"
        ));
    }
    #[cfg(not(feature = "auth"))]
    if let Some(name) = [
        "MCP_AUTH_JWKS",
        "MCP_AUTH_ISSUER",
        "MCP_RESOURCE_URL",
        "MCP_AUTH_SERVER",
    ]
    .into_iter()
    .find(|name| std::env::var_os(name).is_some())
    {
        refuse(format_args!(
            "{name} (authorization) needs the examples' `auth` feature: \
             cargo run --release --example {example} --features auth -- --http ADDR"
        ));
    }
    #[cfg(all(feature = "http", feature = "auth"))]
    let _ = example;
}

/// Ends the process: a deployment variable cannot be used.
fn refuse(message: std::fmt::Arguments<'_>) -> ! {
    eprintln!("error: {message}");
    std::process::exit(2);
}

/// The key that seals 2026-07-28 `requestState`, from `MCP_SEAL_KEY` (at
/// least 32 bytes; longer keys are folded into 32), so replicas behind one
/// load balancer accept each other's states.
fn seal_key() -> Option<[u8; 32]> {
    let text = std::env::var("MCP_SEAL_KEY").ok()?;
    if text.len() < 32 {
        refuse(format_args!("MCP_SEAL_KEY must be at least 32 bytes"));
    }
    let mut key = [0_u8; 32];
    for (i, byte) in text.bytes().enumerate() {
        key[i % 32] ^= byte;
    }
    Some(key)
}

/// `REDIS_URL` set: handles and spent request states live in that Redis,
/// under keys starting `{name}:`, shared by every replica given the URL.
#[cfg(feature = "redis")]
fn with_shared_store(server: Server, name: &str) -> Server {
    let Ok(url) = std::env::var("REDIS_URL") else {
        return server;
    };
    match mcpfn_runtime::store::RedisStore::open(&url) {
        Ok(store) => server.store(store.prefix(format!("{name}:"))),
        Err(err) => refuse(format_args!("REDIS_URL: {err}")),
    }
}

#[cfg(not(feature = "redis"))]
fn with_shared_store(server: Server, name: &str) -> Server {
    if std::env::var_os("REDIS_URL").is_some() {
        refuse(format_args!(
            "REDIS_URL needs the examples' `redis` feature (and `http` to serve replicas): \
             cargo run --release --example {name} --features http,redis -- --http ADDR"
        ));
    }
    server
}

/// Authorization from the environment: `None` when none of its variables is
/// set; the process ends naming the missing ones when only some are.
#[cfg(feature = "auth")]
fn auth_from_env(title: &str) -> Option<mcpfn_runtime::auth::Auth> {
    use mcpfn_runtime::auth::{Auth, Jwks, JwtVerifier};
    const VARS: [&str; 4] = [
        "MCP_AUTH_JWKS",
        "MCP_AUTH_ISSUER",
        "MCP_RESOURCE_URL",
        "MCP_AUTH_SERVER",
    ];
    let values: Vec<Option<String>> = VARS
        .iter()
        .map(|name| std::env::var(name).ok().filter(|v| !v.is_empty()))
        .collect();
    if values.iter().all(Option::is_none) {
        return None;
    }
    let missing: Vec<&str> = VARS
        .iter()
        .zip(&values)
        .filter(|(_, value)| value.is_none())
        .map(|(name, _)| *name)
        .collect();
    if !missing.is_empty() {
        refuse(format_args!(
            "authorization needs all of {}; missing: {}",
            VARS.join(", "),
            missing.join(", ")
        ));
    }
    let [jwks, issuer, resource, server] =
        [0, 1, 2, 3].map(|i| values[i].clone().unwrap_or_default());
    let jwks = Jwks::file(&jwks).unwrap_or_else(|err| refuse(format_args!("MCP_AUTH_JWKS: {err}")));
    let verifier = JwtVerifier::new(jwks, issuer, resource.clone());
    let hide = std::env::var("MCP_AUTH_HIDE_TOOLS").is_ok_and(|v| v == "1");
    Some(
        Auth::new(resource, verifier)
            .authorization_server(server)
            .resource_name(title)
            .hide_unauthorized_tools(hide),
    )
}
