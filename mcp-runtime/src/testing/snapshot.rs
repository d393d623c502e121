//! The golden gate: a tool surface compared with a checked-in JSON snapshot,
//! a unified line diff (by `similar`) on a mismatch, and a rewrite on request.

use crate::dump::DumpFormat;
use crate::protocol::ProtocolVersion;
use crate::{Server, Tool};
use serde_json::Value;
use std::path::Path;

/// Environment variable that makes snapshot assertions rewrite their files.
pub const UPDATE_SNAPSHOTS_ENV: &str = "MCP_UPDATE_SNAPSHOTS";

/// Something whose tool surface can be snapshotted.
pub trait ToolSurface {
    /// The surface as JSON: by default the 2026-07-28 `tools/list` result,
    /// the richest shape (every field of every tool).
    fn surface(&self) -> Value;
}

fn surface_of(server: &Server) -> Value {
    match server.dump(DumpFormat::Mcp(ProtocolVersion::LATEST)) {
        Ok(dump) => dump.to_json(),
        Err(err) => panic!("the tools cannot be registered: {err}"),
    }
}

impl ToolSurface for Server {
    fn surface(&self) -> Value {
        surface_of(self)
    }
}

impl ToolSurface for Vec<Tool> {
    fn surface(&self) -> Value {
        surface_of(&Server::new("snapshot", "0").tools(self.iter().cloned()))
    }
}

impl ToolSurface for crate::ToolDump {
    fn surface(&self) -> Value {
        self.to_json()
    }
}

/// An already-dumped surface, e.g. the output of a binary's `--dump-tools`.
impl ToolSurface for Value {
    fn surface(&self) -> Value {
        self.clone()
    }
}

/// Fails with a line diff when `surface` differs from the JSON at `path`;
/// writes the file instead when [`UPDATE_SNAPSHOTS_ENV`] is `1`. A missing file
/// is written and the assertion fails, so a new snapshot is always reviewed.
#[track_caller]
pub fn assert_snapshot(surface: &impl ToolSurface, path: &Path) {
    let mut actual = match serde_json::to_string_pretty(&surface.surface()) {
        Ok(text) => text,
        Err(err) => panic!("the tool surface does not serialize: {err}"),
    };
    actual.push('\n');
    let update = std::env::var(UPDATE_SNAPSHOTS_ENV).is_ok_and(|v| v == "1");
    let expected = std::fs::read_to_string(path).ok();
    if expected.as_deref() == Some(actual.as_str()) {
        return;
    }
    if update || expected.is_none() {
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        if let Err(err) = std::fs::write(path, &actual) {
            panic!("cannot write snapshot {}: {err}", path.display());
        }
        if update {
            return;
        }
        panic!(
            "created the tool snapshot {}; review it, commit it, and run the tests again",
            path.display()
        );
    }
    let expected = expected.unwrap_or_default();
    panic!(
        "the tool surface differs from {} (- snapshot, + now):\n{}\nIf the change is intended, rerun with {UPDATE_SNAPSHOTS_ENV}=1 to rewrite the snapshot.",
        path.display(),
        line_diff(&expected, &actual)
    );
}

/// Asserts that a tool surface (a `Server`, `tools![...]`, a `ToolDump` or a
/// dumped `serde_json::Value`) equals the snapshot at a path relative to the
/// calling crate's manifest directory.
///
/// ```no_run
/// use mcpfn_runtime::{assert_tools_snapshot, tool, tools};
///
/// /// Say hello.
/// #[tool]
/// async fn hello(name: String) -> String {
///     format!("Hello, {name}!")
/// }
///
/// assert_tools_snapshot!(tools![hello], "tests/tools.json");
/// ```
#[macro_export]
macro_rules! assert_tools_snapshot {
    ($surface:expr, $path:expr $(,)?) => {
        $crate::testing::assert_snapshot(
            &$surface,
            &::std::path::Path::new(::core::env!("CARGO_MANIFEST_DIR")).join($path),
        )
    };
}

/// A unified diff of two texts by lines, with three lines of context.
fn line_diff(old: &str, new: &str) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header("snapshot", "now")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_diff_shows_changes_with_context() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\ni\n";
        let new = "a\nb\nc\nd\nE\nf\ng\nh\ni\n";
        assert_eq!(
            line_diff(old, new),
            "--- snapshot\n+++ now\n@@ -2,7 +2,7 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n"
        );
    }

    #[test]
    fn a_changed_snapshot_fails_and_an_update_rewrites_it() {
        let dir = std::env::temp_dir().join(format!("mcp-snapshot-{}", std::process::id()));
        let path = dir.join("tools.json");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(&path, "{\n  \"tools\": []\n}\n").unwrap();
        let surface = serde_json::json!({"tools": [{"name": "new"}]});
        let failure = std::panic::catch_unwind(|| assert_snapshot(&surface, &path)).unwrap_err();
        let message = failure.downcast_ref::<String>().unwrap();
        assert!(
            message.contains("\n+      \"name\": \"new\"\n"),
            "{message}"
        );
        assert!(message.contains("MCP_UPDATE_SNAPSHOTS=1"), "{message}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
