//! One `resources/read`, shared by the wire (`session::methods::resources`)
//! and the in-process door (`local`): which resource serves a URI, or the
//! error that says why none does, and running its fn with a panic caught,
//! its failure named with the URI.

use super::registry::{Found, ResourceRegistry};
use super::template::{MAX_URI_LEN, Variables};
use super::{Resource, ResourceError, ResourceRead};
use crate::protocol::model::ResourceContents;
use crate::protocol::{ErrorCode, ProtocolVersion, RpcError};
use crate::util::{BoxFuture, CatchUnwind};
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

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
