//! `mcp-host web` driven as its page drives it, over plain HTTP/1.1 on
//! loopback (std sockets, no client library: what the host does is
//! measured, not a client): the one-time token exchanged for the session
//! cookie, the event stream (`GET /api/events`) read on a thread of its
//! own, each line POSTed to `/api/send`. A line's first text is the first
//! `text` event on the stream, its whole answer the `line_done` event.

use super::{API_KEY, LINE_TIMEOUT, Line, procfs};
use serde_json::{Value, json};
use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Instant;

/// What `mcp-host web` prints before its URL on stdout.
const URL_PREFIX: &str = "mcp-host web: ";

/// Runs `mcp-host web --port 0 --config CONFIG` through `lines` lines;
/// each line's figures.
pub(crate) fn run_once(
    host: &Path,
    config: &str,
    url: &str,
    expected: &str,
    lines: usize,
) -> Result<Vec<Line>, String> {
    let mut child = Command::new(host)
        .args(["web", "--port", "0", "--config", config])
        .env("ANTHROPIC_BASE_URL", url)
        .env("ANTHROPIC_API_KEY", API_KEY)
        // No token store of the person running the benchmark.
        .env(
            "XDG_CONFIG_HOME",
            std::env::temp_dir().join(format!("bench-web-{}-none", std::process::id())),
        )
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("{}: {e}", host.display()))?;
    let pid = child.id();
    let mut stderr = child.stderr.take().ok_or("no stderr")?;
    let logs = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let result = drive(pid, stdout, expected, lines);
    // Ended by its own PID: the page has no "quit".
    let _ = child.kill();
    let _ = child.wait();
    let logs = logs.join().unwrap_or_default();
    result.map_err(|failure| {
        format!(
            "{} web: {failure}\n--- its stderr ---\n{logs}",
            host.display()
        )
    })
}

fn drive(
    pid: u32,
    stdout: std::process::ChildStdout,
    expected: &str,
    lines: usize,
) -> Result<Vec<Line>, String> {
    let mut first_line = String::new();
    BufReader::new(stdout)
        .read_line(&mut first_line)
        .map_err(|e| format!("reading its URL line: {e}"))?;
    let page = first_line
        .trim_end()
        .strip_prefix(URL_PREFIX)
        .ok_or_else(|| format!("no URL line on stdout: {first_line:?}"))?;
    let (address, token) = page
        .strip_prefix("http://")
        .and_then(|rest| rest.split_once("/?token="))
        .ok_or_else(|| format!("not a page URL: {page}"))?;
    let cookie = exchange(address, token)?;
    let events = subscribe(address, &cookie)?;
    wait_for(&events, "ready")?;
    let mut measured = Vec::with_capacity(lines);
    for i in 1..=lines {
        let cpu_before = procfs::cpu_ns(pid).unwrap_or(0);
        let started = Instant::now();
        let body = json!({"text": format!("Tell me a story, part {i}.")}).to_string();
        let (status, reply) = request(
            address,
            &format!(
                "POST /api/send HTTP/1.1\r\nHost: {address}\r\nCookie: {cookie}\r\n\
                 Content-Type: application/json\r\nContent-Length: {}\r\n\
                 Connection: close\r\n\r\n{body}",
                body.len()
            ),
        )?;
        if status != 202 {
            return Err(format!("line {i}: /api/send answered {status}: {reply}"));
        }
        let mut text = String::new();
        let mut first = None;
        let whole = loop {
            let (at, event) = events
                .recv_timeout(LINE_TIMEOUT)
                .map_err(|e| format!("line {i}: no `line_done` ({e}); text so far {text:?}"))?;
            match event["event"].as_str() {
                Some("text") => {
                    first.get_or_insert(at - started);
                    text.push_str(event["text"].as_str().unwrap_or_default());
                }
                Some("line_done") => break at - started,
                Some("line_failed" | "line_stopped") => {
                    return Err(format!("line {i}: {event}"));
                }
                _ => {}
            }
        };
        if text != expected {
            return Err(format!("line {i}: the answer {text:?}"));
        }
        measured.push(Line {
            first: first.unwrap_or(whole),
            whole,
            cpu_ns: procfs::cpu_ns(pid).unwrap_or(0).saturating_sub(cpu_before),
        });
    }
    Ok(measured)
}

/// The token for the session cookie (`name=value`).
fn exchange(address: &str, token: &str) -> Result<String, String> {
    let (status, response) = request(
        address,
        &format!("GET /?token={token} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"),
    )?;
    let cookie = response
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("set-cookie").then(|| {
                value
                    .trim()
                    .split(';')
                    .next()
                    .unwrap_or_default()
                    .to_owned()
            })
        })
        .ok_or_else(|| format!("the token's exchange ({status}) set no cookie: {response}"))?;
    Ok(cookie)
}

/// One request on a connection of its own, read to its end: the status
/// and the whole response.
fn request(address: &str, text: &str) -> Result<(u16, String), String> {
    let mut socket = TcpStream::connect(address).map_err(|e| format!("{address}: {e}"))?;
    socket
        .set_read_timeout(Some(LINE_TIMEOUT))
        .and_then(|()| socket.write_all(text.as_bytes()))
        .map_err(|e| format!("{address}: {e}"))?;
    let mut response = String::new();
    socket
        .read_to_string(&mut response)
        .map_err(|e| format!("{address}: reading the response: {e}"))?;
    let status = response
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("not an HTTP response: {response:?}"))?;
    Ok((status, response))
}

/// Opens the event stream; each event's JSON, with the moment it was read,
/// from a thread of its own.
fn subscribe(address: &str, cookie: &str) -> Result<mpsc::Receiver<(Instant, Value)>, String> {
    let mut socket = TcpStream::connect(address).map_err(|e| format!("{address}: {e}"))?;
    write!(
        socket,
        "GET /api/events HTTP/1.1\r\nHost: {address}\r\nCookie: {cookie}\r\n\r\n"
    )
    .map_err(|e| format!("{address}: {e}"))?;
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut pending: Vec<u8> = Vec::new();
        let mut chunk = [0_u8; 16384];
        while let Ok(n @ 1..) = socket.read(&mut chunk) {
            let at = Instant::now();
            pending.extend_from_slice(&chunk[..n]);
            // Each frame is `data: JSON\n\n` in one chunk; the chunk sizes
            // and the head lie between frames.
            while let Some(start) = find(&pending, b"data: ") {
                let Some(end) = find(&pending[start..], b"\n\n") else {
                    break;
                };
                let frame = &pending[start + 6..start + end];
                if let Ok(event) = serde_json::from_slice::<Value>(frame)
                    && tx.send((at, event)).is_err()
                {
                    return;
                }
                pending.drain(..start + end + 2);
            }
        }
    });
    Ok(rx)
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Waits for the event named `name`.
fn wait_for(events: &mpsc::Receiver<(Instant, Value)>, name: &str) -> Result<(), String> {
    loop {
        let (_, event) = events
            .recv_timeout(LINE_TIMEOUT)
            .map_err(|e| format!("no `{name}` event ({e})"))?;
        if event["event"] == name {
            return Ok(());
        }
    }
}
