//! The results of `resources/list`, `resources/templates/list` and
//! `resources/read`: list pages spliced from shared JSON, as `tools/list`'s
//! are, and the contents a read returns. In 2026-07-28 all three carry the
//! cache hints.

use super::results::{CacheHints, Closed, Reply};
use super::{JSONRPC, Response};
use crate::frame::{self, Frame, Spliced};
use crate::model::ResourceContents;
use serde::Serialize;
use std::sync::Arc;

/// `resources/list` result fields: the page itself is shared.
#[derive(Serialize)]
struct ListResources<'a> {
    resources: Spliced,
    #[serde(rename = "nextCursor", skip_serializing_if = "Option::is_none")]
    next_cursor: Option<&'a str>,
    #[serde(flatten)]
    cache: Option<CacheHints>,
}

/// `resources/templates/list` result fields: the page itself is shared.
#[derive(Serialize)]
struct ListResourceTemplates<'a> {
    #[serde(rename = "resourceTemplates")]
    resource_templates: Spliced,
    #[serde(rename = "nextCursor", skip_serializing_if = "Option::is_none")]
    next_cursor: Option<&'a str>,
    #[serde(flatten)]
    cache: Option<CacheHints>,
}

/// `resources/read` result fields.
#[derive(Serialize)]
struct ReadResource<'a> {
    contents: &'a [ResourceContents],
    #[serde(flatten)]
    cache: Option<CacheHints>,
}

/// Which list a page is of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResourceList {
    /// `resources/list`: resources at fixed URIs.
    Resources,
    /// `resources/templates/list`: URI templates.
    Templates,
}

impl Reply<'_> {
    fn cache(&self, ttl_ms: u64) -> Option<CacheHints> {
        self.version
            .carries()
            .envelope
            .then(|| CacheHints::public(ttl_ms))
    }

    fn shared<B: Serialize>(&self, body: B, items: Arc<str>) -> Frame {
        let result = Closed {
            body,
            trailer: self.trailer("complete"),
        };
        frame::encode_shared(
            &Response {
                jsonrpc: JSONRPC,
                id: self.id,
                result,
            },
            items,
        )
    }

    /// A page of `list`: `items` is the page's JSON array, shared. Its
    /// 2026-07-28 cache scope is `public`: the lists are the same for
    /// every caller.
    pub fn resource_page(
        &self,
        list: ResourceList,
        items: Arc<str>,
        next_cursor: Option<&str>,
        ttl_ms: u64,
    ) -> Frame {
        let cache = self.cache(ttl_ms);
        match list {
            ResourceList::Resources => self.shared(
                ListResources {
                    resources: Spliced,
                    next_cursor,
                    cache,
                },
                items,
            ),
            ResourceList::Templates => self.shared(
                ListResourceTemplates {
                    resource_templates: Spliced,
                    next_cursor,
                    cache,
                },
                items,
            ),
        }
    }

    /// The `resources/read` result: `contents`, and in 2026-07-28 the cache
    /// hints (`public` for `ttl_ms`).
    pub fn read_resource(&self, contents: &[ResourceContents], ttl_ms: u64) -> Frame {
        let estimate: usize = contents
            .iter()
            .map(|content| match content {
                ResourceContents::Text { uri, text, .. } => uri.len() + text.len() + 64,
                ResourceContents::Blob { uri, blob, .. } => uri.len() + blob.len() + 64,
            })
            .sum();
        let body = ReadResource {
            contents,
            cache: self.cache(ttl_ms),
        };
        self.send(body, "complete", estimate + 32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ProtocolVersion;
    use crate::outgoing::results::tests::meta;
    use crate::outgoing::tests::{raw, text};

    #[test]
    fn pages_splice_their_items_under_their_key() {
        let id = raw("1");
        let meta = meta();
        let legacy = Reply::new(&id, ProtocolVersion::V2025_11_25, &meta);
        assert_eq!(
            text(legacy.resource_page(
                ResourceList::Resources,
                Arc::from(r#"[{"uri":"a://b","name":"b"}]"#),
                Some("c"),
                5
            )),
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resources\":[{\"uri\":\"a://b\",\"name\":\"b\"}],\"nextCursor\":\"c\"}}\n"
        );
        let modern = Reply::new(&id, ProtocolVersion::V2026_07_28, &meta);
        let page = text(modern.resource_page(ResourceList::Templates, Arc::from("[]"), None, 7));
        assert!(
            page.starts_with("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resourceTemplates\":[],\"ttlMs\":7,\"cacheScope\":\"public\",\"resultType\":\"complete\",\"_meta\":{"),
            "{page}"
        );
    }

    #[test]
    fn a_read_result_carries_its_contents_and_in_2026_the_hints() {
        let id = raw("2");
        let meta = meta();
        let contents = [ResourceContents::Text {
            uri: "a://b".into(),
            mime_type: Some("text/plain".into()),
            text: "hi".into(),
        }];
        let legacy = Reply::new(&id, ProtocolVersion::V2025_06_18, &meta);
        assert_eq!(
            text(legacy.read_resource(&contents, 9)),
            "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"contents\":[{\"uri\":\"a://b\",\"mimeType\":\"text/plain\",\"text\":\"hi\"}]}}\n"
        );
        let modern = Reply::new(&id, ProtocolVersion::V2026_07_28, &meta);
        let read = text(modern.read_resource(&contents, 9));
        assert!(
            read.contains("\"text\":\"hi\"}],\"ttlMs\":9,\"cacheScope\":\"public\",\"resultType\":\"complete\""),
            "{read}"
        );
    }
}
