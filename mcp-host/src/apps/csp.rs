//! The sandbox an app's HTML runs in: the `Content-Security-Policy` the
//! sandbox proxy sends with the document, built from the origins the
//! resource declares (`_meta.ui.csp`) over the extension's restrictive
//! default, and the permissions its frame is granted.
//!
//! Never looser than declared: a declared entry that is not a plain
//! origin (a bare `*`, a scheme alone such as `https:` or `data:`, a
//! keyword such as `'unsafe-eval'`, a wildcard over a whole top-level
//! domain, a port wildcard, anything with quotes, `;`, `,` or whitespace,
//! which would add a directive) is refused and named, as is one naming the
//! host's own origins; the rest still apply. A directive left with
//! nothing keeps the default (`'none'` for connections and frames).

use mcpfn_protocol::model::{Csp, Permissions, ResourceUi};
use serde::Serialize;

/// The longest declared origin read; a longer one is refused.
pub const MAX_SOURCE_BYTES: usize = 512;

/// The most origins read per kind; the rest are refused.
pub const MAX_SOURCES: usize = 32;

/// A declared origin left out of the policy, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Refused {
    /// The `_meta.ui.csp` field it was declared in (`connectDomains`, …).
    pub field: &'static str,
    /// The entry as declared (cut to [`MAX_SOURCE_BYTES`]).
    pub value: String,
    /// Why it was left out.
    pub reason: &'static str,
}

/// What an app's frame is allowed: the CSP header its document is served
/// with, the `allow` attribute of its frame, and what of its declarations
/// were honoured (for `hostCapabilities.sandbox`) or refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SandboxPolicy {
    /// The value of the `Content-Security-Policy` header.
    pub content_security_policy: String,
    /// The iframe's `allow` attribute (Permissions Policy): the granted
    /// permissions, space-separated, or empty.
    pub allow: String,
    /// The origins approved, by kind (what the header allows beyond the
    /// default).
    pub approved: Csp,
    /// The permissions granted.
    pub granted: Permissions,
    /// The declared entries left out.
    pub refused: Vec<Refused>,
}

impl SandboxPolicy {
    /// The policy for an app that declares `ui` (its resource's
    /// `_meta.ui`), none of whose origins may be one of `own` (the host's
    /// page and sandbox origins: an app never reaches the host's API).
    ///
    /// Of the permissions, only `clipboardWrite` is granted: camera,
    /// microphone and location would be asked of the person in the host's
    /// name (the browser names the page's origin, not the app's server).
    pub fn for_app(ui: &ResourceUi, own: &[&str]) -> SandboxPolicy {
        let mut refused = Vec::new();
        let mut read = |field: &'static str, declared: &[String]| -> Vec<String> {
            let mut kept: Vec<String> = Vec::new();
            for (index, entry) in declared.iter().enumerate() {
                let outcome = if index >= MAX_SOURCES {
                    Err("more origins than the host reads for one kind")
                } else {
                    origin(entry, own)
                };
                match outcome {
                    Ok(source) if !kept.contains(&source) => kept.push(source),
                    Ok(_) => {}
                    Err(reason) => refused.push(Refused {
                        field,
                        value: cut(entry),
                        reason,
                    }),
                }
            }
            kept
        };
        let approved = Csp {
            connect_domains: read("connectDomains", &ui.csp.connect_domains),
            resource_domains: read("resourceDomains", &ui.csp.resource_domains),
            frame_domains: read("frameDomains", &ui.csp.frame_domains),
            base_uri_domains: read("baseUriDomains", &ui.csp.base_uri_domains),
        };
        let granted = Permissions {
            clipboard_write: ui.permissions.clipboard_write,
            ..Permissions::default()
        };
        let allow = if granted.clipboard_write.is_some() {
            "clipboard-write".to_owned()
        } else {
            String::new()
        };
        SandboxPolicy {
            content_security_policy: header(&approved),
            allow,
            approved,
            granted,
            refused,
        }
    }
}

/// The header for `approved` origins: the extension's default where a kind
/// has none, each directive widened only by its own kind's origins.
fn header(approved: &Csp) -> String {
    let with = |base: &str, extra: &[String], empty: &str| -> String {
        let mut value = base.to_owned();
        if extra.is_empty() {
            if value.is_empty() {
                value.push_str(empty);
            }
        } else {
            for source in extra {
                if !value.is_empty() {
                    value.push(' ');
                }
                value.push_str(source);
            }
        }
        value
    };
    let resources = &approved.resource_domains;
    let directives = [
        ("default-src", "'none'".to_owned()),
        ("script-src", with("'self' 'unsafe-inline'", resources, "")),
        ("style-src", with("'self' 'unsafe-inline'", resources, "")),
        ("img-src", with("'self' data:", resources, "")),
        ("font-src", with("'self'", resources, "")),
        ("media-src", with("'self' data:", resources, "")),
        // Connections: only what is declared (the default is none at all).
        ("connect-src", with("", &approved.connect_domains, "'none'")),
        ("frame-src", with("", &approved.frame_domains, "'none'")),
        ("object-src", "'none'".to_owned()),
        ("base-uri", with("", &approved.base_uri_domains, "'self'")),
        // Not in the extension's list: an app has no reason to post a form
        // anywhere (its host gets messages, not navigations).
        ("form-action", "'none'".to_owned()),
    ];
    directives
        .iter()
        .map(|(name, value)| format!("{name} {value}"))
        .collect::<Vec<_>>()
        .join("; ")
}

/// `entry` as a CSP source expression, if it is a plain origin the host
/// accepts: `http`, `https`, `ws` or `wss`, a host name (its first label
/// may be `*` over at least two more labels) or an IPv4 address, an
/// optional port, an optional path; lower-cased scheme and host.
fn origin(entry: &str, own: &[&str]) -> Result<String, &'static str> {
    if entry.len() > MAX_SOURCE_BYTES {
        return Err("longer than an origin the host reads");
    }
    if entry.bytes().any(|b| {
        b.is_ascii_whitespace()
            || b.is_ascii_control()
            || matches!(b, b';' | b',' | b'\'' | b'"')
            || !b.is_ascii()
    }) {
        return Err("has whitespace, quotes, `;`, `,` or non-ASCII characters");
    }
    if entry == "*" {
        return Err("is a bare wildcard, which allows every origin");
    }
    let Some((scheme, rest)) = entry.split_once("://") else {
        return Err("is not an origin with a scheme (e.g. `https://api.example.com`)");
    };
    let scheme = scheme.to_ascii_lowercase();
    if !matches!(scheme.as_str(), "https" | "http" | "wss" | "ws") {
        return Err("has a scheme other than https, http, wss or ws");
    }
    let (authority, path) = match rest.find('/') {
        Some(at) => rest.split_at(at),
        None => (rest, ""),
    };
    if path.contains(['?', '#', '*', '\\']) {
        return Err("has a query, a fragment or a wildcard in its path");
    }
    if authority.contains('@') {
        return Err("has user information");
    }
    let (host, port) = match authority.rsplit_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (authority, None),
    };
    if let Some(port) = port {
        if port == "*" {
            return Err("has a port wildcard");
        }
        if port.is_empty()
            || !port.bytes().all(|b| b.is_ascii_digit())
            || port.parse::<u16>().is_err()
        {
            return Err("has a port that is not a number up to 65535");
        }
    }
    let host = host.to_ascii_lowercase();
    check_host(&host)?;
    let normalized = format!(
        "{scheme}://{host}{}{path}",
        port.map(|p| format!(":{p}")).unwrap_or_default()
    );
    if own.iter().any(|o| reaches(&host, port, o)) {
        return Err("names the host's own origin");
    }
    Ok(normalized)
}

/// Whether a source of `host` (possibly `*.example.com`) and `port`
/// reaches the origin `own` (`http://127.0.0.1:8080`): the same host, one
/// its wildcard covers, or, for a loopback `own`, any loopback name on the
/// same port (`localhost:8080` is the same listener as `127.0.0.1:8080`).
fn reaches(host: &str, port: Option<&str>, own: &str) -> bool {
    let authority = own.split_once("://").map_or(own, |(_, rest)| rest);
    let (own_host, own_port) = match authority.rsplit_once(':') {
        Some((h, p)) => (h.to_ascii_lowercase(), Some(p)),
        None => (authority.to_ascii_lowercase(), None),
    };
    let same_host = host == own_host
        || host
            .strip_prefix('*')
            .is_some_and(|suffix| own_host.ends_with(suffix))
        || (loopback(host) && loopback(&own_host));
    // A source without a port means the scheme's default one.
    same_host && port.is_some() && port == own_port
}

/// Whether `host` names this machine.
fn loopback(host: &str) -> bool {
    host == "localhost"
        || host.ends_with(".localhost")
        || host == "0.0.0.0"
        || host.starts_with("127.")
}

/// Why `host` is not a host name, a `*.` wildcard over a registrable-looking
/// name, or an IPv4 address.
fn check_host(host: &str) -> Result<(), &'static str> {
    if host.is_empty() {
        return Err("names no host");
    }
    if host == "*" {
        return Err("is a bare wildcard, which allows every origin");
    }
    let labels: Vec<&str> = host.split('.').collect();
    let (wild, named) = match labels.split_first() {
        Some((&"*", rest)) => (true, rest),
        _ => (false, &labels[..]),
    };
    if wild && named.len() < 2 {
        return Err("has a wildcard over a whole top-level domain");
    }
    for label in named {
        let valid = !label.is_empty()
            && label.len() <= 63
            && label
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-')
            && !label.starts_with('-')
            && !label.ends_with('-');
        if !valid {
            return Err(
                "has a host that is not a host name (a wildcard is allowed only as the whole first label)",
            );
        }
    }
    Ok(())
}

/// `entry` cut to [`MAX_SOURCE_BYTES`] at a character boundary.
fn cut(entry: &str) -> String {
    let mut end = entry.len().min(MAX_SOURCE_BYTES);
    while !entry.is_char_boundary(end) {
        end -= 1;
    }
    entry[..end].to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEFAULT: &str = "default-src 'none'; script-src 'self' 'unsafe-inline'; \
        style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; \
        media-src 'self' data:; connect-src 'none'; frame-src 'none'; object-src 'none'; \
        base-uri 'self'; form-action 'none'";

    const OWN: [&str; 2] = ["http://127.0.0.1:8080", "http://127.0.0.1:8081"];

    #[test]
    fn nothing_declared_is_the_restrictive_default() {
        let policy = SandboxPolicy::for_app(&ResourceUi::default(), &OWN);
        assert_eq!(policy.content_security_policy, DEFAULT);
        assert_eq!(policy.allow, "");
        assert_eq!(policy.approved, Csp::default());
        assert!(policy.refused.is_empty());
    }

    #[test]
    fn declared_origins_widen_only_their_own_directives() {
        let ui = ResourceUi::default()
            .connect_domains(["https://api.example.com", "wss://live.example.com:8443"])
            .resource_domains([
                "https://*.cdn.example.com",
                "HTTPS://Fonts.Example.com/css/",
            ])
            .frame_domains(["https://www.youtube.com"])
            .base_uri_domains(["https://base.example.com"]);
        let policy = SandboxPolicy::for_app(&ui, &OWN);
        assert_eq!(
            policy.content_security_policy,
            "default-src 'none'; \
             script-src 'self' 'unsafe-inline' https://*.cdn.example.com https://fonts.example.com/css/; \
             style-src 'self' 'unsafe-inline' https://*.cdn.example.com https://fonts.example.com/css/; \
             img-src 'self' data: https://*.cdn.example.com https://fonts.example.com/css/; \
             font-src 'self' https://*.cdn.example.com https://fonts.example.com/css/; \
             media-src 'self' data: https://*.cdn.example.com https://fonts.example.com/css/; \
             connect-src https://api.example.com wss://live.example.com:8443; \
             frame-src https://www.youtube.com; object-src 'none'; \
             base-uri https://base.example.com; form-action 'none'"
        );
        assert!(policy.refused.is_empty(), "{:?}", policy.refused);
        assert_eq!(policy.approved.connect_domains.len(), 2);
    }

    #[test]
    fn what_would_loosen_the_policy_is_refused_and_named() {
        let hostile = [
            ("*", "bare wildcard"),
            ("https:", "not an origin with a scheme"),
            ("data:", "not an origin with a scheme"),
            ("blob:https://x.example.com", "scheme other than"),
            ("javascript://x.example.com", "scheme other than"),
            ("'unsafe-eval'", "whitespace, quotes"),
            ("https://a.example.com; script-src *", "whitespace, quotes"),
            (
                "https://a.example.com,https://b.example.com",
                "whitespace, quotes",
            ),
            ("https://*.com", "whole top-level domain"),
            ("https://*", "bare wildcard"),
            ("https://a.*.example.com", "not a host name"),
            ("https://example.com:*", "port wildcard"),
            ("https://example.com:99999", "not a number up to 65535"),
            ("https://user@example.com", "user information"),
            ("https://example.com/a?b", "query"),
            ("https://exämple.com", "non-ASCII"),
            ("http://127.0.0.1:8080", "host's own origin"),
            ("http://127.0.0.1:8081/x", "host's own origin"),
            ("http://localhost:8080", "host's own origin"),
            ("ws://127.0.0.1:8081", "host's own origin"),
            ("http://*.0.0.1:8081", "host's own origin"),
            ("http://*.a.localhost:8080", "host's own origin"),
        ];
        let ui = ResourceUi::default()
            .connect_domains(hostile.iter().map(|(entry, _)| *entry))
            .frame_domains(["*"]);
        let policy = SandboxPolicy::for_app(&ui, &OWN);
        assert_eq!(policy.content_security_policy, DEFAULT);
        assert_eq!(policy.refused.len(), hostile.len() + 1);
        for ((entry, says), refused) in hostile.iter().zip(&policy.refused) {
            assert_eq!(refused.field, "connectDomains");
            assert_eq!(&refused.value, entry);
            assert!(refused.reason.contains(says), "{entry}: {}", refused.reason);
        }
        assert_eq!(policy.refused.last().unwrap().field, "frameDomains");
    }

    #[test]
    fn a_refused_entry_leaves_the_others() {
        let ui = ResourceUi::default().connect_domains([
            "https://ok.example.com",
            "*",
            "https://ok.example.com",
        ]);
        let policy = SandboxPolicy::for_app(&ui, &OWN);
        assert!(
            policy
                .content_security_policy
                .contains("; connect-src https://ok.example.com;")
        );
        assert_eq!(policy.refused.len(), 1);
    }

    #[test]
    fn lists_and_entries_are_bounded() {
        let many: Vec<String> = (0..MAX_SOURCES + 3)
            .map(|i| format!("https://h{i}.example.com"))
            .collect();
        let long = format!("https://{}.example.com", "a".repeat(MAX_SOURCE_BYTES));
        let ui = ResourceUi::default()
            .connect_domains(many)
            .resource_domains([long]);
        let policy = SandboxPolicy::for_app(&ui, &OWN);
        assert_eq!(policy.approved.connect_domains.len(), MAX_SOURCES);
        assert_eq!(policy.refused.len(), 4);
        assert_eq!(policy.refused[3].value.len(), MAX_SOURCE_BYTES);
    }

    #[test]
    fn only_the_clipboard_is_granted() {
        let ui = ResourceUi::default()
            .camera()
            .microphone()
            .geolocation()
            .clipboard_write();
        let policy = SandboxPolicy::for_app(&ui, &OWN);
        assert_eq!(policy.allow, "clipboard-write");
        assert_eq!(
            policy.granted,
            Permissions {
                clipboard_write: Some(Default::default()),
                ..Permissions::default()
            }
        );
        let none = SandboxPolicy::for_app(&ResourceUi::default().camera(), &OWN);
        assert_eq!(none.allow, "");
    }
}
