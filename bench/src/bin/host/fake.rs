//! The scripted model: a fake Anthropic Messages API that answers a user line
//! with one `read_text` call and its result with the final text, checking and
//! recording every request.

use super::{API_KEY, FINAL_TEXT};
use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::{Value, json};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// One request as the fake saw it.
#[derive(Clone, Debug)]
pub(crate) struct Seen {
    /// The user line it belongs to (1-based): the user messages with text.
    pub(crate) line: usize,
    /// Its body's size.
    pub(crate) bytes: usize,
}

/// The fake Messages API's state, shared with the driver.
#[derive(Debug, Default)]
pub(crate) struct Fake {
    /// The size of every `read_text` result.
    pub(crate) bytes: usize,
    pub(crate) seen: Mutex<Vec<Seen>>,
    /// What was wrong with requests, reported after the run.
    pub(crate) problems: Mutex<Vec<String>>,
    pub(crate) next_id: AtomicU64,
}

impl Fake {
    /// Forgets the previous run.
    pub(crate) fn take(&self) -> (Vec<Seen>, Vec<String>) {
        let seen = std::mem::take(&mut *self.seen.lock().unwrap_or_else(|e| e.into_inner()));
        let problems =
            std::mem::take(&mut *self.problems.lock().unwrap_or_else(|e| e.into_inner()));
        (seen, problems)
    }

    pub(crate) fn problem(&self, text: String) {
        self.problems
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(text);
    }
}

/// An Anthropic error response.
pub(crate) fn api_error(status: StatusCode, kind: &str, message: &str) -> Response<Full<Bytes>> {
    let body = json!({"type": "error", "error": {"type": kind, "message": message}});
    let mut response = Response::new(Full::new(Bytes::from(body.to_string())));
    *response.status_mut() = status;
    response
}

/// The text of a `tool_result`'s content: a string or text blocks.
pub(crate) fn result_text_len(content: &Value) -> Option<usize> {
    match content {
        Value::String(text) => Some(text.len()),
        Value::Array(blocks) => blocks
            .iter()
            .map(|b| (b["type"] == "text").then(|| b["text"].as_str().map(str::len))?)
            .sum(),
        _ => None,
    }
}

/// Whether `message` is a user message with the user's own text.
pub(crate) fn is_user_line(message: &Value) -> bool {
    message["role"] == "user"
        && match &message["content"] {
            Value::String(_) => true,
            Value::Array(blocks) => blocks.iter().any(|b| b["type"] == "text"),
            _ => false,
        }
}

/// Answers one request of a subject.
pub(crate) async fn answer(request: Request<Incoming>, fake: Arc<Fake>) -> Response<Full<Bytes>> {
    if request.method() != Method::POST || request.uri().path() != "/v1/messages" {
        fake.problem(format!("{} {}", request.method(), request.uri()));
        return api_error(StatusCode::NOT_FOUND, "not_found_error", "no such endpoint");
    }
    let headers = request.headers();
    if headers.get("x-api-key").and_then(|v| v.to_str().ok()) != Some(API_KEY) {
        return api_error(
            StatusCode::UNAUTHORIZED,
            "authentication_error",
            "invalid x-api-key",
        );
    }
    if headers
        .get("anthropic-version")
        .and_then(|v| v.to_str().ok())
        != Some("2023-06-01")
    {
        fake.problem("no anthropic-version: 2023-06-01".into());
    }
    let Ok(body) = request.into_body().collect().await else {
        return api_error(StatusCode::BAD_REQUEST, "invalid_request_error", "body");
    };
    let body = body.to_bytes();
    let Ok(request) = serde_json::from_slice::<Value>(&body) else {
        fake.problem("a body that is not JSON".into());
        return api_error(StatusCode::BAD_REQUEST, "invalid_request_error", "not JSON");
    };
    let messages = request["messages"]
        .as_array()
        .map_or(&[][..], Vec::as_slice);
    let line = messages.iter().filter(|m| is_user_line(m)).count();
    let Some(tool) = request["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["name"].as_str())
        .find(|name| name.ends_with("read_text"))
    else {
        fake.problem(format!("line {line}: read_text not offered"));
        return api_error(StatusCode::BAD_REQUEST, "invalid_request_error", "no tool");
    };
    let last = messages.last().map_or(&Value::Null, |m| &m["content"]);
    let results: Vec<&Value> = last
        .as_array()
        .into_iter()
        .flatten()
        .filter(|b| b["type"] == "tool_result")
        .collect();
    for result in &results {
        let len = result_text_len(&result["content"]);
        if len != Some(fake.bytes) || result["is_error"] == true {
            fake.problem(format!(
                "line {line}: a tool_result of {len:?} bytes (is_error {})",
                result["is_error"]
            ));
        }
    }
    fake.seen
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(Seen {
            line,
            bytes: body.len(),
        });
    let id = fake.next_id.fetch_add(1, Ordering::Relaxed);
    // About 4 bytes a token, as for English text.
    let input_tokens = body.len() / 4;
    let response = if results.is_empty() {
        json!({
            "id": format!("msg_{id}"), "type": "message", "role": "assistant",
            "model": request["model"],
            "content": [
                {"type": "text", "text": "I will read the page."},
                {"type": "tool_use", "id": format!("toolu_{id}"), "name": tool,
                 "input": {"bytes": fake.bytes}},
            ],
            "stop_reason": "tool_use", "stop_sequence": null,
            "usage": {"input_tokens": input_tokens, "output_tokens": 40},
        })
    } else {
        json!({
            "id": format!("msg_{id}"), "type": "message", "role": "assistant",
            "model": request["model"],
            "content": [{"type": "text", "text": FINAL_TEXT}],
            "stop_reason": "end_turn", "stop_sequence": null,
            "usage": {"input_tokens": input_tokens, "output_tokens": 8},
        })
    };
    let mut response = Response::new(Full::new(Bytes::from(response.to_string())));
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    response
}
