//! `resources/list`, `resources/templates/list` and `resources/read`. The
//! lists serve the cached pages; a read finds the resource (fixed URIs
//! first, then templates in declaration order), runs its fn (first polled
//! here when it takes no `Context`; on a task of its own, tracked like a
//! call, cancellable and drained at shutdown, once it waits) and answers
//! with its contents in the envelope made once per revision, or an error
//! that names the URI ([`crate::resource::read`], shared with the
//! in-process door), or one naming the size of contents over the server's
//! message limit.

use crate::conn::connection::{CancelSignal, canonical_id};
use crate::context::{ContextParts, SentMeta};
use crate::protocol::frame::Frame;
use crate::protocol::incoming::requests::ListToolsParamsRef;
use crate::protocol::model::ResourceContents;
use crate::protocol::model::method::{ListResourceTemplates, ListResources, ReadResource, Request};
use crate::protocol::outgoing::{self, Reply, ResourceList};
use crate::protocol::params::Params;
use crate::protocol::{ProtocolVersion, RpcError};
use crate::resource::registry::UnknownCursor;
use crate::resource::{Resource, ResourceRead, read};
use crate::session::Session;
use crate::session::era::RequestInfo;
use crate::session::method::{Method, Respond};
use crate::shared::Shared;
use crate::util::poll_now;
use serde_json::value::RawValue;
use std::sync::Arc;
use std::task::Poll;

/// One page of a resource list.
#[derive(Debug)]
pub(in crate::session) struct ResourcesPage {
    list: ResourceList,
    items: Arc<str>,
    next_cursor: Option<Arc<str>>,
    ttl_ms: u64,
}

impl Respond for ResourcesPage {
    fn respond(self, reply: Reply<'_>) -> Frame {
        reply.resource_page(
            self.list,
            self.items,
            self.next_cursor.as_deref(),
            self.ttl_ms,
        )
    }
}

/// A page of `list`, or why there is none.
fn page(
    session: &Session,
    list: ResourceList,
    method: &str,
    version: ProtocolVersion,
    cursor: Option<&str>,
) -> Result<ResourcesPage, RpcError> {
    let registry = &session.shared.resources;
    if registry.is_empty() {
        return Err(super::super::method_not_found(method));
    }
    let page = registry
        .page(list, version, cursor)
        .map_err(|_: UnknownCursor| {
            RpcError::invalid_params(format!(
                "Invalid cursor: use a nextCursor value from an earlier {method} result, or no cursor"
            ))
        })?;
    Ok(ResourcesPage {
        list,
        items: Arc::clone(&page.items),
        next_cursor: page.next_cursor.clone(),
        ttl_ms: session.shared.identity.list_ttl_ms,
    })
}

/// `resources/list`: a page of the resources at fixed URIs.
impl Method for ListResources {
    type ParamsRef<'p> = ListToolsParamsRef<'p>;
    type Answer<'s> = ResourcesPage;

    fn handle(
        session: &Session,
        version: ProtocolVersion,
        params: ListToolsParamsRef<'_>,
    ) -> Result<ResourcesPage, RpcError> {
        let cursor = params.cursor.as_deref();
        page(
            session,
            ResourceList::Resources,
            Self::METHOD,
            version,
            cursor,
        )
    }
}

/// `resources/templates/list`: a page of the URI templates.
impl Method for ListResourceTemplates {
    type ParamsRef<'p> = ListToolsParamsRef<'p>;
    type Answer<'s> = ResourcesPage;

    fn handle(
        session: &Session,
        version: ProtocolVersion,
        params: ListToolsParamsRef<'_>,
    ) -> Result<ResourcesPage, RpcError> {
        let cursor = params.cursor.as_deref();
        page(
            session,
            ResourceList::Templates,
            Self::METHOD,
            version,
            cursor,
        )
    }
}

impl Session {
    /// `resources/read`: checks the request and finds the resource here,
    /// reads it: first polled here when its fn runs inline
    /// ([`ResourceBuilder::runs_inline`](crate::ResourceBuilder::runs_inline)),
    /// on a task of its own from its first wait (or from the start).
    pub(in crate::session) fn read_resource(
        &self,
        id: &RawValue,
        info: RequestInfo,
        params: &Params<'_>,
    ) -> Result<(), RpcError> {
        let registry = &self.shared.resources;
        if registry.is_empty() {
            return Err(super::super::method_not_found(ReadResource::METHOD));
        }
        // The one parse read `uri` (a string): the value `Mcp-Name` was
        // checked against.
        let Some(uri) = params.uri.as_deref() else {
            return Err(RpcError::invalid_params(
                "Invalid params for resources/read: missing field `uri`",
            ));
        };
        let version = info.version;
        let (resource, variables) = read::locate(registry, uri, version)?;
        let key = canonical_id(id.get());
        if self.connection.in_flight_besides(&key).is_none() {
            return Err(RpcError::invalid_request(format!(
                "Invalid Request: id {} is already used by a request in flight; use a new id",
                id.get()
            )));
        }
        let cancel = CancelSignal::default();
        let uri: Arc<str> = Arc::from(uri);
        let parts = ContextParts {
            request_id: id.to_owned(),
            tool: Arc::clone(&uri),
            version,
            client: info.client,
            meta: params.meta.as_ref().map(|meta| SentMeta::of(meta, version)),
            request_log_level: info.log_level,
            cancel: cancel.clone(),
            connection: Arc::clone(&self.connection),
            reach: Arc::clone(&self.shared.reach),
            answers: serde_json::Map::new(),
            peer: None,
        };
        let read = ResourceRead::new(resource, Arc::clone(&uri), variables, parts);
        let mut reading = read::run(resource, read);
        // Nothing can cancel a read before the loop reads on: it needs no
        // tracking when it answers now.
        if resource.runs_inline()
            && let Poll::Ready(outcome) = poll_now(reading.as_mut())
        {
            let frame = answer(&self.shared, id, version, &uri, resource, outcome);
            self.connection.send(frame);
            return Ok(());
        }
        let key: Arc<str> = Arc::from(key);
        self.connection.track_call(&key, &cancel);
        let connection = Arc::clone(&self.connection);
        let finished = Arc::clone(&key);
        let shared = Arc::clone(&self.shared);
        let request_id = id.to_owned();
        let resource = resource.clone();
        let task = tokio::spawn(async move {
            let outcome = reading.await;
            // A cancelled read sends nothing.
            if connection.finish_call(&finished) {
                let frame = answer(&shared, &request_id, version, &uri, &resource, outcome);
                connection.send(frame);
            }
        });
        self.connection.attach_task(&key, task.abort_handle());
        Ok(())
    }
}

/// The answer to read `id` of `uri` from `resource` under `version`: its
/// contents (each with the resource's `_meta`, an MCP App's `ui`), or its
/// failure.
fn answer(
    shared: &Shared,
    id: &RawValue,
    version: ProtocolVersion,
    uri: &str,
    resource: &Resource,
    outcome: Result<Vec<ResourceContents>, RpcError>,
) -> Frame {
    match outcome {
        Ok(contents) => {
            let reply = Reply::new(id, version, shared.identity.server_meta());
            let frame = reply.read_resource(
                &contents,
                resource.content_meta(),
                shared.identity.list_ttl_ms,
                shared.resources.answers(),
            );
            bounded(frame, id, uri, shared.max_message_size)
        }
        Err(failure) => outgoing::rpc_error(Some(id), &failure),
    }
}

/// `frame`, or an error naming its size when it is over `max` bytes: a
/// client would refuse such a message, and a huge frame would hold the
/// connection's output.
fn bounded(frame: Frame, id: &RawValue, uri: &str, max: usize) -> Frame {
    let len = frame.byte_len();
    if len <= max {
        return frame;
    }
    outgoing::rpc_error(
        Some(id),
        &RpcError::internal_error(format!(
            "The contents of {uri} are {len} bytes, over this server's message limit of {max} bytes"
        ))
        .with_data(serde_json::json!({ "uri": uri })),
    )
}
