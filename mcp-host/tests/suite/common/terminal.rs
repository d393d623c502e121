//! The `mcp-host` program on a real pseudo-terminal: util-linux `script`
//! gives it one as its controlling terminal while its stdin, stdout and
//! stderr are files, so what is typed on the terminal is the only way in
//! (the approval and pin questions are asked there, never on stdin).

use super::fake_model::{FakeModel, McpConfig, TempDir, host_binary};
use std::io::Write;
use std::time::Duration;

/// The key the programs under a terminal send the fake Anthropic API.
const CLAUDE_KEY: &str = "sk-ant-test-key";

/// Fails the test, naming what to install, unless `script` can give a
/// program a pseudo-terminal here: a test of the terminal never passes
/// without one (`scripts/test` installs it).
pub fn require_pty() {
    let ran = std::process::Command::new("script")
        .args(["-qec", "true", "/dev/null"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .output();
    match ran {
        Err(e) => panic!(
            "this test needs util-linux `script` ({e}): install it (Debian: `apt-get install bsdutils`), \
             or run `scripts/test`, which does"
        ),
        Ok(out) if !out.status.success() => panic!(
            "util-linux `script` cannot open a pseudo-terminal here ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ),
        Ok(_) => {}
    }
}

/// Quotes `text` for `sh -c`.
pub fn sh_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// What one run under a terminal left: stdout, stderr, the terminal's text.
pub struct OnTerminal {
    /// The program's stdout.
    pub stdout: String,
    /// Its stderr.
    pub stderr: String,
    /// What the terminal showed (the questions).
    pub shown: String,
}

impl OnTerminal {
    /// All three, for an assertion's message.
    pub fn context(&self) -> String {
        format!(
            "stdout:\n{}\nstderr:\n{}\nterminal:\n{}",
            self.stdout, self.stderr, self.shown
        )
    }
}

/// Runs the program with `--config` and `args` against the fake Anthropic
/// API, `stdin` as its stdin and `keys` typed ahead on its terminal (the
/// terminal holds them until the program reads); fails past 60 s (a
/// question more than was typed).
pub fn on_terminal(
    config: &McpConfig,
    args: &[&str],
    fake: &FakeModel,
    stdin: &str,
    keys: &[u8],
) -> OnTerminal {
    on_terminal_with(config, args, fake, Some(stdin), keys, &[])
}

/// [`on_terminal`] with the program's stderr on the terminal too (its
/// `stderr` is then empty and `shown` holds it).
pub fn stderr_on_terminal(
    config: &McpConfig,
    args: &[&str],
    fake: &FakeModel,
    stdin: &str,
) -> OnTerminal {
    run_on_terminal(config, args, fake, Some(stdin), b"", &[], true)
}

/// [`on_terminal`], with `stdin` `None` for the terminal itself as stdin
/// (the user's lines and the answers typed on one terminal; `\x04` ends
/// the input), and `env` set for the program. `XDG_CONFIG_HOME` is a
/// directory of the run's own unless `env` names one, so that no test
/// reads or writes the user's approvals.
pub fn on_terminal_with(
    config: &McpConfig,
    args: &[&str],
    fake: &FakeModel,
    stdin: Option<&str>,
    keys: &[u8],
    env: &[(&str, &str)],
) -> OnTerminal {
    run_on_terminal(config, args, fake, stdin, keys, env, false)
}

fn run_on_terminal(
    config: &McpConfig,
    args: &[&str],
    fake: &FakeModel,
    stdin: Option<&str>,
    keys: &[u8],
    env: &[(&str, &str)],
    stderr_on_terminal: bool,
) -> OnTerminal {
    require_pty();
    let dir = TempDir::new();
    let stdin = match stdin {
        Some(text) => format!(
            " < {}",
            sh_quote(dir.write("stdin.txt", text).to_str().unwrap())
        ),
        None => String::new(),
    };
    let (stdout, stderr) = (dir.path.join("stdout.txt"), dir.path.join("stderr.txt"));
    let args: Vec<String> = args.iter().map(|a| sh_quote(a)).collect();
    let stderr_to = if stderr_on_terminal {
        String::new()
    } else {
        format!(" 2> {}", sh_quote(stderr.to_str().unwrap()))
    };
    let command = format!(
        "{} --config {} {}{stdin} > {}{stderr_to}",
        sh_quote(host_binary().to_str().unwrap()),
        sh_quote(config.arg()),
        args.join(" "),
        sh_quote(stdout.to_str().unwrap()),
    );
    let mut script = std::process::Command::new("script");
    script.args(["-qec", &command, "/dev/null"]);
    for (name, _) in std::env::vars() {
        if name.starts_with("ANTHROPIC_") || name.starts_with("OPENAI_") {
            script.env_remove(name);
        }
    }
    let mut child = script
        .env("ANTHROPIC_BASE_URL", &fake.base_url)
        .env("ANTHROPIC_API_KEY", CLAUDE_KEY)
        .env("SHELL", "/bin/sh")
        .env("XDG_CONFIG_HOME", dir.path.join("config"))
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut typed = child.stdin.take().unwrap();
    typed.write_all(keys).unwrap();
    typed.flush().unwrap();
    let terminal = child.stdout.take().unwrap();
    let shown = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut { terminal }, &mut text);
        text
    });
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("the program hung (asked more than was typed?)");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(typed);
    OnTerminal {
        stdout: std::fs::read_to_string(&stdout).unwrap_or_default(),
        stderr: std::fs::read_to_string(&stderr).unwrap_or_default(),
        shown: shown.join().unwrap(),
    }
}

/// The program on a terminal that is its stdin and stdout (its line
/// editor), its stderr a file, the keys typed as a person types them: each
/// after what it answers is on the screen (keys typed ahead of a prompt
/// would reach the editor all at once).
pub struct Session {
    child: std::process::Child,
    keys: std::process::ChildStdin,
    shown: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
    /// How much of `shown` the last [`Session::wait_for`] passed.
    seen: usize,
    stderr: std::path::PathBuf,
    _dir: TempDir,
}

impl Session {
    /// Starts the program with `--config` and `args` against the fake
    /// Anthropic API, `TERM=xterm`.
    pub fn start(config: &McpConfig, args: &[&str], fake: &FakeModel) -> Session {
        require_pty();
        let dir = TempDir::new();
        let stderr = dir.path.join("stderr.txt");
        let args: Vec<String> = args.iter().map(|a| sh_quote(a)).collect();
        let command = format!(
            "{} --config {} {} 2> {}",
            sh_quote(host_binary().to_str().unwrap()),
            sh_quote(config.arg()),
            args.join(" "),
            sh_quote(stderr.to_str().unwrap()),
        );
        let mut script = std::process::Command::new("script");
        script.args(["-qec", &command, "/dev/null"]);
        for (name, _) in std::env::vars() {
            if name.starts_with("ANTHROPIC_") || name.starts_with("OPENAI_") {
                script.env_remove(name);
            }
        }
        let mut child = script
            .env("ANTHROPIC_BASE_URL", &fake.base_url)
            .env("ANTHROPIC_API_KEY", CLAUDE_KEY)
            .env("SHELL", "/bin/sh")
            .env("TERM", "xterm")
            .env("XDG_CONFIG_HOME", dir.path.join("config"))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let keys = child.stdin.take().unwrap();
        let mut terminal = child.stdout.take().unwrap();
        let shown = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let into = std::sync::Arc::clone(&shown);
        std::thread::spawn(move || {
            let mut buffer = [0_u8; 4096];
            while let Ok(n @ 1..) = std::io::Read::read(&mut terminal, &mut buffer) {
                into.lock().unwrap().extend_from_slice(&buffer[..n]);
            }
        });
        Session {
            child,
            keys,
            shown,
            seen: 0,
            stderr,
            _dir: dir,
        }
    }

    /// Types `keys` on the terminal.
    pub fn type_keys(&mut self, keys: &[u8]) {
        self.keys.write_all(keys).unwrap();
        self.keys.flush().unwrap();
    }

    /// What the terminal showed so far, escape sequences and all.
    pub fn shown(&self) -> String {
        String::from_utf8_lossy(&self.shown.lock().unwrap()).into_owned()
    }

    /// Its stderr so far.
    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    /// Waits until the terminal shows `text` after what the last wait
    /// passed; fails past 30 s, showing the screen and stderr.
    pub fn wait_for(&mut self, text: &str) {
        let started = std::time::Instant::now();
        loop {
            let shown = self.shown();
            if let Some(at) = shown.get(self.seen..).and_then(|s| s.find(text)) {
                self.seen += at + text.len();
                return;
            }
            if started.elapsed() > Duration::from_secs(30) {
                let _ = self.child.kill();
                panic!(
                    "the terminal did not show {text:?}; it showed:\n{shown:?}\nstderr:\n{}",
                    self.stderr()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits for the program to end (at most 60 s) and gives what it left.
    pub fn finish(mut self) -> OnTerminal {
        let started = std::time::Instant::now();
        while self.child.try_wait().unwrap().is_none() {
            if started.elapsed() > Duration::from_secs(60) {
                let _ = self.child.kill();
                panic!(
                    "the program did not end; the terminal showed:\n{:?}",
                    self.shown()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        // What the terminal still had to say.
        std::thread::sleep(Duration::from_millis(100));
        OnTerminal {
            stdout: String::new(),
            stderr: self.stderr(),
            shown: self.shown(),
        }
    }
}
