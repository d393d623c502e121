//! `mcp-host web` under test: the program started on a free loopback port
//! (`--port 0`) against a scripted model API, its URL line read, and ended
//! by its PID; the page driven in Debian's `chromium` by Playwright for
//! Python (tests/web/page.py, pinned by tests/web/requirements.txt).

use super::fake_model::{FakeModel, McpConfig, host_binary};
use super::python_venv;
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How long the program may take to print its URL line.
const START: Duration = Duration::from_secs(30);

/// The line's prefix before the URL.
pub const URL_PREFIX: &str = "mcp-host web: ";

/// A running `mcp-host web`.
pub struct WebHost {
    child: Child,
    /// The URL it printed, with its token.
    pub url: String,
    /// `127.0.0.1:PORT`.
    pub address: String,
    /// Its stderr so far.
    stderr: Arc<Mutex<String>>,
}

impl WebHost {
    /// Starts `mcp-host web --port 0 --config CONFIG ARGS` on `fake`'s
    /// Anthropic API and waits for its URL line.
    pub fn start(config: &McpConfig, args: &[&str], fake: &FakeModel) -> WebHost {
        let mut command = Command::new(host_binary());
        command
            .args(["web", "--port", "0", "--config", config.arg()])
            .args(args);
        for (name, _) in std::env::vars_os() {
            let text = name.to_string_lossy();
            if text.starts_with("ANTHROPIC_") || text.starts_with("OPENAI_") {
                command.env_remove(&name);
            }
        }
        let config_home =
            std::env::temp_dir().join(format!("mcp-host-test-{}-no-config", std::process::id()));
        command
            .env("XDG_CONFIG_HOME", config_home)
            .env("ANTHROPIC_BASE_URL", &fake.base_url)
            .env("ANTHROPIC_API_KEY", "sk-ant-test-key")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command.spawn().expect("mcp-host starts");
        let stderr = Arc::new(Mutex::new(String::new()));
        let mut pipe = child.stderr.take().unwrap();
        let kept = Arc::clone(&stderr);
        std::thread::spawn(move || {
            let mut chunk = [0_u8; 4096];
            while let Ok(n) = pipe.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                kept.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&chunk[..n]));
            }
        });
        let stdout = child.stdout.take().unwrap();
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = sender.send(line);
        });
        let line = receiver.recv_timeout(START).unwrap_or_default();
        let Some(url) = line.trim_end().strip_prefix(URL_PREFIX) else {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "no URL line on stdout: {line:?}; stderr:\n{}",
                stderr.lock().unwrap()
            );
        };
        let address = url
            .strip_prefix("http://")
            .and_then(|rest| rest.split('/').next())
            .expect("the URL is http://ADDRESS/…")
            .to_owned();
        WebHost {
            child,
            url: url.to_owned(),
            address,
            stderr,
        }
    }

    /// The program's CPU time so far (user and system), in ms, from
    /// `/proc/PID/stat` (0 where there is none).
    pub fn cpu_ms(&self) -> u64 {
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())) else {
            return 0;
        };
        // After the command's name (in parentheses): state is field 3,
        // utime 14 and stime 15, in clock ticks (100 a second on Linux).
        let rest = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
        let fields: Vec<u64> = rest
            .split_whitespace()
            .map(|f| f.parse().unwrap_or(0))
            .collect();
        (fields.get(11).unwrap_or(&0) + fields.get(12).unwrap_or(&0)) * 10
    }

    /// The token of the URL.
    pub fn token(&self) -> &str {
        self.url.split("token=").nth(1).expect("a token in the URL")
    }

    /// What the program wrote on stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Sends `request` (whole, as bytes) on a new connection and returns
    /// the status and the whole response.
    pub fn raw(&self, request: &str) -> (u16, String) {
        let mut socket = TcpStream::connect(&self.address).expect("connect to mcp-host web");
        socket
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        // A refusal may come before all is written.
        let _ = socket.write_all(request.as_bytes());
        let mut response = Vec::new();
        let _ = socket.read_to_end(&mut response);
        let response = String::from_utf8_lossy(&response).into_owned();
        let status = response
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("not an HTTP response: {response:?}"));
        (status, response)
    }

    /// Exchanges the token for the session cookie (`NAME=VALUE`).
    pub fn cookie(&self) -> String {
        let (status, response) = self.raw(&format!(
            "GET /?token={} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            self.token(),
            self.address
        ));
        assert_eq!(status, 303, "{response}");
        let line = response
            .lines()
            .find_map(|l| l.strip_prefix("set-cookie: "))
            .unwrap_or_else(|| panic!("no Set-Cookie: {response}"));
        line.split(';').next().unwrap().to_owned()
    }

    /// Drives the page in Chromium: `tests/web/page.py SCENARIO URL`;
    /// returns the JSON the scenario prints (it fails the test, showing
    /// its error and the program's stderr, when the page does not do what
    /// it checks).
    pub fn drive(&self, scenario: &str) -> Value {
        self.drive_script("page.py", scenario)
    }

    /// [`drive`](Self::drive) with another script of tests/web.
    pub fn drive_script(&self, script: &str, scenario: &str) -> Value {
        let python = python_venv("mcp-host/tests/web/requirements.txt", "web-venv");
        let chromium = chromium();
        let script = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/web")
            .join(script);
        let output = Command::new(python)
            .arg(script)
            .args([scenario, &self.url])
            .env("CHROMIUM", chromium)
            .stdin(Stdio::null())
            .output()
            .expect("python runs");
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "page scenario `{scenario}` failed:\n{}\n{stdout}\nmcp-host's stderr:\n{}",
            String::from_utf8_lossy(&output.stderr),
            self.stderr()
        );
        serde_json::from_str(stdout.trim())
            .unwrap_or_else(|e| panic!("scenario `{scenario}` printed no JSON ({e}): {stdout}"))
    }
}

impl Drop for WebHost {
    fn drop(&mut self) {
        // SIGTERM: the program closes its servers and ends.
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        for _ in 0..100 {
            if self.child.try_wait().ok().flatten().is_some() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Debian's `chromium`; the test fails naming the package without it
/// (`scripts/test` installs it).
pub fn chromium() -> String {
    let found = Command::new("sh")
        .args(["-c", "command -v chromium"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned());
    found.unwrap_or_else(|| {
        panic!(
            "this test needs Debian's `chromium` (apt-get install chromium), or run `scripts/test`, which installs it"
        )
    })
}
