//! A typed line taken: a command run (its listing written out), or the
//! line for the model made from it.

use crate::cli::Output;
use crate::command::{self, COMMANDS, Typed};
use crate::listing;
use mcpfn_host::agent::Agent;
use std::io::Write;

/// What `typed` sends to the model, if anything; a command's listing and
/// any error are written here (an error as one stderr line).
pub(crate) async fn take(typed: &str, agent: &Agent, output: Output) -> Option<String> {
    let parsed = match command::parse(typed) {
        Ok(parsed) => parsed,
        Err(e) => {
            eprintln!("mcp-host: {e}");
            return None;
        }
    };
    let listed = match parsed {
        Typed::Line(line) => return Some(line),
        Typed::Tools => listing::tools(&agent.catalog()),
        Typed::Help => help(),
        Typed::Servers | Typed::Resources | Typed::Prompt(_) => {
            eprintln!("mcp-host: `{typed}`: not in this build yet");
            return None;
        }
    };
    write_listing(&listed, output);
    None
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

/// A listing on stdout, where the answers are text; on stderr beside
/// `--json` and `--events`, whose stdout is one JSON object a line.
fn write_listing(text: &str, output: Output) {
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
}
