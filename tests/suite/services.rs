//! The service harness itself: a Redis and an nginx start on their own
//! loopback ports, answer, and are gone after being dropped.

use crate::common;

use common::services::{Nginx, Redis};
use std::io::{Read, Write};
use std::net::TcpStream;

fn exchange(port: u16, request: &[u8]) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connects");
    stream.write_all(request).unwrap();
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(5)))
        .unwrap();
    let mut reply = vec![0; 512];
    let n = stream.read(&mut reply).unwrap();
    String::from_utf8_lossy(&reply[..n]).into_owned()
}

#[test]
fn redis_starts_answers_and_stops() {
    let mut redis = Redis::start();
    assert_eq!(exchange(redis.port, b"PING\r\n"), "+PONG\r\n");
    redis.stop();
    assert!(TcpStream::connect(("127.0.0.1", redis.port)).is_err());
    redis.start_again();
    assert_eq!(exchange(redis.port, b"PING\r\n"), "+PONG\r\n");
}

#[test]
fn nginx_starts_answers_and_stops() {
    let nginx = Nginx::start("server { listen 127.0.0.1:{PORT}; location / { return 200 'up'; } }");
    let port = nginx.port;
    let reply = exchange(port, b"GET / HTTP/1.0\r\nHost: x\r\n\r\n");
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    drop(nginx);
    assert!(TcpStream::connect(("127.0.0.1", port)).is_err());
}
