//! The page's servers panel: each server's state and tools
//! (`GET /api/panel/servers`), the switch that offers it to the model or
//! not (`POST /api/panel/offer`), and "Log in" for a server that waits for
//! one (`POST /api/panel/login`), on the library's
//! [`Agent::listed`](mcpfn_host::agent::Agent::listed),
//! [`Agent::set_offered`](mcpfn_host::agent::Agent::set_offered) and
//! [`Agent::start_again`](mcpfn_host::agent::Agent::start_again).
//!
//! The Message box's `/` commands and attachments are in [`commands`].
//!
//! A change is published on the event stream (`{"event": "servers"}`), so
//! every open page draws the panel again. A login's URL reaches the page
//! the same way (`login_open`, from the authorizers' [`presenter`]); the
//! page that asked opens it, and the loopback redirect of the terminal's
//! login completes it.

mod commands;

use super::reply::{self, Reply, Request};
use super::{Page, Web, lock};
use hyper::StatusCode;
use mcpfn_client::BoxFuture;
use mcpfn_client::auth::{Presenter, Prompt};
use mcpfn_host::agent::servers::ServerState;
use mcpfn_protocol::model::Tool;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

/// The most characters of a tool's summary on the panel.
const SUMMARY_CHARS: usize = 200;

/// The panel's script.
pub(super) const PANEL_JS: &str = include_str!("page/panel.js");

/// The servers whose login runs now: one at a time per server. One page
/// server per process, so one set.
static LOGGING_IN: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());

/// `GET /api/panel/…`.
pub(super) fn get(web: Arc<Web>, request: Request) -> BoxFuture<'static, Reply> {
    Box::pin(async move {
        match request.uri().path() {
            "/api/panel/servers" => reply::reply(StatusCode::OK, &servers(&web)),
            "/api/panel/commands" => match web.agent.get() {
                Some(agent) => commands::list(agent).await,
                None => starting(),
            },
            path => not_found(path),
        }
    })
}

/// `POST /api/panel/…`.
pub(super) fn post(web: Arc<Web>, request: Request) -> BoxFuture<'static, Reply> {
    Box::pin(async move {
        let path = request.uri().path().to_owned();
        let value = match reply::read_json(request).await {
            Ok(value) => value,
            Err(reply) => return reply,
        };
        match path.as_str() {
            "/api/panel/offer" => return offer(&web, &value).await,
            "/api/panel/login" => return login(&web, &value),
            _ => {}
        }
        let Some(agent) = web.agent.get().cloned() else {
            return starting();
        };
        match path.as_str() {
            "/api/panel/complete" => commands::complete(&agent, &value).await,
            "/api/panel/run" => commands::run(&web, &agent, &value).await,
            "/api/panel/send" => commands::send(&web, &agent, &value).await,
            path => not_found(path),
        }
    })
}

fn not_found(path: &str) -> Reply {
    reply::error(StatusCode::NOT_FOUND, format!("no panel API at `{path}`"))
}

/// Every server as the panel draws it: the connected ones (offered or
/// switched off, with every tool they list), then the ones left out (a
/// login they wait for said), then the disabled ones; `starting` while the
/// agent is being built.
fn servers(web: &Web) -> Value {
    let Some(agent) = web.agent.get() else {
        return json!({"starting": true, "servers": []});
    };
    let listed = agent.listed();
    let off = agent.switched_off();
    let logging_in = lock(&LOGGING_IN).clone();
    let mut servers: Vec<Value> = listed
        .servers()
        .map(|name| {
            let tools: Vec<Value> = listed
                .tools()
                .iter()
                .filter(|t| t.server == name)
                .map(|t| json!({"model_name": t.model_name, "summary": summary(&t.tool)}))
                .collect();
            json!({
                "name": name,
                "state": "connected",
                "offered": !off.contains(name),
                "tools": tools,
            })
        })
        .collect();
    let mut left_out: Vec<(String, &str, String)> = agent
        .servers()
        .into_iter()
        .filter_map(|view| match view.state {
            ServerState::Failed(reason) => Some((view.name, "failed", reason)),
            ServerState::NeedsLogin(reason) => Some((view.name, "needs_login", reason)),
            ServerState::Ready | ServerState::Disabled => None,
        })
        .collect();
    left_out.sort_by(|a, b| a.0.cmp(&b.0));
    servers.extend(left_out.into_iter().map(|(name, state, reason)| {
        json!({
            "name": name,
            "state": state,
            "reason": reason,
            "logging_in": logging_in.contains(&name),
        })
    }));
    servers.extend(
        listed
            .disabled()
            .iter()
            .map(|name| json!({"name": name, "state": "disabled"})),
    );
    json!({"starting": false, "servers": servers})
}

/// The line the panel shows for `tool`: its title, else its description's
/// first line, at most [`SUMMARY_CHARS`] characters (a server's words,
/// bounded).
fn summary(tool: &Tool) -> String {
    let text = tool
        .title
        .as_deref()
        .or(tool.description.as_deref())
        .unwrap_or_default();
    let line = text.lines().next().unwrap_or_default();
    let mut summary: String = line.chars().take(SUMMARY_CHARS).collect();
    if summary.len() < line.len() {
        summary.push('…');
    }
    summary
}

/// The reply while the agent is not there yet.
fn starting() -> Reply {
    reply::error(
        StatusCode::SERVICE_UNAVAILABLE,
        "the servers are still starting",
    )
}

/// `{"server": NAME, "offered": BOOL}`: the switch.
async fn offer(web: &Web, value: &Value) -> Reply {
    let (Some(server), Some(offered)) = (value["server"].as_str(), value["offered"].as_bool())
    else {
        return reply::error(
            StatusCode::BAD_REQUEST,
            "`server` (a name) and `offered` (true or false) are needed",
        );
    };
    let Some(agent) = web.agent.get().cloned() else {
        return starting();
    };
    match agent.set_offered(server, offered).await {
        Ok(changed) => {
            if changed {
                tracing::info!(server = %server, offered, "server switched by the page");
                web.stream.publish(&json!({"event": "servers"}));
            }
            reply::reply(StatusCode::OK, &json!({"changed": changed}))
        }
        Err(e) => reply::error(StatusCode::NOT_FOUND, e.to_string()),
    }
}

/// `{"server": NAME}`: logs in to a server that waits for a login and
/// starts it; answered at once (202), the outcome published.
fn login(web: &Arc<Web>, value: &Value) -> Reply {
    let Some(server) = value["server"].as_str() else {
        return reply::error(StatusCode::BAD_REQUEST, "`server` (a name) is needed");
    };
    let Some(agent) = web.agent.get().cloned() else {
        return starting();
    };
    let waits = agent
        .servers()
        .iter()
        .any(|view| view.name == server && matches!(view.state, ServerState::NeedsLogin(_)));
    if !waits {
        return reply::error(
            StatusCode::CONFLICT,
            format!("server `{server}` does not wait for a login"),
        );
    }
    if !lock(&LOGGING_IN).insert(server.to_owned()) {
        return reply::error(
            StatusCode::CONFLICT,
            format!("a login to server `{server}` is under way"),
        );
    }
    let (web, server) = (Arc::clone(web), server.to_owned());
    web.stream.publish(&json!({"event": "servers"}));
    tokio::spawn(async move {
        let started = agent.start_again(&server).await;
        lock(&LOGGING_IN).remove(&server);
        if let Err(failure) = started {
            web.stream.publish(&json!({
                "event": "login_failed",
                "server": server,
                "error": failure.reason,
            }));
        }
        web.stream.publish(&json!({"event": "servers"}));
    });
    reply::reply(StatusCode::ACCEPTED, &json!({}))
}

/// Shows a login's URL on the page: published as `login_open` for the
/// page that clicked "Log in" to open. Only an `http(s)` URL is passed on:
/// the authorization server's metadata is a peer's word.
pub(crate) fn presenter(page: &Page) -> Presenter {
    let stream = Arc::clone(&page.web.stream);
    Arc::new(move |prompt: &Prompt| {
        let (server, url, code) = match prompt {
            Prompt::Authorize { server, url } => (server, url, None),
            Prompt::Device {
                server,
                verification_uri,
                user_code,
                verification_uri_complete,
            } => (
                server,
                verification_uri_complete
                    .as_ref()
                    .unwrap_or(verification_uri),
                Some(user_code),
            ),
            // A prompt this page does not know: the terminal's line.
            _ => {
                eprintln!("{}", prompt.text());
                return;
            }
        };
        if !(url.starts_with("https://") || url.starts_with("http://")) {
            tracing::warn!(server = %server, "the login URL is not http(s): not shown on the page");
            return;
        }
        stream.publish(&json!({
            "event": "login_open",
            "server": server,
            "url": url,
            "code": code,
        }));
    })
}
