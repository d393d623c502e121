//! A server process driven over its stdin/stdout pipes.

use serde_json::Value;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// The protocol version the benchmark negotiates (legacy handshake).
pub(crate) const PROTOCOL_VERSION: &str = "2025-06-18";

/// A server under test: a program and the environment it runs with.
#[derive(Debug, Clone)]
pub(crate) struct Target {
    /// Short name for reports.
    pub(crate) label: &'static str,
    /// The executable.
    pub(crate) program: PathBuf,
    /// Environment variables set on every spawn.
    pub(crate) env: Vec<(String, String)>,
    /// Where the server's stderr goes (appended).
    pub(crate) stderr_log: PathBuf,
}

/// A running server with its pipes.
#[derive(Debug)]
pub(crate) struct Session {
    child: Child,
    /// The server's stdin; `None` once closed.
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    /// The server's process id.
    pub(crate) pid: u32,
    label: &'static str,
}

impl Session {
    /// Starts `target` with `extra_env` on top of its own environment.
    pub(crate) fn spawn(target: &Target, extra_env: &[(&str, String)]) -> io::Result<Session> {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&target.stderr_log)?;
        let mut command = Command::new(&target.program);
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(log)
            .env_remove("MCP_LOG")
            // The server reads RUST_LOG too when MCP_LOG is unset.
            .env_remove("RUST_LOG")
            .env_remove("TOOLS");
        for (key, value) in &target.env {
            command.env(key, value);
        }
        for (key, value) in extra_env {
            command.env(key, value);
        }
        let mut child = command.spawn().map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("spawning {}: {e}", target.program.display()),
            )
        })?;
        let stdin = child
            .stdin
            .take()
            .ok_or_else(|| io::Error::other("no stdin pipe"))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| io::Error::other("no stdout pipe"))?;
        Ok(Session {
            pid: child.id(),
            child,
            stdin: Some(stdin),
            stdout: BufReader::with_capacity(64 * 1024, stdout),
            label: target.label,
        })
    }

    /// Writes bytes (one or more whole lines) to the server in one call.
    pub(crate) fn send(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.stdin_mut()?.write_all(bytes)
    }

    /// The server's stdin, for a writer thread.
    pub(crate) fn stdin_mut(&mut self) -> io::Result<&mut ChildStdin> {
        self.stdin
            .as_mut()
            .ok_or_else(|| io::Error::other("stdin already closed"))
    }

    /// Both pipes at once, for a writer thread and a reader thread.
    pub(crate) fn pipes(&mut self) -> io::Result<(&mut ChildStdin, &mut BufReader<ChildStdout>)> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| io::Error::other("stdin already closed"))?;
        Ok((stdin, &mut self.stdout))
    }

    /// Reads one response line into `line` (cleared first), newline included.
    pub(crate) fn recv(&mut self, line: &mut Vec<u8>) -> io::Result<()> {
        read_line(&mut self.stdout, line, self.label)
    }

    /// Sends `initialize`, waits for its result and checks it, then sends
    /// `notifications/initialized` when `finish` is set. Returns the time
    /// from sending to having the whole response.
    pub(crate) fn initialize(&mut self, finish: bool) -> io::Result<Duration> {
        let request = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{{\"protocolVersion\":\"{PROTOCOL_VERSION}\",\"capabilities\":{{}},\"clientInfo\":{{\"name\":\"mcp-bench\",\"version\":\"0.1.0\"}}}}}}\n"
        );
        let start = Instant::now();
        self.send(request.as_bytes())?;
        let mut line = Vec::new();
        self.recv(&mut line)?;
        let elapsed = start.elapsed();
        let response: Value =
            serde_json::from_slice(&line).map_err(|e| self.bad(format!("initialize: {e}")))?;
        if response["id"] != 0 || response["result"]["protocolVersion"] != PROTOCOL_VERSION {
            return Err(self.bad(format!("unexpected initialize response {response}")));
        }
        if response["result"]["capabilities"]["tools"].is_null() {
            return Err(self.bad("initialize result lacks the tools capability".to_owned()));
        }
        if finish {
            self.send(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")?;
        }
        Ok(elapsed)
    }

    /// An error naming this server.
    pub(crate) fn bad(&self, message: String) -> io::Error {
        io::Error::other(format!("{}: {message}", self.label))
    }

    /// Closes stdin, checks the server writes nothing more and exits with
    /// success within 10 s (else kills it and fails).
    pub(crate) fn close(mut self) -> io::Result<()> {
        drop(self.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(10);
        let status = loop {
            if let Some(status) = self.child.try_wait()? {
                break status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                return Err(self.bad("did not exit within 10 s of stdin closing".to_owned()));
            }
            std::thread::sleep(Duration::from_millis(2));
        };
        // Anything it wrote is in the pipe now (a few bytes at most, or it
        // could not have exited).
        let mut rest = Vec::new();
        self.stdout.read_to_end(&mut rest)?;
        if !rest.is_empty() {
            let text = String::from_utf8_lossy(&rest[..rest.len().min(300)]).into_owned();
            return Err(self.bad(format!("unexpected output after the last response: {text}")));
        }
        if !status.success() {
            return Err(self.bad(format!("exited with {status}")));
        }
        Ok(())
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // Only reached with the child still running on an error path.
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Reads one line (newline included) into `line`; end of output is an error.
pub(crate) fn read_line(
    reader: &mut impl BufRead,
    line: &mut Vec<u8>,
    label: &str,
) -> io::Result<()> {
    line.clear();
    if reader.read_until(b'\n', line)? == 0 || line.last() != Some(&b'\n') {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!("{label}: output ended while a response was expected"),
        ));
    }
    Ok(())
}
