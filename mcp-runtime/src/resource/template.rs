//! RFC 6570 URI templates, the part of them a resource needs: parsing a
//! template and matching a requested URI against it, so that the
//! template's variables become the resource fn's arguments.
//!
//! Supported: level 1 `{var}`, the reserved form `{+var}`, path segments
//! `{/var}` and the query form `{?a,b}` (each name optional, in any order).
//! A URI matches a template as a whole-URI pattern would (see `matcher`):
//! most templates are matched in one pass along their pieces, the rest by
//! a search from the end; both take time linear in the URI, so a hostile
//! URI cannot make a match slow, and URIs and templates are also bounded
//! in length. No regex is compiled: compiling one per template was most of
//! a server's start-up work, and the `regex` crate a fifth of its binary
//! (BENCHMARKS.md).
//!
//! Matched values are percent-decoded and then checked, because a resource
//! fn commonly joins them to a root path: a `{var}` or `{/var}` may not hold
//! a `/` or `\` (encoded or not), be `.` or `..`, or hold NUL; a `{+var}`
//! may hold `/` but no `.`/`..` segment and no NUL.

mod matcher;

use matcher::{Groups, Matcher, Piece};
use std::fmt;
use std::sync::Arc;

/// The longest template accepted, in bytes.
pub const MAX_TEMPLATE_LEN: usize = 1024;
/// The longest URI matched against a template, in bytes; a longer one
/// matches none.
pub const MAX_URI_LEN: usize = 8 * 1024;
/// The most expressions a template may have.
const MAX_EXPRESSIONS: usize = 16;

/// How an expression expands, by its operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Operator {
    /// `{var}`: one path-safe value.
    Simple,
    /// `{+var}`: a value that may hold `/`.
    Reserved,
    /// `{/var}`: `/` and one path-safe value.
    Path,
    /// `{?a,b}`: `?a=..&b=..`, each optional.
    Query,
}

/// A parsed URI template.
#[derive(Clone, Debug)]
pub struct UriTemplate {
    text: String,
    /// The variables, in order, with the operator of their expression.
    variables: Vec<(Arc<str>, Operator)>,
    /// How a URI is matched against its pieces.
    matcher: Matcher,
}

/// Why a template cannot be used: what is wrong, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemplateError(pub String);

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TemplateError {}

/// Why a URI that matches a template's shape is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    /// The variable whose value was refused.
    pub variable: String,
    /// Why, as a sentence.
    pub reason: &'static str,
}

/// The values a URI gives a template's variables, in the template's order
/// (`None`: a query variable the URI leaves out).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Variables(Vec<(Arc<str>, Option<String>)>);

impl Variables {
    /// The value of `name`, if the URI gave it one.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(n, _)| &**n == name)
            .and_then(|(_, value)| value.as_deref())
    }

    /// Every variable and its value.
    pub fn iter(&self) -> impl Iterator<Item = (&str, Option<&str>)> {
        self.0.iter().map(|(n, v)| (&**n, v.as_deref()))
    }
}

impl UriTemplate {
    /// Parses `text`, or says what is wrong with it.
    pub fn parse(text: &str) -> Result<UriTemplate, TemplateError> {
        UriTemplate::parse_to(text, true)
    }

    /// [`UriTemplate::parse`], matching by splitting when `split` allows it
    /// and the template does (see [`Matcher::new`]).
    fn parse_to(text: &str, split: bool) -> Result<UriTemplate, TemplateError> {
        if text.len() > MAX_TEMPLATE_LEN {
            return Err(TemplateError(format!(
                "the URI template is {} bytes; the limit is {MAX_TEMPLATE_LEN}",
                text.len()
            )));
        }
        let mut variables: Vec<(Arc<str>, Operator)> = Vec::new();
        let mut pieces = Vec::new();
        let mut expressions = 0;
        let mut query_seen = false;
        let mut rest = text;
        while let Some(open) = rest.find(['{', '}']) {
            if rest[open..].starts_with('}') {
                return Err(TemplateError(format!(
                    "`}}` at byte {} closes no expression",
                    text.len() - rest.len() + open
                )));
            }
            if open > 0 {
                pieces.push(Piece::Literal(rest[..open].to_owned()));
            }
            let after = &rest[open + 1..];
            let Some(close) = after
                .find(['{', '}'])
                .filter(|&at| after[at..].starts_with('}'))
            else {
                return Err(TemplateError(format!(
                    "the expression at byte {} is not closed with `}}`",
                    text.len() - rest.len() + open
                )));
            };
            let body = &after[..close];
            rest = &after[close + 1..];
            expressions += 1;
            if expressions > MAX_EXPRESSIONS {
                return Err(TemplateError(format!(
                    "the template has more than {MAX_EXPRESSIONS} expressions"
                )));
            }
            if query_seen {
                return Err(TemplateError(
                    "a `{?...}` expression must come last".to_owned(),
                ));
            }
            let (operator, names) = match body.as_bytes().first() {
                Some(b'+') => (Operator::Reserved, &body[1..]),
                Some(b'/') => (Operator::Path, &body[1..]),
                Some(b'?') => (Operator::Query, &body[1..]),
                Some(op @ (b'#' | b'.' | b';' | b'&' | b'=' | b',' | b'!' | b'@' | b'|')) => {
                    return Err(TemplateError(format!(
                        "the operator `{}` in `{{{body}}}` is not supported; use {{var}}, {{+var}}, {{/var}} or {{?a,b}}",
                        char::from(*op)
                    )));
                }
                _ => (Operator::Simple, body),
            };
            let names: Vec<&str> = names.split(',').collect();
            if names.len() > 1 && operator != Operator::Query {
                return Err(TemplateError(format!(
                    "`{{{body}}}` names several variables; only {{?a,b}} may, else write one expression per variable"
                )));
            }
            for name in &names {
                check_name(name, body)?;
                if variables.iter().any(|(n, _)| &**n == *name) {
                    return Err(TemplateError(format!(
                        "the variable `{name}` appears twice in the template"
                    )));
                }
                variables.push((Arc::from(*name), operator));
            }
            pieces.push(Piece::Value(operator));
            query_seen = operator == Operator::Query;
        }
        if !rest.is_empty() {
            pieces.push(Piece::Literal(rest.to_owned()));
        }
        let matcher = Matcher::new(pieces, split);
        Ok(UriTemplate {
            text: text.to_owned(),
            variables,
            matcher,
        })
    }

    /// The template as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Its variable names, in order.
    pub fn variable_names(&self) -> impl Iterator<Item = &str> {
        self.variables.iter().map(|(name, _)| &**name)
    }

    /// The values `uri` gives the variables: `None` when it does not match
    /// (or is longer than [`MAX_URI_LEN`]); `Some(Err)` when it matches but
    /// a value is refused (see the module docs).
    pub fn matches(&self, uri: &str) -> Option<Result<Variables, Refused>> {
        if uri.len() > MAX_URI_LEN {
            return None;
        }
        let mut groups: Groups<'_> = [None; MAX_EXPRESSIONS];
        if !self.matcher.matches(uri, &mut groups) {
            return None;
        }
        let mut groups = groups.into_iter().flatten();
        let mut values = Vec::with_capacity(self.variables.len());
        let mut query: Option<Vec<(&str, &str)>> = None;
        for (name, operator) in &self.variables {
            let raw = if *operator == Operator::Query {
                let pairs =
                    query.get_or_insert_with(|| groups.next().map(parse_query).unwrap_or_default());
                pairs
                    .iter()
                    .find(|(key, _)| key == &&**name)
                    .map(|(_, value)| *value)
            } else {
                Some(groups.next()?)
            };
            let value = match raw.map(|raw| check_value(name, *operator, raw)) {
                None => None,
                Some(Ok(value)) => Some(value),
                Some(Err(refused)) => return Some(Err(refused)),
            };
            values.push((Arc::clone(name), value));
        }
        Some(Ok(Variables(values)))
    }
}

/// A variable name: `ALPHA / DIGIT / "_"` or a percent-encoded byte, and
/// `.` between them (RFC 6570 `varname`); no modifiers (`:3`, `*`).
fn check_name(name: &str, body: &str) -> Result<(), TemplateError> {
    if name.is_empty() {
        return Err(TemplateError(format!(
            "`{{{body}}}` has an empty variable name"
        )));
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_'))
    {
        return Err(TemplateError(format!(
            "the variable name `{name}` holds `{bad}`; names are letters, digits and `_` (modifiers such as `:3` or `*` are not supported)"
        )));
    }
    Ok(())
}

/// `a=1&b=2` as pairs, still encoded.
fn parse_query(query: &str) -> Vec<(&str, &str)> {
    query
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| pair.split_once('=').unwrap_or((pair, "")))
        .collect()
}

/// `raw` percent-decoded, or why the value is refused.
fn check_value(name: &str, operator: Operator, raw: &str) -> Result<String, Refused> {
    let refuse = |reason| Refused {
        variable: name.to_owned(),
        reason,
    };
    let decoded = percent_encoding::percent_decode_str(raw)
        .decode_utf8()
        .map_err(|_| refuse("its percent-encoding is not UTF-8"))?
        .into_owned();
    if decoded.contains('\0') {
        return Err(refuse("it holds NUL"));
    }
    match operator {
        Operator::Reserved => {
            if decoded.split(['/', '\\']).any(|segment| segment == "..") {
                return Err(refuse("it holds a `..` segment"));
            }
        }
        Operator::Simple | Operator::Path | Operator::Query => {
            if decoded.contains(['/', '\\']) {
                return Err(refuse("it holds a slash, which would leave its segment"));
            }
            if decoded == ".." || decoded == "." {
                return Err(refuse("it is a `.` or `..` segment"));
            }
        }
    }
    Ok(decoded)
}

#[cfg(test)]
mod tests {
    use super::*;

    type Values = Vec<(String, Option<String>)>;

    fn vars(template: &str, uri: &str) -> Option<Result<Values, Refused>> {
        let template = UriTemplate::parse(template).unwrap();
        template
            .matches(uri)
            .map(|r| r.map(|v| v.0.into_iter().map(|(n, v)| (n.to_string(), v)).collect()))
    }

    fn one(name: &str, value: &str) -> Values {
        vec![(name.to_owned(), Some(value.to_owned()))]
    }

    #[test]
    fn simple_variables_match_one_segment_and_decode() {
        assert_eq!(
            vars("test://template/{id}/data", "test://template/123/data"),
            Some(Ok(one("id", "123")))
        );
        assert_eq!(
            vars("file:///{name}", "file:///a%20b.txt"),
            Some(Ok(one("name", "a b.txt")))
        );
        assert_eq!(
            vars("test://template/{id}/data", "test://template/1/2/data"),
            None
        );
        assert_eq!(
            vars("test://template/{id}/data", "test://template//data"),
            None
        );
        assert_eq!(vars("test://{id}", "other://1"), None);
    }

    #[test]
    fn the_literal_before_the_first_expression_turns_uris_away_and_no_other() {
        // Regex characters in the literal are literal; the prefix is too.
        assert_eq!(vars("a.b+c://{id}", "a.b+c://7"), Some(Ok(one("id", "7"))));
        assert_eq!(vars("a.b+c://{id}", "axb+c://7"), None);
        assert_eq!(vars("test://x/{id}", "test://x"), None);
        assert_eq!(vars("test://x/{id}", "TEST://x/1"), None);
        // No literal before it: every URI is the pattern's to judge.
        assert_eq!(
            vars("{+path}", "any://where/x"),
            Some(Ok(one("path", "any://where/x")))
        );
    }

    #[test]
    fn reserved_path_and_query_forms() {
        assert_eq!(
            vars("file:///{+path}", "file:///src/lib.rs"),
            Some(Ok(one("path", "src/lib.rs")))
        );
        assert_eq!(
            vars("repo://x{/branch}", "repo://x/main"),
            Some(Ok(one("branch", "main")))
        );
        assert_eq!(
            vars("search://items{?q,limit}", "search://items?limit=5&q=a%26b"),
            Some(Ok(vec![
                ("q".to_owned(), Some("a&b".to_owned())),
                ("limit".to_owned(), Some("5".to_owned()))
            ]))
        );
        assert_eq!(
            vars("search://items{?q,limit}", "search://items"),
            Some(Ok(vec![("q".to_owned(), None), ("limit".to_owned(), None)]))
        );
    }

    #[test]
    fn values_that_leave_their_root_are_refused() {
        let refused = |template: &str, uri: &str| match vars(template, uri) {
            Some(Err(refused)) => refused.reason,
            other => panic!("{uri}: {other:?}"),
        };
        assert_eq!(
            refused("file:///{name}", "file:///..%2Fetc%2Fpasswd"),
            "it holds a slash, which would leave its segment"
        );
        assert_eq!(
            refused("file:///{name}", "file:///a%2fb"),
            "it holds a slash, which would leave its segment"
        );
        assert_eq!(refused("file:///{name}", "file:///a%5Cb").len(), 47);
        assert_eq!(
            refused("file:///{name}", "file:///.."),
            "it is a `.` or `..` segment"
        );
        assert_eq!(refused("file:///{name}", "file:///a%00"), "it holds NUL");
        assert_eq!(
            refused("file:///{+path}", "file:///a/../../etc/passwd"),
            "it holds a `..` segment"
        );
        assert_eq!(
            refused("file:///{+path}", "file:///a/%2E%2E/b"),
            "it holds a `..` segment"
        );
        assert_eq!(
            refused("file:///{name}", "file:///%FF"),
            "its percent-encoding is not UTF-8"
        );
        // `..` inside a name is not a segment.
        assert_eq!(
            vars("file:///{+path}", "file:///a..b/c"),
            Some(Ok(one("path", "a..b/c")))
        );
    }

    #[test]
    fn malformed_templates_say_what_is_wrong() {
        let error = |text: &str| UriTemplate::parse(text).unwrap_err().0;
        assert_eq!(
            error("a://{id"),
            "the expression at byte 4 is not closed with `}`"
        );
        assert_eq!(error("a://id}"), "`}` at byte 6 closes no expression");
        assert_eq!(error("a://{}"), "`{}` has an empty variable name");
        assert!(error("a://{#x}").starts_with("the operator `#` in `{#x}` is not supported"));
        assert!(error("a://{a,b}").starts_with("`{a,b}` names several variables"));
        assert!(error("a://{a:3}").starts_with("the variable name `a:3` holds `:`"));
        assert_eq!(
            error("a://{a}/{a}"),
            "the variable `a` appears twice in the template"
        );
        assert_eq!(
            error("a://x{?q}/{a}"),
            "a `{?...}` expression must come last"
        );
        assert!(error(&"a".repeat(MAX_TEMPLATE_LEN + 1)).contains("the limit is 1024"));
        let many = "{a}{b}{c}{d}{e}{f}{g}{h}{i}{j}{k}{l}{m}{n}{o}{p}{q}";
        assert!(error(many).starts_with("the template has more than 16"));
        // Literal text is matched as text, not as a pattern.
        assert!(
            UriTemplate::parse("a://x.y/{id}")
                .unwrap()
                .matches("a://xzy/1")
                .is_none()
        );
    }

    #[test]
    fn a_uri_over_the_limit_matches_nothing_and_long_ones_stay_fast() {
        let template = UriTemplate::parse("file:///{+path}").unwrap();
        let long = format!("file:///{}", "a/".repeat(MAX_URI_LEN / 2));
        assert!(template.matches(&long).is_none());
        let started = std::time::Instant::now();
        let hostile = UriTemplate::parse("x://{a}{/b}{/c}{/d}/end").unwrap();
        let uri = format!("x://{}", "a/".repeat(MAX_URI_LEN / 2 - 4));
        assert!(hostile.matches(&uri).is_none());
        // A template searched from the end, which backtracking would make
        // exponential: values that can end almost anywhere.
        let searched = UriTemplate::parse("x://{a}{+b}{+c}{+d}{e}.end{?q}").unwrap();
        assert!(matches!(searched.matcher, Matcher::Search(_)));
        let uri = format!("x://{}", "a.".repeat(MAX_URI_LEN / 2 - 4));
        assert!(searched.matches(&uri).is_none());
        let fits = format!("x://{}.end?q=1", "ab".repeat(MAX_URI_LEN / 2 - 12));
        assert!(searched.matches(&fits).is_some());
        assert!(started.elapsed() < std::time::Duration::from_secs(1));
    }
}
