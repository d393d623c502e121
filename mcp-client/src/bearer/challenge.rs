//! The `WWW-Authenticate: Bearer …` challenge of a 401 or 403 (RFC 6750
//! §3, RFC 9728 §5.1): the parameters the flow reads.

/// What a server's Bearer challenge says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Challenge {
    /// `resource_metadata`: where the protected resource metadata is.
    pub resource_metadata: Option<String>,
    /// `scope`: the scopes the request needs, space-separated.
    pub scope: Option<String>,
    /// `error`: `invalid_token`, `insufficient_scope`, …
    pub error: Option<String>,
}

/// The longest header value read; a longer one is treated as no challenge.
const MAX_HEADER_BYTES: usize = 8 * 1024;

impl Challenge {
    /// The Bearer challenge among `values` (a response's
    /// `WWW-Authenticate` headers), or an empty one if none is Bearer.
    pub fn from_headers<'a>(values: impl IntoIterator<Item = &'a str>) -> Challenge {
        values
            .into_iter()
            .filter(|value| value.len() <= MAX_HEADER_BYTES)
            .find_map(Challenge::parse)
            .unwrap_or_default()
    }

    /// Whether the server asks for more scope (`error="insufficient_scope"`).
    pub fn is_insufficient_scope(&self) -> bool {
        self.error.as_deref() == Some("insufficient_scope")
    }

    /// The Bearer challenge in one header value (which may hold several
    /// challenges), if there is one.
    pub fn parse(value: &str) -> Option<Challenge> {
        let mut rest = value.trim_start();
        // Skip challenges of other schemes up to `Bearer`.
        loop {
            let scheme_end = rest
                .find(|c: char| c.is_ascii_whitespace() || c == ',')
                .unwrap_or(rest.len());
            if rest[..scheme_end].eq_ignore_ascii_case("bearer") {
                rest = &rest[scheme_end..];
                break;
            }
            let next = rest[scheme_end..].find(|c: char| c.is_ascii_alphabetic())?;
            rest = &rest[scheme_end + next..];
        }
        let mut challenge = Challenge::default();
        for (name, value) in params(rest) {
            let slot = match name.to_ascii_lowercase().as_str() {
                "resource_metadata" => &mut challenge.resource_metadata,
                "scope" => &mut challenge.scope,
                "error" => &mut challenge.error,
                _ => continue,
            };
            slot.get_or_insert(value);
        }
        Some(challenge)
    }
}

/// The `name=value` / `name="quoted"` pairs after the scheme, up to the
/// next challenge (a token not followed by `=`).
fn params(mut rest: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_ascii_whitespace() || c == ',');
        let Some(eq) = rest.find('=') else { break };
        let name = rest[..eq].trim();
        if name.is_empty() || name.contains(|c: char| c.is_ascii_whitespace() || c == ',') {
            break;
        }
        rest = rest[eq + 1..].trim_start();
        let value;
        if let Some(quoted) = rest.strip_prefix('"') {
            let mut text = String::new();
            let mut chars = quoted.char_indices();
            let mut end = quoted.len();
            while let Some((i, c)) = chars.next() {
                match c {
                    '\\' => {
                        if let Some((_, escaped)) = chars.next() {
                            text.push(escaped);
                        }
                    }
                    '"' => {
                        end = i + 1;
                        break;
                    }
                    c => text.push(c),
                }
            }
            value = text;
            rest = &quoted[end.min(quoted.len())..];
        } else {
            let end = rest.find(',').unwrap_or(rest.len());
            value = rest[..end].trim().to_owned();
            rest = &rest[end..];
        }
        out.push((name.to_owned(), value));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_bearer_parameters() {
        let c = Challenge::parse(
            r#"Bearer error="insufficient_scope", scope="tools:admin tools:read", resource_metadata="https://a.test/.well-known/oauth-protected-resource/mcp""#,
        )
        .unwrap();
        assert!(c.is_insufficient_scope());
        assert_eq!(c.scope.as_deref(), Some("tools:admin tools:read"));
        assert_eq!(
            c.resource_metadata.as_deref(),
            Some("https://a.test/.well-known/oauth-protected-resource/mcp")
        );
    }

    #[test]
    fn skips_other_schemes_and_reads_tokens_and_escapes() {
        let c = Challenge::parse(r#"Basic realm="x", Bearer scope=read, error="a\"b""#).unwrap();
        assert_eq!(c.scope.as_deref(), Some("read"));
        assert_eq!(c.error.as_deref(), Some("a\"b"));
        assert_eq!(Challenge::parse(r#"Basic realm="x""#), None);
        assert_eq!(
            Challenge::from_headers(["Basic realm=x"]),
            Challenge::default()
        );
    }
}
