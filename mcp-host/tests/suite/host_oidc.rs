//! The `mcp-host` program against a certified OpenID provider: npm
//! `oidc-provider` (pinned in mcp-host/tests/oidc/package-lock.json,
//! installed with `npm ci` on first use; Node.js >= 20 with npm on `PATH`,
//! the tests fail without them) configured by mcp-host/tests/oidc/provider.mjs,
//! in front of `everything --http` with authorization on (its JWKS file
//! written by the provider). The test is the user agent: it follows the URL
//! the program prints and submits the provider's own login, consent and
//! device pages over loopback HTTP. The provider logs each token it issues
//! (`grant=TYPE`) and refuses (`grant-error=…`), which the tests count.

use crate::common::example;
use crate::common::fake_model::{
    FakeModel, HostRun, Reply, claude_message, closed_port_url, host_binary, run_host, text_block,
    tool_use,
};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// mcp-host/tests/oidc with its `node_modules` installed from the lock
/// file (skipped when the stamp of the last install matches it; a file
/// lock keeps test binaries running at once from installing twice).
fn oidc_dir() -> &'static Path {
    static READY: OnceLock<PathBuf> = OnceLock::new();
    READY.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let dir = root.join("tests/oidc");
        let lock = fs::read(dir.join("package-lock.json")).expect("tests/oidc/package-lock.json");
        let stamp = dir.join("node_modules").join(".oidc-installed");
        let installed = || fs::read(&stamp).is_ok_and(|have| have == lock);
        if !installed() {
            let target = std::env::var_os("CARGO_TARGET_DIR")
                .map_or_else(|| root.join("../target"), PathBuf::from);
            fs::create_dir_all(&target).expect("the target directory");
            let guard = File::create(target.join("oidc-install.lock")).expect("the install lock");
            guard.lock().expect("the install lock is taken");
            if !installed() {
                let output = Command::new("npm")
                    .args(["ci", "--no-audit", "--no-fund"])
                    .current_dir(&dir)
                    .stdin(Stdio::null())
                    .output()
                    .expect("npm runs (install Node.js >= 20 with npm)");
                assert!(
                    output.status.success(),
                    "npm ci in mcp-host/tests/oidc failed:\n{}",
                    String::from_utf8_lossy(&output.stderr)
                );
                fs::write(&stamp, &lock).expect("the npm install stamp");
            }
        }
        dir
    })
}

/// A child process killed when dropped, with its stderr collected.
struct Running {
    child: Child,
    log: Arc<Mutex<String>>,
}

impl Running {
    fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Collects `child`'s stderr; the first line that contains `marker` is
/// returned (its text after the marker).
fn watch(mut child: Child, marker: &'static str) -> (Running, String) {
    let stderr = child.stderr.take().unwrap();
    let log = Arc::new(Mutex::new(String::new()));
    let (tx, rx) = std::sync::mpsc::channel();
    let sink = Arc::clone(&log);
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(at) = line.find(marker) {
                let rest = line[at + marker.len()..].split_whitespace().next();
                let _ = tx.send(rest.unwrap_or("").to_owned());
            }
            let mut log = sink.lock().unwrap();
            log.push_str(&line);
            log.push('\n');
        }
    });
    let found = rx
        .recv_timeout(Duration::from_secs(60))
        .unwrap_or_else(|_| panic!("no `{marker}` line: {}", log.lock().unwrap()));
    (Running { child, log }, found)
}

/// The provider and the server it protects (the web page's login test
/// uses it too).
pub(crate) struct Stack {
    provider: Running,
    _server: Running,
    issuer: String,
    url: String,
    dir: PathBuf,
}

impl Stack {
    /// Starts both, access tokens living `ttl` seconds; `dir` holds the
    /// JWKS, the config file and the program's token store.
    pub(crate) fn start(name: &str, ttl: u64) -> Stack {
        let dir = std::env::temp_dir().join(format!("mcp-host-oidc-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let jwks = dir.join("jwks.json");
        let mut child = Command::new("node")
            .arg("provider.mjs")
            .current_dir(oidc_dir())
            .env("OIDC_JWKS", &jwks)
            .env("OIDC_ACCESS_TTL", ttl.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("node runs (install Node.js >= 20)");
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        stdout.read_line(&mut first).unwrap();
        let issuer = first.trim().strip_prefix("issuer=").unwrap().to_owned();
        // Read on: the provider prints notices there (a closed pipe would
        // end it).
        std::thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));
        let provider = watch_provider(child);
        // The resource URL is the audience the provider signs for: the
        // server's port is chosen first.
        let port = closed_port_url().rsplit(':').next().unwrap().to_owned();
        let url = format!("http://127.0.0.1:{port}/mcp");
        let server = Command::new(example("everything"))
            .args(["--http", &format!("127.0.0.1:{port}")])
            .env("MCP_AUTH_JWKS", &jwks)
            .env("MCP_AUTH_ISSUER", &issuer)
            .env("MCP_RESOURCE_URL", &url)
            .env("MCP_AUTH_SERVER", &issuer)
            .env("MCP_LOG", "mcpfn_runtime=info")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the example starts");
        let (server, _) = watch(server, "address=");
        fs::write(
            dir.join("mcp.json"),
            json!({"mcpServers": {"remote": {"url": url}}}).to_string(),
        )
        .unwrap();
        Stack {
            provider,
            _server: server,
            issuer,
            url,
            dir,
        }
    }

    pub(crate) fn config(&self) -> String {
        self.dir.join("mcp.json").to_str().unwrap().to_owned()
    }

    pub(crate) fn xdg(&self) -> String {
        self.dir.join("config").to_str().unwrap().to_owned()
    }

    /// How many `needle` lines the provider logged.
    pub(crate) fn count(&self, needle: &str) -> usize {
        self.provider
            .log()
            .lines()
            .filter(|line| line.starts_with(needle))
            .count()
    }

    /// [`count`](Self::count), once `expected` such lines have come (or
    /// 30 s have passed): the provider logs a grant after it has answered
    /// it, and its stderr is read on a thread of its own, so the line can
    /// trail the client's success (it did on a loaded machine).
    pub(crate) fn count_once(&self, needle: &str, expected: usize) -> usize {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let count = self.count(needle);
            if count >= expected || Instant::now() >= deadline {
                return count;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The stored authorization (one server, one issuer).
    fn stored(&self) -> Value {
        let root = self.dir.join("config/mcp-host/oauth");
        let server = fs::read_dir(root).unwrap().next().unwrap().unwrap().path();
        let file = fs::read_dir(server)
            .unwrap()
            .map(|f| f.unwrap().path())
            .find(|p| p.extension().is_some_and(|e| e == "json"))
            .unwrap();
        serde_json::from_str(&fs::read_to_string(file).unwrap()).unwrap()
    }
}

impl Drop for Stack {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("the provider's log:\n{}", self.provider.log());
        }
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// The provider's stderr, collected; it logs nothing before its first grant.
fn watch_provider(mut child: Child) -> Running {
    let stderr = child.stderr.take().unwrap();
    let log = Arc::new(Mutex::new(String::new()));
    let sink = Arc::clone(&log);
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let mut log = sink.lock().unwrap();
            log.push_str(&line);
            log.push('\n');
        }
    });
    Running { child, log }
}

/// An HTTP answer.
struct Page {
    status: u16,
    location: Option<String>,
    body: String,
}

/// The user's browser: cookies kept (by name, for every path), redirects
/// followed, forms read and submitted.
#[derive(Default)]
struct Browser {
    cookies: BTreeMap<String, String>,
}

impl Browser {
    fn send(&mut self, method: &str, url: &str, form: Option<&str>) -> Page {
        let rest = url.strip_prefix("http://").expect("a loopback http URL");
        let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        let mut stream = std::net::TcpStream::connect(authority).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        let cookies: Vec<String> = self
            .cookies
            .iter()
            .map(|(name, value)| format!("{name}={value}"))
            .collect();
        let body = form.unwrap_or("");
        let mut head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\nContent-Length: {}\r\n",
            body.len()
        );
        if form.is_some() {
            head.push_str("Content-Type: application/x-www-form-urlencoded\r\n");
        }
        if !cookies.is_empty() {
            head.push_str(&format!("Cookie: {}\r\n", cookies.join("; ")));
        }
        write!(stream, "{head}\r\n{body}").unwrap();
        let mut raw = Vec::new();
        let _ = stream.read_to_end(&mut raw);
        let text = String::from_utf8_lossy(&raw).into_owned();
        let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
        let mut lines = head.lines();
        let status = lines
            .next()
            .unwrap()
            .split(' ')
            .nth(1)
            .unwrap()
            .parse()
            .unwrap();
        let mut location = None;
        let mut chunked = false;
        for line in lines {
            let (name, value) = line.split_once(':').unwrap();
            let value = value.trim();
            match name.to_ascii_lowercase().as_str() {
                "location" => location = Some(value.to_owned()),
                "transfer-encoding" => chunked = value.eq_ignore_ascii_case("chunked"),
                "set-cookie" => {
                    let pair = value.split(';').next().unwrap();
                    let (name, value) = pair.split_once('=').unwrap();
                    if value.is_empty() {
                        self.cookies.remove(name);
                    } else {
                        self.cookies.insert(name.to_owned(), value.to_owned());
                    }
                }
                _ => {}
            }
        }
        let body = if chunked {
            unchunk(body)
        } else {
            body.to_owned()
        };
        let location = location.map(|l| {
            if l.starts_with('/') {
                format!("http://{authority}{l}")
            } else {
                l
            }
        });
        Page {
            status,
            location,
            body,
        }
    }

    /// `GET url`, then every redirect.
    fn open(&mut self, url: &str) -> Page {
        let mut page = self.send("GET", url, None);
        for _ in 0..10 {
            match (&page.location, page.status) {
                (Some(next), 301..=303 | 307 | 308) => page = self.send("GET", &next.clone(), None),
                _ => break,
            }
        }
        page
    }

    /// Opens `url` and answers the provider's forms as the user: any login
    /// (`login` as the account), the consent, the device code `code`, the
    /// device confirmation. Returns the last page.
    fn authorize(&mut self, url: &str, login: &str, code: Option<&str>) -> Page {
        let origin = url[..url[7..].find('/').map_or(url.len(), |i| i + 7)].to_owned();
        let mut page = self.open(url);
        for _ in 0..6 {
            let Some((action, mut fields)) = form(&page.body) else {
                break;
            };
            for (name, value) in &mut fields {
                match name.as_str() {
                    "login" => *value = login.to_owned(),
                    "password" => *value = "secret".to_owned(),
                    "user_code" if value.is_empty() => *value = code.unwrap().to_owned(),
                    _ => {}
                }
            }
            let body = form_urlencoded::Serializer::new(String::new())
                .extend_pairs(&fields)
                .finish();
            let action = if action.starts_with('/') {
                format!("{origin}{action}")
            } else {
                action
            };
            page = self.send("POST", &action, Some(&body));
            if let (Some(next), 301..=303) = (&page.location, page.status) {
                page = self.open(&next.clone());
            }
        }
        page
    }
}

fn unchunk(body: &str) -> String {
    let mut out = String::new();
    let mut rest = body;
    while let Some((size, after)) = rest.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if size == 0 || after.len() < size {
            break;
        }
        out.push_str(&after[..size]);
        rest = after[size..].trim_start_matches("\r\n");
    }
    out
}

/// The value of attribute `name` in the tag `tag`.
fn attribute(tag: &str, name: &str) -> Option<String> {
    let start = tag.find(&format!("{name}=\""))? + name.len() + 2;
    let end = tag[start..].find('"')? + start;
    Some(tag[start..end].replace("&amp;", "&"))
}

/// The first form of `html`: its action and its inputs' names and values.
fn form(html: &str) -> Option<(String, Vec<(String, String)>)> {
    let start = html.find("<form")?;
    let end = html[start..].find("</form>")? + start;
    let form = &html[start..end];
    let action = attribute(&form[..form.find('>')?], "action")?;
    let fields = form
        .split("<input")
        .skip(1)
        .filter_map(|input| {
            let tag = &input[..input.find('>')?];
            Some((
                attribute(tag, "name")?,
                attribute(tag, "value").unwrap_or_default(),
            ))
        })
        .collect();
    Some((action, fields))
}

/// Runs `mcp-host ARGS` against `stack`, the test as the user on the
/// provider's pages for each login the program asks for.
fn run_program(stack: &Stack, args: &[&str], env: &[(&str, &str)], stdin: &str) -> (i32, String) {
    let mut child = Command::new(host_binary())
        .args(args)
        .args(["--config", &stack.config()])
        .env("XDG_CONFIG_HOME", stack.xdg())
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let stdin = stdin.to_owned();
    std::thread::spawn(move || input.write_all(stdin.as_bytes()));
    let mut all = String::new();
    for line in BufReader::new(child.stderr.take().unwrap()).lines() {
        let line = line.unwrap();
        if let Some(url) = after(&line, "open this URL: ") {
            Browser::default().authorize(&url, "ada", None);
        }
        if let (Some(url), Some(code)) = (after(&line, "go to "), after(&line, "enter the code ")) {
            Browser::default().authorize(&url, "ada", Some(&code));
        }
        all.push_str(&line);
        all.push('\n');
    }
    (child.wait().unwrap().code().unwrap_or(-1), all)
}

fn after(line: &str, marker: &str) -> Option<String> {
    let start = line.find(marker)? + marker.len();
    line[start..].split_whitespace().next().map(str::to_owned)
}

/// A run with a scripted model that calls `whoami` `calls` times (one
/// response of that many calls), then ends.
fn whoami_run(stack: &Stack, calls: usize) -> (HostRun, Vec<String>) {
    let uses: Vec<Value> = (0..calls)
        .map(|i| tool_use(&format!("toolu_{i}"), "whoami", json!({})))
        .collect();
    let model = FakeModel::start(vec![
        Reply::ok(claude_message(json!(uses), "tool_use", 1, 1)),
        Reply::ok(claude_message(
            json!([text_block("done")]),
            "end_turn",
            1,
            1,
        )),
    ]);
    let run = run_host(
        &["--config", &stack.config(), "--approve", "all", "--json"],
        &[
            ("XDG_CONFIG_HOME", &stack.xdg()),
            ("ANTHROPIC_BASE_URL", &model.base_url),
            ("ANTHROPIC_API_KEY", "sk-test"),
        ],
        "who am I?\n",
    );
    let requests = model.requests();
    let bodies = requests.iter().map(|r| r.raw_body.clone()).collect();
    (run, bodies)
}

/// A run whose model calls `tool` once, the test on the provider's pages
/// for any login: its status, its stderr, and the tool's result as the
/// model got it.
fn tool_run(stack: &Stack, tool: &str) -> (i32, String, String) {
    let model = FakeModel::start(vec![
        Reply::ok(claude_message(
            json!([tool_use("toolu_1", tool, json!({}))]),
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
    let (status, stderr) = run_program(
        stack,
        &["--approve", "all", "--json"],
        &[
            ("ANTHROPIC_BASE_URL", &model.base_url),
            ("ANTHROPIC_API_KEY", "sk-test"),
        ],
        "go\n",
    );
    let requests = model.requests();
    let body = requests
        .get(1)
        .map(|r| r.raw_body.clone())
        .unwrap_or_default();
    (status, stderr, body)
}

/// `mcp-host login remote`, the test on the provider's pages.
fn login(stack: &Stack, device: bool) -> String {
    let mut args = vec!["login", "remote"];
    if device {
        args.push("--device");
    }
    let (status, stderr) = run_program(stack, &args, &[], "");
    assert_eq!(status, 0, "{stderr}\nprovider:\n{}", stack.provider.log());
    stderr
}

#[test]
fn the_code_flow_through_the_providers_pages_brings_a_refresh_token_and_a_restart_reuses_it() {
    let stack = Stack::start("code", 3600);
    let stderr = login(&stack, false);
    assert!(
        stderr.contains(&format!(
            "mcp-host: server `remote` authorized by {}",
            stack.issuer
        )),
        "{stderr}"
    );
    // offline_access asked with prompt=consent: the provider's stock
    // policy issues a refresh token, and no warning says otherwise.
    let stored = stack.stored();
    assert!(stored["tokens"]["refresh_token"].is_string(), "{stored}");
    assert!(!stderr.contains("issued no refresh token"), "{stderr}");
    assert_eq!(stack.count_once("grant=authorization_code", 1), 1);

    // A restart: the stored token, verified by the server as the
    // provider's JWT for its own URL, names the account that logged in.
    let (run, bodies) = whoami_run(&stack, 2);
    assert!(run.status.success(), "{}", run.stderr);
    assert!(
        bodies[1].contains(r#"\"subject\":\"ada\""#),
        "{}",
        bodies[1]
    );
    assert!(!run.stderr.contains("open this URL"), "{}", run.stderr);
    assert_eq!(stack.count("grant="), 1, "{}", stack.provider.log());
}

#[test]
fn the_device_flow_from_an_empty_store_registers_without_redirect_uris() {
    let stack = Stack::start("device", 3600);
    let stderr = login(&stack, true);
    assert!(stderr.contains("authorized by"), "{stderr}");
    assert_eq!(
        stack.count_once("grant=urn:ietf:params:oauth:grant-type:device_code", 1),
        1,
        "{}",
        stack.provider.log()
    );
    let (run, bodies) = whoami_run(&stack, 1);
    assert!(run.status.success(), "{}", run.stderr);
    assert!(
        bodies[1].contains(r#"\"subject\":\"ada\""#),
        "{}",
        bodies[1]
    );
}

#[test]
fn a_token_that_lives_30_s_is_not_refreshed_before_every_request() {
    let stack = Stack::start("short", 30);
    login(&stack, false);
    let (run, _) = whoami_run(&stack, 5);
    assert!(run.status.success(), "{}", run.stderr);
    assert_eq!(
        stack.count("grant=refresh_token"),
        0,
        "{}",
        stack.provider.log()
    );
    assert_eq!(stack.count("grant="), 1, "{}", stack.provider.log());
}

#[test]
fn an_expired_token_is_refreshed_and_two_processes_sharing_the_store_keep_the_grant() {
    let stack = Stack::start("expiry", 2);
    login(&stack, false);
    std::thread::sleep(Duration::from_millis(2500));
    // Two programs at once, each with an expired token and the same
    // refresh token, which the provider rotates and would revoke the
    // grant for if it came back.
    let runs: Vec<_> = (0..2)
        .map(|_| {
            let config = stack.config();
            let xdg = stack.xdg();
            let model = FakeModel::start(vec![
                Reply::ok(claude_message(
                    json!([tool_use("toolu_1", "whoami", json!({}))]),
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
            std::thread::spawn(move || {
                let run = run_host(
                    &["--config", &config, "--approve", "all", "--json"],
                    &[
                        ("XDG_CONFIG_HOME", &xdg),
                        ("ANTHROPIC_BASE_URL", &model.base_url),
                        ("ANTHROPIC_API_KEY", "sk-test"),
                    ],
                    "who am I?\n",
                );
                (run, model.requests()[1].raw_body.clone())
            })
        })
        .collect();
    for run in runs {
        let (run, body) = run.join().unwrap();
        assert!(run.status.success(), "{}", run.stderr);
        assert!(!run.stderr.contains("open this URL"), "{}", run.stderr);
        assert!(body.contains(r#"\"subject\":\"ada\""#), "{body}");
    }
    let log = stack.provider.log();
    assert!(!log.contains("grant-error"), "{log}");
    assert!(stack.count_once("grant=refresh_token", 1) >= 1, "{log}");
    assert_eq!(stack.count_once("grant=authorization_code", 1), 1, "{log}");
    // The grant lives on: a later run refreshes again, with no login.
    std::thread::sleep(Duration::from_millis(2500));
    let (run, bodies) = whoami_run(&stack, 1);
    assert!(run.status.success(), "{}", run.stderr);
    assert!(
        bodies[1].contains(r#"\"subject\":\"ada\""#),
        "{}",
        bodies[1]
    );
    assert_eq!(
        stack.count_once("grant=authorization_code", 1),
        1,
        "{}",
        stack.provider.log()
    );
    assert!(!stack.provider.log().contains("grant-error"));
}

#[test]
fn a_revoked_grant_is_said_once_and_a_new_login_through_the_pages_follows() {
    let stack = Stack::start("revoked", 2);
    login(&stack, false);
    // The user revokes the refresh token at the provider (RFC 7009).
    let stored = stack.stored();
    let form = form_urlencoded::Serializer::new(String::new())
        .extend_pairs([
            ("token", stored["tokens"]["refresh_token"].as_str().unwrap()),
            ("token_type_hint", "refresh_token"),
            (
                "client_id",
                stored["registration"]["client_id"].as_str().unwrap(),
            ),
        ])
        .finish();
    let page = Browser::default().send(
        "POST",
        &format!("{}/token/revocation", stack.issuer),
        Some(&form),
    );
    assert_eq!(page.status, 200, "{}", page.body);
    std::thread::sleep(Duration::from_millis(2500));
    let (status, stderr, body) = tool_run(&stack, "whoami");
    assert_eq!(status, 0, "{stderr}");
    let line = format!(
        "server `remote`: the stored refresh token was refused by {} (revoked or expired); logging in again",
        stack.issuer
    );
    assert_eq!(stderr.matches(&line).count(), 1, "{stderr}");
    assert!(body.contains(r#"\"subject\":\"ada\""#), "{body}");
    assert_eq!(
        stack.count_once("grant=authorization_code", 2),
        2,
        "{}",
        stack.provider.log()
    );
}

#[test]
fn a_tool_that_needs_more_scope_steps_up_through_the_consent_page() {
    let stack = Stack::start("step-up", 3600);
    // The entry asks for `tools:read` alone; `toggle_bonus` needs
    // `tools:admin`.
    fs::write(
        stack.dir.join("mcp.json"),
        json!({"mcpServers": {"remote": {"url": stack.url, "oauth": {"scopes": ["tools:read"]}}}})
            .to_string(),
    )
    .unwrap();
    login(&stack, false);
    assert_eq!(stack.stored()["tokens"]["scope"], "tools:read");
    let (status, stderr, body) = tool_run(&stack, "toggle_bonus");
    assert_eq!(status, 0, "{stderr}");
    assert!(body.contains("bonus is now hidden"), "{body}");
    assert!(
        stderr.contains("the server asks for more scope: authorizing again"),
        "{stderr}"
    );
    let scope = stack.stored()["tokens"]["scope"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        scope.contains("tools:admin") && scope.contains("tools:read"),
        "{scope}"
    );
    assert_eq!(
        stack.count_once("grant=authorization_code", 2),
        2,
        "{}",
        stack.provider.log()
    );
}

#[test]
fn ctrl_c_while_a_run_waits_for_the_providers_login_ends_it_at_once() {
    let stack = Stack::start("ctrl-c", 3600);
    let api = closed_port_url();
    let mut child = Command::new(host_binary())
        .args(["--config", &stack.config(), "--approve", "all"])
        .env("XDG_CONFIG_HOME", stack.xdg())
        .env("ANTHROPIC_API_KEY", "sk-test")
        .env("ANTHROPIC_BASE_URL", &api)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id().to_string();
    let mut stderr = String::new();
    let mut sent = None;
    for line in BufReader::new(child.stderr.take().unwrap()).lines() {
        let line = line.unwrap();
        if sent.is_none() && line.contains("open this URL: ") {
            assert!(
                Command::new("kill")
                    .args(["-INT", &pid])
                    .status()
                    .unwrap()
                    .success()
            );
            sent = Some(std::time::Instant::now());
        }
        stderr.push_str(&line);
        stderr.push('\n');
    }
    let status = child.wait().unwrap().code();
    let waited = sent.expect("the login URL was shown").elapsed();
    assert_eq!(status, Some(130), "{stderr}");
    assert!(waited < Duration::from_secs(5), "{waited:?}");
    assert!(
        stderr.contains("mcp-host: SIGINT while the servers started"),
        "{stderr}"
    );
    assert_eq!(stack.count("grant="), 0);
}
