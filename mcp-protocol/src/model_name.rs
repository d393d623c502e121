//! Tool names a model API accepts: the one mapping from an MCP tool name to
//! the name the Anthropic Messages API and OpenAI's function calling take.
//!
//! Both APIs require `^[a-zA-Z0-9_-]{1,64}$`; MCP allows 128 characters
//! including `.` (and, from other servers, `/`, spaces, any Unicode). Both
//! halves of the workspace map names with [`model_name`]: `mcp-host`'s
//! `NameMap` for the tools of many servers (where `prefixed` resolves a
//! collision between servers), and `mcp-runtime`'s
//! `--dump-tools anthropic|openai|openai-strict` for one server (never
//! prefixed), so a dumped catalog and a host's catalog agree on every name.
//!
//! The mapping, a fixed function of the server's name, the tool's MCP name
//! and `prefixed`:
//!
//! 1. `prefixed`: the name is `{server}__{tool}` (two underscores), and the
//!    steps below apply to the whole.
//! 2. `.`, `/`, `:` and space become `_` (`files.read` → `files_read`).
//!    Any other character the APIs refuse (non-ASCII, `@`, …) becomes `_`
//!    too, runs of them one `_`, and since that loses information the name
//!    gets a hash suffix (server `cn`: `查天气` → `tool_14fcceb5`,
//!    `get_天气` → `get_8463fa9c`).
//! 3. A name longer than 64 characters keeps its first 55 and ends in `_`
//!    and 8 hex digits of a SHA-256 of the server's name and the MCP name.
//!
//! A name that already matches the pattern is returned as it is.
//!
//! ```
//! use mcpfn_protocol::model_name::{is_model_safe, model_name};
//!
//! assert_eq!(model_name("files", "files.read", false), "files_read");
//! assert_eq!(model_name("github", "search", true), "github__search");
//! let long = format!("report_{}", "x".repeat(70));
//! let mapped = model_name("weather", &long, false);
//! assert_eq!(mapped, format!("report_{}_6cf6b70f", "x".repeat(48)));
//! assert!(is_model_safe(&mapped) && !is_model_safe(&long));
//! ```

use sha2::{Digest, Sha256};

/// The longest name the model APIs accept.
pub const MAX_MODEL_NAME_LEN: usize = 64;

/// Between a server's name and a tool's in a prefixed model name.
pub const PREFIX_SEPARATOR: &str = "__";

/// Hex digits of the hash suffix of a shortened or lossy name.
pub const HASH_HEX: usize = 8;

/// Whether `name` matches `^[a-zA-Z0-9_-]{1,64}$`, what the Anthropic and
/// OpenAI APIs accept.
pub fn is_model_safe(name: &str) -> bool {
    (1..=MAX_MODEL_NAME_LEN).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// The model name of `server`'s tool `tool`, by the mapping the module docs
/// describe; `prefixed` puts the server's name in front (a host does that
/// for a tool whose name another server's tool also has).
pub fn model_name(server: &str, tool: &str, prefixed: bool) -> String {
    let raw = if prefixed {
        format!("{server}{PREFIX_SEPARATOR}{tool}")
    } else {
        tool.to_owned()
    };
    if is_model_safe(&raw) {
        return raw;
    }
    let mut name = String::with_capacity(raw.len());
    let mut lossy = false;
    let mut in_run = false;
    for c in raw.chars() {
        if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
            name.push(c);
            in_run = false;
        } else if matches!(c, '.' | '/' | ':' | ' ') {
            // Separators: `_` reads the same to a model, and names that
            // differ only here are rare enough to be refused when they meet.
            name.push('_');
            in_run = false;
        } else {
            lossy = true;
            if !in_run {
                name.push('_');
            }
            in_run = true;
        }
    }
    // An empty MCP name has nothing to keep; it gets a name like a lossy one.
    lossy |= name.is_empty();
    if lossy {
        let kept = name.trim_end_matches('_');
        let kept = if kept.is_empty() { "tool" } else { kept };
        name = format!("{kept}_{}", hash(server, tool));
    }
    if name.len() > MAX_MODEL_NAME_LEN {
        let keep = MAX_MODEL_NAME_LEN - 1 - HASH_HEX;
        // `name` is ASCII by now: any byte index is a char boundary.
        name = format!("{}_{}", &name[..keep], hash(server, tool));
    }
    name
}

/// 8 hex digits of SHA-256 over the server's name and the tool's, length-
/// prefixed so that no two pairs hash the same input.
fn hash(server: &str, tool: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update((server.len() as u64).to_be_bytes());
    hasher.update(server.as_bytes());
    hasher.update(tool.as_bytes());
    let digest = hasher.finalize();
    digest[..HASH_HEX / 2]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
