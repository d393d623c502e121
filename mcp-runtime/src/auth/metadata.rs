//! OAuth 2.0 Protected Resource Metadata (RFC 9728): the document, and the
//! two well-known paths it is served at.

use serde::Serialize;

/// The well-known path prefix of RFC 9728 §3.
pub(crate) const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// The metadata document (RFC 9728 §2), as the MCP authorization rules use
/// it: the canonical URI, the authorization servers, the scopes, and the
/// one bearer method accepted.
#[derive(Serialize, Debug)]
pub(crate) struct ProtectedResourceMetadata<'a> {
    pub(crate) resource: &'a str,
    pub(crate) authorization_servers: &'a [String],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub(crate) scopes_supported: &'a [String],
    /// Only the header: tokens in the query string or a form body are
    /// refused (OAuth 2.1 §5.2, MCP authorization).
    pub(crate) bearer_methods_supported: [&'static str; 1],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) resource_name: Option<&'a str>,
}

/// The resource's canonical URI split the way RFC 9728 §3.1 needs it.
#[derive(Clone, Debug)]
pub(crate) struct ResourceUri {
    /// `scheme://authority`.
    pub(crate) origin: String,
    /// The path, `""` for the root (a lone `/` is dropped).
    pub(crate) path: String,
}

impl ResourceUri {
    /// Parses an absolute `http(s)` URI without a fragment.
    pub(crate) fn parse(uri: &str) -> Result<ResourceUri, String> {
        let parsed: hyper::Uri = uri
            .parse()
            .map_err(|err| format!("the resource URI {uri:?} is not a URI: {err}"))?;
        let (Some(scheme), Some(authority)) = (parsed.scheme_str(), parsed.authority()) else {
            return Err(format!(
                "the resource URI {uri:?} must be absolute (https://host/path)"
            ));
        };
        if !matches!(scheme, "https" | "http") {
            return Err(format!("the resource URI {uri:?} must be https (or http)"));
        }
        if uri.contains('#') {
            return Err(format!(
                "the resource URI {uri:?} must not have a fragment (RFC 8707)"
            ));
        }
        let path = parsed.path();
        Ok(ResourceUri {
            origin: format!("{scheme}://{authority}"),
            path: if path == "/" {
                String::new()
            } else {
                path.to_owned()
            },
        })
    }

    /// The metadata URL a `401` points to: the well-known prefix inserted
    /// between the authority and the path (RFC 9728 §3.1).
    pub(crate) fn metadata_url(&self) -> String {
        format!("{}{WELL_KNOWN}{}", self.origin, self.path)
    }

    /// Whether `path` is one of the two places the document is served:
    /// the path form (`/.well-known/oauth-protected-resource/mcp`) and the
    /// root form (`/.well-known/oauth-protected-resource`), which clients
    /// try in that order.
    pub(crate) fn is_metadata_path(&self, path: &str) -> bool {
        path.strip_prefix(WELL_KNOWN)
            .is_some_and(|rest| rest.is_empty() || rest == self.path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_metadata_url_inserts_the_well_known_prefix_before_the_path() {
        let uri = ResourceUri::parse("https://mcp.example.com/mcp").unwrap();
        assert_eq!(
            uri.metadata_url(),
            "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
        );
        assert!(uri.is_metadata_path("/.well-known/oauth-protected-resource"));
        assert!(uri.is_metadata_path("/.well-known/oauth-protected-resource/mcp"));
        assert!(!uri.is_metadata_path("/.well-known/oauth-protected-resource/other"));
        let root = ResourceUri::parse("https://mcp.example.com:8443/").unwrap();
        assert_eq!(
            root.metadata_url(),
            "https://mcp.example.com:8443/.well-known/oauth-protected-resource"
        );
    }

    #[test]
    fn relative_or_fragment_uris_are_refused() {
        assert!(ResourceUri::parse("/mcp").is_err());
        assert!(ResourceUri::parse("https://a.example/mcp#x").is_err());
        assert!(ResourceUri::parse("ftp://a.example/mcp").is_err());
    }

    #[test]
    fn the_document_has_the_required_fields() {
        let servers = vec!["https://auth.example.com".to_owned()];
        let doc = ProtectedResourceMetadata {
            resource: "https://mcp.example.com/mcp",
            authorization_servers: &servers,
            scopes_supported: &[],
            bearer_methods_supported: ["header"],
            resource_name: None,
        };
        assert_eq!(
            serde_json::to_value(&doc).unwrap(),
            serde_json::json!({
                "resource": "https://mcp.example.com/mcp",
                "authorization_servers": ["https://auth.example.com"],
                "bearer_methods_supported": ["header"]
            })
        );
    }
}
