//! The Message box's `/` commands and attachments: the servers' prompts
//! and resources listed (`GET /api/panel/commands`), an argument's
//! suggestions from the server's `completion/complete`
//! (`POST /api/panel/complete`), a prompt run as the next turn
//! (`POST /api/panel/run`), and a line sent with resources attached
//! (`POST /api/panel/send`), on the library's
//! [`Turn`]. The page shows a turn as the
//! user's line: `/NAME` with its arguments, or the text with the URIs
//! attached.

use super::super::reply::{self, Reply};
use super::super::{Input, Refused, Web};
use hyper::StatusCode;
use mcpfn_client::McpClient;
use mcpfn_host::agent::Agent;
use mcpfn_host::agent::turn::Turn;
use mcpfn_protocol::model::{CompletionArgument, CompletionContextParams, CompletionRef};
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// The most resources one line carries.
const MAX_ATTACHED: usize = 8;

/// Every ready server's prompts and resources, listed now; a server whose
/// listing fails is named in `problems` and the others still shown.
pub(super) async fn list(agent: &Agent) -> Reply {
    let mut prompts = Vec::new();
    let mut resources = Vec::new();
    let mut problems = Vec::new();
    for server in agent.servers() {
        let Some(client) = &server.client else {
            continue;
        };
        let listed = tokio::try_join!(client.list_prompts(), client.list_resources());
        match listed {
            Ok((server_prompts, server_resources)) => {
                prompts.extend(server_prompts.into_iter().map(|p| {
                    let arguments: Vec<Value> = p
                        .arguments
                        .iter()
                        .map(|a| {
                            json!({
                                "name": a.name,
                                "description": a.description,
                                "required": a.required,
                            })
                        })
                        .collect();
                    json!({
                        "server": server.name,
                        "name": p.name,
                        "title": p.title,
                        "description": p.description,
                        "arguments": arguments,
                    })
                }));
                resources.extend(server_resources.into_iter().map(|r| {
                    json!({
                        "server": server.name,
                        "uri": r.uri,
                        "name": r.title.unwrap_or(r.name),
                        "mime_type": r.mime_type,
                    })
                }));
            }
            Err(e) => problems.push(e.to_string()),
        }
    }
    reply::reply(
        StatusCode::OK,
        &json!({"prompts": prompts, "resources": resources, "problems": problems}),
    )
}

/// The client of `value["server"]`, or the reply saying what is wrong.
fn client(agent: &Agent, value: &Value) -> Result<(String, McpClient), Box<Reply>> {
    let Some(server) = value["server"].as_str() else {
        return Err(Box::new(reply::error(
            StatusCode::BAD_REQUEST,
            "`server` (a name) is needed",
        )));
    };
    match agent.client(server) {
        Some(client) => Ok((server.to_owned(), client)),
        None => Err(Box::new(reply::error(
            StatusCode::NOT_FOUND,
            format!("no server `{server}` is ready"),
        ))),
    }
}

/// The string values of the object `value`.
fn strings(value: &Value) -> BTreeMap<String, String> {
    value
        .as_object()
        .map(|map| {
            map.iter()
                .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned())))
                .collect()
        })
        .unwrap_or_default()
}

/// `{"server", "prompt", "argument", "value", "arguments"}`: the server's
/// suggestions for the argument as typed so far, the other arguments as
/// context.
pub(super) async fn complete(agent: &Agent, value: &Value) -> Reply {
    let (_, client) = match client(agent, value) {
        Ok(found) => found,
        Err(reply) => return *reply,
    };
    let (Some(prompt), Some(argument)) = (value["prompt"].as_str(), value["argument"].as_str())
    else {
        return reply::error(
            StatusCode::BAD_REQUEST,
            "`prompt` and `argument` (names) are needed",
        );
    };
    let mut others = strings(&value["arguments"]);
    others.remove(argument);
    let context = (!others.is_empty()).then_some(CompletionContextParams { arguments: others });
    let completed = client
        .complete(
            CompletionRef::Prompt {
                name: prompt.to_owned(),
                title: None,
            },
            CompletionArgument {
                name: argument.to_owned(),
                value: value["value"].as_str().unwrap_or_default().to_owned(),
            },
            context,
        )
        .await;
    match completed {
        Ok(completion) => reply::reply(
            StatusCode::OK,
            &json!({"values": completion.values, "has_more": completion.has_more.unwrap_or(false)}),
        ),
        Err(e) => reply::error(StatusCode::BAD_GATEWAY, e.to_string()),
    }
}

/// `{"server", "prompt", "arguments"}`: the prompt's messages as the next
/// turn, shown as `/NAME key=value …`.
pub(super) async fn run(web: &Web, agent: &Agent, value: &Value) -> Reply {
    let (server, client) = match client(agent, value) {
        Ok(found) => found,
        Err(reply) => return *reply,
    };
    let Some(prompt) = value["prompt"].as_str() else {
        return reply::error(StatusCode::BAD_REQUEST, "`prompt` (a name) is needed");
    };
    let arguments = strings(&value["arguments"]);
    let mut shown = format!("/{prompt}");
    for (name, value) in &arguments {
        shown.push_str(&format!(" {name}={value}"));
    }
    let result = match client.get_prompt(prompt, arguments).await {
        Ok(result) => result,
        Err(e) => return reply::error(StatusCode::BAD_GATEWAY, e.to_string()),
    };
    tracing::info!(server = %server, prompt, messages = result.messages.len(), "prompt run from the page");
    queue(web, shown, Turn::prompt(result))
}

/// `{"text", "attach": [{"server", "uri"}]}`: the line with each
/// resource's contents after it, read now.
pub(super) async fn send(web: &Web, agent: &Agent, value: &Value) -> Reply {
    let Some(text) = value["text"].as_str().filter(|t| !t.trim().is_empty()) else {
        return reply::error(StatusCode::BAD_REQUEST, "`text` is the line, not empty");
    };
    let attached = value["attach"].as_array().cloned().unwrap_or_default();
    if attached.len() > MAX_ATTACHED {
        return reply::error(
            StatusCode::BAD_REQUEST,
            format!("at most {MAX_ATTACHED} resources go with one line"),
        );
    }
    let mut turn = Turn::line(text);
    let mut uris = Vec::new();
    for item in &attached {
        let (server, client) = match client(agent, item) {
            Ok(found) => found,
            Err(reply) => return *reply,
        };
        let Some(uri) = item["uri"].as_str() else {
            return reply::error(StatusCode::BAD_REQUEST, "each attachment has a `uri`");
        };
        // Read with the client's bounds on a resource's size.
        let read = match client.read_resource(uri).await {
            Ok(read) => read,
            Err(e) => return reply::error(StatusCode::BAD_GATEWAY, e.to_string()),
        };
        turn = turn.attach(&server, uri, read);
        uris.push(format!("{server}:{uri}"));
    }
    let shown = if uris.is_empty() {
        text.to_owned()
    } else {
        format!("{text}\n(attached: {})", uris.join(", "))
    };
    queue(web, shown, turn)
}

fn queue(web: &Web, shown: String, turn: Turn) -> Reply {
    match web.queue(shown, Input::Turn(turn)) {
        Ok(()) => reply::reply(StatusCode::ACCEPTED, &json!({})),
        Err(Refused::Busy) => reply::error(
            StatusCode::CONFLICT,
            "a line is running: wait for its answer, or Stop it",
        ),
        Err(Refused::Closing) => {
            reply::error(StatusCode::SERVICE_UNAVAILABLE, "mcp-host is ending")
        }
    }
}
