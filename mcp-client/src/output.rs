//! A tool's `outputSchema` validator, compiled when a result of that tool
//! first arrives (never when the tools are listed), within limits, and on
//! the runtime's blocking pool: a schema is a server's text, and a few KiB
//! of Unicode regular expressions can take a compiler seconds and hundreds
//! of MiB. A schema over the limits, one that does not compile, or one
//! whose compile takes past [`COMPILE_TIMEOUT`] is skipped with one warning
//! naming the server and the tool; that tool's results then pass on
//! unvalidated.

use jsonschema::{PatternOptions, Validator};
use mcpfn_protocol::model::CallToolResult;
use serde_json::Value;
use serde_json::value::RawValue;
use std::sync::Arc;
use std::time::Duration;

/// The most values (objects, arrays, strings, numbers…) an `outputSchema`
/// may hold to be compiled.
pub const MAX_SCHEMA_VALUES: usize = 10_000;

/// The most bytes of text (keys and strings) an `outputSchema` may hold to
/// be compiled.
pub const MAX_SCHEMA_TEXT_BYTES: usize = 256 * 1024;

/// The longest regular expression (a `pattern` value or a
/// `patternProperties` key) compiled.
pub const MAX_PATTERN_BYTES: usize = 1024;

/// The most regular expressions one `outputSchema` may hold to be compiled.
pub const MAX_PATTERNS: usize = 32;

/// The bound on each compiled regular expression (the regex crate's
/// `size_limit`; its default is 10 MiB).
pub const PATTERN_SIZE_LIMIT: usize = 1 << 20;

/// The bound on each regular expression's lazy DFA cache (the regex crate's
/// `dfa_size_limit`).
pub const PATTERN_DFA_SIZE_LIMIT: usize = 1 << 20;

/// How long a compile may take before the tool's results pass unvalidated.
pub const COMPILE_TIMEOUT: Duration = Duration::from_secs(5);

/// The `outputSchema` of one tool, kept as text (far less memory than its
/// tree) until a result arrives, then its validator (`None`: skipped,
/// warned once).
pub(super) struct OutputCheck {
    schema: Arc<RawValue>,
    validator: tokio::sync::OnceCell<Option<Arc<Validator>>>,
}

impl OutputCheck {
    pub(super) fn new(schema: &serde_json::Map<String, Value>) -> OutputCheck {
        let text = serde_json::value::to_raw_value(schema)
            .unwrap_or_else(|_| unreachable!("a JSON object serializes"));
        OutputCheck {
            schema: Arc::from(text),
            validator: tokio::sync::OnceCell::new(),
        }
    }

    /// The validator, compiled on first use; `None` when the schema was
    /// skipped (a warning naming `server` and `tool` said why).
    pub(super) async fn validator(&self, server: &str, tool: &str) -> Option<Arc<Validator>> {
        self.validator
            .get_or_init(|| async {
                let compiled = compile(Arc::clone(&self.schema)).await;
                compiled
                    .map_err(|reason| {
                        tracing::warn!(server = %server, tool = %tool, %reason, "outputSchema skipped: this tool's results are passed on unvalidated");
                    })
                    .ok()
            })
            .await
            .clone()
    }
}

async fn compile(schema: Arc<RawValue>) -> Result<Arc<Validator>, String> {
    let patterns = PatternOptions::fancy_regex()
        .size_limit(PATTERN_SIZE_LIMIT)
        .dfa_size_limit(PATTERN_DFA_SIZE_LIMIT);
    let build = tokio::task::spawn_blocking(move || {
        let schema: Value = serde_json::from_str(schema.get())
            .unwrap_or_else(|_| unreachable!("the text was serialized from a JSON object"));
        within_limits(&schema)?;
        jsonschema::options()
            .with_pattern_options(patterns)
            .build(&schema)
            .map(Arc::new)
            .map_err(|e| format!("it does not compile: {e}"))
    });
    match tokio::time::timeout(COMPILE_TIMEOUT, build).await {
        Ok(Ok(built)) => built,
        Ok(Err(e)) => Err(format!("its compile failed: {e}")),
        Err(_) => Err(format!(
            "its compile took more than {} s",
            COMPILE_TIMEOUT.as_secs()
        )),
    }
}

/// Whether `schema` is small enough to compile: values, text and regular
/// expressions counted on the tree, without compiling anything.
fn within_limits(schema: &Value) -> Result<(), String> {
    let mut values = 0usize;
    let mut text = 0usize;
    let mut patterns = 0usize;
    let mut stack = vec![schema];
    while let Some(value) = stack.pop() {
        values += 1;
        if values > MAX_SCHEMA_VALUES {
            return Err(format!("it holds more than {MAX_SCHEMA_VALUES} values"));
        }
        match value {
            Value::String(s) => text += s.len(),
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => {
                for (key, sub) in map {
                    text += key.len();
                    let regexes: Vec<&str> = match (key.as_str(), sub) {
                        ("pattern", Value::String(p)) => vec![p],
                        ("patternProperties", Value::Object(keys)) => {
                            keys.keys().map(String::as_str).collect()
                        }
                        _ => Vec::new(),
                    };
                    for regex in regexes {
                        patterns += 1;
                        if regex.len() > MAX_PATTERN_BYTES {
                            return Err(format!(
                                "a regular expression of {} bytes (more than {MAX_PATTERN_BYTES})",
                                regex.len()
                            ));
                        }
                        if patterns > MAX_PATTERNS {
                            return Err(format!(
                                "it holds more than {MAX_PATTERNS} regular expressions"
                            ));
                        }
                    }
                    stack.push(sub);
                }
            }
            _ => {}
        }
        if text > MAX_SCHEMA_TEXT_BYTES {
            return Err(format!(
                "it holds more than {MAX_SCHEMA_TEXT_BYTES} bytes of text"
            ));
        }
    }
    Ok(())
}

/// The `isError` result passed on in place of one whose
/// `structuredContent` breaks the tool's `outputSchema` (`reason`: the first
/// violation), so the caller (a model) learns why it got nothing usable.
pub(crate) fn discarded(reason: &str) -> CallToolResult {
    CallToolResult::error(format!(
        "The tool's structured result does not match its output schema ({reason}); it was discarded."
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn real_patterns_compile_within_the_limits() {
        let schema = json!({
            "type": "object",
            "properties": {
                "email": {"type": "string", "pattern": "^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\\.[a-zA-Z]{2,}$"},
                "word": {"type": "string", "pattern": "^[\\p{L}\\w\\s'-]+$"},
                "date": {"type": "string", "pattern": "^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2})?)?$"},
            },
            "patternProperties": {"^x-[\\w-]{1,64}$": {"type": "string"}},
        });
        let schema = OutputCheck::new(schema.as_object().unwrap()).schema;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let validator = runtime.block_on(compile(schema)).unwrap();
        assert!(validator.is_valid(&json!({"email": "ada@example.org", "word": "Ünïcödé"})));
        assert!(!validator.is_valid(&json!({"email": "no"})));
    }

    #[test]
    fn a_discarded_result_says_why() {
        let result = discarded("/temp: expected number");
        assert!(result.is_error);
        let text = serde_json::to_value(&result).unwrap()["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(
            text.contains("does not match its output schema (/temp: expected number)"),
            "{text}"
        );
    }

    #[test]
    fn oversized_schemas_are_refused_before_compiling() {
        let long = "a".repeat(MAX_PATTERN_BYTES + 1);
        assert!(within_limits(&json!({"pattern": long})).is_err());
        let many: serde_json::Map<String, Value> = (0..=MAX_PATTERNS)
            .map(|i| (format!("^p{i}$"), json!({})))
            .collect();
        assert!(within_limits(&json!({ "patternProperties": many })).is_err());
        let wide: Vec<Value> = (0..MAX_SCHEMA_VALUES).map(|_| json!(1)).collect();
        assert!(within_limits(&json!({ "enum": wide })).is_err());
        assert!(within_limits(&json!({"type": "object", "pattern": "^a+$"})).is_ok());
    }
}
