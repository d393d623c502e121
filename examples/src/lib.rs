//! Runnable examples live beside this file; see `everything.rs` and `notes.rs`.
