//! What a typed line is: a line for the model, or one of the commands a
//! person types instead (`/tools`, `/servers`, `/resources`, `/prompt NAME
//! ARGS`, `/skills`, `/skill NAME`, `/help`). `//text` sends `/text` to the model as it is.

use std::collections::BTreeMap;

/// The escape of a line for the model that starts with `/`: `//text`
/// sends `/text`.
pub(crate) const ESCAPE: &str = "//";

/// The commands, as `/help` lists them and completion offers them.
pub(crate) const COMMANDS: &[(&str, &str)] = &[
    ("/tools", "every offered tool, by server"),
    (
        "/servers",
        "each server: its state, protocol version and counts",
    ),
    (
        "/resources",
        "the resources and resource templates, by server",
    ),
    (
        "/prompt",
        "NAME [key=value ...]: a server's prompt as the next line (SERVER:NAME where two servers share NAME)",
    ),
    ("/skills", "each server's skills: name, description, origin"),
    (
        "/skill",
        "NAME: a server's skill (its SKILL.md, checked) as the next line (SERVER:NAME where two servers share NAME)",
    ),
    ("/help", "these commands"),
];

/// A typed line, parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Typed {
    /// A line for the model, as it is sent (its `@server:URI`
    /// attachments still in it).
    Line(String),
    /// `/tools`.
    Tools,
    /// `/servers`.
    Servers,
    /// `/resources`.
    Resources,
    /// `/help`.
    Help,
    /// `/prompt NAME ARGS`.
    Prompt(PromptCall),
    /// `/skills`.
    Skills,
    /// `/skill [SERVER:]NAME`: the server before `:` when written, and
    /// the skill's name.
    Skill(Option<String>, String),
}

/// `/prompt [SERVER:]NAME key=value ...`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PromptCall {
    /// The server before `:`, when the name was written `server:name`.
    pub(crate) server: Option<String>,
    /// The prompt's name.
    pub(crate) name: String,
    /// Its arguments, each given once.
    pub(crate) arguments: BTreeMap<String, String>,
}

/// What `line` (without its line end) asks for; `Err` is the one line
/// said on stderr (the conversation goes on).
pub(crate) fn parse(line: &str) -> Result<Typed, String> {
    if let Some(text) = line.strip_prefix(ESCAPE) {
        return Ok(Typed::Line(format!("/{text}")));
    }
    let Some(command) = line.strip_prefix('/') else {
        return Ok(Typed::Line(line.to_owned()));
    };
    let (word, rest) = command
        .split_once(char::is_whitespace)
        .unwrap_or((command, ""));
    let rest = rest.trim();
    let bare = |typed: Typed| {
        if rest.is_empty() {
            Ok(typed)
        } else {
            Err(format!("/{word} takes no arguments"))
        }
    };
    match word {
        "tools" => bare(Typed::Tools),
        "servers" => bare(Typed::Servers),
        "resources" => bare(Typed::Resources),
        "help" => bare(Typed::Help),
        "prompt" => prompt(rest).map(Typed::Prompt),
        "skills" => bare(Typed::Skills),
        "skill" => skill(rest),
        _ => Err(format!(
            "unknown command `/{word}` (/help lists them; `{ESCAPE}{word}` sends `/{word}` to the model)"
        )),
    }
}

/// `/skill`'s word after the command.
fn skill(rest: &str) -> Result<Typed, String> {
    const USAGE: &str = "/skill NAME (SERVER:NAME where two servers share NAME)";
    match rest.split_once(':') {
        _ if rest.is_empty() || rest.contains(char::is_whitespace) => {
            Err(format!("/skill takes one skill's name: {USAGE}"))
        }
        Some((server, name)) if !server.is_empty() && !name.is_empty() => {
            Ok(Typed::Skill(Some(server.to_owned()), name.to_owned()))
        }
        Some(_) => Err(format!("/skill: `{rest}` is not a name: {USAGE}")),
        None => Ok(Typed::Skill(None, rest.to_owned())),
    }
}

/// `/prompt`'s words after the command.
fn prompt(rest: &str) -> Result<PromptCall, String> {
    const USAGE: &str = "/prompt NAME [key=value ...] (SERVER:NAME where two servers share NAME)";
    let words =
        shlex::split(rest).ok_or_else(|| format!("/prompt: a quote is not closed: `{rest}`"))?;
    let mut words = words.into_iter();
    let Some(named) = words.next() else {
        return Err(format!("/prompt needs a prompt's name: {USAGE}"));
    };
    let (server, name) = match named.split_once(':') {
        Some((server, name)) if !server.is_empty() && !name.is_empty() => {
            (Some(server.to_owned()), name.to_owned())
        }
        Some(_) => return Err(format!("/prompt: `{named}` is not a name: {USAGE}")),
        None => (None, named),
    };
    let mut arguments = BTreeMap::new();
    for word in words {
        let Some((key, value)) = word.split_once('=').filter(|(key, _)| !key.is_empty()) else {
            return Err(format!(
                "/prompt: `{word}` is not key=value (quote a value with spaces: key=\"two words\")"
            ));
        };
        if arguments.insert(key.to_owned(), value.to_owned()).is_some() {
            return Err(format!("/prompt: argument `{key}` is given twice"));
        }
    }
    Ok(PromptCall {
        server,
        name,
        arguments,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(server: Option<&str>, name: &str, arguments: &[(&str, &str)]) -> Typed {
        Typed::Prompt(PromptCall {
            server: server.map(str::to_owned),
            name: name.into(),
            arguments: arguments
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        })
    }

    #[test]
    fn lines_for_the_model_are_kept_whole() {
        for line in ["hello", " /tools", "a/b", "@everything:test://x please", ""] {
            assert_eq!(parse(line), Ok(Typed::Line(line.into())));
        }
    }

    #[test]
    fn a_doubled_slash_sends_the_line_with_one() {
        assert_eq!(parse("//tools"), Ok(Typed::Line("/tools".into())));
        assert_eq!(parse("///x y"), Ok(Typed::Line("//x y".into())));
        assert_eq!(parse("//"), Ok(Typed::Line("/".into())));
    }

    #[test]
    fn the_listing_commands_take_no_arguments() {
        assert_eq!(parse("/tools"), Ok(Typed::Tools));
        assert_eq!(parse("/servers  "), Ok(Typed::Servers));
        assert_eq!(parse("/resources"), Ok(Typed::Resources));
        assert_eq!(parse("/help"), Ok(Typed::Help));
        assert_eq!(parse("/skills"), Ok(Typed::Skills));
        assert_eq!(
            parse("/skill refunds"),
            Ok(Typed::Skill(None, "refunds".into()))
        );
        assert_eq!(
            parse("/skill docs:refunds"),
            Ok(Typed::Skill(Some("docs".into()), "refunds".into()))
        );
        assert!(parse("/skill").unwrap_err().starts_with("/skill takes one"));
        assert!(
            parse("/skill a b")
                .unwrap_err()
                .starts_with("/skill takes one")
        );
        assert!(parse("/skill :x").unwrap_err().contains("is not a name"));
        assert_eq!(
            parse("/tools everything"),
            Err("/tools takes no arguments".into())
        );
    }

    #[test]
    fn an_unknown_command_says_how_to_send_it() {
        assert_eq!(
            parse("/tool"),
            Err(
                "unknown command `/tool` (/help lists them; `//tool` sends `/tool` to the model)"
                    .into()
            )
        );
        assert!(parse("/").is_err());
    }

    #[test]
    fn prompt_arguments_are_key_value_pairs_with_shell_quoting() {
        assert_eq!(parse("/prompt greet"), Ok(call(None, "greet", &[])));
        assert_eq!(
            parse(r#"/prompt greet name="Ada Lovelace" tone='very formal' n=3 empty="#),
            Ok(call(
                None,
                "greet",
                &[
                    ("name", "Ada Lovelace"),
                    ("tone", "very formal"),
                    ("n", "3"),
                    ("empty", "")
                ]
            ))
        );
        // `=` in a value, and an escaped quote.
        assert_eq!(
            parse(r#"/prompt q expr=a=b say="he said \"hi\"""#),
            Ok(call(
                None,
                "q",
                &[("expr", "a=b"), ("say", "he said \"hi\"")]
            ))
        );
    }

    #[test]
    fn a_shared_prompt_name_is_written_server_colon_name() {
        assert_eq!(
            parse("/prompt everything:greet name=x"),
            Ok(call(Some("everything"), "greet", &[("name", "x")]))
        );
        assert!(parse("/prompt :greet").is_err());
        assert!(parse("/prompt everything:").is_err());
    }

    #[test]
    fn bad_prompt_arguments_are_named() {
        assert_eq!(
            parse("/prompt"),
            Err("/prompt needs a prompt's name: /prompt NAME [key=value ...] (SERVER:NAME where two servers share NAME)".into())
        );
        assert_eq!(
            parse("/prompt greet Ada"),
            Err(
                "/prompt: `Ada` is not key=value (quote a value with spaces: key=\"two words\")"
                    .into()
            )
        );
        assert!(parse("/prompt greet =x").is_err());
        assert_eq!(
            parse("/prompt greet name=a name=b"),
            Err("/prompt: argument `name` is given twice".into())
        );
        assert_eq!(
            parse("/prompt greet name=\"Ada"),
            Err("/prompt: a quote is not closed: `greet name=\"Ada`".into())
        );
    }
}
