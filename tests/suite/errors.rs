//! Error text: one rule for every error type (its text, then each distinct
//! source once); non-finite floats in structured output become `isError`
//! results over stdio; tools that take `Context` or `State<T>` called
//! directly in unit tests.

use crate::common;

use common::{Peer, call};
use mcpfn_runtime::{Context, Level, State, ToolError, tool};
use serde_json::json;
use std::error::Error;
use std::fmt;

/// A config error whose text repeats its source, as many errors do.
#[derive(Debug)]
struct ConfigError {
    source: std::io::Error,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot read the config: {}", self.source)
    }
}

impl Error for ConfigError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        Some(&self.source)
    }
}

/// A chain of three whose texts do not repeat each other.
#[derive(Debug)]
struct Layer {
    text: &'static str,
    source: Option<Box<Layer>>,
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text)
    }
}

impl Error for Layer {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        self.source.as_deref().map(|s| s as &(dyn Error + 'static))
    }
}

fn chain() -> Layer {
    Layer {
        text: "cannot save the note",
        source: Some(Box::new(Layer {
            text: "the disk is full",
            source: Some(Box::new(Layer {
                text: "device /dev/sda1 has 0 bytes left",
                source: None,
            })),
        })),
    }
}

fn missing_file() -> std::io::Error {
    std::fs::read("/no/such/file/anywhere").unwrap_err()
}

#[test]
fn an_io_error_is_said_once() {
    let from_io = ToolError::from(missing_file());
    assert_eq!(from_io.message(), missing_file().to_string());
    assert_eq!(from_io.message().matches("(os error").count(), 1);

    // An io::Error wrapping another error whose text it repeats.
    let wrapped = std::io::Error::other(ConfigError {
        source: missing_file(),
    });
    let message = ToolError::from(wrapped).to_string();
    assert_eq!(
        message.matches("No such file").count(),
        1,
        "each text once: {message}"
    );
}

#[test]
fn a_custom_chain_keeps_each_distinct_source_once() {
    assert_eq!(
        ToolError::from(chain()).message(),
        "cannot save the note: the disk is full: device /dev/sda1 has 0 bytes left"
    );
    let repeating = ConfigError {
        source: missing_file(),
    };
    assert_eq!(
        ToolError::from(repeating).message(),
        format!("cannot read the config: {}", missing_file()),
        "a source already in the text is not repeated"
    );
}

#[test]
fn anyhow_errors_keep_their_context_chain() {
    use anyhow::Context as _;
    let err = Err::<(), _>(missing_file())
        .context("cannot open the index")
        .context("search failed")
        .unwrap_err();
    let message = ToolError::from(err).to_string();
    assert_eq!(
        message,
        format!("search failed: cannot open the index: {}", missing_file())
    );
    let plain = ToolError::from(anyhow::anyhow!("quota exceeded; retry after 60 s"));
    assert_eq!(plain.message(), "quota exceeded; retry after 60 s");
}

#[test]
fn strings_and_tool_errors_convert_unchanged() {
    let from_string = ToolError::from("pass a positive number".to_owned());
    assert_eq!(from_string.message(), "pass a positive number");
    let from_str = ToolError::from("pass a positive number");
    assert_eq!(from_str, from_string);

    fn fails() -> Result<(), ToolError> {
        Err("with `?` too")?;
        Ok(())
    }
    assert_eq!(fails().unwrap_err().message(), "with `?` too");
}

/// Save a note (always fails, with a chain of causes).
#[tool]
async fn save() -> Result<String, ToolError> {
    Err(chain())?
}

#[tokio::test]
async fn a_tool_error_reaches_the_model_with_its_whole_chain() {
    let server = mcpfn_runtime::Server::new("s", "1").tools(mcpfn_runtime::tools![save]);
    let mut client = mcpfn_runtime::testing::wire::Client::builder(server)
        .connect()
        .await
        .unwrap();
    let result = client.call("save", json!({})).await.unwrap();
    assert!(result.is_error());
    assert_eq!(
        result.text(),
        Some("cannot save the note: the disk is full: device /dev/sda1 has 0 bytes left")
    );
}

/// Fails with its own error type, no `ToolError` in between.
#[tool]
async fn save_raw() -> Result<String, Layer> {
    Err(chain())
}

/// Fails with `std::io::Error`, whose Display already includes its source.
#[tool]
async fn open_raw() -> Result<String, std::io::Error> {
    Err(missing_file())
}

/// Fails with an `anyhow::Error` (not a `std::error::Error`).
#[tool]
async fn load_raw() -> Result<String, anyhow::Error> {
    Err(anyhow::Error::new(chain()).context("cannot load the notebook"))
}

#[tokio::test]
async fn an_error_type_returned_directly_follows_the_same_rule() {
    let server = mcpfn_runtime::Server::new("s", "1")
        .tools(mcpfn_runtime::tools![save_raw, open_raw, load_raw]);
    let mut client = mcpfn_runtime::testing::wire::Client::builder(server)
        .connect()
        .await
        .unwrap();
    let expected = [
        ("save_raw", "cannot save the note: the disk is full: device /dev/sda1 has 0 bytes left".to_owned()),
        ("open_raw", missing_file().to_string()),
        (
            "load_raw",
            "cannot load the notebook: cannot save the note: the disk is full: device /dev/sda1 has 0 bytes left"
                .to_owned(),
        ),
    ];
    for (tool, text) in expected {
        let result = client.call(tool, json!({})).await.unwrap();
        assert!(result.is_error(), "{tool}");
        assert_eq!(result.text(), Some(text.as_str()), "{tool}");
    }
}

#[test]
fn a_non_finite_float_in_structured_output_is_an_error_result() {
    for (version, modern) in [("2025-11-25", false), ("2026-07-28", true)] {
        let mut peer = if modern {
            Peer::modern()
        } else {
            Peer::legacy(version)
        };
        let response = peer.request(call(1, "add", json!({"a": 1e308, "b": 1e308}), modern));
        let result = &response["result"];
        assert_eq!(result["isError"], true, "{version}: {response}");
        assert!(result.get("structuredContent").is_none(), "{version}");
        let text = result["content"][0]["text"].as_str().unwrap();
        assert!(
            text.starts_with("The tool 'add' returned a non-finite number (inf) at `sum`")
                && text.contains("JSON cannot carry NaN or infinity"),
            "{text}"
        );
        // Finite results are untouched.
        let fine = peer.request(call(2, "add", json!({"a": 1, "b": 2}), modern));
        assert_eq!(fine["result"]["structuredContent"]["sum"], 3.0, "{version}");
    }
}

/// A shared greeting.
struct Greeting {
    word: &'static str,
}

/// Greet, logging and reporting progress.
#[tool]
async fn greet(ctx: Context, greeting: State<Greeting>, name: String) -> Result<String, ToolError> {
    ctx.log(Level::Info, format!("greeting {name}"));
    ctx.progress(1.0, Some(2.0), Some("half"))?;
    if ctx.is_cancelled() {
        return Err(ToolError::new("cancelled"));
    }
    let who = ctx
        .client_info()
        .and_then(|info| info["name"].as_str())
        .unwrap_or("nobody");
    let shared = ctx.state::<Greeting>().map_or("-", |g| g.word);
    Ok(format!("{}, {name} (for {who}, {shared})", greeting.word))
}

#[tokio::test]
async fn tools_with_context_and_state_run_directly_in_unit_tests() {
    let hello = State::new(Greeting { word: "Hello" });
    let plain = greet(Context::for_test(), hello.clone(), "Ada".into()).await;
    assert_eq!(plain.unwrap(), "Hello, Ada (for nobody, -)");

    let (ctx, peer) = Context::test_builder()
        .state(Greeting { word: "Hi" })
        .client_info(json!({"name": "unit", "version": "1"}))
        .build();
    let answer = greet(ctx, hello.clone(), "Grace".into()).await.unwrap();
    assert_eq!(answer, "Hello, Grace (for unit, Hi)");
    assert_eq!(
        peer.logs(),
        [json!({"level": "info", "logger": "test", "data": "greeting Grace"})]
    );
    assert_eq!(
        peer.progress(),
        [json!({"progressToken": "test", "progress": 1.0, "total": 2.0, "message": "half"})]
    );

    let (ctx, peer) = Context::test_builder().build();
    peer.cancel();
    let cancelled = greet(ctx, hello, "Linus".into()).await.unwrap_err();
    assert_eq!(cancelled.message(), "the call was cancelled");
}
