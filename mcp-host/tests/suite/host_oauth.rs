//! `mcp-host login` and `mcp-host logout` against the fake authorization
//! server and protected resource of mcp-client's OAuth tests, on loopback:
//! the test reads the program's stderr and plays the browser and the user.

#[allow(dead_code, unreachable_pub)]
#[path = "../../../mcp-client/tests/oauth/fake.rs"]
mod fake;

use crate::common::fake_model::{
    FakeModel, Reply, claude_message, host_binary, run_host, text_block, tool_use,
};
use fake::{Fake, Knobs};
use serde_json::json;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// A directory of the test's own: the config file and XDG_CONFIG_HOME.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mcp-host-oauth-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A `GET` with a bare HTTP/1.1 client: the response's `Location`.
fn get(url: &str) -> Option<String> {
    let rest = url.strip_prefix("http://").unwrap();
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let mut stream = std::net::TcpStream::connect(authority).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    let _ = stream.read_to_string(&mut response);
    response
        .lines()
        .find_map(|line| {
            line.strip_prefix("location: ")
                .or(line.strip_prefix("Location: "))
        })
        .map(str::to_owned)
}

/// Runs `mcp-host ARGS` with its tokens under `home`; each stderr line
/// is handed to `on_line` as it comes. Returns the status and stderr.
fn run(home: &Path, args: &[&str], on_line: impl Fn(&str) + Send + 'static) -> (i32, String) {
    run_with(home, args, &[], on_line)
}

/// [`run`] with more environment variables.
fn run_with(
    home: &Path,
    args: &[&str],
    env: &[(&str, &str)],
    on_line: impl Fn(&str) + Send + 'static,
) -> (i32, String) {
    let mut child = Command::new(host_binary())
        .args(args)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut all = String::new();
        for line in BufReader::new(stderr).lines() {
            let line = line.unwrap();
            on_line(&line);
            all.push_str(&line);
            all.push('\n');
        }
        all
    });
    let status = child.wait().unwrap().code().unwrap_or(-1);
    (status, reader.join().unwrap())
}

/// The URL after `marker` in `line`, up to the next space.
fn url_after<'a>(line: &'a str, marker: &str) -> Option<&'a str> {
    let start = line.find(marker)? + marker.len();
    line[start..].split_whitespace().next()
}

fn config(dir: &Path, fake: &Fake) -> String {
    let path = dir.join("mcp.json");
    let text = format!(
        r#"{{"mcpServers": {{"remote": {{"url": "{}"}}}}}}"#,
        fake.resource_url()
    );
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_owned()
}

/// The stored files under `home`.
fn stored(home: &Path) -> Vec<PathBuf> {
    let root = home.join("config/mcp-host/oauth");
    let Ok(servers) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    servers
        .flat_map(|server| std::fs::read_dir(server.unwrap().path()).unwrap())
        .map(|file| file.unwrap().path())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_prints_the_url_stores_the_token_owner_only_and_logout_forgets_it() {
    let fake = Fake::start(Knobs::default()).await;
    let dir = temp_dir("login");
    let config = config(&dir, &fake);
    let home = dir.clone();
    let config_path = config.clone();
    let (status, stderr) = tokio::task::spawn_blocking(move || {
        run(
            &home,
            &["login", "remote", "--config", &config_path],
            |line| {
                if let Some(url) = url_after(line, "open this URL: ") {
                    // The browser: the authorization page redirects to the
                    // program's loopback listener.
                    let location = get(url).unwrap();
                    assert!(location.starts_with("http://127.0.0.1:"), "{location}");
                    get(&location);
                }
            },
        )
    })
    .await
    .unwrap();
    assert_eq!(status, 0, "{stderr}");
    assert!(
        stderr.contains(&format!(
            "mcp-host: server `remote` authorized by {} (scopes: tools:read)",
            fake.issuer()
        )),
        "{stderr}"
    );
    // The audit line names the server and the scopes, never a token.
    assert!(
        stderr.contains(&format!(
            "authorized server=remote issuer={} scope=\"tools:read\"",
            fake.issuer()
        )),
        "{stderr}"
    );
    assert!(
        !stderr.contains("at-") && !stderr.contains("rt-"),
        "{stderr}"
    );
    let files = stored(&dir);
    assert_eq!(files.len(), 1);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&files[0]).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    assert!(
        std::fs::read_to_string(&files[0])
            .unwrap()
            .contains("\"access_token\": \"at-")
    );

    let home = dir.clone();
    let config_path = config.clone();
    let (status, stderr) = tokio::task::spawn_blocking(move || {
        run(
            &home,
            &["logout", "remote", "--config", &config_path],
            |_| {},
        )
    })
    .await
    .unwrap();
    assert_eq!(status, 0, "{stderr}");
    assert!(
        stderr.contains("stored registrations and tokens removed"),
        "{stderr}"
    );
    assert!(stored(&dir).is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_device_prints_the_code_and_waits_for_the_user() {
    let fake = Fake::start(Knobs::default()).await;
    let dir = temp_dir("device");
    let config = config(&dir, &fake);
    let home = dir.clone();
    let (status, stderr) = tokio::task::spawn_blocking(move || {
        run(
            &home,
            &["login", "remote", "--device", "--config", &config],
            |line| {
                if let Some(url) = url_after(line, "go to ") {
                    assert!(line.contains("and enter the code USER-"), "{line}");
                    // The user, on another machine, enters the code.
                    get(url);
                }
            },
        )
    })
    .await
    .unwrap();
    assert_eq!(status, 0, "{stderr}");
    assert!(stderr.contains("authorized by"), "{stderr}");
    assert_eq!(stored(&dir).len(), 1);
    assert!(fake.as_requests("/authorize").is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_device_without_a_device_endpoint_names_the_authorization_server() {
    let fake = Fake::start(Knobs {
        no_device: true,
        ..Knobs::default()
    })
    .await;
    let dir = temp_dir("no-device");
    let config = config(&dir, &fake);
    let home = dir.clone();
    let (status, stderr) = tokio::task::spawn_blocking(move || {
        run(
            &home,
            &["login", "remote", "--device", "--config", &config],
            |_| {},
        )
    })
    .await
    .unwrap();
    assert_eq!(status, 1, "{stderr}");
    assert!(
        stderr.contains(&format!(
            "authorization server {} offers no device authorization",
            fake.issuer()
        )),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The browser: follows an authorization URL on `line` to the listener.
fn browse(line: &str) {
    if let Some(url) = url_after(line, "open this URL: ") {
        let location = get(url).unwrap();
        get(&location);
    }
}

/// `mcp-host login remote`, the test as the browser.
fn login(home: &Path, config: &str) {
    let (status, stderr) = run(home, &["login", "remote", "--config", config], |line| {
        if let Some(url) = url_after(line, "open this URL: ") {
            let location = get(url).unwrap();
            get(&location);
        }
    });
    assert_eq!(status, 0, "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_after_login_calls_the_server_with_the_stored_token_and_no_new_login() {
    let fake = Fake::start(Knobs::default()).await;
    let dir = temp_dir("run");
    let config = config(&dir, &fake);
    let model = FakeModel::start(vec![
        Reply::ok(claude_message(
            json!([tool_use("toolu_1", "echo", json!({}))]),
            "tool_use",
            1,
            1,
        )),
        Reply::ok(claude_message(
            json!([text_block("done")]),
            "end_turn",
            1,
            1,
        )),
    ]);
    let home = dir.clone();
    let base_url = model.base_url.clone();
    let run = tokio::task::spawn_blocking(move || {
        // A restart of the program: a login, then a run that reads the
        // stored registration and token.
        login(&home, &config);
        let xdg = home.join("config");
        run_host(
            &["--config", &config, "--approve", "all", "--json"],
            &[
                ("XDG_CONFIG_HOME", xdg.to_str().unwrap()),
                ("ANTHROPIC_BASE_URL", &base_url),
                ("ANTHROPIC_API_KEY", "sk-test"),
            ],
            "what is my scope?\n",
        )
    })
    .await
    .unwrap();
    assert!(run.status.success(), "{}", run.stderr);
    assert!(run.stdout.contains("\"text\":\"done\""), "{}", run.stdout);
    // The tool result the model got back names the stored token's scope.
    let requests = model.requests();
    assert!(
        requests[1].raw_body.contains("tools:read"),
        "{}",
        requests[1].raw_body
    );
    // One registration and one login in all: the run used what was stored.
    assert_eq!(fake.as_requests("/register").len(), 1);
    assert_eq!(fake.as_requests("/authorize").len(), 1);
    assert_eq!(fake.as_requests("/token").len(), 1);
    // Every MCP request of the run carried the bearer, but the first probe.
    let state = fake.lock();
    let mcp: Vec<_> = state
        .seen_resource
        .iter()
        .filter(|s| s.path == "/mcp")
        .collect();
    let run_requests = &mcp[mcp.iter().rposition(|s| s.authorization.is_none()).unwrap() + 1..];
    assert!(run_requests.len() >= 3, "{mcp:?}");
    assert!(run_requests.iter().all(|s| {
        s.authorization
            .as_deref()
            .is_some_and(|a| a.starts_with("Bearer at-"))
    }));
    assert!(
        !run.stderr.contains("at-") && !run.stderr.contains("rt-"),
        "{}",
        run.stderr
    );
    drop(state);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revoked_refresh_token_says_so_in_one_line_and_logs_in_again_before_the_run() {
    let fake = Fake::start(Knobs::default()).await;
    let dir = temp_dir("revoked");
    let config = config(&dir, &fake);
    let home = dir.clone();
    let config_path = config.clone();
    tokio::task::spawn_blocking(move || login(&home, &config_path))
        .await
        .unwrap();
    {
        let mut state = fake.lock();
        state.access.clear();
        state.refresh.clear();
    }
    let home = dir.clone();
    let (status, stderr) = tokio::task::spawn_blocking(move || {
        let api = crate::common::fake_model::closed_port_url();
        run_with(
            &home,
            &["--config", &config, "--approve", "all"],
            &[
                ("ANTHROPIC_API_KEY", "sk-test"),
                ("ANTHROPIC_BASE_URL", &api),
            ],
            browse,
        )
    })
    .await
    .unwrap();
    assert_eq!(status, 0, "{stderr}");
    let line = format!(
        "server `remote`: the stored refresh token was refused by {} (revoked or expired); logging in again",
        fake.issuer()
    );
    assert_eq!(stderr.matches(&line).count(), 1, "{stderr}");
    assert!(stderr.contains("mcp-host: 2 tools offered"), "{stderr}");
    assert_eq!(fake.as_requests("/authorize").len(), 2);
    assert_eq!(fake.as_requests("/register").len(), 1);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `config` for a server behind a gateway that wants `X-Api-Key: key`.
fn gateway_config(dir: &Path, fake: &Fake, key: &str) -> String {
    let path = dir.join("mcp.json");
    let text = format!(
        r#"{{"mcpServers": {{"remote": {{"url": "{}", "headers": {{"X-Api-Key": "{key}"}}}}}}}}"#,
        fake.resource_url()
    );
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_behind_a_gateway_gets_its_header_on_every_request_and_its_first_401_starts_the_login()
 {
    let fake = Fake::start(Knobs {
        api_key: Some("key-1".into()),
        ..Knobs::default()
    })
    .await;
    let dir = temp_dir("gateway");
    let config = gateway_config(&dir, &fake, "key-1");
    let home = dir.clone();
    let (status, stderr) = tokio::task::spawn_blocking(move || {
        let api = crate::common::fake_model::closed_port_url();
        run_with(
            &home,
            &["--config", &config, "--approve", "all"],
            &[
                ("ANTHROPIC_API_KEY", "sk-test"),
                ("ANTHROPIC_BASE_URL", &api),
            ],
            browse,
        )
    })
    .await
    .unwrap();
    assert_eq!(status, 0, "{stderr}");
    assert!(stderr.contains("mcp-host: 2 tools offered"), "{stderr}");
    assert_eq!(fake.as_requests("/authorize").len(), 1);
    let state = fake.lock();
    // Every request to the server's origin, its metadata's too, carried
    // the entry's header; none went out only to probe.
    assert!(!state.seen_resource.is_empty());
    for seen in &state.seen_resource {
        assert_eq!(seen.api_key.as_deref(), Some("key-1"), "{seen:?}");
        assert!(!seen.body.contains(r#""method":"ping""#), "{seen:?}");
    }
    // The first request is the connect's own, refused for want of a
    // token: that refusal started the authorization.
    let mcp: Vec<_> = state
        .seen_resource
        .iter()
        .filter(|s| s.path == "/mcp")
        .collect();
    assert_eq!(mcp[0].authorization, None);
    let first: serde_json::Value = serde_json::from_str(&mcp[0].body).unwrap();
    let method = first["method"].as_str().unwrap();
    assert!(
        method == "server/discover" || method == "initialize",
        "{method}"
    );
    assert!(mcp[1..].iter().all(|s| {
        s.authorization
            .as_deref()
            .is_some_and(|a| a.starts_with("Bearer at-"))
    }));
    drop(state);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_while_a_run_waits_for_a_login_ends_it_at_once() {
    let fake = Fake::start(Knobs::default()).await;
    let dir = temp_dir("ctrl-c");
    let config = config(&dir, &fake);
    let home = dir.clone();
    let (status, stderr, waited) = tokio::task::spawn_blocking(move || {
        let api = crate::common::fake_model::closed_port_url();
        let mut child = Command::new(host_binary())
            .args(["--config", &config, "--approve", "all"])
            .env("XDG_CONFIG_HOME", home.join("config"))
            .env("ANTHROPIC_API_KEY", "sk-test")
            .env("ANTHROPIC_BASE_URL", &api)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let pid = child.id().to_string();
        let mut all = String::new();
        let mut sent = None;
        for line in BufReader::new(child.stderr.take().unwrap()).lines() {
            let line = line.unwrap();
            // The URL is shown and nobody logs in: the user presses Ctrl-C.
            if sent.is_none() && line.contains("open this URL: ") {
                let killed = Command::new("kill").args(["-INT", &pid]).status().unwrap();
                assert!(killed.success());
                sent = Some(std::time::Instant::now());
            }
            all.push_str(&line);
            all.push('\n');
        }
        let status = child.wait().unwrap().code().unwrap_or(-1);
        (status, all, sent.map(|at| at.elapsed()))
    })
    .await
    .unwrap();
    let waited = waited.expect("the login URL was shown");
    assert_eq!(status, 130, "{stderr}");
    assert!(waited < Duration::from_secs(5), "{waited:?}");
    assert!(
        stderr.contains("mcp-host: SIGINT while the servers started: killing them"),
        "{stderr}"
    );
    assert!(fake.as_requests("/token").is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_login_slower_than_the_start_timeout_is_not_cut_short() {
    let fake = Fake::start(Knobs::default()).await;
    let dir = temp_dir("slow-login");
    let config = config(&dir, &fake);
    let home = dir.clone();
    let (status, stderr) = tokio::task::spawn_blocking(move || {
        let api = crate::common::fake_model::closed_port_url();
        run_with(
            &home,
            &[
                "--config",
                &config,
                "--approve",
                "all",
                "--start-timeout",
                "1",
            ],
            &[
                ("ANTHROPIC_API_KEY", "sk-test"),
                ("ANTHROPIC_BASE_URL", &api),
            ],
            |line| {
                if line.contains("open this URL: ") {
                    // The user takes longer than the server's start may.
                    std::thread::sleep(Duration::from_millis(1500));
                    browse(line);
                }
            },
        )
    })
    .await
    .unwrap();
    assert_eq!(status, 0, "{stderr}");
    assert!(stderr.contains("mcp-host: 2 tools offered"), "{stderr}");
    assert_eq!(fake.as_requests("/authorize").len(), 1);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_refresh_token_for_offline_access_is_said_once() {
    let fake = Fake::start(Knobs {
        offline_access: true,
        never_refresh: true,
        ..Knobs::default()
    })
    .await;
    let dir = temp_dir("no-refresh");
    let config = config(&dir, &fake);
    let home = dir.clone();
    let (status, stderr) = tokio::task::spawn_blocking(move || {
        let api = crate::common::fake_model::closed_port_url();
        run_with(
            &home,
            &["--config", &config, "--approve", "all"],
            &[
                ("ANTHROPIC_API_KEY", "sk-test"),
                ("ANTHROPIC_BASE_URL", &api),
            ],
            browse,
        )
    })
    .await
    .unwrap();
    assert_eq!(status, 0, "{stderr}");
    let line = format!(
        "server `remote`: {} issued no refresh token although `offline_access` was asked; each expiry of the access token needs a new login",
        fake.issuer()
    );
    assert_eq!(stderr.matches(&line).count(), 1, "{stderr}");
    assert!(stderr.contains("mcp-host: 2 tools offered"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}
