//! mcp-client's end-to-end tests, one binary: the client against the
//! workspace's example servers and scripted ones, over stdio and Streamable
//! HTTP, on loopback. A module's tests keep their path as a filter
//! (`cargo test -p mcpfn-client --test suite tasks::`).

mod common;

mod broken;
mod handshake;
#[cfg(feature = "http")]
mod http;
mod late;
mod stdio;
mod surface;
mod tasks;
