//! What a resource is at run time: a fixed URI or a URI template, what
//! `resources/list` and `resources/templates/list` say about it, and the fn
//! that reads it. `#[resource]` makes these; [`ResourceBuilder`] makes them
//! by hand. The server's lists and its lookup of a URI are `registry`;
//! the template grammar and matcher are [`template`].

mod app;
pub(crate) mod glue;
pub(crate) mod read;
pub use read::ResourceRead;
pub(crate) mod registry;
pub mod template;

use crate::complete::{Completers, CompletionContext};
use crate::protocol::ProtocolVersion;
use crate::protocol::model::{BlockAnnotations, JsonObject, ResourceContents};
use crate::protocol::sampling::Role;
use crate::tool::Icon;
use crate::util::BoxFuture;
use serde::Serialize;
use serde_json::value::RawValue;
use std::fmt;
use std::sync::Arc;
use template::UriTemplate;

pub(crate) type ReadHandler = Arc<
    dyn Fn(ResourceRead) -> BoxFuture<Result<Vec<ResourceContents>, ResourceError>> + Send + Sync,
>;

/// Why a resource could not be read; the error response names the URI.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResourceError {
    /// The URI is not one this resource serves (a template variable's
    /// value does not parse, say): `-32602`, the client's to fix.
    InvalidUri(String),
    /// Reading failed: `-32603`, with this message.
    Failed(String),
}

impl fmt::Display for ResourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResourceError::InvalidUri(reason) | ResourceError::Failed(reason) => {
                f.write_str(reason)
            }
        }
    }
}

impl std::error::Error for ResourceError {}

impl From<String> for ResourceError {
    fn from(reason: String) -> ResourceError {
        ResourceError::Failed(reason)
    }
}

impl From<&str> for ResourceError {
    fn from(reason: &str) -> ResourceError {
        ResourceError::Failed(reason.to_owned())
    }
}

/// A registered resource: at a fixed URI, or at every URI its template
/// matches; what the lists say about it and the fn that reads it. Cheap to
/// clone.
///
/// `#[resource]` makes these and `resources![a, b]` collects them;
/// [`ResourceBuilder`] makes them by hand.
#[derive(Clone)]
pub struct Resource {
    pub(crate) at: At,
    pub(crate) meta: Arc<Described>,
    pub(crate) handler: ReadHandler,
    /// The completers of a template's variables (`completion/complete`
    /// with `ref/resource`).
    pub(crate) completers: Arc<Completers>,
}

/// Where a resource is.
#[derive(Clone, Debug)]
pub(crate) enum At {
    /// At one URI.
    Fixed(String),
    /// At every URI the template matches.
    Template(Arc<UriTemplate>),
}

/// What the lists say about a resource, besides its URI.
#[derive(Debug, Default)]
pub(crate) struct Described {
    name: String,
    title: Option<String>,
    description: Option<String>,
    mime_type: Option<String>,
    size: Option<u64>,
    audience: Vec<Role>,
    priority: Option<f64>,
    icons: Vec<Icon>,
    /// `_meta` of its list entry and of each content a read returns: an
    /// MCP App's `ui` (see [`ResourceBuilder::app`]).
    meta: Option<JsonObject>,
    /// Whether a read is first polled on the connection's loop (see
    /// [`ResourceBuilder::runs_inline`]).
    inline: bool,
}

impl fmt::Debug for Resource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Resource")
            .field("uri", &self.uri())
            .field("name", &self.meta.name)
            .finish_non_exhaustive()
    }
}

impl Resource {
    /// Its URI, or its URI template.
    pub fn uri(&self) -> &str {
        match &self.at {
            At::Fixed(uri) => uri,
            At::Template(template) => template.as_str(),
        }
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.meta.name
    }

    /// Whether it is a URI template.
    pub fn is_template(&self) -> bool {
        matches!(self.at, At::Template(_))
    }

    /// Its MIME type, if declared: the type of the text or bytes its fn
    /// returns.
    pub fn mime_type(&self) -> Option<&str> {
        self.meta.mime_type.as_deref()
    }

    /// Whether a read is first polled on the connection's loop.
    pub(crate) fn runs_inline(&self) -> bool {
        self.meta.inline
    }

    /// The `_meta` each content of a read carries (an MCP App's `ui`).
    pub(crate) fn content_meta(&self) -> Option<&JsonObject> {
        self.meta.meta.as_ref()
    }

    /// Its entry in `resources/list` (or `resources/templates/list`) as
    /// `version` defines it (`title` from 2025-06-18, `icons` from
    /// 2025-11-25).
    pub(crate) fn definition_json(&self, version: ProtocolVersion) -> Box<RawValue> {
        let carries = version.carries();
        let meta = &*self.meta;
        let (uri, uri_template, size) = match &self.at {
            At::Fixed(uri) => (Some(uri.as_str()), None, meta.size),
            At::Template(template) => (None, Some(template.as_str()), None),
        };
        let annotations =
            (!meta.audience.is_empty() || meta.priority.is_some()).then(|| BlockAnnotations {
                audience: meta.audience.clone(),
                priority: meta.priority,
                last_modified: None,
            });
        let listed = Listed {
            uri,
            uri_template,
            name: &meta.name,
            title: meta.title.as_deref().filter(|_| carries.structured_output),
            description: meta.description.as_deref(),
            mime_type: meta.mime_type.as_deref(),
            size,
            annotations: annotations.filter(|_| carries.annotations),
            icons: if carries.icons { &meta.icons } else { &[] },
            meta: meta.meta.as_ref().filter(|_| carries.structured_output),
        };
        serde_json::value::to_raw_value(&listed)
            .unwrap_or_else(|_| unreachable!("a struct of strings and numbers serializes"))
    }
}

/// One entry of a resource list, borrowed from the resource.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Listed<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    uri: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    uri_template: Option<&'a str>,
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mime_type: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    size: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    annotations: Option<BlockAnnotations>,
    #[serde(skip_serializing_if = "<[Icon]>::is_empty")]
    icons: &'a [Icon],
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<&'a JsonObject>,
}

/// Builds a [`Resource`]; what `#[resource]` expands to, and the way to
/// make resources whose URIs are only known at run time.
///
/// ```
/// use mcpfn_runtime::ResourceBuilder;
/// let readme = ResourceBuilder::new("file:///README.md", "readme", |read| {
///     Box::pin(async move { Ok(vec![read.text("# Hello")]) })
/// })
/// .mime_type("text/markdown")
/// .description("The project's readme.")
/// .build()
/// .unwrap();
/// assert_eq!(readme.uri(), "file:///README.md");
/// assert!(!readme.is_template());
/// ```
#[must_use]
pub struct ResourceBuilder {
    uri: String,
    meta: Described,
    handler: ReadHandler,
    completers: Completers,
}

impl fmt::Debug for ResourceBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResourceBuilder")
            .field("uri", &self.uri)
            .finish_non_exhaustive()
    }
}

impl ResourceBuilder {
    /// A resource named `name` at `uri` (a URI template when it holds
    /// `{`), read by `handler`: its contents, or why it cannot be read (an
    /// error response naming the URI; a `String` converts into
    /// [`ResourceError::Failed`]).
    pub fn new<F>(uri: impl Into<String>, name: impl Into<String>, handler: F) -> ResourceBuilder
    where
        F: Fn(ResourceRead) -> BoxFuture<Result<Vec<ResourceContents>, ResourceError>>
            + Send
            + Sync
            + 'static,
    {
        ResourceBuilder {
            uri: uri.into(),
            meta: Described {
                name: name.into(),
                ..Described::default()
            },
            handler: Arc::new(handler),
            completers: Completers::default(),
        }
    }

    /// Completes the template variable `variable` with `completer`, which
    /// gets what the user typed so far and the variables already given,
    /// and returns the candidates, best first (the first 100 are sent).
    /// [`ResourceBuilder::build`] refuses a name that is not one of the
    /// template's variables.
    ///
    /// ```
    /// use mcpfn_runtime::{CompletionContext, ResourceBuilder};
    /// let city = ResourceBuilder::new("weather://{city}", "weather", |read| {
    ///     Box::pin(async move { Ok(vec![read.text("sunny")]) })
    /// })
    /// .complete("city", |context: CompletionContext| {
    ///     Box::pin(async move {
    ///         ["Paris", "Perth"].iter().filter(|c| c.starts_with(context.value())).map(|c| c.to_string()).collect()
    ///     })
    /// })
    /// .build();
    /// assert!(city.is_ok());
    /// ```
    pub fn complete<F>(mut self, variable: impl Into<String>, completer: F) -> ResourceBuilder
    where
        F: Fn(CompletionContext) -> BoxFuture<Vec<String>> + Send + Sync + 'static,
    {
        self.completers.set(variable.into(), Arc::new(completer));
        self
    }

    /// A title for display.
    pub fn title(mut self, title: impl Into<String>) -> ResourceBuilder {
        self.meta.title = Some(title.into());
        self
    }

    /// What it is.
    pub fn description(mut self, description: impl Into<String>) -> ResourceBuilder {
        self.meta.description = Some(description.into());
        self
    }

    /// Its MIME type, given to the text and bytes its fn returns.
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> ResourceBuilder {
        self.meta.mime_type = Some(mime_type.into());
        self
    }

    /// Its size in bytes (fixed URIs only: a template lists none).
    pub fn size(mut self, bytes: u64) -> ResourceBuilder {
        self.meta.size = Some(bytes);
        self
    }

    /// Who it is for (`annotations.audience`); call again for both.
    pub fn audience(mut self, role: Role) -> ResourceBuilder {
        if !self.meta.audience.contains(&role) {
            self.meta.audience.push(role);
        }
        self
    }

    /// How important it is, 0 to 1 (`annotations.priority`).
    pub fn priority(mut self, priority: f64) -> ResourceBuilder {
        self.meta.priority = Some(priority);
        self
    }

    /// An icon for display (2025-11-25 on).
    pub fn icon(mut self, icon: Icon) -> ResourceBuilder {
        self.meta.icons.push(icon);
        self
    }

    /// Polls the fn once on the connection's loop before giving the read a
    /// task of its own: for a resource that usually answers without waiting
    /// (a computed text, a value in memory), this saves a task, a wakeup and
    /// a thread hop per read. A fn that waits continues on its own task as
    /// usual. Keep it off for a fn that computes for long before its first
    /// `.await`: until then the loop reads nothing else. `#[resource]` turns
    /// it on for fns that take no `Context`, as `#[tool]` does
    /// ([`ToolBuilder::runs_inline`](crate::ToolBuilder::runs_inline)).
    pub fn runs_inline(mut self, inline: bool) -> ResourceBuilder {
        self.meta.inline = inline;
        self
    }

    /// The resource, or what is wrong with its URI: empty, or a malformed
    /// template, or a completer for a variable it does not have.
    pub fn build(self) -> Result<Resource, crate::Error> {
        let invalid = |reason: String| crate::Error::InvalidResource {
            uri: self.uri.clone(),
            reason,
        };
        if self.uri.is_empty() {
            return Err(invalid("the URI is empty".to_owned()));
        }
        if self
            .meta
            .priority
            .is_some_and(|p| !(0.0..=1.0).contains(&p))
        {
            return Err(invalid("the priority must be between 0 and 1".to_owned()));
        }
        if let Some(reason) = app::refusal(&self.uri, &self.meta) {
            return Err(invalid(reason));
        }
        let at = if self.uri.contains(['{', '}']) {
            let template = UriTemplate::parse(&self.uri).map_err(|e| invalid(e.0))?;
            At::Template(Arc::new(template))
        } else if self.uri.len() > template::MAX_URI_LEN {
            return Err(invalid(format!(
                "the URI is {} bytes; the limit is {}",
                self.uri.len(),
                template::MAX_URI_LEN
            )));
        } else {
            At::Fixed(self.uri.clone())
        };
        let unknown = self.completers.names().find(|name| match &at {
            At::Fixed(_) => true,
            At::Template(template) => !template.variable_names().any(|v| v == *name),
        });
        if let Some(name) = unknown {
            return Err(invalid(format!(
                "a completer is given for `{name}`, which is not a variable of its URI template"
            )));
        }
        Ok(Resource {
            at,
            meta: Arc::new(self.meta),
            handler: self.handler,
            completers: Arc::new(self.completers),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resource(uri: &str) -> ResourceBuilder {
        ResourceBuilder::new(uri, "r", |_| Box::pin(async { Ok(Vec::new()) }))
    }

    #[test]
    fn definitions_follow_each_revision() {
        let built = resource("test://a")
            .title("A")
            .mime_type("text/plain")
            .size(3)
            .audience(Role::User)
            .priority(0.5)
            .icon(Icon::new("https://example.com/a.png"))
            .build()
            .unwrap();
        assert_eq!(
            built.definition_json(ProtocolVersion::V2025_11_25).get(),
            r#"{"uri":"test://a","name":"r","title":"A","mimeType":"text/plain","size":3,"annotations":{"audience":["user"],"priority":0.5},"icons":[{"src":"https://example.com/a.png"}]}"#
        );
        assert_eq!(
            built.definition_json(ProtocolVersion::V2024_11_05).get(),
            r#"{"uri":"test://a","name":"r","mimeType":"text/plain","size":3}"#
        );
        let template = resource("test://{id}").size(3).build().unwrap();
        assert!(template.is_template());
        assert_eq!(
            template.definition_json(ProtocolVersion::LATEST).get(),
            r#"{"uriTemplate":"test://{id}","name":"r"}"#
        );
    }

    #[test]
    fn a_malformed_template_or_priority_is_refused_by_name() {
        let error = resource("test://{id").build().unwrap_err().to_string();
        assert_eq!(
            error,
            "invalid resource \"test://{id\": the expression at byte 7 is not closed with `}`"
        );
        assert!(resource("").build().is_err());
        let complete = |uri: &str| {
            resource(uri)
                .complete("id", |_| Box::pin(async { Vec::new() }))
                .build()
                .map(|_| ())
                .map_err(|e| e.to_string())
        };
        assert_eq!(complete("test://{id}"), Ok(()));
        assert_eq!(
            complete("test://{other}"),
            Err("invalid resource \"test://{other}\": a completer is given for `id`, which is not a variable of its URI template".to_owned())
        );
        assert!(complete("test://fixed").is_err());
        assert!(resource("test://a").priority(2.0).build().is_err());
    }
}
