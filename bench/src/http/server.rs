//! One HTTP server under test: built or given, started on a free loopback port,
//! waited for, and stopped with SIGTERM; the raw HTTP/1.1 requests that check
//! it answers.

use super::{LISTEN_TIMEOUT, VERSION};
use crate::session::{Session, Target};
use serde_json::Value;
use std::io::{self, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

/// One HTTP server under test.
#[derive(Debug)]
pub(crate) struct Server {
    pub(crate) label: &'static str,
    pub(crate) program: PathBuf,
    /// Arguments before the address.
    pub(crate) args: Vec<String>,
    pub(crate) env: Vec<(String, String)>,
    pub(crate) stderr_log: PathBuf,
}

/// A running server.
#[derive(Debug)]
pub(crate) struct Running {
    pub(crate) child: Child,
    /// Held open: a server that reads stdin (a stdio `everything`) must not
    /// see it end while it is being probed.
    _stdin: Option<ChildStdin>,
    pub(crate) addr: SocketAddr,
}

impl Server {
    /// Starts the server on a free loopback port and waits until it accepts
    /// connections. `Ok(Err(why))` when it exits or does not listen in time
    /// (it is stopped then).
    pub(crate) fn start(&self) -> io::Result<Result<Running, String>> {
        let addr = free_port()?;
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.stderr_log)?;
        let mut child = Command::new(&self.program)
            .args(&self.args)
            .arg(addr.to_string())
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .env_remove("MCP_LOG")
            .env_remove("RUST_LOG")
            .env_remove("TOOLS")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .map_err(|e| {
                io::Error::new(
                    e.kind(),
                    format!("spawning {}: {e}", self.program.display()),
                )
            })?;
        let stdin = child.stdin.take();
        let mut running = Running {
            child,
            _stdin: stdin,
            addr,
        };
        let deadline = Instant::now() + LISTEN_TIMEOUT;
        loop {
            if let Some(status) = running.child.try_wait()? {
                return Ok(Err(format!("exited ({status}) without listening")));
            }
            if TcpStream::connect_timeout(&addr, Duration::from_millis(100)).is_ok() {
                return Ok(Ok(running));
            }
            if Instant::now() > deadline {
                running.stop()?;
                return Ok(Err(format!(
                    "did not accept connections within {} s",
                    LISTEN_TIMEOUT.as_secs()
                )));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Running {
    /// SIGTERM, then SIGKILL if it has not exited within 10 s.
    pub(crate) fn stop(&mut self) -> io::Result<()> {
        terminate(&mut self.child)
    }
}

/// Stops `child`: SIGTERM, then SIGKILL if it has not exited within 10 s.
pub(crate) fn terminate(child: &mut std::process::Child) -> io::Result<()> {
    if child.try_wait()?.is_some() {
        return Ok(());
    }
    // std has no SIGTERM and the crate denies `unsafe`: ask kill(1).
    let _ = Command::new("kill")
        .arg("-TERM")
        .arg(child.id().to_string())
        .status();
    let deadline = Instant::now() + Duration::from_secs(10);
    while child.try_wait()?.is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    Ok(())
}

impl Drop for Running {
    fn drop(&mut self) {
        // Only reached with the server running on an error path.
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// A loopback address with a port that was free a moment ago.
pub(crate) fn free_port() -> io::Result<SocketAddr> {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?.local_addr()
}

/// The body of the `add` call with id `id` (`a = id`, `b = 0.25`), the same
/// the load generator sends.
pub(crate) fn call_body(id: u64) -> String {
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"add\",\"arguments\":{{\"a\":{id},\"b\":0.25}},\"_meta\":{{\"io.modelcontextprotocol/protocolVersion\":\"{VERSION}\",\"io.modelcontextprotocol/clientCapabilities\":{{}},\"io.modelcontextprotocol/clientInfo\":{{\"name\":\"mcp-bench\",\"version\":\"0.1.0\"}}}}}}}}"
    )
}

/// One `add` POST on a fresh connection (`Connection: close`), written by
/// hand: returns the status code and the body.
pub(crate) fn post_once(addr: SocketAddr, id: u64) -> io::Result<(u16, Vec<u8>)> {
    let body = call_body(id);
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(5))?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: {VERSION}\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: add\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    let mut response = Vec::new();
    stream.read_to_end(&mut response)?;
    let split = response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| io::Error::other("no HTTP response head"))?;
    let head = String::from_utf8_lossy(&response[..split]).into_owned();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| io::Error::other(format!("bad status line in {head:?}")))?;
    let mut body = response[split + 4..].to_vec();
    if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        body = dechunk(&body)?;
    }
    Ok((status, body))
}

/// The payload of a chunked body.
pub(crate) fn dechunk(mut body: &[u8]) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let line_end = body
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or_else(|| io::Error::other("bad chunk"))?;
        let size_text = String::from_utf8_lossy(&body[..line_end]).into_owned();
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
            .map_err(|_| io::Error::other("bad chunk size"))?;
        body = &body[line_end + 2..];
        if size == 0 {
            return Ok(out);
        }
        let chunk = body
            .get(..size)
            .ok_or_else(|| io::Error::other("short chunk"))?;
        out.extend_from_slice(chunk);
        body = body.get(size + 2..).unwrap_or_default();
    }
}

/// `everything`'s answer over stdio to the same enveloped `add` call: the
/// bytes the ceiling must send (without the newline), and the `serverInfo`
/// it puts in `_meta`.
pub(crate) fn stdio_reference(everything: &Target, id: u64) -> io::Result<(Vec<u8>, Value)> {
    let mut session = Session::spawn(everything, &[])?;
    let mut request = call_body(id).into_bytes();
    request.push(b'\n');
    session.send(&request)?;
    let mut line = Vec::new();
    session.recv(&mut line)?;
    session.close()?;
    line.pop();
    let response: Value = serde_json::from_slice(&line).map_err(io::Error::other)?;
    let info = response["result"]["_meta"]["io.modelcontextprotocol/serverInfo"].clone();
    if info.is_null() {
        return Err(io::Error::other(format!(
            "everything's 2026-07-28 `add` result has no serverInfo: {response}"
        )));
    }
    Ok((line, info))
}
