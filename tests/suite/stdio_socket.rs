//! Stdio over a socket pair, as Node (libuv) connects a child's stdin and
//! stdout: the reactor drives the socket (tokio's `UnixStream`, no raw fd
//! registration), the server answers, ends when its input ends, and exits at
//! once when the client goes away.

#![cfg(unix)]

use crate::common;

use common::{REPLY_TIMEOUT, example_binary, initialize};
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The `everything` example with both stdin and stdout on one end of a
/// socket pair; the other end is the client's.
fn spawn_on_socket() -> (Child, UnixStream) {
    let (client, server) = UnixStream::pair().expect("a socket pair");
    let input = OwnedFd::from(server.try_clone().expect("dup"));
    let output = OwnedFd::from(server);
    let child = Command::new(example_binary("everything"))
        .env("MCP_LOG", "off")
        .stdin(Stdio::from(input))
        .stdout(Stdio::from(output))
        .stderr(Stdio::null())
        .spawn()
        .expect("the example runs");
    client
        .set_read_timeout(Some(REPLY_TIMEOUT))
        .expect("a read timeout");
    (child, client)
}

/// Waits at most `limit` for the child to exit.
fn wait_exit(child: &mut Child, limit: Duration) -> Option<std::process::ExitStatus> {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = child.kill();
    None
}

#[test]
fn a_socket_is_served_and_its_end_ends_the_server() {
    let (mut child, mut client) = spawn_on_socket();
    let line = format!("{}\n", initialize(1, "2025-06-18"));
    client.write_all(line.as_bytes()).expect("the server reads");
    let mut reader = BufReader::new(client.try_clone().expect("dup"));
    let mut response = String::new();
    reader.read_line(&mut response).expect("a response");
    let response: Value = serde_json::from_str(&response).expect("JSON");
    assert_eq!(response["id"], 1);
    assert_eq!(response["result"]["protocolVersion"], "2025-06-18");
    client
        .shutdown(std::net::Shutdown::Write)
        .expect("end of input");
    let status = wait_exit(&mut child, Duration::from_secs(10)).expect("the server exits");
    assert!(status.success(), "{status:?}");
}

#[test]
fn a_vanished_socket_client_ends_the_server() {
    let (mut child, client) = spawn_on_socket();
    // Nothing sent; the client goes away entirely.
    drop(client);
    let status = wait_exit(&mut child, Duration::from_secs(5)).expect("the server exits");
    assert!(status.success(), "{status:?}");
}
