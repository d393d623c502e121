//! The one table behind `resources/list`, `resources/templates/list` and
//! `resources/read`: fixed resources and templates in declaration order,
//! each list paged as `tools/list` is (pages built once per revision,
//! cursors bound to the table), and the lookup of a URI (fixed URIs first,
//! then the templates in order).

use super::template::{Refused, Variables};
use super::{At, Resource};
use crate::complete::Completer;
use crate::error::Error;
use crate::protocol::outgoing::{AnswerTemplates, ResourceList};
use crate::protocol::tool_def::definitions_array;
use crate::protocol::{ProtocolVersion, RpcError};
use crate::util::FastMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::{Arc, OnceLock};

/// One page of a list: its JSON array, shared by every response, and the
/// cursor of the next page.
#[derive(Debug)]
pub(crate) struct Page {
    pub(crate) items: Arc<str>,
    pub(crate) next_cursor: Option<Arc<str>>,
}

/// A `nextCursor` that is not one of this table's: `-32602`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct UnknownCursor;

/// What a URI finds.
#[derive(Debug)]
pub(crate) enum Found<'a> {
    /// The resource that serves it, with its variables' values.
    Resource(&'a Resource, Variables),
    /// A template matches its shape but refuses a value.
    Refused(Refused),
    /// Nothing serves it.
    None,
}

/// The server's resources, immutable once serving starts.
#[derive(Debug, Default)]
pub(crate) struct ResourceRegistry {
    fixed: Vec<Resource>,
    templates: Vec<Resource>,
    by_uri: FastMap<String, usize>,
    /// Per list, per revision: the pages, built on first use.
    pages: [[OnceLock<Vec<Page>>; ProtocolVersion::ALL.len()]; 2],
    page_size: Option<usize>,
    fingerprint: u64,
    /// Whether a template has a completer (the server then offers
    /// `completion/complete`).
    completes: bool,
    /// The envelope of every read's answer, made once per revision's.
    answers: AnswerTemplates,
}

impl ResourceRegistry {
    /// Splits fixed resources from templates, refuses a URI (or template)
    /// registered twice.
    pub(crate) fn new(
        resources: Vec<Resource>,
        page_size: Option<usize>,
    ) -> Result<ResourceRegistry, Error> {
        let mut registry = ResourceRegistry {
            page_size: page_size.filter(|&n| n > 0),
            ..ResourceRegistry::default()
        };
        let mut hasher = DefaultHasher::new();
        let mut templates_seen: Vec<&str> = Vec::new();
        for resource in &resources {
            resource.uri().hash(&mut hasher);
            if let At::Template(template) = &resource.at {
                if templates_seen.contains(&template.as_str()) {
                    return Err(Error::DuplicateResourceUri(template.as_str().to_owned()));
                }
                templates_seen.push(template.as_str());
            }
        }
        for resource in resources {
            match &resource.at {
                At::Fixed(uri) => {
                    let index = registry.fixed.len();
                    if registry.by_uri.insert(uri.clone(), index).is_some() {
                        return Err(Error::DuplicateResourceUri(uri.clone()));
                    }
                    registry.fixed.push(resource);
                }
                At::Template(_) => {
                    registry.completes |= resource.completers.names().next().is_some();
                    registry.templates.push(resource);
                }
            }
        }
        registry.fingerprint = hasher.finish();
        Ok(registry)
    }

    /// The envelope of a read's answer ([`Reply::read_resource`](crate::protocol::outgoing::Reply::read_resource)).
    pub(crate) fn answers(&self) -> &AnswerTemplates {
        &self.answers
    }

    /// Whether the server has any resource (it then offers the capability).
    pub(crate) fn is_empty(&self) -> bool {
        self.fixed.is_empty() && self.templates.is_empty()
    }

    /// The resource that serves `uri`: the fixed one at it, else the first
    /// template, in declaration order, that matches it.
    pub(crate) fn find(&self, uri: &str) -> Found<'_> {
        if let Some(&index) = self.by_uri.get(uri) {
            return Found::Resource(&self.fixed[index], Variables::default());
        }
        for resource in &self.templates {
            let At::Template(template) = &resource.at else {
                continue;
            };
            match template.matches(uri) {
                Some(Ok(variables)) => return Found::Resource(resource, variables),
                Some(Err(refused)) => return Found::Refused(refused),
                None => {}
            }
        }
        Found::None
    }

    /// Whether a template variable has a completer.
    pub(crate) fn completes(&self) -> bool {
        self.completes
    }

    /// The completer of `variable` of the template written `template`:
    /// `None` when it has none, or when `template` is a fixed resource's
    /// URI (an empty completion); `-32602` when it is neither.
    pub(crate) fn completer(
        &self,
        template: &str,
        variable: &str,
    ) -> Result<Option<Completer>, RpcError> {
        if let Some(resource) = self.templates.iter().find(|r| r.uri() == template) {
            return Ok(resource.completers.get(variable).cloned());
        }
        if self.by_uri.contains_key(template) {
            return Ok(None);
        }
        // A longer one cannot be ours, and is not echoed.
        if template.len() > super::template::MAX_URI_LEN {
            return Err(RpcError::invalid_params(format!(
                "Invalid params: the resource template is {} bytes; none of this server's is that long",
                template.len()
            )));
        }
        Err(RpcError::invalid_params(format!(
            "Invalid params: no resource template is '{template}' (see resources/templates/list)"
        ))
        .with_data(serde_json::json!({ "uri": template })))
    }

    /// Every resource, fixed ones first.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &Resource> {
        self.fixed.iter().chain(&self.templates)
    }

    /// One page of `list`; `Err` when the cursor is not one of ours.
    pub(crate) fn page(
        &self,
        list: ResourceList,
        version: ProtocolVersion,
        cursor: Option<&str>,
    ) -> Result<&Page, UnknownCursor> {
        let index = match (cursor, self.page_size) {
            (None, _) => 0,
            (Some(_), None) => return Err(UnknownCursor),
            (Some(cursor), Some(_)) => self.decode_cursor(cursor).ok_or(UnknownCursor)?,
        };
        let (slot, items) = match list {
            ResourceList::Resources => (0, &self.fixed),
            ResourceList::Templates => (1, &self.templates),
        };
        let pages = self.pages[slot][version.index()].get_or_init(|| {
            let defs: Vec<_> = items.iter().map(|r| r.definition_json(version)).collect();
            let size = self.page_size.unwrap_or(defs.len().max(1));
            let chunks: Vec<&[Box<serde_json::value::RawValue>]> = if defs.is_empty() {
                vec![&[]]
            } else {
                defs.chunks(size).collect()
            };
            let count = chunks.len();
            chunks
                .into_iter()
                .enumerate()
                .map(|(i, chunk)| Page {
                    items: Arc::from(definitions_array(chunk.iter().map(|def| &**def))),
                    next_cursor: (i + 1 < count).then(|| Arc::from(self.encode_cursor(i + 1))),
                })
                .collect()
        });
        pages.get(index).ok_or(UnknownCursor)
    }

    fn encode_cursor(&self, page: usize) -> String {
        format!("{:016x}{page:x}", self.fingerprint)
    }

    fn decode_cursor(&self, cursor: &str) -> Option<usize> {
        let (fingerprint, page) = cursor.split_at_checked(16)?;
        if u64::from_str_radix(fingerprint, 16).ok()? != self.fingerprint || page.is_empty() {
            return None;
        }
        usize::from_str_radix(page, 16).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resource::ResourceBuilder;

    fn resource(uri: &str) -> Resource {
        ResourceBuilder::new(uri, "r", |_| Box::pin(async { Ok(Vec::new()) }))
            .build()
            .unwrap()
    }

    fn uris(page: &Page) -> Vec<String> {
        let items: Vec<serde_json::Value> = serde_json::from_str(&page.items).unwrap();
        items
            .iter()
            .map(|i| {
                i.get("uri")
                    .or_else(|| i.get("uriTemplate"))
                    .and_then(|u| u.as_str())
                    .unwrap()
                    .to_owned()
            })
            .collect()
    }

    #[test]
    fn fixed_uris_win_then_templates_in_order() {
        let registry = ResourceRegistry::new(
            vec![
                resource("t://{a}/x"),
                resource("t://b/x"),
                resource("t://{c}/{d}"),
            ],
            None,
        )
        .unwrap();
        let found = |uri: &str| match registry.find(uri) {
            Found::Resource(r, v) => format!("{} {:?}", r.uri(), v.iter().collect::<Vec<_>>()),
            Found::Refused(refused) => format!("refused {}", refused.variable),
            Found::None => "none".to_owned(),
        };
        assert_eq!(found("t://b/x"), "t://b/x []");
        assert_eq!(found("t://q/x"), "t://{a}/x [(\"a\", Some(\"q\"))]");
        assert_eq!(
            found("t://q/y"),
            "t://{c}/{d} [(\"c\", Some(\"q\")), (\"d\", Some(\"y\"))]"
        );
        assert_eq!(found("t://..%2F/x"), "refused a");
        assert_eq!(found("u://q"), "none");
    }

    #[test]
    fn a_uri_or_template_registered_twice_is_refused() {
        let twice = ResourceRegistry::new(vec![resource("t://a"), resource("t://a")], None);
        assert!(matches!(twice, Err(Error::DuplicateResourceUri(uri)) if uri == "t://a"));
        let twice = ResourceRegistry::new(vec![resource("t://{a}"), resource("t://{a}")], None);
        assert!(matches!(twice, Err(Error::DuplicateResourceUri(uri)) if uri == "t://{a}"));
    }

    #[test]
    fn each_list_pages_on_its_own() {
        let registry = ResourceRegistry::new(
            vec![
                resource("t://1"),
                resource("t://{x}"),
                resource("t://2"),
                resource("t://3"),
            ],
            Some(2),
        )
        .unwrap();
        let v = ProtocolVersion::LATEST;
        let first = registry.page(ResourceList::Resources, v, None).unwrap();
        assert_eq!(uris(first), ["t://1", "t://2"]);
        let next = first.next_cursor.as_deref();
        let second = registry.page(ResourceList::Resources, v, next).unwrap();
        assert_eq!(uris(second), ["t://3"]);
        assert!(second.next_cursor.is_none());
        let templates = registry.page(ResourceList::Templates, v, None).unwrap();
        assert_eq!(uris(templates), ["t://{x}"]);
        assert!(
            registry
                .page(ResourceList::Resources, v, Some("bogus"))
                .is_err()
        );
    }
}
