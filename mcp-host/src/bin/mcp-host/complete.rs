//! Tab completion of a typed line, from what the servers say: command
//! names after `/`, prompt names after `/prompt `, a prompt's argument
//! names and (through `completion/complete`) their values, and `@server:`
//! resource URIs. The editor asks [`complete`]; what the servers hold is
//! behind [`Lookup`], so the rules are tested without servers.

use crate::command::COMMANDS;
use std::collections::BTreeMap;

/// What completion asks the servers. Each answer is what could be had
/// within a short time: nothing, when a server is slow or fails.
pub(crate) trait Lookup {
    /// The servers' names.
    fn servers(&self) -> Vec<String>;
    /// Every prompt, as `(server, name)`.
    fn prompts(&self) -> Vec<(String, String)>;
    /// The argument names of `server`'s prompt `prompt`.
    fn prompt_arguments(&self, server: &str, prompt: &str) -> Vec<String>;
    /// The values `server` offers for `argument` of `prompt` starting
    /// from `value`, the other arguments given in `context`.
    fn argument_values(
        &self,
        server: &str,
        prompt: &str,
        argument: &str,
        value: &str,
        context: &BTreeMap<String, String>,
    ) -> Vec<String>;
    /// The URIs of `server`'s resources.
    fn resources(&self, server: &str) -> Vec<String>;
}

/// One way to complete the word under the cursor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Candidate {
    /// What the list of candidates shows.
    pub(crate) display: String,
    /// What replaces the word.
    pub(crate) replacement: String,
}

impl Candidate {
    fn new(display: impl Into<String>, replacement: impl Into<String>) -> Candidate {
        Candidate {
            display: display.into(),
            replacement: replacement.into(),
        }
    }
}

/// The start of the word under the cursor at `pos` of `line`, and the
/// ways to complete it (none: nothing to offer).
pub(crate) fn complete(line: &str, pos: usize, lookup: &dyn Lookup) -> (usize, Vec<Candidate>) {
    let before = line.get(..pos).unwrap_or(line);
    let start = word_start(before);
    let word = &before[start..];
    if start == 0 && word.starts_with('/') && !word.starts_with("//") {
        return (start, commands(word));
    }
    if let Some(named) = word.strip_prefix('@') {
        return (start, mentions(named, lookup));
    }
    if let Some(args) = before.strip_prefix("/prompt ") {
        let earlier = &args[..args.len() - word.len()];
        return (start, prompt_words(earlier, word, lookup));
    }
    (start, Vec::new())
}

/// Where the last word of `before` starts: after its last space outside
/// quotes (`name='Ada L` is one word), as `/prompt` splits its words.
fn word_start(before: &str) -> usize {
    let (mut start, mut quote, mut escaped) = (0, None, false);
    for (at, c) in before.char_indices() {
        match (quote, c) {
            _ if escaped => escaped = false,
            (Some('\''), '\'') | (Some('"'), '"') => quote = None,
            (Some('"') | None, '\\') => escaped = true,
            (None, '\'' | '"') => quote = Some(c),
            (None, c) if c.is_whitespace() => start = at + c.len_utf8(),
            _ => {}
        }
    }
    start
}

fn commands(word: &str) -> Vec<Candidate> {
    COMMANDS
        .iter()
        .filter(|(name, _)| name.starts_with(word))
        .map(|(name, _)| {
            let space = if *name == "/prompt" { " " } else { "" };
            Candidate::new(*name, format!("{name}{space}"))
        })
        .collect()
}

/// `@` then a server's name, or `@server:` then one of its URIs.
fn mentions(named: &str, lookup: &dyn Lookup) -> Vec<Candidate> {
    match named.split_once(':') {
        None => lookup
            .servers()
            .into_iter()
            .filter(|server| server.starts_with(named))
            .map(|server| Candidate::new(format!("@{server}:"), format!("@{server}:")))
            .collect(),
        Some((server, uri)) => lookup
            .resources(server)
            .into_iter()
            .filter(|candidate| candidate.starts_with(uri))
            .map(|candidate| Candidate::new(candidate.clone(), format!("@{server}:{candidate} ")))
            .collect(),
    }
}

/// The word after `/prompt ` and the words `earlier` before it.
fn prompt_words(earlier: &str, word: &str, lookup: &dyn Lookup) -> Vec<Candidate> {
    let earlier = shlex::split(earlier).unwrap_or_default();
    let Some(named) = earlier.first() else {
        return prompt_names(word, lookup);
    };
    let Some((server, prompt)) = resolve(named, lookup) else {
        return Vec::new();
    };
    match word.split_once('=') {
        None => lookup
            .prompt_arguments(&server, &prompt)
            .into_iter()
            .filter(|argument| argument.starts_with(word))
            .map(|argument| Candidate::new(argument.clone(), format!("{argument}=")))
            .collect(),
        Some((argument, typed)) => {
            // The value as typed so far, its opening quote dropped.
            let value = shlex::split(typed)
                .and_then(|words| words.into_iter().next())
                .unwrap_or_else(|| typed.trim_start_matches(['"', '\'']).to_owned());
            let context: BTreeMap<String, String> = earlier[1..]
                .iter()
                .filter_map(|w| w.split_once('='))
                .filter(|(key, _)| *key != argument)
                .map(|(key, value)| (key.to_owned(), value.to_owned()))
                .collect();
            lookup
                .argument_values(&server, &prompt, argument, &value, &context)
                .into_iter()
                .map(|offered| {
                    let quoted = shlex::try_quote(&offered)
                        .map_or_else(|_| offered.clone(), |q| q.into_owned());
                    Candidate::new(offered, format!("{argument}={quoted} "))
                })
                .collect()
        }
    }
}

/// The prompts whose name starts with `word`: `name`, or `server:name`
/// where two servers share it or the word names a server.
fn prompt_names(word: &str, lookup: &dyn Lookup) -> Vec<Candidate> {
    let prompts = lookup.prompts();
    let shared = |name: &str| prompts.iter().filter(|(_, n)| n == name).count() > 1;
    let qualified = word.contains(':');
    let mut candidates: Vec<Candidate> = prompts
        .iter()
        .filter(|(server, name)| {
            if qualified {
                format!("{server}:{name}").starts_with(word)
            } else {
                name.starts_with(word)
            }
        })
        .map(|(server, name)| {
            if qualified || shared(name) {
                format!("{server}:{name}")
            } else {
                name.clone()
            }
        })
        .map(|written| Candidate::new(written.clone(), format!("{written} ")))
        .collect();
    candidates.dedup();
    candidates
}

/// The server and prompt `named` (`name` or `server:name`) stands for,
/// when it stands for one.
fn resolve(named: &str, lookup: &dyn Lookup) -> Option<(String, String)> {
    if let Some((server, name)) = named.split_once(':') {
        return Some((server.to_owned(), name.to_owned()));
    }
    let mut matching = lookup.prompts().into_iter().filter(|(_, n)| n == named);
    let only = matching.next()?;
    matching.next().is_none().then_some(only)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    /// One `completion/complete` question: server, prompt, argument,
    /// value, context.
    type Asked = (String, String, String, String, BTreeMap<String, String>);

    /// Two servers, a prompt they share, and what was asked.
    #[derive(Default)]
    struct Fake {
        asked: RefCell<Vec<Asked>>,
    }

    impl Lookup for Fake {
        fn servers(&self) -> Vec<String> {
            vec!["docs".into(), "everything".into()]
        }
        fn prompts(&self) -> Vec<(String, String)> {
            [
                ("docs", "summary"),
                ("everything", "greet"),
                ("everything", "summary"),
                ("everything", "graph"),
            ]
            .iter()
            .map(|(s, n)| (s.to_string(), n.to_string()))
            .collect()
        }
        fn prompt_arguments(&self, server: &str, prompt: &str) -> Vec<String> {
            match (server, prompt) {
                ("everything", "greet") => vec!["name".into(), "tone".into()],
                _ => vec![],
            }
        }
        fn argument_values(
            &self,
            server: &str,
            prompt: &str,
            argument: &str,
            value: &str,
            context: &BTreeMap<String, String>,
        ) -> Vec<String> {
            self.asked.borrow_mut().push((
                server.into(),
                prompt.into(),
                argument.into(),
                value.into(),
                context.clone(),
            ));
            ["Ada", "Ada Lovelace", "Alan"]
                .iter()
                .filter(|v| v.starts_with(value))
                .map(|v| v.to_string())
                .collect()
        }
        fn resources(&self, server: &str) -> Vec<String> {
            match server {
                "everything" => vec!["test://static/1".into(), "test://static/2".into()],
                _ => vec![],
            }
        }
    }

    fn replacements(line: &str) -> (usize, Vec<String>) {
        let (start, candidates) = complete(line, line.len(), &Fake::default());
        (
            start,
            candidates.into_iter().map(|c| c.replacement).collect(),
        )
    }

    #[test]
    fn commands_after_a_slash() {
        assert_eq!(replacements("/p"), (0, vec!["/prompt ".into()]));
        assert_eq!(replacements("/").1.len(), COMMANDS.len());
        assert_eq!(replacements("//p"), (0, vec![]));
        assert_eq!(replacements("hello /p"), (6, vec![]));
    }

    #[test]
    fn prompt_names_are_qualified_where_two_servers_share_one() {
        assert_eq!(
            replacements("/prompt gr"),
            (8, vec!["greet ".into(), "graph ".into()])
        );
        assert_eq!(
            replacements("/prompt su"),
            (
                8,
                vec!["docs:summary ".into(), "everything:summary ".into()]
            )
        );
        assert_eq!(
            replacements("/prompt everything:g"),
            (
                8,
                vec!["everything:greet ".into(), "everything:graph ".into()]
            )
        );
    }

    #[test]
    fn argument_names_then_values_from_the_server() {
        assert_eq!(
            replacements("/prompt greet "),
            (14, vec!["name=".into(), "tone=".into()])
        );
        assert_eq!(replacements("/prompt greet t"), (14, vec!["tone=".into()]));
        let fake = Fake::default();
        let line = "/prompt greet tone=warm name=Ad";
        let (start, candidates) = complete(line, line.len(), &fake);
        assert_eq!(start, 24);
        // A value with a space is quoted as `/prompt` reads it.
        assert_eq!(
            candidates,
            [
                Candidate::new("Ada", "name=Ada "),
                Candidate::new("Ada Lovelace", "name='Ada Lovelace' ")
            ]
        );
        let context = BTreeMap::from([("tone".to_string(), "warm".to_string())]);
        assert_eq!(
            fake.asked.borrow().as_slice(),
            [(
                "everything".into(),
                "greet".into(),
                "name".into(),
                "Ad".into(),
                context
            )]
        );
    }

    #[test]
    fn an_opened_quote_is_not_part_of_the_value_asked_for() {
        let fake = Fake::default();
        complete("/prompt greet name='Ada L", 25, &fake);
        assert_eq!(fake.asked.borrow()[0].3, "Ada L");
        let fake = Fake::default();
        complete("/prompt greet name=\"", 20, &fake);
        assert_eq!(fake.asked.borrow()[0].3, "");
    }

    #[test]
    fn a_shared_prompt_named_alone_gets_nothing() {
        assert_eq!(replacements("/prompt summary "), (16, vec![]));
        assert_eq!(replacements("/prompt nothing x="), (16, vec![]));
    }

    #[test]
    fn servers_then_their_uris_after_an_at() {
        assert_eq!(replacements("read @e"), (5, vec!["@everything:".into()]));
        assert_eq!(
            replacements("read @everything:test://static/"),
            (
                5,
                vec![
                    "@everything:test://static/1 ".into(),
                    "@everything:test://static/2 ".into()
                ]
            )
        );
        assert_eq!(replacements("@docs:"), (0, vec![]));
    }

    #[test]
    fn the_word_under_the_cursor_is_completed_not_the_line_end() {
        let fake = Fake::default();
        let (start, candidates) = complete("/prompt gr and more", 10, &fake);
        assert_eq!(start, 8);
        assert_eq!(candidates.len(), 2);
    }
}
