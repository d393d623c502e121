//! The text of `/tools`, `/servers` and `/resources`. What a server sent
//! is shown through [`excerpt`]: cut short, its control characters (a
//! terminal's escape sequences) replaced.

use mcpfn_client::text::excerpt;
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
