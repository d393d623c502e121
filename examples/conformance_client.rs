//! Run with: `cargo run --example conformance_client --features client -- URL`
//! (with `MCP_CONFORMANCE_SCENARIO` set). The client side of the official
//! MCP conformance suite (`npx @modelcontextprotocol/conformance client
//! --command …`), built on `mcp-client` alone.
//!
//! The suite starts a scenario's server, then runs this program with the
//! server's URL as its last argument, the scenario's name in
//! `MCP_CONFORMANCE_SCENARIO`, the scenario's data (if any) as a JSON object
//! in `MCP_CONFORMANCE_CONTEXT`, and (suite 0.2) the revision under test in
//! `MCP_CONFORMANCE_PROTOCOL_VERSION`: `2026-07-28` means the stateless era,
//! anything else (or nothing, suite 0.1) the `initialize` handshake.
//!
//! Most scenarios need only what any client does: list the tools and call
//! each of them, with the arguments the context names for it (`toolCalls`)
//! or else a value of each required parameter's type; form elicitations are
//! accepted as offered (the library fills in the schema's defaults). The
//! others are below, by name. The `auth/*` scenarios exit with status 2 and
//! say so: the OAuth client is not in this program yet.
//!
//! Exit status: 0 when the scenario's steps ran, 1 when one failed (the
//! error on stderr), 2 for a scenario this program does not run.

use mcpfn_client::auth::{
    ClientIdentity, MemoryStore, OAuthClient, OAuthConfig, Presenter, Prompt, Secret,
};
use mcpfn_client::{
    CallOptions, ClientOptions, ElicitFn, McpClient, McpError, Mode, RpcError, ServerConfig,
};
use mcpfn_protocol::model::{ElicitAction, ElicitParams, ElicitResult, JsonObject, Tool};
use serde_json::{Value, json};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

/// What one scenario asks of a client.
enum Steps {
    /// List the tools and call every one of them, concurrently.
    CallEveryTool,
    /// List the tools and call none (`json-schema-ref-no-deref`: the
    /// server serves only `tools/list`, and the check is that the network
    /// `$ref` in a schema is never fetched).
    ListOnly,
    /// Call `json_schema_echo` with the input schema of
    /// `json_schema_2020_12_tool` as the client received it.
    EchoSchema,
}

/// The steps of `scenario`; `Err` with the reason this program does not
/// run it.
fn steps(scenario: &str) -> Result<Steps, String> {
    match scenario {
        "initialize"
        | "tools_call"
        | "elicitation-sep1034-client-defaults"
        | "sse-retry"
        | "request-metadata"
        | "http-standard-headers"
        | "http-custom-headers"
        | "http-invalid-tool-headers"
        | "sep-2322-client-request-state" => Ok(Steps::CallEveryTool),
        auth if auth.starts_with("auth/") => Ok(Steps::CallEveryTool),
        "json-schema-ref-no-deref" => Ok(Steps::ListOnly),
        "json-schema-2020-12-preservation" => Ok(Steps::EchoSchema),
        other => Err(format!("scenario `{other}` is not one this program runs")),
    }
}

/// How long any one call may take: the suite gives a whole scenario 30 s.
const CALL_TIMEOUT: Duration = Duration::from_secs(20);

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let Some(url) = std::env::args().skip(1).last() else {
        eprintln!("usage: MCP_CONFORMANCE_SCENARIO=NAME conformance_client SERVER_URL");
        return ExitCode::from(2);
    };
    let steps = match steps(&scenario) {
        Ok(steps) => steps,
        Err(reason) => {
            eprintln!("conformance_client: not run: {reason}");
            return ExitCode::from(2);
        }
    };
    let context = match std::env::var("MCP_CONFORMANCE_CONTEXT") {
        Ok(text) => match serde_json::from_str::<Value>(&text) {
            Ok(context) => context,
            Err(e) => {
                eprintln!("conformance_client: MCP_CONFORMANCE_CONTEXT is not JSON: {e}");
                return ExitCode::FAILURE;
            }
        },
        Err(_) => Value::Null,
    };
    let mode = match std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION").as_deref() {
        Ok("2026-07-28") => Mode::Modern,
        _ => Mode::Legacy,
    };
    let authorized = scenario.starts_with("auth/");
    match run(&url, mode, steps, &context, authorized).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("conformance_client: {scenario}: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run(
    url: &str,
    mode: Mode,
    steps: Steps,
    context: &Value,
    authorized: bool,
) -> Result<(), McpError> {
    let mut options = ClientOptions::mode(mode);
    options.client_info.name = "mcp-rs-conformance-client".into();
    options.elicitation = Some(accept_as_offered());
    options.call_timeout = CALL_TIMEOUT;
    if authorized {
        options.authorizer = Some(Arc::new(oauth_client(url, context)));
    }
    let client = McpClient::connect_with(ServerConfig::http("conformance", url), options).await?;
    let outcome = match steps {
        Steps::CallEveryTool => call_every_tool(&client, context).await,
        Steps::ListOnly => client.list_tools().await.map(drop),
        Steps::EchoSchema => echo_schema(&client).await,
    };
    client.close().await;
    outcome
}

/// The suite's client ID metadata document: the URL its `auth/basic-cimd`
/// authorization server expects as the client id (it never fetches it).
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// The OAuth client of an `auth/*` scenario: a pre-registered client if
/// the context names one, else the metadata document or a registration,
/// as the authorization server allows; [`user_agent`] in place of a user.
fn oauth_client(url: &str, context: &Value) -> OAuthClient {
    let text = |key: &str| context[key].as_str().map(str::to_owned);
    let mut config = OAuthConfig::new("conformance", url);
    config.identity = ClientIdentity {
        client_id: text("client_id"),
        client_secret: text("client_secret").map(Secret::new),
        metadata_url: Some(CLIENT_METADATA_URL.into()),
        client_name: "mcp-rs-conformance-client".into(),
    };
    config.presenter = user_agent();
    config.login_timeout = CALL_TIMEOUT;
    OAuthClient::new(config, Arc::new(MemoryStore::default()))
}

/// How many redirects the user agent follows from the authorization URL
/// to the loopback listener.
const MAX_REDIRECTS: usize = 5;

/// The user at the browser: GETs the authorization URL and follows each
/// `Location` until a page answers without one (the loopback listener's).
/// A device prompt's page is visited once (the suite approves on sight).
fn user_agent() -> Presenter {
    Arc::new(|prompt: &Prompt| {
        let url = match prompt {
            Prompt::Authorize { url, .. } => url.clone(),
            Prompt::Device {
                verification_uri_complete: Some(url),
                ..
            } => url.clone(),
            Prompt::Device {
                verification_uri, ..
            } => verification_uri.clone(),
            other => {
                eprintln!("conformance_client: cannot act on {}", other.text());
                return;
            }
        };
        tokio::spawn(async move {
            let mut next = Some(url);
            for _ in 0..=MAX_REDIRECTS {
                let Some(url) = next.take() else { return };
                match http_get(&url).await {
                    Ok(location) => next = location,
                    Err(e) => {
                        eprintln!("conformance_client: the user agent could not GET {url}: {e}");
                        return;
                    }
                }
            }
            eprintln!(
                "conformance_client: more than {MAX_REDIRECTS} redirects from the authorization URL"
            );
        });
    })
}

/// The most of a response the user agent reads: the status line and
/// headers are all it needs.
const MAX_RESPONSE: usize = 64 * 1024;

/// GETs the plain `http://` `url` (HTTP/1.1, one connection) and returns
/// its `Location`, resolved against `url`, if the answer is a redirect.
async fn http_get(url: &str) -> Result<Option<String>, String> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let rest = url
        .strip_prefix("http://")
        .ok_or("only http:// URLs are followed")?;
    let (authority, path) = match rest.find(['/', '?']) {
        Some(at) => (&rest[..at], &rest[at..]),
        None => (rest, "/"),
    };
    let path = if path.starts_with('?') {
        format!("/{path}")
    } else {
        path.to_owned()
    };
    let mut stream = tokio::net::TcpStream::connect(authority)
        .await
        .map_err(|e| e.to_string())?;
    let request = format!("GET {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n");
    stream
        .write_all(request.as_bytes())
        .await
        .map_err(|e| e.to_string())?;
    let mut response = Vec::new();
    let mut chunk = [0u8; 4096];
    // Up to the end of the headers (or the bound): the body is not needed.
    while !response.windows(4).any(|w| w == b"\r\n\r\n") && response.len() < MAX_RESPONSE {
        let n = stream.read(&mut chunk).await.map_err(|e| e.to_string())?;
        if n == 0 {
            break;
        }
        response.extend_from_slice(&chunk[..n]);
    }
    let head = String::from_utf8_lossy(&response);
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse::<u16>().ok())
        .ok_or("no HTTP status line")?;
    if !(300..400).contains(&status) {
        return Ok(None);
    }
    let location = head
        .lines()
        .take_while(|line| !line.is_empty())
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("location")
                .then(|| value.trim().to_owned())
        })
        .ok_or_else(|| format!("a {status} without a Location"))?;
    // A path-absolute Location is on the same origin.
    Ok(Some(if location.starts_with('/') {
        format!("http://{authority}{location}")
    } else {
        location
    }))
}

/// Answers every form with `accept` and no values of its own: the user
/// took the form as offered, so what is sent is the schema's defaults,
/// which the library fills in. A URL elicitation is declined (there is
/// nobody to open the page).
fn accept_as_offered() -> ElicitFn {
    Arc::new(|params: ElicitParams| {
        Box::pin(async move {
            let result = if params.mode.as_deref() == Some("url") {
                ElicitResult {
                    action: ElicitAction::Decline,
                    content: None,
                }
            } else {
                ElicitResult {
                    action: ElicitAction::Accept,
                    content: Some(JsonObject::new()),
                }
            };
            Ok::<_, RpcError>(result)
        })
    })
}

async fn call_every_tool(client: &McpClient, context: &Value) -> Result<(), McpError> {
    let tools = client.list_tools().await?;
    let mut calls = tokio::task::JoinSet::new();
    for tool in tools.iter() {
        let arguments = context_arguments(context, &tool.name).unwrap_or_else(|| sample(tool));
        let client = client.clone();
        let name = tool.name.clone();
        calls.spawn(async move {
            client
                .call_tool(&name, Some(arguments), CallOptions::default())
                .await
                .map(|result| (name, result.is_error))
        });
    }
    while let Some(joined) = calls.join_next().await {
        let (name, is_error) = joined.map_err(|e| McpError::Protocol {
            server: client.name().to_owned(),
            reason: format!("a call task ended abnormally: {e}"),
        })??;
        eprintln!("called {name}: isError {is_error}");
    }
    Ok(())
}

/// The arguments `MCP_CONFORMANCE_CONTEXT`'s `toolCalls` give tool `name`.
fn context_arguments(context: &Value, name: &str) -> Option<JsonObject> {
    context["toolCalls"]
        .as_array()?
        .iter()
        .find(|call| call["name"] == name)?["arguments"]
        .as_object()
        .cloned()
}

/// Arguments for `tool` when nobody named any: each required property
/// given its schema's `default`, or else a plain value of its type.
fn sample(tool: &Tool) -> JsonObject {
    let schema = &tool.input_schema;
    let properties = schema.get("properties").and_then(Value::as_object);
    let required = schema.get("required").and_then(Value::as_array);
    let mut arguments = JsonObject::new();
    for name in required.into_iter().flatten().filter_map(Value::as_str) {
        let property = properties.and_then(|p| p.get(name)).unwrap_or(&Value::Null);
        let value = match property.get("default") {
            Some(default) => default.clone(),
            None => match property.get("type").and_then(Value::as_str) {
                Some("number" | "integer") => json!(1),
                Some("boolean") => json!(true),
                Some("array") => json!([]),
                Some("object") => json!({}),
                Some("null") => Value::Null,
                _ => json!("sample"),
            },
        };
        arguments.insert(name.to_owned(), value);
    }
    arguments
}

async fn echo_schema(client: &McpClient) -> Result<(), McpError> {
    let tools = client.list_tools().await?;
    let focal = tools
        .iter()
        .find(|t| t.name == "json_schema_2020_12_tool")
        .ok_or_else(|| McpError::Protocol {
            server: client.name().to_owned(),
            reason: "it lists no `json_schema_2020_12_tool`".into(),
        })?;
    let arguments = JsonObject::from_iter([(
        "schema".to_owned(),
        Value::Object(focal.input_schema.clone()),
    )]);
    client
        .call_tool("json_schema_echo", Some(arguments), CallOptions::default())
        .await?;
    Ok(())
}
