//! MCP Apps on the page: a call whose tool names a `ui://` resource is
//! shown with that resource's HTML in a frame of another origin.
//!
//! The page (its `apps.js`) asks `/api/apps/open` for each call it draws;
//! for a tool with an app the host reads the resource (`resources/read`,
//! bounded), builds its sandbox policy ([`SandboxPolicy`]) and answers
//! with an app id and the URL of the sandbox proxy, a page of a second
//! loopback listener ([`proxy`]), so the app never shares the page's
//! origin. The proxy frames the app's document, which its server sends
//! with the policy as a `Content-Security-Policy` header (a header, not a
//! `<meta>` the document could precede), in a frame sandboxed to
//! `allow-scripts allow-forms` (an opaque origin: not even the proxy's).
//! The proxy relays JSON-RPC between the app and the page; the page
//! answers `ui/initialize`, sends the tool's input and result, and relays
//! what the app asks the host here, each checked against the app's id:
//! `tools/call` (only its own server's tools visible to apps, approved as
//! the model's calls are, the approval asked on the page:
//! [`Agent::call_from_app`]), `resources/read` (of its own server),
//! `ui/message` (a user line, as if typed), `ui/update-model-context`
//! (carried with the next line: [`ModelContexts`]).
//!
//! What an app sends is bounded on the page and again here ([`Gate`]): past
//! the rate the app is cut off, named.

mod proxy;

use super::reply::{Reply, Request, error, read_json, reply};
use super::{Refused, Web, lock};
use hyper::StatusCode;
use mcpfn_client::CallOptions;
use mcpfn_host::agent::Agent;
use mcpfn_host::apps::context::{ContextUpdate, ModelContexts};
use mcpfn_host::apps::csp::SandboxPolicy;
use mcpfn_host::apps::document::AppDocument;
use mcpfn_host::apps::flood::{Gate, Refusal};
use mcpfn_host::apps::{self as rules, APP_PROTOCOL_VERSION};
use mcpfn_protocol::model::{ContentBlock, ResourceUi, Tool, UI_META_KEY};
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Instant;

pub(crate) use proxy::Proxy;

/// The most apps kept open; opening one more closes the oldest.
const MAX_OPEN: usize = 32;

/// The most app documents kept read, by server and URI.
const MAX_DOCUMENTS: usize = 16;

/// The longest `ui/message` an app may send, in bytes of text.
const MAX_MESSAGE_TEXT: usize = 16 * 1024;

/// The host's page script of apps, served at `/apps.js`.
pub(crate) const APPS_JS: &str = include_str!("apps.js");

/// A document's server and URI.
type DocumentKey = (String, String);

/// One app on the page.
struct Open {
    server: String,
    tool: Tool,
    document: Arc<AppDocument>,
    policy: SandboxPolicy,
    /// The origin of the page that opened it: the only one that may frame
    /// its proxy and hear from it.
    page_origin: String,
    gate: Mutex<Gate>,
}

/// The apps of the page.
pub(crate) struct Apps {
    proxy: Proxy,
    open: Mutex<VecDeque<(String, Arc<Open>)>>,
    documents: Mutex<VecDeque<(DocumentKey, Arc<AppDocument>)>>,
    /// What apps said for the model, carried with the next line.
    pub(crate) contexts: ModelContexts,
}

impl Apps {
    /// The apps of a page served at `page`, their proxy listening on the
    /// same address at any free port.
    pub(crate) async fn start(page: SocketAddr) -> Result<Arc<Apps>, String> {
        let apps = Arc::new_cyclic(|weak| Apps {
            proxy: Proxy::unbound(weak.clone()),
            open: Mutex::default(),
            documents: Mutex::default(),
            contexts: ModelContexts::default(),
        });
        apps.proxy.listen(page).await?;
        Ok(apps)
    }

    /// The page's `Content-Security-Policy`: the page's own, with frames
    /// from the proxy's origins.
    pub(crate) fn page_policy(&self, base: &str) -> String {
        format!("{base}; frame-src {}", self.proxy.origins().join(" "))
    }

    fn get(&self, id: &str) -> Option<Arc<Open>> {
        lock(&self.open)
            .iter()
            .find(|(open, _)| open == id)
            .map(|(_, app)| Arc::clone(app))
    }

    fn close(&self, id: &str) -> bool {
        self.contexts.forget(id);
        let mut open = lock(&self.open);
        let before = open.len();
        open.retain(|(open, _)| open != id);
        open.len() != before
    }

    /// The document at `uri` of `server`, read once per run.
    async fn document(
        &self,
        agent: &Agent,
        server: &str,
        uri: &str,
    ) -> Result<Arc<AppDocument>, String> {
        let key = (server.to_owned(), uri.to_owned());
        if let Some((_, doc)) = lock(&self.documents).iter().find(|(k, _)| *k == key) {
            return Ok(Arc::clone(doc));
        }
        let client = agent
            .catalog()
            .client(server)
            .ok_or_else(|| format!("server `{server}` is not running"))?;
        // The listing's `_meta.ui`, for a read whose content carries none.
        let listed = client.list_resources().await.ok().and_then(|resources| {
            let meta = resources.into_iter().find(|r| r.uri == uri)?.meta?;
            serde_json::from_value::<ResourceUi>(meta.get(UI_META_KEY)?.clone()).ok()
        });
        let read = client
            .read_resource(uri)
            .await
            .map_err(|e| format!("reading the app `{uri}` of `{server}`: {e}"))?;
        let read = serde_json::to_value(&read).map_err(|e| e.to_string())?;
        let doc = Arc::new(
            AppDocument::from_read(uri, &read, listed.as_ref())
                .map_err(|e| format!("server `{server}`: {e}"))?,
        );
        let mut documents = lock(&self.documents);
        documents.push_back((key, Arc::clone(&doc)));
        if documents.len() > MAX_DOCUMENTS {
            documents.pop_front();
        }
        Ok(doc)
    }
}

/// Answers `/api/apps/…`.
pub(crate) async fn route(web: Arc<Web>, request: Request) -> Reply {
    let path = request.uri().path().to_owned();
    let origin = request
        .headers()
        .get(hyper::header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(|host| format!("http://{host}"))
        .unwrap_or_default();
    let body = match read_json(request).await {
        Ok(body) => body,
        Err(reply) => return reply,
    };
    let Some(agent) = web.agent.get().cloned() else {
        return error(
            StatusCode::SERVICE_UNAVAILABLE,
            "the servers are still starting",
        );
    };
    let apps = &web.apps;
    match path.trim_start_matches("/api/apps/") {
        "open" => open(apps, &agent, &body, origin).await,
        "close" => {
            let id = body["app"].as_str().unwrap_or_default();
            if let Some(reason) = body["reason"].as_str() {
                tracing::warn!(app = %id, "web: an app closed: {}", reason.chars().take(200).collect::<String>());
            }
            reply(StatusCode::OK, &json!({"closed": apps.close(id)}))
        }
        kind @ ("call" | "read" | "message" | "context") => {
            let id = body["app"].as_str().unwrap_or_default();
            let Some(app) = apps.get(id) else {
                return error(
                    StatusCode::NOT_FOUND,
                    format!(
                        "no app `{}` is open",
                        id.chars().take(80).collect::<String>()
                    ),
                );
            };
            let admitted = lock(&app.gate).admit(Instant::now(), body.to_string().len());
            if let Err(refused) = admitted {
                if refused == Refusal::CutOff {
                    apps.close(id);
                }
                return error(
                    StatusCode::TOO_MANY_REQUESTS,
                    format!(
                        "the app of `{}`'s tool `{}`: {refused}",
                        app.server, app.tool.name
                    ),
                );
            }
            match kind {
                "call" => call(&agent, &app, &body).await,
                "read" => read(&agent, &app, &body).await,
                "message" => message(&web, &app, &body),
                _ => context(apps, id, &app, &body),
            }
        }
        _ => error(StatusCode::NOT_FOUND, format!("no API at `{path}`")),
    }
}

/// `open`: `{call, server, tool}` → `{app: null}` for a tool without an
/// app, else the app's id, its proxy's URL and what the page tells it.
async fn open(apps: &Apps, agent: &Agent, body: &Value, page_origin: String) -> Reply {
    let (Some(_call), Some(server), Some(tool)) = (
        body["call"].as_str(),
        body["server"].as_str(),
        body["tool"].as_str(),
    ) else {
        return error(
            StatusCode::BAD_REQUEST,
            "`call`, `server` and `tool` are needed",
        );
    };
    let catalog = agent.catalog();
    let Some(tool) = catalog.listed_tool(server, tool).cloned() else {
        return reply(StatusCode::OK, &json!({"app": null}));
    };
    let Some(uri) = rules::app_resource(&tool) else {
        return reply(StatusCode::OK, &json!({"app": null}));
    };
    let document = match apps.document(agent, server, &uri).await {
        Ok(document) => document,
        Err(reason) => {
            tracing::warn!(server = %server, "web: app not shown: {reason}");
            return reply(StatusCode::OK, &json!({"app": null, "error": reason}));
        }
    };
    let own: Vec<String> = std::iter::once(page_origin.clone())
        .chain(apps.proxy.origins())
        .collect();
    let own: Vec<&str> = own.iter().map(String::as_str).collect();
    let policy = SandboxPolicy::for_app(&document.ui, &own);
    // The audit trail the extension asks for.
    tracing::info!(server = %server, uri = %uri, csp = %policy.content_security_policy, "web: app opened");
    for refused in &policy.refused {
        tracing::warn!(server = %server, uri = %uri, field = refused.field, value = %refused.value, "web: a declared origin is refused: {}", refused.reason);
    }
    let id = super::guard::random_hex();
    let answer = json!({
        "app": id,
        "proxy": format!("{}/proxy/{id}", apps.proxy.origin_for(&page_origin)),
        "proxyOrigin": apps.proxy.origin_for(&page_origin),
        "tool": tool,
        "uri": uri,
        "allow": policy.allow,
        "sandbox": {"csp": policy.approved, "permissions": policy.granted},
        "refused": policy.refused,
        "prefersBorder": document.ui.prefers_border,
        "protocolVersion": APP_PROTOCOL_VERSION,
    });
    let app = Arc::new(Open {
        server: server.to_owned(),
        tool,
        document,
        policy,
        page_origin,
        gate: Mutex::default(),
    });
    let mut open = lock(&apps.open);
    open.push_back((id, app));
    if open.len() > MAX_OPEN
        && let Some((oldest, _)) = open.pop_front()
    {
        apps.contexts.forget(&oldest);
    }
    reply(StatusCode::OK, &answer)
}

/// `call`: the app's `tools/call` `{name, arguments}`, for its own server.
async fn call(agent: &Agent, app: &Open, body: &Value) -> Reply {
    let Some(name) = body["name"].as_str() else {
        return error(StatusCode::BAD_REQUEST, "`name` is the tool to call");
    };
    // The approval the model's calls need, asked on the page as theirs.
    match agent
        .call_from_app(
            &app.server,
            name,
            body["arguments"].clone(),
            CallOptions::default(),
        )
        .await
    {
        Ok(result) => reply(StatusCode::OK, &json!({"result": result})),
        Err(refused) => {
            tracing::warn!(server = %app.server, tool = %name, "web: an app's call refused: {refused}");
            error(StatusCode::FORBIDDEN, refused.to_string())
        }
    }
}

/// `read`: the app's `resources/read` `{uri}`, sent to its own server
/// alone (a URI of another server is that server's own to answer: not
/// found), with the client's bound on a resource's size, as every read
/// of the host.
async fn read(agent: &Agent, app: &Open, body: &Value) -> Reply {
    let Some(uri) = body["uri"].as_str() else {
        return error(StatusCode::BAD_REQUEST, "`uri` is the resource to read");
    };
    let Some(client) = agent.catalog().client(&app.server) else {
        return error(
            StatusCode::SERVICE_UNAVAILABLE,
            format!("the app's server `{}` is not running", app.server),
        );
    };
    tracing::info!(server = %app.server, uri = %uri, "web: an app reads a resource");
    match client.read_resource(uri).await {
        Ok(read) => reply(StatusCode::OK, &json!({"result": read})),
        Err(e) => {
            let failed = format!("reading `{uri}` of server `{}`: {e}", app.server);
            tracing::warn!("web: an app's read failed: {failed}");
            error(StatusCode::BAD_GATEWAY, failed)
        }
    }
}

/// `message`: the app's `ui/message` `{content}`, sent as the person's
/// next line.
fn message(web: &Web, app: &Open, body: &Value) -> Reply {
    let blocks: Vec<ContentBlock> = match serde_json::from_value(body["content"].clone()) {
        Ok(blocks) => blocks,
        Err(e) => {
            return error(
                StatusCode::BAD_REQUEST,
                format!("`content` is a list of content blocks: {e}"),
            );
        }
    };
    let mut text = String::new();
    for block in &blocks {
        match block {
            ContentBlock::Text(t) => {
                if !text.is_empty() {
                    text.push('\n');
                }
                text.push_str(&t.text);
            }
            _ => {
                return error(
                    StatusCode::BAD_REQUEST,
                    "an app's message may hold text only",
                );
            }
        }
    }
    if text.trim().is_empty() {
        return error(StatusCode::BAD_REQUEST, "the message is empty");
    }
    if text.len() > MAX_MESSAGE_TEXT {
        return error(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "a message of {} bytes, more than the {MAX_MESSAGE_TEXT} an app may send",
                text.len()
            ),
        );
    }
    tracing::info!(server = %app.server, tool = %app.tool.name, "web: an app sends a line");
    match web.send(text) {
        Ok(()) => reply(StatusCode::OK, &json!({})),
        Err(Refused::Busy) => error(
            StatusCode::CONFLICT,
            "a line is running: the message was not sent",
        ),
        Err(Refused::Closing) => error(StatusCode::SERVICE_UNAVAILABLE, "mcp-host is ending"),
    }
}

/// `context`: the app's `ui/update-model-context`
/// `{content, structuredContent}`.
fn context(apps: &Apps, id: &str, app: &Open, body: &Value) -> Reply {
    let content: Vec<ContentBlock> = match &body["content"] {
        Value::Null => Vec::new(),
        value => match serde_json::from_value(value.clone()) {
            Ok(blocks) => blocks,
            Err(e) => {
                return error(
                    StatusCode::BAD_REQUEST,
                    format!("`content` is a list of content blocks: {e}"),
                );
            }
        },
    };
    let update = ContextUpdate {
        content,
        structured_content: Some(body["structuredContent"].clone()).filter(|v| !v.is_null()),
    };
    match apps
        .contexts
        .update(id, &app.server, &app.tool.name, &update)
    {
        Ok(()) => reply(StatusCode::OK, &json!({})),
        Err(e) => error(StatusCode::PAYLOAD_TOO_LARGE, e.to_string()),
    }
}
