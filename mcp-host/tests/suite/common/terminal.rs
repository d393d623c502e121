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
