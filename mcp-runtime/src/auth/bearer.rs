//! The headers of the Bearer scheme: reading a request's token from
//! `Authorization` (RFC 6750 §2.1; never from the query string, §2.3) and
//! writing the `WWW-Authenticate` challenge (RFC 6750 §3, RFC 9728 §5.1).

use hyper::header::{self, HeaderMap};

/// Why no bearer token could be read.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Credentials {
    /// No `Authorization` header, or another scheme.
    Missing,
    /// A bearer header that breaks RFC 6750's syntax.
    Malformed(&'static str),
}

/// The token of `Authorization: Bearer <token>` (scheme case-insensitive).
pub(super) fn bearer_token(headers: &HeaderMap) -> Result<&str, Credentials> {
    let mut values = headers.get_all(header::AUTHORIZATION).iter();
    let Some(value) = values.next() else {
        return Err(Credentials::Missing);
    };
    if values.next().is_some() {
        return Err(Credentials::Malformed(
            "the Authorization header was sent more than once",
        ));
    }
    let Ok(value) = value.to_str() else {
        return Err(Credentials::Malformed(
            "the Authorization header is not visible ASCII",
        ));
    };
    let (scheme, token) = value.split_once(' ').unwrap_or((value, ""));
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(Credentials::Missing);
    }
    let token = token.trim_start_matches(' ');
    if token.is_empty() {
        return Err(Credentials::Malformed(
            "the Bearer credentials have no token",
        ));
    }
    // RFC 6750 §2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
    let body = token.trim_end_matches('=');
    let b64token = !body.is_empty()
        && body.bytes().all(|b| {
            b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'+' | b'/')
        });
    if !b64token {
        return Err(Credentials::Malformed(
            "the bearer token has characters RFC 6750 does not allow",
        ));
    }
    Ok(token)
}

/// Whether a query string carries `access_token` (RFC 6750 §2.3, which
/// OAuth 2.1 and MCP forbid).
pub(super) fn has_access_token(query: &str) -> bool {
    query
        .split('&')
        .any(|pair| pair.split('=').next() == Some("access_token"))
}

/// A `WWW-Authenticate` value for the Bearer scheme (RFC 6750 §3), its
/// parameters in a fixed order: `error`, `error_description`, `scope`,
/// `resource_metadata` (RFC 9728 §5.1).
pub(crate) fn challenge(
    error: Option<&str>,
    description: Option<&str>,
    scope: Option<&str>,
    resource_metadata: &str,
) -> String {
    let params = [
        ("error", error),
        ("error_description", description),
        ("scope", scope),
        ("resource_metadata", Some(resource_metadata)),
    ];
    let mut text = String::from("Bearer ");
    let mut first = true;
    for (name, value) in params {
        let Some(value) = value else { continue };
        if !first {
            text.push_str(", ");
        }
        first = false;
        text.push_str(name);
        text.push_str("=\"");
        for c in value.chars() {
            // A quoted-string (RFC 9110 §5.6.4): escape `"` and `\`; other
            // characters a header cannot carry are left out.
            match c {
                '"' | '\\' => {
                    text.push('\\');
                    text.push(c);
                }
                ' '..='~' => text.push(c),
                _ => {}
            }
        }
        text.push('"');
    }
    text
}
