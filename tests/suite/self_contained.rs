//! The repository carries what its tests need: a fresh clone into an empty
//! directory must pass `cargo test`, so no source, test or script may reach
//! for a path outside the repository.

use std::path::{Path, PathBuf};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .expect("workspace root")
}

/// Files whose text could name a path the tests or CI read.
fn scanned_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable directory") {
        let path = entry.expect("directory entry").path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_dir() {
            if !matches!(
                name,
                "target" | "node_modules" | ".git" | "corpus" | "artifacts"
            ) {
                scanned_files(&path, out);
            }
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("rs" | "toml" | "sh" | "mjs" | "py" | "json")
        ) || name == "run"
        {
            out.push(path);
        }
    }
}

/// Every `../` chain in `text` that, resolved from the file's folder, leaves
/// the repository.
fn escaping_paths(root: &Path, file: &Path, text: &str) -> Vec<String> {
    let folder = file.parent().expect("file has a folder");
    let depth = folder
        .strip_prefix(root)
        .expect("inside root")
        .components()
        .count();
    let mut found = Vec::new();
    for (at, _) in text.match_indices("../") {
        if at >= 3 && &text[at - 3..at] == "../" {
            continue; // counted from the start of its chain
        }
        let ups = text.as_bytes()[at..]
            .chunks(3)
            .take_while(|c| *c == b"../")
            .count();
        if ups > depth {
            let end = text[at..]
                .find(|c: char| c.is_whitespace() || c == '"' || c == '\'' || c == ')')
                .map_or(text.len(), |e| at + e);
            found.push(text[at..end].to_owned());
        }
    }
    found
}

#[test]
fn no_file_reaches_outside_the_repository() {
    let root = workspace_root();
    let mut files = Vec::new();
    scanned_files(&root, &mut files);
    assert!(files.len() > 20, "scanned too few files: {}", files.len());
    let mut offenders = Vec::new();
    for file in files {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        for path in escaping_paths(&root, &file, &text) {
            offenders.push(format!(
                "{}: {path}",
                file.strip_prefix(&root).unwrap().display()
            ));
        }
        // The folder beside the repository that development sessions have
        // (joined to the workspace root, a chain of `../` is not needed).
        if file.file_name() != Some("self_contained.rs".as_ref())
            && text.contains(concat!("shared", "/spec"))
        {
            offenders.push(format!(
                "{}: names the spec folder beside the repository",
                file.display()
            ));
        }
    }
    assert!(
        offenders.is_empty(),
        "paths outside the repository:\n{}",
        offenders.join("\n")
    );
}

#[test]
fn the_official_schemas_are_in_the_repository() {
    let dir = workspace_root().join("tests/schemas");
    for file in [
        "2025-06-18.schema.json",
        "2025-11-25.schema.json",
        "draft.schema.json",
    ] {
        let text = std::fs::read_to_string(dir.join(file)).expect("schema copy present");
        let doc: serde_json::Value = serde_json::from_str(&text).expect("schema is JSON");
        assert!(doc.get("$schema").is_some(), "{file} is a JSON schema");
    }
}
