//! What apps told the host for the model (`ui/update-model-context`):
//! the last update of each app, held until the next user line, which
//! carries it to the model ahead of the person's words.
//!
//! Each update replaces the app's previous one (the extension: "each
//! request overwrites the previous context"); an update identical to the
//! one last carried is not carried again. What an app may say is bounded:
//! [`MAX_CONTEXT_BYTES`] of text per update, [`MAX_APPS`] apps waiting.

use mcpfn_protocol::model::ContentBlock;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Mutex;

/// The most bytes of one app's context (its text blocks and its
/// structured content as JSON).
pub const MAX_CONTEXT_BYTES: usize = 16 * 1024;

/// The most apps whose context waits for the next line; past it the
/// oldest is dropped.
pub const MAX_APPS: usize = 16;

/// One app's update, as its `ui/update-model-context` params say it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ContextUpdate {
    /// Its content blocks; text blocks are carried, others named.
    pub content: Vec<ContentBlock>,
    /// Its structured content.
    pub structured_content: Option<Value>,
}

/// Why an update was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ContextError {
    /// Past [`MAX_CONTEXT_BYTES`].
    #[error(
        "the context of the app of `{server}` is {bytes} bytes, more than the {MAX_CONTEXT_BYTES} a host carries"
    )]
    TooLarge {
        /// The app's server.
        server: String,
        /// How large it was.
        bytes: usize,
    },
}

#[derive(Debug)]
struct Waiting {
    label: String,
    text: String,
    order: u64,
}

/// The apps' contexts of one conversation.
#[derive(Debug, Default)]
pub struct ModelContexts {
    inner: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    waiting: BTreeMap<String, Waiting>,
    /// What each app had carried last, to skip a repeat.
    carried: BTreeMap<String, String>,
    order: u64,
}

impl ModelContexts {
    /// Stores `update` from the app `app` (the host's id of one rendered
    /// app), shown to the model as coming from `server`'s tool `tool`.
    pub fn update(
        &self,
        app: &str,
        server: &str,
        tool: &str,
        update: &ContextUpdate,
    ) -> Result<(), ContextError> {
        let text = render(update);
        if text.len() > MAX_CONTEXT_BYTES {
            return Err(ContextError::TooLarge {
                server: server.to_owned(),
                bytes: text.len(),
            });
        }
        let mut state = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if state.carried.get(app) == Some(&text) {
            state.waiting.remove(app);
            return Ok(());
        }
        state.order += 1;
        let order = state.order;
        state.waiting.insert(
            app.to_owned(),
            Waiting {
                label: format!("the app of `{server}`'s tool `{tool}`"),
                text,
                order,
            },
        );
        if state.waiting.len() > MAX_APPS {
            let oldest = state
                .waiting
                .iter()
                .min_by_key(|(_, w)| w.order)
                .map(|(id, _)| id.clone());
            if let Some(oldest) = oldest {
                state.waiting.remove(&oldest);
            }
        }
        Ok(())
    }

    /// Forgets the app `app` (torn down): its waiting update is dropped.
    pub fn forget(&self, app: &str) {
        let mut state = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        state.waiting.remove(app);
        state.carried.remove(app);
    }

    /// The user line `line` with the waiting updates ahead of it, in the
    /// order they came; they are then carried (not again until changed).
    pub fn line_with_context(&self, line: &str) -> String {
        let mut state = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if state.waiting.is_empty() {
            return line.to_owned();
        }
        let mut waiting: Vec<(String, Waiting)> =
            std::mem::take(&mut state.waiting).into_iter().collect();
        waiting.sort_by_key(|(_, w)| w.order);
        let mut out = String::new();
        for (app, w) in waiting {
            out.push_str(&format!("[Context from {}]\n{}\n\n", w.label, w.text));
            state.carried.insert(app, w.text);
        }
        out.push_str(line);
        out
    }
}

/// The update as text: its text blocks, a note for each other block, its
/// structured content as JSON.
fn render(update: &ContextUpdate) -> String {
    let mut parts: Vec<String> = Vec::new();
    for block in &update.content {
        match block {
            ContentBlock::Text(text) => parts.push(text.text.clone()),
            other => {
                let kind = serde_json::to_value(other)
                    .ok()
                    .and_then(|v| v.get("type").and_then(Value::as_str).map(str::to_owned))
                    .unwrap_or_else(|| "other".to_owned());
                parts.push(format!("({kind} content left out)"));
            }
        }
    }
    if let Some(structured) = &update.structured_content {
        parts.push(structured.to_string());
    }
    parts.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn update(text: &str) -> ContextUpdate {
        serde_json::from_value::<Vec<ContentBlock>>(json!([{"type": "text", "text": text}]))
            .map(|content| ContextUpdate {
                content,
                structured_content: None,
            })
            .unwrap()
    }

    #[test]
    fn the_last_update_goes_with_the_next_line_once() {
        let contexts = ModelContexts::default();
        assert_eq!(contexts.line_with_context("hi"), "hi");
        contexts
            .update("a1", "budget", "get-budget-data", &update("total 10"))
            .unwrap();
        contexts
            .update("a1", "budget", "get-budget-data", &update("total 12"))
            .unwrap();
        let mut with_structured = update("Marketing 40%");
        with_structured.structured_content = Some(json!({"marketing": 40}));
        contexts
            .update("a2", "time", "get-time", &with_structured)
            .unwrap();
        assert_eq!(
            contexts.line_with_context("what now?"),
            "[Context from the app of `budget`'s tool `get-budget-data`]\ntotal 12\n\n\
             [Context from the app of `time`'s tool `get-time`]\nMarketing 40%\n{\"marketing\":40}\n\n\
             what now?"
        );
        assert_eq!(contexts.line_with_context("again"), "again");
        // The same context again is not carried again; a new one is.
        contexts
            .update("a1", "budget", "get-budget-data", &update("total 12"))
            .unwrap();
        assert_eq!(contexts.line_with_context("x"), "x");
        contexts
            .update("a1", "budget", "get-budget-data", &update("total 13"))
            .unwrap();
        assert!(contexts.line_with_context("y").contains("total 13"));
    }

    #[test]
    fn updates_are_bounded_and_forgotten_with_their_app() {
        let contexts = ModelContexts::default();
        let err = contexts
            .update("a", "s", "t", &update(&"x".repeat(MAX_CONTEXT_BYTES + 1)))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "the context of the app of `s` is {} bytes, more than the 16384 a host carries",
                MAX_CONTEXT_BYTES + 1
            )
        );
        for i in 0..MAX_APPS + 2 {
            contexts
                .update(&format!("app{i}"), "s", "t", &update(&format!("n{i}")))
                .unwrap();
        }
        contexts.forget("app5");
        let line = contexts.line_with_context("go");
        assert!(!line.contains("n0\n") && !line.contains("n1\n") && !line.contains("n5\n"));
        assert!(line.contains("n2\n") && line.contains(&format!("n{}\n", MAX_APPS + 1)));
        let image = serde_json::from_value::<Vec<ContentBlock>>(
            json!([{"type": "image", "data": "AA==", "mimeType": "image/png"}]),
        )
        .unwrap();
        contexts
            .update(
                "img",
                "s",
                "t",
                &ContextUpdate {
                    content: image,
                    structured_content: None,
                },
            )
            .unwrap();
        assert!(
            contexts
                .line_with_context("z")
                .contains("(image content left out)")
        );
    }
}
