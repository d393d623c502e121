//! `@server:URI` in a line: the resources whose contents go with it.
//! A word (up to the next space) `@NAME:URI` whose NAME is a server's
//! attaches that server's resource URI; `@@` at a word's start sends the
//! word with one `@` and attaches nothing.

/// The most resources one line attaches.
pub(crate) const MAX_MENTIONS: usize = 16;

/// One `@server:URI` of a line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Mention {
    pub(crate) server: String,
    pub(crate) uri: String,
}

/// A line read for its mentions: the text sent (the `@@` escapes undone)
/// and the resources it attaches, each once, in the order first written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Mentioned {
    pub(crate) text: String,
    pub(crate) mentions: Vec<Mention>,
}

/// The mentions of `line`; `is_server` says which names are servers'. A
/// word `@NAME:URI` whose NAME is no server's but whose URI has a scheme
/// (`://`) is an error (a misspelt server), so is a line attaching more
/// than [`MAX_MENTIONS`] resources.
pub(crate) fn mentions(line: &str, is_server: impl Fn(&str) -> bool) -> Result<Mentioned, String> {
    let mut text = String::with_capacity(line.len());
    let mut mentions: Vec<Mention> = Vec::new();
    let mut rest = line;
    while !rest.is_empty() {
        let start = rest
            .find(|c: char| !c.is_whitespace())
            .unwrap_or(rest.len());
        text.push_str(&rest[..start]);
        rest = &rest[start..];
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let word = &rest[..end];
        rest = &rest[end..];
        if let Some(escaped) = word.strip_prefix("@@") {
            text.push('@');
            text.push_str(escaped);
            continue;
        }
        text.push_str(word);
        let Some((server, uri)) = word
            .strip_prefix('@')
            .and_then(|named| named.split_once(':'))
            .filter(|(server, uri)| !server.is_empty() && !uri.is_empty())
        else {
            continue;
        };
        if !is_server(server) {
            if uri.contains("://") {
                return Err(format!(
                    "`{word}`: no server is called `{server}` (`@@` at a word's start sends `@` as text)"
                ));
            }
            continue;
        }
        let mention = Mention {
            server: server.to_owned(),
            uri: uri.to_owned(),
        };
        if mentions.contains(&mention) {
            continue;
        }
        if mentions.len() == MAX_MENTIONS {
            return Err(format!(
                "a line attaches at most {MAX_MENTIONS} resources (`@server:URI`)"
            ));
        }
        mentions.push(mention);
    }
    Ok(Mentioned { text, mentions })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn servers(name: &str) -> bool {
        ["everything", "docs"].contains(&name)
    }

    fn mention(server: &str, uri: &str) -> Mention {
        Mention {
            server: server.into(),
            uri: uri.into(),
        }
    }

    #[test]
    fn a_servers_uri_is_attached_and_stays_in_the_text() {
        let line = "sum up @everything:test://static/1  and\t@docs:file:///a.md please";
        assert_eq!(
            mentions(line, servers),
            Ok(Mentioned {
                text: line.into(),
                mentions: vec![
                    mention("everything", "test://static/1"),
                    mention("docs", "file:///a.md")
                ],
            })
        );
    }

    #[test]
    fn other_at_words_are_text() {
        for line in [
            "mail bob@example.com",
            "@alice: hello",
            "@alice:hi there",
            "@everything: x",
            "@:x",
            "@",
        ] {
            assert_eq!(
                mentions(line, servers),
                Ok(Mentioned {
                    text: line.into(),
                    mentions: vec![]
                }),
                "{line}"
            );
        }
    }

    #[test]
    fn a_doubled_at_sends_one_and_attaches_nothing() {
        assert_eq!(
            mentions("keep @@everything:test://x as text", servers),
            Ok(Mentioned {
                text: "keep @everything:test://x as text".into(),
                mentions: vec![],
            })
        );
    }

    #[test]
    fn a_misspelt_server_with_a_uri_is_an_error() {
        assert_eq!(
            mentions("read @everthing:test://x", servers),
            Err("`@everthing:test://x`: no server is called `everthing` (`@@` at a word's start sends `@` as text)".into())
        );
    }

    #[test]
    fn each_resource_is_attached_once_and_their_number_is_bounded() {
        let twice = mentions("@docs:a @docs:a @docs:b", servers).unwrap();
        assert_eq!(twice.mentions, [mention("docs", "a"), mention("docs", "b")]);
        let many: Vec<String> = (0..=MAX_MENTIONS).map(|i| format!("@docs:r{i}")).collect();
        assert!(mentions(&many.join(" "), servers).is_err());
        assert!(mentions(&many[1..].join(" "), servers).is_ok());
    }
}
