//! The official SDK clients on the server surface beyond tools: the
//! TypeScript SDK (v1, the `initialize` handshake) and the Python SDK
//! (`mode="legacy"` and the default `mode="auto"`, which speaks
//! 2026-07-28) drive `everything` over stdio and Streamable HTTP through
//! `tests/interop/surface_client.{mjs,py}`: resources/list,
//! resources/templates/list, resources/read of a text, of bytes and of a
//! template, a subscription to `everything://bonus` and the update that
//! `toggle_bonus` sends (`resources/subscribe` in the legacy era,
//! `subscriptions/listen` in 2026-07-28), prompts/list, prompts/get with
//! arguments, and completion/complete of a prompt argument and of two
//! template variables (one from the other). Each script prints what its
//! SDK parsed; the test compares it whole. Clients, pins and installs are
//! those of `interop.rs`.

use super::interop::{HttpServer, python_client, run_client, server};
use crate::common::node;
use serde_json::{Value, json};
use std::process::Command;

/// What every client must see of `everything`, whatever its SDK, era and
/// transport.
fn surface() -> Value {
    let text = |uri: &str, text: &str| json!({"uri": uri, "mimeType": "text/plain", "text": text});
    let one = |value: &str| json!({"values": [value], "total": 1, "hasMore": false});
    json!({
        "resources": [
            {"name": "stats_app", "title": "Stats", "uri": "ui://everything/stats.html",
             "description": "The numbers `stats` was called with as bars, and their statistics; its Sort button calls `stats_sort`.",
             "mimeType": "text/html;profile=mcp-app", "_meta": {"ui": {"prefersBorder": true}}},
            {"name": "about", "title": "About everything", "uri": "everything://about",
             "description": "What this server is, and what it serves.", "mimeType": "text/plain"},
            {"name": "pixel", "uri": "everything://pixel.png",
             "description": "A 1x1 PNG, for reading bytes (sent base64).", "mimeType": "image/png"},
            {"name": "bonus_state", "uri": "everything://bonus",
             "description": "Whether the `bonus` tool is listed; `toggle_bonus` tells its\nsubscribers when it changes.",
             "mimeType": "text/plain"},
        ],
        "templates": [
            {"name": "filler", "uriTemplate": "everything://filler/{bytes}",
             "description": "A text of `bytes` bytes (at most 16 MiB), for load tests and benchmarks.",
             "mimeType": "text/plain"},
            {"name": "greeting", "uriTemplate": "everything://greeting/{language}/{name}",
             "description": "A greeting in a language, for a name; both variables complete, the\nname from the language already chosen.",
             "mimeType": "text/plain"},
        ],
        "text": [text("everything://about",
            "everything: a kitchen-sink MCP server of mcp-runtime. Its tools show structured and text results, errors, progress, logs, cancellation, elicitation and tasks; its resources are this text, a PNG, the bonus tool's state and the templates everything://filler/{bytes} and everything://greeting/{language}/{name}.")],
        "binary": [{"uri": "everything://pixel.png", "mimeType": "image/png",
            "blob": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="}],
        "templated": [text("everything://greeting/French/Bastien", "Bonjour, Bastien!")],
        // `toggle_bonus` hid the tool, and told the subscriber.
        "bonusBefore": "listed",
        "updates": ["everything://bonus"],
        "bonusAfter": "hidden",
        "prompts": [{"name": "translate", "title": "Translate",
            "description": "Translate a text, keeping its tone",
            "arguments": [
                {"name": "language", "description": "The language to translate into", "required": true},
                {"name": "text", "description": "The text to translate", "required": true},
                {"name": "tone", "description": "The tone to keep, e.g. \"formal\" (the text's own when absent)"}]}],
        "prompt": {"description": "Translate a text, keeping its tone", "messages": [
            {"role": "user", "content": {"type": "text",
                "text": "Translate the text below into French, in a formal tone. Answer with the translation only."}},
            {"role": "user", "content": {"type": "text", "text": "Good morning"}}]},
        "completions": {
            "language": one("Swedish"),
            "greetingLanguage": one("German"),
            // Completed from the language given: French.
            "greetingName": one("Bastien"),
        },
    })
}

/// [`surface`] with the fields that say who saw it.
fn expected(header: Value) -> Value {
    let mut expected = surface();
    for (key, value) in header.as_object().expect("an object") {
        expected[key] = value.clone();
    }
    expected
}

fn typescript(transport: &str, target: &str) -> Value {
    let mut cmd = Command::new("node");
    cmd.arg(node::interop_dir().join("surface_client.mjs"))
        .args([transport, target]);
    run_client(&format!("typescript surface ({transport})"), cmd, 0)
}

fn python(mode: &str, transport: &str, target: &str) -> Value {
    let mut cmd = Command::new(python_client());
    cmd.arg(super::interop::interop_dir().join("surface_client.py"))
        .args(["--mode", mode, transport, target]);
    run_client(&format!("python surface ({mode}, {transport})"), cmd, 0)
}

fn everything() -> &'static str {
    server().to_str().expect("a UTF-8 path")
}

#[test]
fn typescript_sdk_client_uses_the_surface_over_stdio() {
    assert_eq!(
        typescript("stdio", everything()),
        expected(json!({"client": "typescript", "sdkVersion": "1.32.2", "transport": "stdio"}))
    );
}

#[test]
fn typescript_sdk_client_uses_the_surface_over_http() {
    let http = HttpServer::start();
    assert_eq!(
        typescript("http", &http.url),
        expected(json!({"client": "typescript", "sdkVersion": "1.32.2", "transport": "http"}))
    );
}

/// Who the Python client is in `mode` over `transport`.
fn python_header(mode: &str, transport: &str) -> Value {
    let (version, era) = match mode {
        "legacy" => ("2025-11-25", "legacy"),
        _ => ("2026-07-28", "modern"),
    };
    json!({"client": "python", "sdkVersion": "2.3.0", "transport": transport, "mode": mode,
        "negotiatedProtocolVersion": version, "era": era})
}

#[test]
fn python_sdk_client_uses_the_surface_over_stdio_in_both_eras() {
    for mode in ["legacy", "auto"] {
        assert_eq!(
            python(mode, "stdio", everything()),
            expected(python_header(mode, "stdio")),
            "{mode}"
        );
    }
}

#[test]
fn python_sdk_client_uses_the_surface_over_http_in_both_eras() {
    for mode in ["legacy", "auto"] {
        let http = HttpServer::start();
        assert_eq!(
            python(mode, "http", &http.url),
            expected(python_header(mode, "http")),
            "{mode}"
        );
    }
}
