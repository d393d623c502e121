//! Matching a URI against a template's pieces (literals and expressions),
//! with the meaning RFC 6570 matching has as a whole-URI pattern:
//! `^literal([^/?#]+)literal…(?:\?([^#]*))?$`, where a simple or path value
//! is one or more characters but `/`, `?` and `#`, a reserved one may hold
//! `/`, and a query expression is an optional `?` and what follows up to a
//! `#`. Where a URI could be cut in several ways (`{a}{b}`,
//! `{+path}/raw`), the cut is the one a backtracking pattern prefers: each
//! value as long as the rest still fits, in order.
//!
//! Two ways, both in time linear in the URI (so a hostile URI cannot make
//! a match slow):
//! - [`Matcher::Split`], for a template whose every value ends where a
//!   byte it cannot hold begins (`a://x/{id}/data`, `file:///{+path}`,
//!   `r://x{/b}{?q}`: most of them): one pass along the URI.
//! - [`Matcher::Search`], for the rest: which pieces can still match from
//!   each position, worked out from the end, then each value cut as long
//!   as that allows.
//!
//! A test compares both with the `regex` crate's reading of the pattern.

use super::{MAX_EXPRESSIONS, Operator};

/// One part of a template.
#[derive(Clone, Debug)]
pub(super) enum Piece {
    /// Text the URI holds as it is (never empty).
    Literal(String),
    /// One expression's value (a query expression: the whole query string).
    Value(Operator),
}

/// How a template matches a URI.
#[derive(Clone, Debug)]
pub(super) enum Matcher {
    /// One pass along the pieces (see the module docs).
    Split(Vec<Piece>),
    /// Feasibility from the end, then the longest values (see the module
    /// docs).
    Search(Vec<Piece>),
}

/// The raw values a URI gives a template's expressions, in order: one per
/// expression (for a query expression, the query string, `None` when the
/// URI has none).
pub(super) type Groups<'u> = [Option<&'u str>; MAX_EXPRESSIONS];

impl Operator {
    /// Whether a value of this expression may hold `byte`.
    fn holds(self, byte: u8) -> bool {
        match self {
            Operator::Simple | Operator::Path => !matches!(byte, b'/' | b'?' | b'#'),
            Operator::Reserved => !matches!(byte, b'?' | b'#'),
            Operator::Query => byte != b'#',
        }
    }
}

impl Matcher {
    /// The matcher for `pieces`: [`Matcher::Split`] when a URI splits along
    /// them in one way only, unless `split` is false (the tests' way to
    /// search a template that splits).
    pub(super) fn new(pieces: Vec<Piece>, split: bool) -> Matcher {
        if split && splits(&pieces) {
            Matcher::Split(pieces)
        } else {
            Matcher::Search(pieces)
        }
    }

    /// Fills `groups` with the values `uri` gives; `false` when it does not
    /// match.
    pub(super) fn matches<'u>(&self, uri: &'u str, groups: &mut Groups<'u>) -> bool {
        match self {
            Matcher::Split(pieces) => split(pieces, uri, groups),
            Matcher::Search(pieces) => search(pieces, uri, groups),
        }
    }
}

/// Whether a URI splits along `pieces` in one way only: every value is
/// followed by the end or by a piece whose first byte it cannot hold (so
/// the value ends at the first such byte, as the longest cut would), and a
/// query expression ends the template.
fn splits(pieces: &[Piece]) -> bool {
    pieces.iter().enumerate().all(|(at, piece)| {
        let Piece::Value(operator) = piece else {
            return true;
        };
        // The byte the next piece must begin with: a literal's first, the
        // `/` of a `{/var}`, the `?` of a query (or the end, which ends
        // every value too).
        let next = match pieces.get(at + 1) {
            None => return true,
            Some(Piece::Literal(text)) => text.as_bytes()[0],
            Some(Piece::Value(Operator::Path)) => b'/',
            Some(Piece::Value(Operator::Query)) => b'?',
            Some(Piece::Value(_)) => return false,
        };
        *operator != Operator::Query && !operator.holds(next)
    })
}

/// [`Matcher::Split`]'s one pass.
fn split<'u>(pieces: &[Piece], uri: &'u str, groups: &mut Groups<'u>) -> bool {
    let mut rest = uri;
    let mut next = 0;
    for piece in pieces {
        let operator = match piece {
            Piece::Literal(text) => match rest.strip_prefix(text.as_str()) {
                Some(after) => {
                    rest = after;
                    continue;
                }
                None => return false,
            },
            Piece::Value(operator) => *operator,
        };
        if operator == Operator::Query {
            // Last: nothing, or `?` and a query without `#`.
            if rest.is_empty() {
                return true;
            }
            let Some(query) = rest.strip_prefix('?') else {
                return false;
            };
            if query.contains('#') {
                return false;
            }
            groups[next] = Some(query);
            return true;
        }
        if operator == Operator::Path {
            let Some(after) = rest.strip_prefix('/') else {
                return false;
            };
            rest = after;
        }
        let len = rest
            .bytes()
            .position(|byte| !operator.holds(byte))
            .unwrap_or(rest.len());
        if len == 0 {
            return false;
        }
        groups[next] = Some(&rest[..len]);
        next += 1;
        rest = &rest[len..];
    }
    rest.is_empty()
}

/// [`Matcher::Search`]: for each piece, whether it and the pieces after it
/// match from each position, and where a value starting there would lie,
/// worked out from the last piece back; then each value is cut where that
/// says, in order. A path expression is its `/` and a simple value.
/// Only character boundaries can end a piece, so a value never splits a
/// character (the pattern's classes are of characters).
fn search<'u>(pieces: &[Piece], uri: &'u str, groups: &mut Groups<'u>) -> bool {
    let bytes = uri.as_bytes();
    let len = bytes.len();
    // A URI without the literal the template starts with is turned away
    // before any row is worked out.
    if let Some(Piece::Literal(first)) = pieces.first()
        && !uri.starts_with(first.as_str())
    {
        return false;
    }
    let boundary = |at: usize| uri.is_char_boundary(at);
    // After the last piece only the end fits.
    let mut end = vec![false; len + 1];
    end[len] = true;
    // `steps[i]`, for piece `i`, filled from the last piece back.
    let mut steps: Vec<Step> = Vec::with_capacity(pieces.len());
    for piece in pieces.iter().rev() {
        let after = steps.last().map_or(&end, |step| &step.fits);
        let step = match piece {
            Piece::Literal(text) => Step {
                fits: (0..=len)
                    .map(|at| {
                        boundary(at)
                            && bytes[at..].starts_with(text.as_bytes())
                            && after[at + text.len()]
                    })
                    .collect(),
                cuts: Vec::new(),
            },
            Piece::Value(operator) => {
                let last_fit = last_fits(after);
                let run = runs(bytes, *operator);
                let cuts: Vec<Option<(usize, usize)>> = (0..=len)
                    .map(|at| {
                        boundary(at)
                            .then(|| value_end(*operator, bytes, at, &run, &last_fit))
                            .flatten()
                    })
                    .collect();
                Step {
                    fits: cuts.iter().map(Option::is_some).collect(),
                    cuts,
                }
            }
        };
        steps.push(step);
    }
    steps.reverse();
    if !steps.first().map_or(len == 0, |step| step.fits[0]) {
        return false;
    }
    let mut at = 0;
    let mut next = 0;
    for (piece, step) in pieces.iter().zip(&steps) {
        match piece {
            Piece::Literal(text) => at += text.len(),
            Piece::Value(_) => {
                let Some((start, stop)) = step.cuts[at] else {
                    return false;
                };
                groups[next] = (start <= stop).then(|| &uri[start..stop]);
                next += 1;
                at = stop.max(at);
            }
        }
    }
    at == len
}

/// What [`search`] knows of one piece.
struct Step {
    /// `fits[p]`: the piece and those after it match `uri[p..]`.
    fits: Vec<bool>,
    /// For a value, `cuts[p]`: where it lies when it starts at `p` (see
    /// [`value_end`]), the longest the pieces after it allow; empty for a
    /// literal.
    cuts: Vec<Option<(usize, usize)>>,
}

/// `last[x]`: the last position `≤ x` where `fits` holds.
fn last_fits(fits: &[bool]) -> Vec<Option<usize>> {
    let mut last = None;
    fits.iter()
        .enumerate()
        .map(|(at, &fit)| {
            if fit {
                last = Some(at);
            }
            last
        })
        .collect()
}

/// `run[p]`: how many bytes from `p` a value of `operator` may hold.
fn runs(bytes: &[u8], operator: Operator) -> Vec<usize> {
    let mut run = vec![0; bytes.len() + 1];
    for at in (0..bytes.len()).rev() {
        if operator.holds(bytes[at]) {
            run[at] = run[at + 1] + 1;
        }
    }
    run
}

/// Where the value of `operator` found at `at` lies, as `(start, stop)`,
/// the longest whose end `last_fit` allows; `None` when none fits. A query
/// expression may be absent: then `start > stop` (`(at + 1, at)`), and its
/// value is `None`.
fn value_end(
    operator: Operator,
    bytes: &[u8],
    at: usize,
    run: &[usize],
    last_fit: &[Option<usize>],
) -> Option<(usize, usize)> {
    match operator {
        Operator::Simple | Operator::Reserved => {
            let stop = last_fit[at + run[at]]?;
            (stop > at).then_some((at, stop))
        }
        Operator::Path => {
            if bytes.get(at) != Some(&b'/') {
                return None;
            }
            let start = at + 1;
            let stop = last_fit[start + run[start]]?;
            (stop > start).then_some((start, stop))
        }
        Operator::Query => {
            // `?` and the longest query that fits first, else nothing.
            if bytes.get(at) == Some(&b'?') {
                let start = at + 1;
                if let Some(stop) = last_fit[start + run[start]].filter(|&stop| stop >= start) {
                    return Some((start, stop));
                }
            }
            (last_fit[at] == Some(at)).then_some((at + 1, at))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::UriTemplate;

    /// `template` as a whole-URI pattern.
    fn pattern(template: &str) -> regex::Regex {
        let mut pattern = String::from("^");
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            pattern.push_str(&regex::escape(&rest[..open]));
            let close = open + rest[open..].find('}').unwrap();
            pattern.push_str(match rest.as_bytes()[open + 1] {
                b'+' => "([^?#]+)",
                b'/' => "/([^/?#]+)",
                b'?' => "(?:\\?([^#]*))?",
                _ => "([^/?#]+)",
            });
            rest = &rest[close + 1..];
        }
        pattern.push_str(&regex::escape(rest));
        pattern.push('$');
        regex::Regex::new(&pattern).unwrap()
    }

    /// What the `regex` crate finds for a template's `pattern` in `uri`:
    /// the groups, or `None`.
    fn by_regex(pattern: &regex::Regex, uri: &str) -> Option<Vec<Option<String>>> {
        let captures = pattern.captures(uri)?;
        Some(
            captures
                .iter()
                .skip(1)
                .map(|group| group.map(|g| g.as_str().to_owned()))
                .collect(),
        )
    }

    /// What `matcher` finds, as [`by_regex`] says it.
    fn by_pieces(template: &UriTemplate, uri: &str, count: usize) -> Option<Vec<Option<String>>> {
        let mut groups = [None; super::MAX_EXPRESSIONS];
        template.matcher.matches(uri, &mut groups).then(|| {
            groups[..count]
                .iter()
                .map(|g| g.map(str::to_owned))
                .collect()
        })
    }

    const TEMPLATES: [&str; 18] = [
        "everything://filler/{bytes}",
        "g://greeting/{language}/{name}",
        "test://template/{id}/data",
        "file:///{+path}",
        "file:///{+path}/raw",
        "repo://x{/branch}",
        "repo://x{/branch}{/file}",
        "repo://x{/branch}{?q}",
        "file:///{+path}{?q}",
        "search://items{?q,limit}",
        "s://{a}?x{?q}",
        "a://{id}.json",
        "a://{id}#top",
        "{+path}",
        "a://{a}{b}",
        "a://{+a}/{b}",
        "a://{+a}{/b}{?c}",
        "x://{a}{+b}.{c}{?q}#f",
    ];

    /// Every URI of up to `len` characters over a small alphabet, and some
    /// made by hand.
    fn uris() -> Vec<String> {
        let alphabet = ["a", "/", "?", "#", ".", "=", "é"];
        let mut all = vec![String::new()];
        let mut last = vec![String::new()];
        for _ in 0..4 {
            last = last
                .iter()
                .flat_map(|prefix| alphabet.iter().map(move |c| format!("{prefix}{c}")))
                .collect();
            all.extend(last.iter().cloned());
        }
        let prefixes = [
            "everything://filler/",
            "g://greeting/",
            "test://template/",
            "file:///",
            "repo://x",
            "search://items",
            "s://",
            "a://",
            "x://",
        ];
        let mut uris: Vec<String> = prefixes
            .iter()
            .flat_map(|prefix| all.iter().map(move |tail| format!("{prefix}{tail}")))
            .collect();
        uris.extend(all);
        uris.extend(
            [
                "g://greeting/en/Ada",
                "test://template/1/data",
                "file:///src/lib.rs/raw",
                "file:///a/b/raw/raw",
                "repo://x/main/lib.rs",
                "search://items?q=a&limit=5",
                "a://7.json.json",
                "a://a/b/c",
                "x://ab/c.d.e?q=1#f",
                "x://a.b#f",
            ]
            .map(str::to_owned),
        );
        uris
    }

    #[test]
    fn both_matchers_find_what_the_pattern_finds() {
        let uris = uris();
        for text in TEMPLATES {
            let count = text.matches('{').count();
            let split = UriTemplate::parse(text).unwrap();
            let search = UriTemplate::parse_to(text, false).unwrap();
            assert!(matches!(search.matcher, super::Matcher::Search(_)));
            let pattern = pattern(text);
            for uri in &uris {
                let expected = by_regex(&pattern, uri);
                assert_eq!(
                    by_pieces(&search, uri, count),
                    expected,
                    "search: {text} on {uri}"
                );
                assert_eq!(by_pieces(&split, uri, count), expected, "{text} on {uri}");
            }
        }
    }

    #[test]
    fn the_templates_that_split() {
        let split = |text: &str| {
            matches!(
                UriTemplate::parse(text).unwrap().matcher,
                super::Matcher::Split(_)
            )
        };
        for text in [
            "everything://filler/{bytes}",
            "file:///{+path}",
            "repo://x{/branch}{/file}",
            "search://items{?q,limit}",
            "s://{a}?x{?q}",
        ] {
            assert!(split(text), "{text}");
        }
        for text in ["file:///{+path}/raw", "a://{a}{b}", "a://{id}.json"] {
            assert!(!split(text), "{text}");
        }
    }
}
