//! The integration tests of the `tests` package, one binary: each module was
//! a test binary of its own, and each of those linked the whole dependency
//! graph again. A module's tests keep their path as a filter
//! (`cargo test -p tests auth::`).
//!
//! `cli` and `registration` stay binaries of their own (tests/Cargo.toml):
//! each runs its own executable a second time as the server, whose stdout
//! the test harness would write into.

mod common;

mod apps;
mod auth;
// Completions of resource template variables.
mod completions;
mod conformance;
// The client side of the suite, on examples/conformance_client.rs.
mod conformance_client;
mod context;
mod default_build;
mod doc_features;
mod dump;
mod dump_formats;
mod elicitation;
mod errors;
mod http;
mod hygiene;
// Roots and several inputs in one round (`ctx.roots`, `ctx.ask`).
mod inputs;
mod interop;
// The official SDK clients on resources, prompts and completions.
mod interop_surface;
mod load;
mod model;
mod prompts;
// The module graph of mcp-runtime/src: acyclic (ARCHITECTURE.md, "How the
// layering is checked").
mod module_graph;
// No method name spelled outside mcp-protocol's method table.
mod method_names;
mod replicas;
mod resources;
mod robustness;
mod runtime;
mod sampling;
mod schemas;
mod self_contained;
mod services;
// SSE polling: closed legacy streams resumed with Last-Event-ID.
mod skills;
mod sse_polling;
mod stderr;
mod stdio;
#[cfg(unix)]
mod stdio_socket;
mod store;
// Resource subscriptions and list changes, both eras, stdio and HTTP.
mod subscriptions;
mod tasks;
mod tracing;
