//! The results of `resources/list`, `resources/templates/list` and
//! `resources/read`: list pages spliced from shared JSON, as `tools/list`'s
//! are, and the contents a read returns. In 2026-07-28 all three carry the
//! cache hints.

use super::results::{AnswerTemplates, CacheHints, Closed, Reply};
use super::{JSONRPC, Response};
use crate::protocol::frame::{self, Frame, FrameKind, Spliced};
use crate::protocol::json_text;
use crate::protocol::model::{JsonObject, ResourceContents};
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

/// `resources/read` result fields: `contents` is written by hand
/// ([`write_contents`]).
#[derive(Serialize)]
struct ReadResource {
    contents: Spliced,
    #[serde(flatten)]
    cache: Option<CacheHints>,
}

/// `contents` as serde would write them (each `uri`, `mimeType`, `text` or
/// `blob`, and when `with_meta` a `_meta`: the content's own, else
/// `resource_meta`), the strings through [`json_text::write_str`]: the text
/// or blob is the bulk of a read, up to the message limit.
fn write_contents(
    out: &mut Vec<u8>,
    contents: &[ResourceContents],
    resource_meta: Option<&JsonObject>,
    with_meta: bool,
) {
    out.push(b'[');
    for (at, content) in contents.iter().enumerate() {
        if at > 0 {
            out.push(b',');
        }
        let (uri, mime_type, key, bulk, own) = match content {
            ResourceContents::Text {
                uri,
                mime_type,
                text,
                meta,
            } => (uri, mime_type, &b",\"text\":"[..], text, meta),
            ResourceContents::Blob {
                uri,
                mime_type,
                blob,
                meta,
            } => (uri, mime_type, &b",\"blob\":"[..], blob, meta),
        };
        out.extend_from_slice(b"{\"uri\":");
        json_text::write_str(out, uri);
        if let Some(mime_type) = mime_type {
            out.extend_from_slice(b",\"mimeType\":");
            json_text::write_str(out, mime_type);
        }
        out.extend_from_slice(key);
        json_text::write_str(out, bulk);
        // A content's own `_meta` is what its handler chose; the
        // resource's is the default.
        if let Some(meta) = own.as_ref().or(resource_meta).filter(|_| with_meta) {
            out.extend_from_slice(b",\"_meta\":");
            // A map of JSON values into a `Vec`: this cannot fail.
            serde_json::to_writer(&mut *out, meta).unwrap_or_default();
        }
        out.push(b'}');
    }
    out.push(b']');
}

/// Which list a page is of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ResourceList {
    /// `resources/list`: resources at fixed URIs.
    Resources,
    /// `resources/templates/list`: URI templates.
    Templates,
}

impl Reply<'_> {
    /// A page of `list`: `items` is the page's JSON array, shared. Its
    /// 2026-07-28 cache scope is `public`: the lists are the same for
    /// every caller.
    pub(crate) fn resource_page(
        &self,
        list: ResourceList,
        items: Arc<str>,
        next_cursor: Option<&str>,
        ttl_ms: u64,
    ) -> Frame {
        let cache = self.public_cache(ttl_ms);
        match list {
            ResourceList::Resources => self.send_shared(
                ListResources {
                    resources: Spliced,
                    next_cursor,
                    cache,
                },
                items,
            ),
            ResourceList::Templates => self.send_shared(
                ListResourceTemplates {
                    resource_templates: Spliced,
                    next_cursor,
                    cache,
                },
                items,
            ),
        }
    }

    /// The `resources/read` result: `contents`, each with its own `_meta`
    /// or else `content_meta` (from 2025-06-18: an MCP App's `ui`, say), and in
    /// 2026-07-28 the cache hints (`public` for `ttl_ms`).
    pub(crate) fn read_resource(
        &self,
        contents: &[ResourceContents],
        content_meta: Option<&JsonObject>,
        ttl_ms: u64,
        templates: &AnswerTemplates,
    ) -> Frame {
        let estimate: usize = contents
            .iter()
            .map(|content| match content {
                ResourceContents::Text { uri, text, .. } => uri.len() + text.len() + 64,
                ResourceContents::Blob { uri, blob, .. } => uri.len() + blob.len() + 64,
            })
            .sum();
        let with_meta = self.version.carries().structured_output;
        let meta = content_meta.filter(|_| with_meta);
        let meta_len = meta.map_or(0, |meta| 64 * meta.len());
        let make = || {
            frame::Template::new(&Response {
                jsonrpc: JSONRPC,
                id: frame::hole(),
                result: Closed {
                    body: ReadResource {
                        contents: Spliced,
                        cache: self.public_cache(ttl_ms),
                    },
                    trailer: self.trailer("complete"),
                },
            })
        };
        let id = self.id.get().as_bytes();
        self.templated(templates, make, |template| {
            template.fill_then(
                &[id],
                id.len() + estimate + meta_len,
                |out| write_contents(out, contents, meta, with_meta),
                FrameKind::Result,
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ProtocolVersion;
    use crate::protocol::outgoing::results::tests::meta;
    use crate::protocol::outgoing::tests::{raw, text};

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
            meta: None,
        }];
        let legacy = Reply::new(&id, ProtocolVersion::V2025_06_18, &meta);
        assert_eq!(
            text(legacy.read_resource(&contents, None, 9, &AnswerTemplates::default())),
            "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"contents\":[{\"uri\":\"a://b\",\"mimeType\":\"text/plain\",\"text\":\"hi\"}]}}\n"
        );
        let modern = Reply::new(&id, ProtocolVersion::V2026_07_28, &meta);
        let read = text(modern.read_resource(&contents, None, 9, &AnswerTemplates::default()));
        assert!(
            read.contains("\"text\":\"hi\"}],\"ttlMs\":9,\"cacheScope\":\"public\",\"resultType\":\"complete\""),
            "{read}"
        );
    }

    #[test]
    fn a_read_gives_each_content_the_resource_meta_from_2025_06_18() {
        let id = raw("3");
        let meta = meta();
        let contents = [
            ResourceContents::Text {
                uri: "ui://a/b".into(),
                mime_type: Some("text/html;profile=mcp-app".into()),
                text: "<p>".into(),
                meta: None,
            },
            ResourceContents::Blob {
                uri: "ui://a/b".into(),
                mime_type: None,
                blob: "AA==".into(),
                meta: None,
            },
        ];
        let ui: JsonObject = serde_json::from_str(r#"{"ui":{"prefersBorder":true}}"#).unwrap();
        let read = Reply::new(&id, ProtocolVersion::V2025_06_18, &meta);
        assert_eq!(
            text(read.read_resource(&contents, Some(&ui), 9, &AnswerTemplates::default())),
            "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"contents\":[{\"uri\":\"ui://a/b\",\"mimeType\":\"text/html;profile=mcp-app\",\"text\":\"<p>\",\"_meta\":{\"ui\":{\"prefersBorder\":true}}},{\"uri\":\"ui://a/b\",\"blob\":\"AA==\",\"_meta\":{\"ui\":{\"prefersBorder\":true}}}]}}\n"
        );
        // 2025-03-26 contents have no `_meta`.
        let old = Reply::new(&id, ProtocolVersion::V2025_03_26, &meta);
        assert!(
            !text(old.read_resource(&contents, Some(&ui), 9, &AnswerTemplates::default()))
                .contains("_meta")
        );
    }

    #[test]
    fn a_content_keeps_its_own_meta_and_a_client_reads_it_back() {
        let id = raw("4");
        let meta = meta();
        let own: JsonObject =
            serde_json::from_str(r#"{"ui":{"csp":{"connectDomains":["https://a.example"]}}}"#)
                .unwrap();
        let contents = [
            ResourceContents::Text {
                uri: "ui://a/b".into(),
                mime_type: None,
                text: "<p>".into(),
                meta: Some(own.clone()),
            },
            ResourceContents::Text {
                uri: "ui://a/c".into(),
                mime_type: None,
                text: "<p>".into(),
                meta: None,
            },
        ];
        let ui: JsonObject = serde_json::from_str(r#"{"ui":{"prefersBorder":true}}"#).unwrap();
        let reply = Reply::new(&id, ProtocolVersion::V2025_11_25, &meta);
        let line = text(reply.read_resource(&contents, Some(&ui), 9, &AnswerTemplates::default()));
        let sent: serde_json::Value = serde_json::from_str(&line).unwrap();
        let read: crate::protocol::model::ReadResourceResult =
            serde_json::from_value(sent["result"].clone()).unwrap();
        assert_eq!(read.contents[0], contents[0]);
        assert!(
            matches!(&read.contents[1], ResourceContents::Text { meta: Some(m), .. } if *m == ui)
        );
        // With no resource `_meta`, a content's own is still written.
        let line = text(reply.read_resource(&contents, None, 9, &AnswerTemplates::default()));
        assert!(
            line.contains("connectDomains") && line.matches("_meta").count() == 1,
            "{line}"
        );
        let old = Reply::new(&id, ProtocolVersion::V2025_03_26, &meta);
        assert!(
            !text(old.read_resource(&contents, None, 9, &AnswerTemplates::default()))
                .contains("\"_meta\":{\"ui")
        );
    }
}
