//! One `resources/read`, shared by the wire (`session::methods::resources`)
//! and the in-process door (`local`): which resource serves a URI, or the
//! error that says why none does, and running its fn with a panic caught,
//! its failure named with the URI.

use super::registry::{Found, ResourceRegistry};
use super::template::{MAX_URI_LEN, Variables};
use super::{Described, Resource, ResourceError};
use crate::context::{Context, ContextParts};
use crate::protocol::model::ResourceContents;
use crate::protocol::{ErrorCode, ProtocolVersion, RpcError};
use crate::state::State;
use crate::util::{BoxFuture, CatchUnwind};
use std::fmt;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, OnceLock};

/// One `resources/read` of a resource: the URI asked for, the values its
/// template's variables took, and the request's [`Context`] (its
/// [`Context::tool_name`] is the URI).
#[derive(Debug)]
pub struct ResourceRead {
    pub(crate) uri: Arc<str>,
    pub(crate) variables: Variables,
    described: Arc<Described>,
    context: ReadContext,
}

/// A read's [`Context`], made the first time the fn asks for it: most
/// resource fns never do, and a read that makes none costs the context's
/// allocation and drop nothing.
struct ReadContext {
    parts: ContextParts,
    made: OnceLock<Context>,
}

impl fmt::Debug for ReadContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReadContext")
            .field("made", &self.made)
            .finish_non_exhaustive()
    }
}

impl ResourceRead {
    /// A read of `uri` from `resource`, with the request's context `parts`
    /// (their `tool` is the URI).
    pub(crate) fn new(
        resource: &Resource,
        uri: Arc<str>,
        variables: Variables,
        parts: ContextParts,
    ) -> ResourceRead {
        ResourceRead {
            uri,
            variables,
            described: Arc::clone(&resource.meta),
            context: ReadContext {
                parts,
                made: OnceLock::new(),
            },
        }
    }

    /// The URI read.
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// The percent-decoded value of template variable `name` (`None` for a
    /// fixed resource, or a `{?q}` variable the URI leaves out).
    pub fn variable(&self, name: &str) -> Option<&str> {
        self.variables.get(name)
    }

    /// The resource's declared MIME type.
    pub fn mime_type(&self) -> Option<&str> {
        self.described.mime_type.as_deref()
    }

    /// The request's context: state, cancellation, logging.
    pub fn context(&self) -> &Context {
        let ReadContext { parts, made } = &self.context;
        made.get_or_init(|| Context::new(parts.clone()))
    }

    /// The server's `State<T>`, without making the read's context.
    pub(crate) fn state<T: 'static>(&self) -> Option<State<T>> {
        self.context.parts.reach.states.get::<T>()
    }

    /// `text` as the contents of the URI read, with the declared MIME type.
    pub fn text(&self, text: impl Into<String>) -> ResourceContents {
        ResourceContents::Text {
            uri: String::from(&*self.uri),
            mime_type: self.mime_type().map(str::to_owned),
            text: text.into(),
            meta: None,
        }
    }

    /// `bytes` (sent base64) as the contents of the URI read, with the
    /// declared MIME type.
    pub fn blob(&self, bytes: &[u8]) -> ResourceContents {
        use base64::Engine;
        ResourceContents::Blob {
            uri: String::from(&*self.uri),
            mime_type: self.mime_type().map(str::to_owned),
            blob: base64::engine::general_purpose::STANDARD.encode(bytes),
            meta: None,
        }
    }
}

/// The resource that serves `uri` and its variables' values, or the error
/// of a read of it under `version`.
pub(crate) fn locate<'r>(
    registry: &'r ResourceRegistry,
    uri: &str,
    version: ProtocolVersion,
) -> Result<(&'r Resource, Variables), RpcError> {
    if uri.len() > MAX_URI_LEN {
        // Not echoed: it could be as long as a message.
        return Err(RpcError::invalid_params(format!(
            "Invalid params for resources/read: the URI is {} bytes; this server reads URIs of at most {MAX_URI_LEN} bytes",
            uri.len()
        )));
    }
    match registry.find(uri) {
        Found::Resource(resource, variables) => Ok((resource, variables)),
        Found::Refused(refused) => Err(RpcError::invalid_params(format!(
            "Invalid params for resources/read: the value of `{}` is refused: {}",
            refused.variable, refused.reason
        ))
        .with_data(serde_json::json!({ "uri": uri }))),
        Found::None => Err(not_found(uri, version)),
    }
}

/// The error for a URI nothing serves, as the request's era wants it
/// (SEP-2164: `-32602` from 2026-07-28, `-32002` before), with `data.uri`.
pub(crate) fn not_found(uri: &str, version: ProtocolVersion) -> RpcError {
    let code = if version.is_modern() {
        ErrorCode::INVALID_PARAMS
    } else {
        ErrorCode::RESOURCE_NOT_FOUND
    };
    RpcError::new(code, "Resource not found").with_data(serde_json::json!({ "uri": uri }))
}

/// Starts `resource`'s fn for `read`: what it completes with is its
/// contents, or the error that names the URI (a panic is caught, logged and
/// answered as an internal error). The future borrows nothing.
pub(crate) fn run(
    resource: &Resource,
    read: ResourceRead,
) -> BoxFuture<Result<Vec<ResourceContents>, RpcError>> {
    let uri = Arc::clone(&read.uri);
    let started = std::panic::catch_unwind(AssertUnwindSafe(|| (resource.handler)(read)));
    Box::pin(async move {
        let outcome = match started {
            Ok(future) => CatchUnwind(future).await,
            Err(payload) => Err(payload),
        };
        named(&uri, outcome)
    })
}

/// A read's outcome, its failure or panic named with `uri`.
fn named(
    uri: &str,
    outcome: Result<Result<Vec<ResourceContents>, ResourceError>, Box<dyn std::any::Any + Send>>,
) -> Result<Vec<ResourceContents>, RpcError> {
    let data = || serde_json::json!({ "uri": uri });
    match outcome {
        Ok(Ok(contents)) => Ok(contents),
        Ok(Err(ResourceError::InvalidUri(reason))) => Err(RpcError::invalid_params(format!(
            "Invalid params for resources/read: {reason}"
        ))
        .with_data(data())),
        Ok(Err(failure)) => Err(RpcError::internal_error(format!(
            "Reading {uri} failed: {failure}"
        ))
        .with_data(data())),
        Err(_panic) => {
            tracing::error!(uri = %uri, "a resource fn panicked");
            Err(RpcError::internal_error(format!(
                "Reading {uri} failed with an internal error; the details are in the server's log"
            ))
            .with_data(data()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_found_follows_the_era() {
        let legacy = not_found("t://x", ProtocolVersion::V2025_11_25);
        assert_eq!(legacy.error_code(), ErrorCode::RESOURCE_NOT_FOUND);
        let modern = not_found("t://x", ProtocolVersion::V2026_07_28);
        assert_eq!(modern.error_code(), ErrorCode::INVALID_PARAMS);
        assert_eq!(
            serde_json::to_value(&modern).unwrap(),
            serde_json::json!({"code": -32602, "message": "Resource not found", "data": {"uri": "t://x"}})
        );
    }
}
