//! System services the deployment tests run against: a Redis and an nginx
//! from Debian's packages, each started on a loopback port of its own with
//! its files in a temporary directory, and stopped by PID when dropped.
//!
//! A missing program fails the test with the command that installs it
//! (`scripts/test` in the repository provisions both); it never skips.

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A loopback port nothing listens on right now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .expect("a free loopback port")
}

/// The path of `program` (looked up in `PATH` and the sbin folders, where
/// Debian puts nginx), or a panic naming the Debian package to install.
pub fn require_program(program: &str, package: &str) -> PathBuf {
    let path = std::env::var("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin", "/usr/local/sbin", "/sbin"].map(PathBuf::from))
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
        .unwrap_or_else(|| {
            panic!(
                "`{program}` is not installed; this test needs it. Install it with \
                 `apt-get install -y {package}` (as root), or run `scripts/test`, \
                 which installs what is missing and runs the whole suite."
            )
        })
}

/// Waits until something accepts connections on `127.0.0.1:port`.
pub fn wait_for_port(port: u16, child: &mut Child, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("{what} exited before listening on port {port}: {status}");
        }
        assert!(
            Instant::now() < deadline,
            "{what} did not listen on port {port} within 20 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A fresh temporary directory for one service's files.
pub fn temp_dir(label: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "mcp-{label}-{}-{}",
        std::process::id(),
        free_port()
    ));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    dir
}

/// Stops a child by PID: SIGTERM, then SIGKILL if it lingers.
fn stop(child: &mut Child) {
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// A `redis-server` on its own loopback port, without persistence.
pub struct Redis {
    child: Option<Child>,
    /// The port it listens on (kept across [`Redis::stop`] and [`Redis::start_again`]).
    pub port: u16,
    dir: PathBuf,
}

impl Redis {
    /// Starts a Redis on a free loopback port.
    pub fn start() -> Redis {
        let mut redis = Redis {
            child: None,
            port: free_port(),
            dir: temp_dir("redis"),
        };
        redis.start_again();
        redis
    }

    /// `redis://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// Stops it (to test an outage); [`Redis::start_again`] brings it back on
    /// the same port, empty.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            stop(&mut child);
        }
    }

    /// Starts it again on the same port.
    pub fn start_again(&mut self) {
        assert!(self.child.is_none(), "redis is already running");
        let program = require_program("redis-server", "redis-server");
        let mut child = Command::new(program)
            .args(["--port", &self.port.to_string()])
            .args(["--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .arg("--dir")
            .arg(&self.dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server starts");
        wait_for_port(self.port, &mut child, "redis-server");
        self.child = Some(child);
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.stop();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// An nginx in the foreground on its own loopback port, with the
/// configuration `http_block` (the inside of an `http { }` block, where
/// `{PORT}` stands for the port to listen on), logging each request's
/// upstream to `access.log` in its own directory.
pub struct Nginx {
    child: Child,
    /// The port it listens on.
    pub port: u16,
    /// Its prefix directory (config, logs, temp files).
    pub dir: PathBuf,
}

impl Nginx {
    /// Starts nginx with this `http` block.
    pub fn start(http_block: &str) -> Nginx {
        let program = require_program("nginx", "nginx");
        let port = free_port();
        let dir = temp_dir("nginx");
        std::fs::create_dir_all(dir.join("logs")).expect("log directory");
        let config = format!(
            "daemon off;\nmaster_process on;\nworker_processes 1;\npid {pid};\n\
             error_log {error} warn;\nevents {{ worker_connections 1024; }}\n\
             http {{\n    client_body_temp_path {tmp}/body;\n    proxy_temp_path {tmp}/proxy;\n\
             fastcgi_temp_path {tmp}/fastcgi;\n    uwsgi_temp_path {tmp}/uwsgi;\n\
             scgi_temp_path {tmp}/scgi;\n{block}\n}}\n",
            pid = dir.join("nginx.pid").display(),
            error = dir.join("logs/error.log").display(),
            tmp = dir.display(),
            block = http_block.replace("{PORT}", &port.to_string()),
        );
        let config_path = dir.join("nginx.conf");
        std::fs::write(&config_path, config).expect("nginx config written");
        let mut child = Command::new(program)
            .arg("-p")
            .arg(&dir)
            .arg("-c")
            .arg(&config_path)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("nginx starts");
        wait_for_port(port, &mut child, "nginx");
        Nginx { child, port, dir }
    }

    /// `127.0.0.1:PORT`.
    pub fn addr(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// The text of a file in its log directory.
    pub fn log(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.join("logs").join(name)).unwrap_or_default()
    }

    /// The path of its log directory.
    pub fn log_dir(&self) -> &Path {
        &self.dir
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        // nginx's master stops its workers on SIGTERM ("fast shutdown").
        stop(&mut self.child);
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
