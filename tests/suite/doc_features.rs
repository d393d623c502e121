//! Every doc example (the crate docs, the README, mcp-macros' crate docs and
//! the server's guide in `docs/`, which mcp-runtime includes as doctests)
//! compiles with exactly the dependencies the README tells users to add:
//! mcp-runtime's dev-dependencies on tokio carry exactly the README's tokio
//! features, and the doctests are built for mcp-runtime alone, so no other
//! workspace member's features leak into them.

use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The `features = [...]` list on the first line of `text` after `after` that
/// starts with `tokio =`.
fn tokio_features(text: &str, after: &str) -> Vec<String> {
    let start = text
        .find(after)
        .unwrap_or_else(|| panic!("`{after}` not found"));
    let line = text[start..]
        .lines()
        .find(|l| l.trim_start().starts_with("tokio ="))
        .unwrap_or_else(|| panic!("no tokio dependency after `{after}`"));
    let list = &line[line.find("features = [").expect("a features list") + 12..];
    let list = &list[..list.find(']').expect("closed features list")];
    let mut features: Vec<String> = list
        .split(',')
        .map(|f| f.trim().trim_matches('"').to_owned())
        .filter(|f| !f.is_empty())
        .collect();
    features.sort();
    features
}

#[test]
fn doc_examples_use_the_readme_tokio_features() {
    let root = workspace_root();
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README");
    let manifest = std::fs::read_to_string(root.join("mcp-runtime/Cargo.toml")).expect("manifest");
    let told = tokio_features(&readme, "## Install");
    let tested = tokio_features(&manifest, "[dev-dependencies]");
    assert_eq!(
        told, tested,
        "the README's tokio features and mcp-runtime's dev-dependency features differ"
    );
}

#[test]
fn doc_examples_compile_with_those_features() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(cargo)
        .current_dir(workspace_root())
        .args(["test", "-p", "mcpfn-runtime", "--doc"])
        .output()
        .expect("cargo runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "doctests failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // The files of the guide that hold Rust examples: each must be among
    // the doctests, so none of its examples goes uncompiled.
    for file in [
        "README.md",
        "mcp-macros/README.md",
        "docs/tools.md",
        "docs/context.md",
        "docs/apps.md",
        "docs/tool-dumps.md",
        "docs/testing.md",
        "docs/subscriptions.md",
    ] {
        assert!(
            stdout.contains(file),
            "{file} is not among the doctests:\n{stdout}"
        );
    }
}
