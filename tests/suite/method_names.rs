//! No method name is spelled outside the protocol's method table
//! (`mcp-protocol/src/model/method.rs`): the server routes on its markers
//! and the client sends them, so a quoted `"tools/call"` anywhere else in
//! the workspace's shipped code is a second table that can drift.
//!
//! The scan reads every library and binary target of the workspace's
//! members, as the module-graph test does (through their `mod`
//! declarations, `#[cfg(test)]` items left out), and flags a string literal
//! whose text is a method name of the table. Not scanned: the `bench`
//! members (baselines that speak the wire by hand on purpose) and the
//! `tests` members, and comments. Allowed: the table's own file, and
//! `#[serde(rename = "…")]` (an attribute takes no constant; the protocol's
//! tests check those tags against the table's names).

use super::module_graph::{
    Span, Target, code_only, members, spans, targets, test_items, workspace_root,
};
use mcpfn_protocol::model::method::{NOTIFICATION_METHODS, REQUEST_METHODS};
use std::path::Path;

/// The table's own file, where the names are written.
const TABLE: &str = "mcp-protocol/src/model/method.rs";

/// The members not scanned, and why (see the module docs).
const SKIPPED_MEMBERS: &[&str] = &["bench", "tests"];

/// The method names of `text` written as string literals outside comments,
/// `#[cfg(test)]` items and serde attributes: `(line, name)` each.
fn spelled_names(text: &str) -> Vec<(usize, &str)> {
    let tests = test_items(&code_only(text));
    let names: Vec<&str> = REQUEST_METHODS
        .iter()
        .chain(NOTIFICATION_METHODS)
        .copied()
        .collect();
    let mut found = Vec::new();
    for (span, from, to) in spans(text) {
        if span != Span::Str || tests.iter().any(|(a, b)| (*a..*b).contains(&from)) {
            continue;
        }
        let literal = text[from..to].trim_start_matches(['r', '#']);
        let inner = literal.trim_end_matches('#');
        let inner = inner
            .strip_prefix('"')
            .and_then(|s| s.strip_suffix('"'))
            .unwrap_or(inner);
        let Some(name) = names.iter().find(|n| **n == inner) else {
            continue;
        };
        let line_start = text[..from].rfind('\n').map_or(0, |n| n + 1);
        if text[line_start..from]
            .trim_start()
            .starts_with("#[serde(rename")
        {
            continue;
        }
        found.push((text[..from].matches('\n').count() + 1, *name));
    }
    found
}

#[test]
fn no_method_name_is_spelled_outside_the_table() {
    let root = workspace_root();
    let mut spelled = Vec::new();
    let mut files = 0;
    for member in members(&root) {
        let relative = member.strip_prefix(&root).expect("a member under the root");
        if SKIPPED_MEMBERS
            .iter()
            .any(|skipped| relative.starts_with(skipped))
        {
            continue;
        }
        for (label, file) in targets(&member) {
            for source in Target::read(&label, &file).files {
                let path = source.path.strip_prefix(&root).unwrap_or(&source.path);
                files += 1;
                if path == Path::new(TABLE) {
                    continue;
                }
                for (line, name) in spelled_names(&source.text) {
                    spelled.push(format!("{}:{line}: \"{name}\"", path.display()));
                }
            }
        }
    }
    assert!(files > 100, "the scan read {files} files: it lost its way");
    assert!(
        spelled.is_empty(),
        "method names spelled outside {TABLE} (use the marker's METHOD or the table's constant):\n{}",
        spelled.join("\n")
    );
}

#[test]
fn the_scan_flags_live_literals_only() {
    let text = r##"//! Serves "tools/call".
use x::y;
#[serde(rename = "roots/list")]
fn route(method: &str) -> bool {
    // "ping" in a comment
    method == "tools/call" || method == r#"ping"# || method == "tools/calls"
}
#[cfg(test)]
mod tests {
    const M: &str = "notifications/progress";
}
#[cfg(all(test, feature = "http"))]
fn probe() -> &'static str { "ping" }
fn late() -> &'static str { "notifications/cancelled" }
"##;
    assert_eq!(
        spelled_names(text),
        [
            (6, "tools/call"),
            (6, "ping"),
            (14, "notifications/cancelled")
        ]
    );
}
