//! Resources: how `resources/list` and `resources/templates/list` describe
//! one, and the params and result of `resources/read`. The contents a read
//! returns are [`ResourceContents`], the same type an embedded resource of
//! a tool result carries.

use super::jsonrpc::JsonObject;
use super::lifecycle::CacheScope;
use super::tools::{BlockAnnotations, Icon, ResourceContents};
use crate::meta::Envelope;
use serde::{Deserialize, Serialize};

/// A resource at a fixed URI, as `resources/list` lists it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    /// Its URI, what `resources/read` names.
    pub uri: String,
    /// Its name.
    pub name: String,
    /// A title for display (2025-06-18 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Its size in bytes, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Who it is for and how important it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<BlockAnnotations>,
    /// Icons for display (2025-11-25 on).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub icons: Vec<Icon>,
    /// Its `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// A family of resources whose URIs match an RFC 6570 template, as
/// `resources/templates/list` lists it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceTemplate {
    /// The URI template (`file:///{path}`).
    pub uri_template: String,
    /// Its name.
    pub name: String,
    /// A title for display (2025-06-18 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What its resources are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The MIME type of every resource it matches, when they share one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Who its resources are for and how important they are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<BlockAnnotations>,
    /// Icons for display (2025-11-25 on).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub icons: Vec<Icon>,
    /// Its `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// The params of `resources/list` and `resources/templates/list`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ListResourcesParams<'a> {
    /// Where the previous page ended (its `nextCursor`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// `_meta` (2026-07-28: the envelope).
    #[serde(
        rename = "_meta",
        default,
        borrow,
        skip_serializing_if = "Option::is_none"
    )]
    pub meta: Option<Envelope<'a>>,
}

/// The result of `resources/list`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListResourcesResult {
    /// The resources of this page.
    pub resources: Vec<Resource>,
    /// Where the next page starts; absent on the last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// How long the list stays fresh, in ms (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Who may cache it (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// Its `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// The result of `resources/templates/list`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListResourceTemplatesResult {
    /// The templates of this page.
    pub resource_templates: Vec<ResourceTemplate>,
    /// Where the next page starts; absent on the last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// How long the list stays fresh, in ms (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Who may cache it (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// Its `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// The params of `resources/read`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ReadResourceParams<'a> {
    /// The URI to read: a listed resource's, or one a template matches.
    pub uri: String,
    /// `_meta` (2026-07-28: the envelope).
    #[serde(
        rename = "_meta",
        default,
        borrow,
        skip_serializing_if = "Option::is_none"
    )]
    pub meta: Option<Envelope<'a>>,
}

/// The result of `resources/read`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadResourceResult {
    /// What the URI holds: one or more text or binary contents.
    pub contents: Vec<ResourceContents>,
    /// How long the contents stay fresh, in ms (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Who may cache them (2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// Its `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_resource_and_a_template_skip_what_they_lack() {
        let resource = Resource {
            uri: "test://a".into(),
            name: "a".into(),
            title: None,
            description: Some("d".into()),
            mime_type: Some("text/plain".into()),
            size: Some(3),
            annotations: None,
            icons: Vec::new(),
            meta: None,
        };
        let wire = json!({"uri": "test://a", "name": "a", "description": "d",
            "mimeType": "text/plain", "size": 3});
        assert_eq!(serde_json::to_value(&resource).unwrap(), wire);
        assert_eq!(serde_json::from_value::<Resource>(wire).unwrap(), resource);
        let template: ResourceTemplate =
            serde_json::from_value(json!({"uriTemplate": "test://{id}", "name": "t"})).unwrap();
        assert_eq!(template.uri_template, "test://{id}");
    }

    #[test]
    fn a_read_result_holds_text_and_blob_contents() {
        let wire = json!({"contents": [
            {"uri": "test://a", "mimeType": "text/plain", "text": "hi"},
            {"uri": "test://b", "blob": "AA=="},
        ], "ttlMs": 5, "cacheScope": "public", "resultType": "complete"});
        let read: ReadResourceResult = serde_json::from_value(wire).unwrap();
        assert!(matches!(&read.contents[0], ResourceContents::Text { text, .. } if text == "hi"));
        assert!(matches!(&read.contents[1], ResourceContents::Blob { blob, .. } if blob == "AA=="));
        assert_eq!(read.cache_scope, Some(CacheScope::Public));
    }
}
