//! The fake Messages API that accounts prompt caching as Anthropic bills it:
//! cache writes and reads per breakpoint over a lookback window, and the input
//! price of each request.

use super::FINAL_TEXT;
use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response};
use serde_json::{Value, json};
use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The documented 20-block lookback: the breakpoint and 19 blocks before.
pub(crate) const LOOKBACK: usize = 20;
/// Claude Sonnet 4.6's smallest cacheable prefix, in tokens.
pub(crate) const MIN_CACHEABLE: u64 = 1024;
/// Claude Sonnet 4.6's base input price, dollars per million tokens.
pub(crate) const INPUT_PRICE: f64 = 3.0;
/// Tokens of one request as the fake billed them.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Billed {
    /// Plain input: neither read nor written.
    pub(crate) input: u64,
    pub(crate) written: u64,
    pub(crate) read: u64,
    pub(crate) requests: u64,
    /// The largest request body, in bytes.
    pub(crate) max_body: usize,
    /// The last request body, in bytes.
    pub(crate) last_body: usize,
}

impl Billed {
    pub(crate) fn prompt(&self) -> u64 {
        self.input + self.written + self.read
    }

    /// The input in base-price tokens: writes at 1.25×, reads at 0.1×.
    pub(crate) fn base_tokens(&self) -> f64 {
        self.input as f64 + 1.25 * self.written as f64 + 0.1 * self.read as f64
    }

    pub(crate) fn dollars(&self) -> f64 {
        self.base_tokens() * INPUT_PRICE / 1e6
    }
}

/// The fake API: its cache and what it billed since the last `take`.
#[derive(Debug, Default)]
pub(crate) struct Fake {
    pub(crate) bytes: usize,
    pub(crate) cache: Mutex<HashSet<u64>>,
    pub(crate) billed: Mutex<Billed>,
    pub(crate) problems: Mutex<Vec<String>>,
    pub(crate) next_id: AtomicU64,
}

impl Fake {
    /// What was billed since the last call, the cache emptied (each run
    /// starts cold, as another conversation an hour later would).
    pub(crate) fn take(&self) -> (Billed, Vec<String>) {
        self.cache.lock().unwrap().clear();
        let billed = std::mem::take(&mut *self.billed.lock().unwrap());
        let problems = std::mem::take(&mut *self.problems.lock().unwrap());
        (billed, problems)
    }

    /// Accounts one request: `(plain input, written, read)`.
    pub(crate) fn account(&self, body: &Value, size: usize) -> (u64, u64, u64) {
        let blocks = blocks(body);
        // prefix[i]: tokens of blocks 0..i; hash[i]: the prefix 0..=i.
        let mut prefix = vec![0u64];
        let mut hashes = Vec::with_capacity(blocks.len());
        let mut hasher = DefaultHasher::new();
        let mut breakpoints = Vec::new();
        for (i, (text, marked)) in blocks.iter().enumerate() {
            text.hash(&mut hasher);
            hashes.push(hasher.finish());
            prefix.push(prefix[i] + (text.len() as u64).div_ceil(4));
            if *marked {
                breakpoints.push(i);
            }
        }
        let total = *prefix.last().unwrap_or(&0);
        let mut cache = self.cache.lock().unwrap();
        let mut read_to = 0;
        for &b in &breakpoints {
            let hit = (b.saturating_sub(LOOKBACK - 1)..=b)
                .rev()
                .find(|&j| cache.contains(&hashes[j]));
            if let Some(j) = hit {
                read_to = read_to.max(j + 1);
            }
        }
        let read = prefix[read_to];
        let mut written = 0;
        if let Some(&last) = breakpoints.last()
            && prefix[last + 1] >= MIN_CACHEABLE
        {
            written = prefix[last + 1].saturating_sub(read);
            for &b in &breakpoints {
                if prefix[b + 1] >= MIN_CACHEABLE {
                    cache.insert(hashes[b]);
                }
            }
        }
        let input = total - read - written;
        let mut billed = self.billed.lock().unwrap();
        billed.input += input;
        billed.written += written;
        billed.read += read;
        billed.requests += 1;
        billed.max_body = billed.max_body.max(size);
        billed.last_body = size;
        (input, written, read)
    }
}

/// The prompt's blocks in rendering order, each as JSON without its
/// `cache_control`, and whether it carried one. A message's role goes
/// with its first block.
pub(crate) fn blocks(body: &Value) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut push = |block: &Value, prefix: &str| {
        let mut plain = block.clone();
        let marked = plain
            .as_object_mut()
            .and_then(|b| b.remove("cache_control"))
            .is_some();
        out.push((format!("{prefix}{plain}"), marked));
    };
    for tool in body["tools"].as_array().into_iter().flatten() {
        push(tool, "");
    }
    let content = |content: &Value| -> Vec<Value> {
        match content {
            Value::String(text) => vec![json!({"type": "text", "text": text})],
            Value::Array(blocks) => blocks.clone(),
            _ => Vec::new(),
        }
    };
    for block in content(&body["system"]) {
        push(&block, "");
    }
    for message in body["messages"].as_array().into_iter().flatten() {
        let role = format!("<{}>", message["role"]);
        for (i, block) in content(&message["content"]).iter().enumerate() {
            push(block, if i == 0 { &role } else { "" });
        }
    }
    out
}

/// Answers one request: a `read_text` call to a user's line, the final
/// text to a tool result; the usage as the fake billed it.
pub(crate) async fn answer(request: Request<Incoming>, fake: Arc<Fake>) -> Response<Full<Bytes>> {
    let body = request
        .into_body()
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let (input, written, read) = fake.account(&request, body.len());
    let id = fake.next_id.fetch_add(1, Ordering::Relaxed);
    let last = &request["messages"]
        .as_array()
        .and_then(|m| m.last())
        .cloned();
    let answers_a_tool = last.as_ref().is_some_and(|m| {
        m["content"]
            .as_array()
            .is_some_and(|b| b.iter().any(|b| b["type"] == "tool_result"))
    });
    let tool = request["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["name"].as_str())
        .find(|name| name.ends_with("read_text"))
        .unwrap_or("read_text")
        .to_owned();
    if request["tools"].as_array().is_none_or(Vec::is_empty) {
        fake.problems
            .lock()
            .unwrap()
            .push("a request with no tools".into());
    }
    let usage = json!({
        "input_tokens": input, "output_tokens": 20,
        "cache_creation_input_tokens": written, "cache_read_input_tokens": read,
    });
    let content = if answers_a_tool {
        json!([{"type": "text", "text": FINAL_TEXT}])
    } else {
        json!([
            {"type": "text", "text": "I will read the page."},
            {"type": "tool_use", "id": format!("toolu_{id}"), "name": tool, "input": {"bytes": fake.bytes}},
        ])
    };
    let stop = if answers_a_tool {
        "end_turn"
    } else {
        "tool_use"
    };
    let response = json!({
        "id": format!("msg_{id}"), "type": "message", "role": "assistant",
        "model": request["model"], "content": content,
        "stop_reason": stop, "stop_sequence": null, "usage": usage,
    });
    let mut response = Response::new(Full::new(Bytes::from(response.to_string())));
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    response
}
