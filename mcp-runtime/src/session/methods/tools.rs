//! `tools/list` and `tools/call`: serving the cached pages, and checking a
//! call as it came over the wire (tool and scopes and admission, shared
//! with the in-process door in [`crate::session::admit`]; arguments,
//! 2026-07-28 `requestState`, duplicate id) before
//! [`crate::session::calls`] runs it.

use crate::conn::connection::{CancelSignal, canonical_id};
use crate::context::TaskStart;
use crate::context::seal::{ArgumentsDigest, Resumed, arguments_digest};
use crate::context::{Context, ContextParts, SentMeta};
use crate::protocol::frame::Frame;
use crate::protocol::incoming::requests::ListToolsParamsRef;
use crate::protocol::model::TASKS_EXTENSION;
use crate::protocol::model::method::ListTools;
use crate::protocol::outgoing::Reply;
use crate::protocol::params::Params;
use crate::protocol::read::without_position;
use crate::protocol::trace_context::TraceContext;
use crate::protocol::{ErrorCode, ProtocolVersion, RpcError, meta};
use crate::session::Session;
use crate::session::calls::{self, PreparedCall};
use crate::session::era::RequestInfo;
use crate::session::method::{Method, Respond};
use crate::session::tasks::TaskStarter;
use crate::session::{admit, finish};
use crate::task::Resume;
use crate::tool::call::Arguments;
use crate::tool::registry::UnknownCursor;
use crate::tool::{TaskSupport, Tool, ToolCall};
use serde_json::value::RawValue;
use std::sync::Arc;

/// One `tools/list` page: its tools' JSON array (a cached page, shared, or
/// one built for this caller) and the cursor of the next page.
#[derive(Debug)]
pub(in crate::session) struct ToolsPage {
    tools: Arc<str>,
    next_cursor: Option<Arc<str>>,
    ttl_ms: u64,
    per_caller: bool,
}

impl Respond for ToolsPage {
    fn respond(self, reply: Reply<'_>) -> Frame {
        // The page's tools are spliced in: per request only the id and the
        // closing fields are written.
        reply.tools_page(
            self.tools,
            self.next_cursor.as_deref(),
            self.ttl_ms,
            self.per_caller,
        )
    }
}

/// `tools/list`: a page of the tool list, in both eras.
impl Method for ListTools {
    type ParamsRef<'p> = ListToolsParamsRef<'p>;
    type Answer<'s> = ToolsPage;

    fn handle(
        session: &Session,
        version: ProtocolVersion,
        params: ListToolsParamsRef<'_>,
    ) -> Result<ToolsPage, RpcError> {
        let registry = session.shared.tools.registry();
        let invalid = |_: UnknownCursor| {
            RpcError::invalid_params(
                "Invalid cursor: use a nextCursor value from an earlier tools/list result, or no cursor",
            )
        };
        let ttl_ms = session.shared.identity.list_ttl_ms;
        // With `Auth::hide_unauthorized_tools`, a caller sees only the tools
        // its scopes allow: that list is its own, built per request.
        if session.shared.hide_unauthorized_tools
            && let Some(principal) = session.connection.principal()
        {
            let (tools, next_cursor) = registry
                .page_filtered(version, params.cursor.as_deref(), |tool| {
                    crate::principal::grants(principal, tool.scopes())
                })
                .map_err(invalid)?;
            return Ok(ToolsPage {
                tools,
                next_cursor,
                ttl_ms,
                per_caller: true,
            });
        }
        let page = registry
            .page(version, params.cursor.as_deref())
            .map_err(invalid)?;
        Ok(ToolsPage {
            tools: Arc::clone(&page.tools),
            next_cursor: page.next_cursor.clone(),
            ttl_ms,
            per_caller: false,
        })
    }
}

impl Session {
    pub(in crate::session) fn call_tool(
        &mut self,
        id: &RawValue,
        info: RequestInfo,
        params: Params<'_>,
    ) -> Result<(), RpcError> {
        let token = params
            .meta
            .as_ref()
            .and_then(|meta| meta.progress_token.as_deref());
        if let Some(len) = token.and_then(meta::oversized_progress_token) {
            return Err(RpcError::invalid_params(format!(
                "Invalid params: params._meta.progressToken is {len} bytes; the limit is {} bytes",
                meta::MAX_PROGRESS_TOKEN_LEN
            )));
        }
        let Some(requested) = params.name.as_deref() else {
            return Err(RpcError::invalid_params(
                "Invalid params for tools/call: missing field `name`",
            ));
        };
        let (name, tool) = admit::find_tool(&self.shared, &self.connection, requested)?;
        let version = info.version;
        // Tasks (2026-07-28, an extension the request declares in its own
        // `_meta`): a tool that runs only as a task refuses a request that
        // could declare it and did not, before anything runs. A legacy
        // session has no extensions: there task tools are plain calls.
        // The capabilities are read only for a task tool: most calls are not.
        let may_be_task = crate::task::ENABLED
            && tool.def.task != TaskSupport::Never
            && version.is_modern()
            && declares_tasks(&info.client.capabilities);
        if tool.def.task == TaskSupport::Required && version.is_modern() && !may_be_task {
            return Err(tasks_required(&name));
        }
        self.start_call(id, info, params, name, tool, may_be_task)
    }

    /// Starts the call of `tool` (found as `name`) that request `id` made
    /// with `params`: the one path from a checked request to a running
    /// call, for `tools/call` and for `prompts/get` (a prompt's body is a
    /// call): the 2026-07-28 `requestState` opened with its answers, the
    /// duplicate id refused, admission, the context, and the start.
    pub(in crate::session) fn start_call(
        &mut self,
        id: &RawValue,
        info: RequestInfo,
        params: Params<'_>,
        name: Arc<str>,
        tool: Arc<Tool>,
        may_be_task: bool,
    ) -> Result<(), RpcError> {
        let version = info.version;
        // `arguments` is an object or absent: the one parse checked it.
        let arguments = params.arguments;
        // The one copy of the arguments, out of the message: the tool reads
        // it, and a `requestState` sealed later hashes the same text.
        let owned: Option<Arc<str>> = arguments.map(|raw| Arc::from(raw.get()));
        let (digest, resumed) = if version.is_modern() {
            let input_responses = match params.input_responses {
                None => None,
                Some(raw) => Some(serde_json::from_str(raw.get()).map_err(|err| {
                    RpcError::invalid_params(format!(
                        "Invalid params: \"inputResponses\": {}",
                        without_position(&err)
                    ))
                })?),
            };
            // Hashed now only when a state is opened; else when one is sealed.
            let digest = if params.request_state.is_some() {
                ArgumentsDigest::Known(arguments_digest(arguments.map(RawValue::get)))
            } else {
                ArgumentsDigest::Of(owned.clone())
            };
            let resumed = self
                .shared
                .sealer
                .resume(
                    &tool.sealed_name(),
                    &digest,
                    params.request_state.as_deref(),
                    input_responses,
                    tool.def.replayable_input,
                )
                .map_err(|reason| RpcError::invalid_params(format!("Invalid params: {reason}")))?;
            (digest, resumed)
        } else {
            (ArgumentsDigest::Known(String::new()), Resumed::default())
        };
        let key: Arc<str> = Arc::from(canonical_id(id.get()));
        let duplicate = || {
            RpcError::new(
                ErrorCode::INVALID_REQUEST,
                format!(
                    "Invalid Request: id {} is already used by a call in flight; use a new id",
                    id.get()
                ),
            )
        };
        let Some(in_flight) = self.connection.in_flight_besides(&key) else {
            return Err(duplicate());
        };
        // The call's own `_meta` context (2026-07-28), else the transport's
        // (HTTP headers).
        let connection = &self.connection;
        let meta = params.meta.as_deref().filter(|_| version.is_modern());
        let trace = || {
            meta.and_then(TraceContext::from_meta)
                .or_else(|| connection.trace().cloned())
        };
        let span = match admit::admit(
            &self.shared,
            connection,
            &name,
            id,
            version,
            in_flight,
            trace,
        ) {
            Ok(span) => span,
            Err(refusal) => {
                let reply = self.reply(id, version);
                let frame = finish::frame(reply, id, &tool, &refusal, version);
                self.connection.send(frame);
                return Ok(());
            }
        };
        let cancel = CancelSignal::default();
        let context = Context::new(ContextParts {
            request_id: id.to_owned(),
            tool: Arc::clone(&name),
            version,
            client: info.client,
            meta: params.meta.as_ref().map(|meta| SentMeta::of(meta, version)),
            request_log_level: info.log_level,
            cancel: cancel.clone(),
            connection: Arc::clone(&self.connection),
            reach: Arc::clone(&self.shared.reach),
            answers: resumed.answers,
            peer: None,
        });
        let task = may_be_task.then(|| {
            // What a resumable tool is started again with, if its worker
            // is lost: the arguments as sent and the request's capabilities.
            let resume = tool.def.resumable.then(|| Resume {
                arguments: arguments.map(RawValue::to_owned),
                capabilities: context.client_capabilities().clone(),
            });
            let starter = Arc::new(
                TaskStarter::new(
                    &self.shared,
                    &self.connection,
                    Arc::clone(&key),
                    id,
                    version,
                    &tool,
                    cancel.clone(),
                )
                .with_resume(resume),
            );
            context.allow_task(Arc::clone(&starter) as Arc<dyn TaskStart>);
            starter
        });
        let call = ToolCall {
            name,
            arguments: owned.map_or(Arguments::None, Arguments::Raw),
            version,
            context,
        };
        calls::start(
            &self.shared,
            &self.connection,
            PreparedCall {
                key,
                cancel,
                tracked: false,
                tool,
                call,
                arguments_digest: digest,
                ticket: resumed.ticket,
                span,
                task,
            },
        );
        Ok(())
    }
}

/// Whether client capabilities declare the Tasks extension
/// (`extensions["io.modelcontextprotocol/tasks"]`, an object).
pub(in crate::session) fn declares_tasks(capabilities: &serde_json::Value) -> bool {
    capabilities
        .get("extensions")
        .and_then(|extensions| extensions.get(TASKS_EXTENSION))
        .is_some_and(serde_json::Value::is_object)
}

/// `-32021` naming the Tasks extension: what a request that did not
/// declare it gets from a tool that runs only as a task, and from `tasks/*`.
pub(in crate::session) fn tasks_required(what: &str) -> RpcError {
    RpcError::missing_client_capability(format!(
        "Missing required client capability: {what} needs the {TASKS_EXTENSION} extension; declare it in the request's _meta client capabilities (\"extensions\": {{\"{TASKS_EXTENSION}\": {{}}}})"
    ))
    .with_data(serde_json::json!({
        "requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::ToolOutcome;
    use crate::server::Server;
    use crate::session::test_session;
    use crate::tool::ToolBuilder;
    use serde_json::Value;
    use std::borrow::Cow;

    fn server(names: &[&str]) -> Server {
        let tools = names.iter().map(|name| {
            ToolBuilder::new(*name, |_| Box::pin(async { ToolOutcome::text("") })).build()
        });
        Server::new("t", "0")
            .tools(tools.collect::<Vec<_>>())
            .page_size(2)
    }

    fn names(page: &ToolsPage) -> Vec<String> {
        let tools: Vec<Value> = serde_json::from_str(&page.tools).unwrap();
        tools
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    }

    #[test]
    fn list_tools_pages_through_the_cached_pages() {
        let (session, mut frames) = test_session(server(&["a", "b", "c"]));
        let version = ProtocolVersion::V2025_11_25;
        let first =
            ListTools::handle(&session, version, ListToolsParamsRef { cursor: None }).unwrap();
        assert_eq!(names(&first), ["a", "b"]);
        assert!(!first.per_caller);
        let cursor = first.next_cursor.clone().expect("a second page");
        let second = ListTools::handle(
            &session,
            version,
            ListToolsParamsRef {
                cursor: Some(Cow::Borrowed(&cursor)),
            },
        )
        .unwrap();
        assert_eq!(names(&second), ["c"]);
        assert_eq!(second.next_cursor, None);
        assert!(
            frames.try_recv().is_none(),
            "the router replies, not the handler"
        );
    }

    #[test]
    fn list_tools_refuses_a_cursor_not_of_ours() {
        let (session, _frames) = test_session(server(&["a"]));
        let params = ListToolsParamsRef {
            cursor: Some(Cow::Borrowed("bogus")),
        };
        let failure = ListTools::handle(&session, ProtocolVersion::V2026_07_28, params)
            .expect_err("not a cursor of ours");
        assert_eq!(failure.error_code(), ErrorCode::INVALID_PARAMS);
        assert!(
            failure.message.starts_with("Invalid cursor"),
            "{}",
            failure.message
        );
    }
}
