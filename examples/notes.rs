//! Run with: cargo run --release --example notes
//!
//! A small, realistic server: an in-memory notebook a model can write to,
//! search and read back, with tool errors the model can act on.

use mcpfn_runtime::{Server, ToolError, tool, tools};
use schemars::JsonSchema;
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::{LazyLock, Mutex};

/// The notebook: title -> body. A real server would use a database; the
/// global keeps the example to one file.
static NOTES: LazyLock<Mutex<BTreeMap<String, String>>> = LazyLock::new(Default::default);

fn notes() -> std::sync::MutexGuard<'static, BTreeMap<String, String>> {
    // A poisoned lock only means an earlier call panicked mid-write; the map is still usable.
    NOTES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A stored note.
#[derive(Serialize, JsonSchema)]
struct Note {
    /// The note's unique title
    title: String,
    /// The note's text
    body: String,
}

/// Titles matching a search.
#[derive(Serialize, JsonSchema)]
struct Matches {
    /// Titles of matching notes, alphabetically
    titles: Vec<String>,
}

/// Save a note under a title, replacing any note with that title.
#[tool(idempotent, open_world = false)]
async fn save_note(
    /// Unique title, 1 to 100 characters
    title: String,
    /// The note's text
    body: String,
) -> Result<Note, ToolError> {
    let title = title.trim().to_owned();
    if title.is_empty() || title.chars().count() > 100 {
        return Err(ToolError::new("title must be 1 to 100 characters"));
    }
    notes().insert(title.clone(), body.clone());
    Ok(Note { title, body })
}

/// Read a note by its exact title.
#[tool(read_only, open_world = false)]
async fn read_note(
    /// Exact title of the note
    title: String,
) -> Result<Note, ToolError> {
    let notes = notes();
    match notes.get(&title) {
        Some(body) => Ok(Note {
            title,
            body: body.clone(),
        }),
        None => Err(ToolError::new(format!(
            "no note is titled {title:?}; call search_notes to find titles"
        ))),
    }
}

/// Find notes whose title or text contains a word (case-insensitive).
#[tool(read_only, open_world = false)]
async fn search_notes(
    /// Word or phrase to look for; every note matches when absent
    query: Option<String>,
) -> Matches {
    let query = query.unwrap_or_default().to_lowercase();
    let titles = notes()
        .iter()
        .filter(|(title, body)| {
            title.to_lowercase().contains(&query) || body.to_lowercase().contains(&query)
        })
        .map(|(title, _)| title.clone())
        .collect();
    Matches { titles }
}

/// Delete a note by its exact title.
#[tool(destructive, idempotent, open_world = false)]
async fn delete_note(
    /// Exact title of the note
    title: String,
) -> Result<String, ToolError> {
    match notes().remove(&title) {
        Some(_) => Ok(format!("deleted {title:?}")),
        None => Err(ToolError::new(format!("no note is titled {title:?}"))),
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let server = Server::new("notes", env!("CARGO_PKG_VERSION"))
        .instructions("A notebook: save_note, read_note, search_notes, delete_note.")
        .tools(tools![save_note, read_note, search_notes, delete_note]);
    // Serves stdio, or prints the tools for `--dump-tools`.
    mcpfn_runtime::cli::run(server).await
}
