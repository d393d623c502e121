//! The text of `/tools`, `/servers` and `/resources`. What a server sent
//! is shown through [`excerpt`]: cut short, its control characters (a
//! terminal's escape sequences) replaced.

use mcpfn_client::text::excerpt;
use mcpfn_host::agent::servers::{ServerState, ServerView, Surface};
use mcpfn_host::catalog::Catalog;
use std::fmt::Write;

/// The longest name shown, in bytes.
const NAME_SHOWN: usize = 120;
/// The longest description shown (its first line), in bytes.
const DESCRIPTION_SHOWN: usize = 100;

/// A server's word for display: one line, cut short, no escapes.
pub(crate) fn shown(text: &str, max: usize) -> String {
    excerpt(text.lines().next().unwrap_or(""), max)
}

/// `  name: description` (`name (as model_name)` where the model knows it
/// by another name).
fn entry(out: &mut String, name: &str, alias: Option<&str>, description: Option<&str>) {
    let _ = write!(out, "  {}", shown(name, NAME_SHOWN));
    if let Some(alias) = alias.filter(|alias| *alias != name) {
        let _ = write!(out, " (as {alias})");
    }
    match description.map(|d| shown(d, DESCRIPTION_SHOWN)) {
        Some(description) if !description.is_empty() => {
            let _ = writeln!(out, ": {description}");
        }
        _ => out.push('\n'),
    }
}

/// `/tools`: the offered tools by server (the catalog's order), then the
/// servers left out and why.
pub(crate) fn tools(catalog: &Catalog) -> String {
    let mut out = String::new();
    let mut tools = catalog.tools().iter().peekable();
    while let Some(first) = tools.peek() {
        let server = first.server.clone();
        let mut listed = String::new();
        let mut count = 0;
        while let Some(tool) = tools.next_if(|t| t.server == server) {
            count += 1;
            entry(
                &mut listed,
                &tool.tool.name,
                Some(&tool.model_name),
                tool.tool.description.as_deref(),
            );
        }
        let _ = writeln!(out, "{server}: {}", count_of(count, "tool", "tools"));
        out.push_str(&listed);
    }
    if catalog.tools().is_empty() {
        out.push_str("no tools are offered\n");
    }
    for failure in catalog.failures() {
        let _ = writeln!(
            out,
            "{}: not started: {}",
            failure.server,
            shown(&failure.reason, 200)
        );
    }
    for server in catalog.disabled() {
        let _ = writeln!(out, "{server}: disabled in the config");
    }
    out
}

/// `1 tool`, `2 tools`.
pub(crate) fn count_of(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// What `/servers` says of one server.
pub(crate) struct ServerFacts {
    pub(crate) view: ServerView,
    /// The protocol version agreed on, for a ready MCP server.
    pub(crate) protocol: Option<String>,
    pub(crate) restarts: u32,
    /// Its prompts, resources, templates and skills, or why they could
    /// not be listed.
    pub(crate) surface: Result<Surface, String>,
}

/// `/servers`: each server's state, protocol version and counts.
pub(crate) fn servers(facts: &[ServerFacts]) -> String {
    let mut out = String::new();
    for fact in facts {
        let view = &fact.view;
        let _ = write!(out, "{}: ", view.name);
        match &view.state {
            ServerState::Ready => out.push_str("ready"),
            ServerState::Failed(reason) => {
                let _ = writeln!(out, "failed: {}", shown(reason, 200));
                continue;
            }
            ServerState::NeedsLogin(reason) => {
                let _ = writeln!(out, "needs a login: {}", shown(reason, 200));
                continue;
            }
            ServerState::Disabled => {
                out.push_str("disabled in the config\n");
                continue;
            }
        }
        if let Some(protocol) = &fact.protocol {
            let _ = write!(out, ", protocol {protocol}");
        }
        if fact.restarts > 0 {
            let _ = write!(
                out,
                ", restarted {}",
                count_of(fact.restarts as usize, "time", "times")
            );
        }
        let _ = write!(out, ", {}", count_of(view.tools.len(), "tool", "tools"));
        match &fact.surface {
            Ok(surface) => {
                let _ = writeln!(
                    out,
                    ", {}, {}, {}, {}",
                    count_of(surface.prompts.len(), "prompt", "prompts"),
                    count_of(surface.resources.len(), "resource", "resources"),
                    count_of(surface.templates.len(), "template", "templates"),
                    count_of(surface.skills.len(), "skill", "skills"),
                );
            }
            Err(e) => {
                let _ = writeln!(out, "; its other lists failed: {}", shown(e, 200));
            }
        }
    }
    if facts.is_empty() {
        out.push_str("no servers are configured\n");
    }
    out
}

/// `/resources`: each server's resources, then its templates; a server
/// whose lists failed says why.
pub(crate) fn resources(listed: &[(String, Result<Surface, String>)]) -> String {
    let mut out = String::new();
    for (server, surface) in listed {
        let surface = match surface {
            Ok(surface) => surface,
            Err(e) => {
                let _ = writeln!(
                    out,
                    "{server}: its resources could not be listed: {}",
                    shown(e, 200)
                );
                continue;
            }
        };
        if surface.resources.is_empty() && surface.templates.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "{server}: {}, {}",
            count_of(surface.resources.len(), "resource", "resources"),
            count_of(surface.templates.len(), "template", "templates")
        );
        for resource in &surface.resources {
            let title = resource.title.as_deref().unwrap_or(&resource.name);
            described(
                &mut out,
                &resource.uri,
                title,
                resource.mime_type.as_deref(),
            );
        }
        for template in &surface.templates {
            let title = template.title.as_deref().unwrap_or(&template.name);
            described(
                &mut out,
                &format!("{} (template)", template.uri_template),
                title,
                template.mime_type.as_deref(),
            );
        }
    }
    if out.is_empty() {
        out.push_str("no server lists resources\n");
    }
    out
}

/// `  uri: title (type)`.
fn described(out: &mut String, uri: &str, title: &str, mime_type: Option<&str>) {
    let _ = write!(
        out,
        "  {}: {}",
        shown(uri, NAME_SHOWN),
        shown(title, DESCRIPTION_SHOWN)
    );
    if let Some(mime_type) = mime_type {
        let _ = write!(out, " ({})", shown(mime_type, 80));
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn servers_says_which_waits_for_a_login_and_which_failed() {
        let fact = |name: &str, state| ServerFacts {
            view: ServerView {
                name: name.to_owned(),
                state,
                tools: Vec::new(),
                client: None,
            },
            protocol: None,
            restarts: 0,
            surface: Ok(Surface::default()),
        };
        let facts = [
            fact(
                "remote",
                ServerState::NeedsLogin("it asks for a login (OAuth)".into()),
            ),
            fact("broken", ServerState::Failed("exited with 1".into())),
        ];
        assert_eq!(
            servers(&facts),
            "remote: needs a login: it asks for a login (OAuth)\nbroken: failed: exited with 1\n"
        );
    }
}
