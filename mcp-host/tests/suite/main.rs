//! mcp-host's integration tests, one binary: each module was a test binary
//! of its own, and each of those linked the whole dependency graph again.
//! A module's tests keep their path as a filter
//! (`cargo test -p mcpfn-host host_servers::`).

mod common;

mod agent;
mod agent_servers;
mod agent_state;
mod apps;
mod example_agent;
mod fake_model;
mod history;
mod host_approvals;
mod host_client;
mod host_commands;
#[cfg(all(unix, feature = "editor"))]
mod host_completion;
mod host_filters;
#[cfg(unix)]
mod host_interrupt;
mod host_lines;
#[cfg(feature = "oauth")]
mod host_oauth;
#[cfg(feature = "oauth")]
mod host_oidc;
mod host_on_demand;
mod host_operator;
#[cfg(unix)]
mod host_process;
mod host_program;
mod host_servers;
mod host_surface;
mod host_ts_sdk;
mod live_tools;
mod progress;
mod prompt_cache;
mod seed_flow;
mod streaming;
mod web_apps;
mod web_guard;
mod web_page;
mod web_panel;
