//! An app's HTML as a `resources/read` returns it: the content at the
//! tool's `ui://` URI, served as `text/html;profile=mcp-app`, as text or
//! base64, bounded, with its `_meta.ui` (the sandbox it asks for).

use base64::Engine;
use mcpfn_protocol::model::{APP_MIME_TYPE, ResourceUi, UI_META_KEY};
use serde_json::Value;

/// The largest app document a host takes, in bytes (the official examples
/// are single-file bundles of 200 to 450 KB).
pub const MAX_APP_BYTES: usize = 8 * 1024 * 1024;

/// An app's document, ready for its sandbox.
#[derive(Clone, Debug, PartialEq)]
pub struct AppDocument {
    /// The `ui://` URI it was read at.
    pub uri: String,
    /// The HTML.
    pub html: String,
    /// Its `_meta.ui`: the content's, else the resource listing's, else
    /// nothing declared (the restrictive default).
    pub ui: ResourceUi,
}

/// Why a read result is not an app document; each names the URI.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DocumentError {
    /// No content of the result is at the URI.
    #[error("the read of `{uri}` returned no content at that URI")]
    Missing {
        /// The URI.
        uri: String,
    },
    /// The content is not served as an app.
    #[error("`{uri}` is served as `{mime}`, not `{APP_MIME_TYPE}`")]
    NotAnApp {
        /// The URI.
        uri: String,
        /// Its MIME type as given (cut), or `none`.
        mime: String,
    },
    /// Past [`MAX_APP_BYTES`].
    #[error("`{uri}` is larger than {MAX_APP_BYTES} bytes")]
    TooLarge {
        /// The URI.
        uri: String,
    },
    /// Neither text nor base64 of UTF-8.
    #[error("`{uri}` holds no readable HTML: {reason}")]
    Unreadable {
        /// The URI.
        uri: String,
        /// What was wrong.
        reason: &'static str,
    },
}

impl AppDocument {
    /// The app document at `uri` in `read` (a `resources/read` result as
    /// sent), with `listed` the resource's `_meta.ui` from its listing, if
    /// known, used when the content carries none.
    pub fn from_read(
        uri: &str,
        read: &Value,
        listed: Option<&ResourceUi>,
    ) -> Result<AppDocument, DocumentError> {
        let missing = || DocumentError::Missing {
            uri: uri.to_owned(),
        };
        let content = read
            .get("contents")
            .and_then(Value::as_array)
            .and_then(|contents| {
                contents
                    .iter()
                    .find(|c| c.get("uri").and_then(Value::as_str) == Some(uri))
            })
            .ok_or_else(missing)?;
        let mime = content.get("mimeType").and_then(Value::as_str);
        if !mime.is_some_and(is_app_mime) {
            let mut shown: String = mime.unwrap_or("none").chars().take(80).collect();
            shown.retain(|c| !c.is_control());
            return Err(DocumentError::NotAnApp {
                uri: uri.to_owned(),
                mime: shown,
            });
        }
        let too_large = || DocumentError::TooLarge {
            uri: uri.to_owned(),
        };
        let html = if let Some(text) = content.get("text").and_then(Value::as_str) {
            if text.len() > MAX_APP_BYTES {
                return Err(too_large());
            }
            text.to_owned()
        } else if let Some(blob) = content.get("blob").and_then(Value::as_str) {
            // Four base64 characters per three bytes.
            if blob.len() / 4 * 3 > MAX_APP_BYTES + 3 {
                return Err(too_large());
            }
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(blob)
                .map_err(|_| DocumentError::Unreadable {
                    uri: uri.to_owned(),
                    reason: "its blob is not base64",
                })?;
            if bytes.len() > MAX_APP_BYTES {
                return Err(too_large());
            }
            String::from_utf8(bytes).map_err(|_| DocumentError::Unreadable {
                uri: uri.to_owned(),
                reason: "its blob is not UTF-8",
            })?
        } else {
            return Err(DocumentError::Unreadable {
                uri: uri.to_owned(),
                reason: "it has neither text nor blob",
            });
        };
        let declared = content
            .get("_meta")
            .and_then(|meta| meta.get(UI_META_KEY))
            .map(|ui| {
                // A `_meta.ui` that does not parse declares nothing: the
                // restrictive default applies.
                serde_json::from_value::<ResourceUi>(ui.clone()).unwrap_or_else(|e| {
                    tracing::warn!(uri = %uri, error = %e, "the app's `_meta.ui` does not parse; its sandbox gets the restrictive default");
                    ResourceUi::default()
                })
            });
        let ui = declared.or_else(|| listed.cloned()).unwrap_or_default();
        Ok(AppDocument {
            uri: uri.to_owned(),
            html,
            ui,
        })
    }
}

/// Whether `mime` is `text/html;profile=mcp-app`, spaces and case aside.
fn is_app_mime(mime: &str) -> bool {
    let compact: String = mime
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase();
    compact == APP_MIME_TYPE
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpfn_protocol::model::ReadResourceResult;
    use serde_json::json;

    const URI: &str = "ui://get-time/mcp-app.html";

    #[test]
    fn the_content_at_the_uri_is_read_with_its_meta() {
        let read = json!({"contents": [
            {"uri": "ui://other", "mimeType": APP_MIME_TYPE, "text": "<p>other"},
            {"uri": URI, "mimeType": "text/html; profile=mcp-app", "text": "<p>time",
             "_meta": {"ui": {"csp": {"connectDomains": ["https://api.example.com"]}}}},
        ]});
        let doc = AppDocument::from_read(URI, &read, None).unwrap();
        assert_eq!(doc.html, "<p>time");
        assert_eq!(doc.ui.csp.connect_domains, ["https://api.example.com"]);
    }

    #[test]
    fn base64_is_decoded_and_the_listing_meta_is_the_fallback() {
        let listed = ResourceUi::default().prefers_border(true);
        let read =
            json!({"contents": [{"uri": URI, "mimeType": APP_MIME_TYPE, "blob": "PHA+aGk="}]});
        let doc = AppDocument::from_read(URI, &read, Some(&listed)).unwrap();
        assert_eq!(doc.html, "<p>hi");
        assert_eq!(doc.ui, listed);
        // A `_meta.ui` that does not parse is the restrictive default.
        let read = json!({"contents": [{"uri": URI, "mimeType": APP_MIME_TYPE, "text": "x",
                                        "_meta": {"ui": {"csp": {"connectDomains": "*"}}}}]});
        let doc = AppDocument::from_read(URI, &read, Some(&listed)).unwrap();
        assert_eq!(doc.ui, ResourceUi::default());
    }

    #[test]
    fn the_contents_meta_survives_the_client_model_and_wins_over_the_listing() {
        // As the web host gets it: the typed `resources/read` result of
        // `McpClient::read_resource`, turned back into JSON.
        let wire = json!({"contents": [{"uri": URI, "mimeType": APP_MIME_TYPE, "text": "<p>t",
            "_meta": {"ui": {"csp": {"connectDomains": ["https://api.example.com"]},
                             "permissions": {"clipboardWrite": {}}}}}]});
        let typed: ReadResourceResult = serde_json::from_value(wire).unwrap();
        let read = serde_json::to_value(&typed).unwrap();
        let listed = ResourceUi::default().prefers_border(true);
        let doc = AppDocument::from_read(URI, &read, Some(&listed)).unwrap();
        assert_eq!(doc.ui.csp.connect_domains, ["https://api.example.com"]);
        assert!(doc.ui.permissions.clipboard_write.is_some());
        assert_eq!(doc.ui.prefers_border, None);
    }

    #[test]
    fn what_is_not_an_app_is_named() {
        let cases = [
            (json!({"contents": []}), "returned no content at that URI"),
            (
                json!({"contents": [{"uri": URI, "mimeType": "text/html", "text": "x"}]}),
                "is served as `text/html`",
            ),
            (
                json!({"contents": [{"uri": URI, "text": "x"}]}),
                "served as `none`",
            ),
            (
                json!({"contents": [{"uri": URI, "mimeType": APP_MIME_TYPE}]}),
                "neither text nor blob",
            ),
            (
                json!({"contents": [{"uri": URI, "mimeType": APP_MIME_TYPE, "blob": "!!"}]}),
                "not base64",
            ),
            (
                json!({"contents": [{"uri": URI, "mimeType": APP_MIME_TYPE, "blob": "/w=="}]}),
                "not UTF-8",
            ),
            (
                json!({"contents": [{"uri": URI, "mimeType": APP_MIME_TYPE,
                                     "text": "x".repeat(MAX_APP_BYTES + 1)}]}),
                "larger than 8388608 bytes",
            ),
        ];
        for (read, says) in cases {
            let err = AppDocument::from_read(URI, &read, None)
                .unwrap_err()
                .to_string();
            assert!(err.contains(says) && err.contains(URI), "{err}");
        }
    }
}
