// Reaching into `State<T>` for its `Arc`: the field is private, and the
// value's own methods are reached through `Deref` (`notes.lock()`).

use mcpfn_runtime::{State, tool, tools};
use std::sync::Mutex;

/// Keep a note.
#[tool]
async fn note(notes: State<Mutex<Vec<String>>>, text: String) -> String {
    let mut notes = notes.0.lock().unwrap();
    notes.push(text);
    notes.len().to_string()
}

fn main() {
    let _ = tools![note];
}
