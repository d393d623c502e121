//! A typed line taken: a command run (its listing written out), or what
//! goes to the model made from it: the line itself, the line with the
//! resources it names (`@server:URI`) attached, or a server's prompt.

use crate::cli::Output;
use crate::command::{self, COMMANDS, PromptCall, Typed};
use crate::listing::{self, ServerFacts};
use crate::mention;
use mcpfn_client::McpClient;
use mcpfn_host::agent::Agent;
use mcpfn_host::agent::servers::{ServerState, Surface};
use mcpfn_host::agent::skills::{load_skill, skills_listing};
use mcpfn_host::agent::turn::Turn;
use mcpfn_protocol::model::{Prompt, Skill};
use std::io::Write;

/// What a typed line sends to the model.
pub(crate) enum Taken {
    /// The line as typed.
    Text(String),
    /// Messages the host wrote: a prompt's, or the line with resources.
    Turn(Turn),
}

/// What `typed` sends to the model, if anything; a command's listing is
/// written out, a mistake said in one stderr line (nothing is sent).
pub(crate) async fn take(typed: &str, agent: &Agent, output: Output) -> Option<Taken> {
    let taken = match command::parse(typed) {
        Ok(Typed::Line(line)) => attach(line, agent).await,
        Ok(Typed::Prompt(call)) => prompt(&call, agent).await.map(Some),
        Ok(Typed::Tools) => Ok(listed(listing::tools(&agent.catalog()), output)),
        Ok(Typed::Servers) => Ok(listed(listing::servers(&facts(agent).await), output)),
        Ok(Typed::Resources) => Ok(listed(listing::resources(&surfaces(agent).await), output)),
        Ok(Typed::Skills) => Ok(listed(skills_listed(agent).await, output)),
        Ok(Typed::Skill(server, name)) => skill(server.as_deref(), &name, agent).await.map(Some),
        Ok(Typed::Help) => Ok(listed(help(), output)),
        Err(e) => Err(e),
    };
    taken.unwrap_or_else(|e| {
        eprintln!("mcp-host: {e}");
        None
    })
}

/// `line` with the resources it names attached (each read now); a
/// resource that cannot be read keeps the line from being sent.
async fn attach(line: String, agent: &Agent) -> Result<Option<Taken>, String> {
    let servers = agent.servers();
    let mentioned = mention::mentions(&line, |name| servers.iter().any(|s| s.name == name))?;
    if mentioned.mentions.is_empty() {
        return Ok(Some(Taken::Text(mentioned.text)));
    }
    let mut turn = Turn::line(mentioned.text);
    for mention in mentioned.mentions {
        let written = format!("@{}:{}", mention.server, mention.uri);
        let client = ready(agent, &mention.server).map_err(|e| format!("`{written}`: {e}"))?;
        let read = client
            .read_resource(&mention.uri)
            .await
            .map_err(|e| format!("`{written}`: {e}; the line was not sent"))?;
        turn = turn.attach(&mention.server, &mention.uri, read);
    }
    Ok(Some(Taken::Turn(turn)))
}

/// The client of `server` when it is ready; else why not.
fn ready(agent: &Agent, server: &str) -> Result<McpClient, String> {
    agent.client(server).ok_or_else(|| {
        format!("server `{server}` is not ready (/servers says why); the line was not sent")
    })
}

/// `/prompt`: the prompt found, its arguments checked against its
/// definition, and its messages got as the next turn.
async fn prompt(call: &PromptCall, agent: &Agent) -> Result<Taken, String> {
    let (server, client, definition) = find_prompt(call, agent).await?;
    let name = &definition.name;
    let missing: Vec<&str> = definition
        .arguments
        .iter()
        .filter(|a| a.required && !call.arguments.contains_key(&a.name))
        .map(|a| a.name.as_str())
        .collect();
    let known = |key: &String| definition.arguments.iter().any(|a| &a.name == key);
    let unknown: Vec<&str> = call
        .arguments
        .keys()
        .filter(|key| !known(key))
        .map(String::as_str)
        .collect();
    if !missing.is_empty() || !unknown.is_empty() {
        let takes: Vec<String> = definition
            .arguments
            .iter()
            .map(|a| {
                let optional = if a.required { "" } else { "?" };
                format!("{}{optional}", listing::shown(&a.name, 80))
            })
            .collect();
        let takes = if takes.is_empty() {
            "none".to_owned()
        } else {
            takes.join(", ")
        };
        let problem = if missing.is_empty() {
            format!("takes no argument `{}`", unknown.join("`, `"))
        } else {
            format!("needs `{}`", missing.join("`, `"))
        };
        return Err(format!(
            "/prompt: prompt `{name}` of server `{server}` {problem} (its arguments: {takes}; ? optional)"
        ));
    }
    let result = client
        .get_prompt(name, call.arguments.clone())
        .await
        .map_err(|e| format!("/prompt: prompt `{name}` of server `{server}`: {e}"))?;
    Ok(Taken::Turn(Turn::prompt(result)))
}

/// The prompt `call` names: on its server when it names one, else the
/// one ready server that lists it.
async fn find_prompt(
    call: &PromptCall,
    agent: &Agent,
) -> Result<(String, McpClient, Prompt), String> {
    let name = &call.name;
    if let Some(server) = &call.server {
        let client = agent.client(server).ok_or_else(|| {
            format!("/prompt: server `{server}` is not ready or not configured (/servers)")
        })?;
        let listed = client
            .list_prompts()
            .await
            .map_err(|e| format!("/prompt: the prompts of server `{server}`: {e}"))?;
        let prompt = listed
            .into_iter()
            .find(|p| &p.name == name)
            .ok_or_else(|| format!("/prompt: server `{server}` has no prompt `{name}`"))?;
        return Ok((server.clone(), client, prompt));
    }
    let mut found = Vec::new();
    for view in agent.servers() {
        let Some(client) = view.client else {
            continue;
        };
        // A server whose list fails is one that has no prompt to run.
        if let Ok(listed) = client.list_prompts().await
            && let Some(prompt) = listed.into_iter().find(|p| &p.name == name)
        {
            found.push((view.name, client, prompt));
        }
    }
    match found.len() {
        0 => Err(format!(
            "/prompt: no ready server has a prompt `{name}` (Tab after `/prompt ` lists them)"
        )),
        1 => Ok(found.remove(0)),
        _ => {
            let servers: Vec<String> = found.iter().map(|(s, ..)| format!("{s}:{name}")).collect();
            Err(format!(
                "/prompt: servers share the prompt `{name}`: write {}",
                servers.join(" or ")
            ))
        }
    }
}

/// `/servers`' facts: each server's state, protocol and lists.
async fn facts(agent: &Agent) -> Vec<ServerFacts> {
    let mut facts = Vec::new();
    for view in agent.servers() {
        let (protocol, restarts) = match &view.client {
            Some(client) => (
                Some(client.protocol_version().await.to_string()),
                client.restarts().await,
            ),
            None => (None, 0),
        };
        let surface = view.surface().await.map_err(|e| e.to_string());
        facts.push(ServerFacts {
            view,
            protocol,
            restarts,
            surface,
        });
    }
    facts
}

/// `/resources`' lists: each ready server's.
async fn surfaces(agent: &Agent) -> Vec<(String, Result<Surface, String>)> {
    let mut listed = Vec::new();
    for view in agent.servers() {
        if view.state == ServerState::Ready && view.client.is_some() {
            let surface = view.surface().await.map_err(|e| e.to_string());
            listed.push((view.name, surface));
        }
    }
    listed
}

/// `/skills`: each ready server's skills, or why they could not be
/// listed.
async fn skills_listed(agent: &Agent) -> String {
    let mut text = String::new();
    for (server, surface) in surfaces(agent).await {
        match surface {
            Ok(surface) => {
                text.push_str(&skills_listing(
                    surface.skills.iter().map(|s| (server.as_str(), s)),
                ));
            }
            Err(e) => text.push_str(&format!("{server}: {}\n", listing::shown(&e, 300))),
        }
    }
    if text.is_empty() {
        text.push_str("no server offers a skill\n");
    }
    text
}

/// `/skill`: the skill named (on its server when one is written, else
/// the one ready server that lists it), loaded and checked now, as the
/// next turn.
async fn skill(server: Option<&str>, name: &str, agent: &Agent) -> Result<Taken, String> {
    let named =
        |skill: &Skill| skill.frontmatter.get("name").and_then(|n| n.as_str()) == Some(name);
    let mut found = Vec::new();
    for (listed, surface) in surfaces(agent).await {
        if server.is_some_and(|s| s != listed) {
            continue;
        }
        // A server whose lists fail is one that has no skill to load.
        if let Ok(surface) = surface
            && let Some(skill) = surface.skills.into_iter().find(|s| named(s))
        {
            found.push((listed, skill));
        }
    }
    let (listed, skill) = match found.len() {
        0 => {
            let place = server.map_or("no ready server has a skill".to_owned(), |s| {
                format!("server `{s}` is not ready or has no skill")
            });
            return Err(format!("/skill: {place} `{name}` (/skills lists them)"));
        }
        1 => found.remove(0),
        _ => {
            let written: Vec<String> = found.iter().map(|(s, _)| format!("{s}:{name}")).collect();
            return Err(format!(
                "/skill: servers share the skill `{name}`: write {}",
                written.join(" or ")
            ));
        }
    };
    let client = ready(agent, &listed)?;
    load_skill(&client, &skill)
        .await
        .map(Taken::Turn)
        .map_err(|e| format!("/skill: {e}; nothing was sent"))
}

/// `/help`: the commands and the escapes.
fn help() -> String {
    let mut text = String::new();
    for (name, what) in COMMANDS {
        text.push_str(&format!("{name}: {what}\n"));
    }
    text.push_str(&format!(
        "@SERVER:URI in a line attaches that resource; `{}text` sends `/text`, `@@` sends `@`\n",
        command::ESCAPE
    ));
    text
}

/// Writes a listing: on stdout where the answers are text; on stderr
/// beside `--json` and `--events`, whose stdout is one JSON object a line.
/// Nothing is sent to the model.
fn listed(text: String, output: Output) -> Option<Taken> {
    let written = match output {
        Output::Text | Output::Stream => {
            let mut stdout = std::io::stdout().lock();
            stdout
                .write_all(text.as_bytes())
                .and_then(|()| stdout.flush())
        }
        Output::Json | Output::Events => std::io::stderr().lock().write_all(text.as_bytes()),
    };
    if let Err(e) = written {
        eprintln!("mcp-host: {e}");
    }
    None
}
