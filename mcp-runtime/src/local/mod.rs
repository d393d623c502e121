//! The in-process door: a cloneable handle on a [`Server`] that lists and
//! calls its tools (and lists and reads its resources, in `resources`) with the typed client-direction model
//! ([`mcpfn_protocol::model`]) and no JSON text on the way. Arguments reach
//! the tool as an object (decoded from the `Value` itself), its outcome
//! becomes a [`CallToolResult`] directly, and what the tool sends or asks
//! its client (progress, log messages, elicitation, sampling) reaches the
//! handle's callbacks as typed values through the context's
//! [`Peer`](crate::conn::peer::Peer) seam. The server's limits apply as on
//! a transport: run slots, the rate limit, the call timeout, panics caught
//! as error results, and the call's `tracing` span.

use crate::conn::client::ClientInfo;
use crate::conn::connection::Connection;
use crate::error::Error;
use crate::principal::Principal;
use crate::protocol::ProtocolVersion;
use crate::protocol::model::{
    self, CallToolResult, ClientCapabilities, CreateMessageParams, CreateMessageResult,
    ElicitParams, ElicitResult, Implementation, RpcError,
};
use crate::server::Server;
use crate::session::{admit, finish};
use crate::shared::Shared;
use serde::Deserialize as _;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

mod call;
mod peer;
use call::Returned;
pub use peer::CallOptions;
use peer::{ElicitFn, LocalPeer, SampleFn};

impl Server {
    /// This server as an in-process client handle: its tools called with
    /// typed requests and results, no transport and no JSON text (see
    /// [`LocalClient`]). Fails like serving would on a bad registration.
    pub fn local(self) -> Result<LocalClient, Error> {
        let (shared, _, _) = self.into_shared(false)?;
        Ok(LocalClient::new(shared))
    }
}

/// A cloneable, in-process handle on a [`Server`]: lists its tools and calls
/// them with the typed model of [`mcpfn_protocol::model`], without a transport
/// and without JSON text. Calls take `&self`, so one handle (or its clones)
/// runs several at once; dropping a call's future cancels the call (the
/// tool's [`Context::cancelled`](crate::Context::cancelled) fires).
///
/// The handle presents a client: by default the latest protocol revision,
/// no principal, and capabilities for what it has callbacks for
/// ([`LocalClient::on_elicitation`], [`LocalClient::on_sampling`]): a tool
/// asking a handle without the callback gets the error a client without
/// the capability gives.
///
/// ```
/// use mcpfn_runtime::{Server, tool, tools};
/// use serde_json::json;
///
/// /// Add two numbers.
/// #[tool]
/// async fn add(a: f64, b: f64) -> f64 {
///     a + b
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let client = Server::new("calc", "1.0.0").tools(tools![add]).local()?;
/// assert_eq!(client.tools()[0].name, "add");
/// let args = json!({"a": 1, "b": 2}).as_object().cloned().unwrap();
/// let result = client.call("add", args).await?;
/// assert_eq!(result.structured_content, Some(json!(3.0)));
/// assert!(!result.is_error);
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct LocalClient {
    door: Arc<Door>,
}

/// What every clone of one handle shares.
struct Door {
    shared: Arc<Shared>,
    /// Carries the principal and the client key the limits count against;
    /// nothing is ever written to its outbox (the peer gets it all).
    connection: Arc<Connection>,
    client: Arc<ClientInfo>,
    version: ProtocolVersion,
    principal: Option<Arc<Principal>>,
    client_info: Option<Implementation>,
    elicit: Option<ElicitFn>,
    sample: Option<SampleFn>,
    /// The peer of calls without per-call callbacks, shared by them.
    peer: Arc<LocalPeer>,
    next_id: Arc<AtomicU64>,
    in_flight: Arc<AtomicUsize>,
}

impl fmt::Debug for LocalClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LocalClient")
            .field("server", &self.door.shared.identity.name)
            .field("version", &self.door.version)
            .field("elicitation", &self.door.elicit.is_some())
            .field("sampling", &self.door.sample.is_some())
            .finish_non_exhaustive()
    }
}

impl LocalClient {
    fn new(shared: Arc<Shared>) -> LocalClient {
        let door = Door {
            shared,
            connection: Arc::new(Connection::new(crate::conn::outbox::channel(0).0)),
            client: Arc::new(ClientInfo::default()),
            version: ProtocolVersion::LATEST,
            principal: None,
            client_info: None,
            elicit: None,
            sample: None,
            peer: Arc::new(LocalPeer {
                elicit: None,
                sample: None,
                progress: None,
                log: None,
            }),
            next_id: Arc::new(AtomicU64::new(1)),
            in_flight: Arc::new(AtomicUsize::new(0)),
        };
        LocalClient {
            door: Arc::new(door).rebuilt(|_| {}),
        }
    }

    /// Answers the elicitations tools ask for (`ctx.elicit`) with
    /// `callback`, and declares the `elicitation` capability.
    ///
    /// ```
    /// use mcpfn_protocol::model::{ElicitAction, ElicitParams, ElicitResult};
    /// use mcpfn_runtime::{Context, ElicitRequest, FormField, Server, ToolError, tool, tools};
    ///
    /// /// Greet the user by name.
    /// #[tool]
    /// async fn greet(ctx: Context) -> Result<String, ToolError> {
    ///     let form = ElicitRequest::new("Your name?").field("name", FormField::string().required());
    ///     let answer = ctx.elicit("name", form).await?;
    ///     let fields: serde_json::Map<String, serde_json::Value> = answer.content_as()?;
    ///     Ok(format!("Hello, {}!", fields["name"].as_str().unwrap_or("you")))
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let client = Server::new("hi", "1").tools(tools![greet]).local()?.on_elicitation(
    ///     |params: ElicitParams| async move {
    ///         assert_eq!(params.message, "Your name?");
    ///         let content = serde_json::json!({"name": "Ada"}).as_object().cloned();
    ///         Ok(ElicitResult { action: ElicitAction::Accept, content })
    ///     },
    /// );
    /// let result = client.call("greet", serde_json::Map::new()).await?;
    /// assert!(matches!(&result.content[0], mcpfn_protocol::model::ContentBlock::Text(t) if t.text == "Hello, Ada!"));
    /// # Ok(())
    /// # }
    /// ```
    pub fn on_elicitation<F, Fut>(self, callback: F) -> LocalClient
    where
        F: Fn(ElicitParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ElicitResult, RpcError>> + Send + 'static,
    {
        let callback: ElicitFn = Arc::new(move |params| Box::pin(callback(params)));
        self.with(|door| door.elicit = Some(callback))
    }

    /// Answers the sampling requests tools make (`ctx.sample`) with
    /// `callback`, and declares the `sampling` capability.
    pub fn on_sampling<F, Fut>(self, callback: F) -> LocalClient
    where
        F: Fn(CreateMessageParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CreateMessageResult, RpcError>> + Send + 'static,
    {
        let callback: SampleFn = Arc::new(move |params| Box::pin(callback(params)));
        self.with(|door| door.sample = Some(callback))
    }

    /// Presents `principal` as the caller ([`Context::principal`](crate::Context::principal)); the
    /// tools' scopes are checked against it, and the per-client limits
    /// count its calls under its subject.
    pub fn principal(self, principal: Principal) -> LocalClient {
        self.with(|door| door.principal = Some(Arc::new(principal)))
    }

    /// Presents `info` as the client's `Implementation` ([`Context::client_info`](crate::Context::client_info)).
    pub fn client_info(self, info: Implementation) -> LocalClient {
        self.with(|door| door.client_info = Some(info))
    }

    /// Presents protocol revision `version` ([`Context::protocol_version`](crate::Context::protocol_version);
    /// the latest by default). Results are the tool's in every revision:
    /// the door's client reads the full model.
    pub fn protocol_version(self, version: ProtocolVersion) -> LocalClient {
        self.with(|door| door.version = version)
    }

    /// A handle changed by `change` (its clones keep the old settings).
    fn with(self, change: impl FnOnce(&mut Door)) -> LocalClient {
        LocalClient {
            door: self.door.rebuilt(change),
        }
    }

    /// The server's tools as `tools/list` lists them (the live set: tools
    /// added, removed, enabled or disabled through the `ToolSet` show).
    pub fn tools(&self) -> Vec<model::Tool> {
        let door = &*self.door;
        let registry = door.shared.tools.registry();
        registry
            .tools()
            .filter(|tool| {
                door.principal
                    .as_deref()
                    .is_none_or(|principal| crate::principal::grants(principal, tool.scopes()))
                    || !door.shared.hide_unauthorized_tools
            })
            .filter_map(|tool| model::Tool::deserialize(tool.definition(door.version)).ok())
            .collect()
    }

    /// Calls tool `name` with `arguments`. An unknown tool (or one the
    /// principal lacks scopes for) is the `Err` the wire answers with;
    /// everything the tool does, invalid arguments included, is a result
    /// (`is_error` for failures), as on the wire.
    pub async fn call(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<CallToolResult, RpcError> {
        self.call_with(name, arguments, CallOptions::default())
            .await
    }

    /// [`LocalClient::call`] with progress and log callbacks and a timeout.
    pub async fn call_with(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        options: CallOptions,
    ) -> Result<CallToolResult, RpcError> {
        let (name, tool) = admit::find_tool(&self.door.shared, &self.door.connection, name)?;
        let version = self.door.version;
        self.run(
            name,
            tool,
            Value::Object(arguments),
            options,
            Returned { version },
            |tool, refusal| finish::model(tool, refusal, version),
        )
        .await
    }
}

impl Door {
    /// A copy of this door changed by `change`, with the client it
    /// presents and its shared peer made anew.
    fn rebuilt(&self, change: impl FnOnce(&mut Door)) -> Arc<Door> {
        let mut door = Door {
            shared: Arc::clone(&self.shared),
            connection: Arc::clone(&self.connection),
            client: Arc::clone(&self.client),
            version: self.version,
            principal: self.principal.clone(),
            client_info: self.client_info.clone(),
            elicit: self.elicit.clone(),
            sample: self.sample.clone(),
            peer: Arc::clone(&self.peer),
            next_id: Arc::clone(&self.next_id),
            in_flight: Arc::clone(&self.in_flight),
        };
        change(&mut door);
        // The capabilities of the callbacks it has, as the model writes them.
        let capabilities = ClientCapabilities {
            elicitation: door.elicit.is_some().then(Map::new),
            sampling: door.sample.is_some().then(Map::new),
            ..ClientCapabilities::default()
        };
        door.client = Arc::new(ClientInfo {
            info: door
                .client_info
                .as_ref()
                .and_then(|info| serde_json::to_value(info).ok()),
            capabilities: serde_json::to_value(capabilities).unwrap_or_default(),
        });
        let client_key = door
            .principal
            .as_ref()
            .map(|principal| Arc::from(principal.subject()));
        door.connection = Arc::new(
            Connection::new(crate::conn::outbox::channel(0).0)
                .with_principal(door.principal.clone())
                .with_client_key(client_key),
        );
        door.peer = Arc::new(LocalPeer {
            elicit: door.elicit.clone(),
            sample: door.sample.clone(),
            progress: None,
            log: None,
        });
        Arc::new(door)
    }
}

mod prompts;
mod resources;

impl Door {
    /// The next request's number and its id as JSON text, written into a
    /// buffer of its exact size, which `RawValue` keeps as it is
    /// (`to_raw_value` shrank its buffer, a reallocation on every call).
    fn next_request(&self) -> (u64, Box<RawValue>) {
        use std::fmt::Write as _;
        let n = self.next_id.fetch_add(1, Ordering::Relaxed);
        let digits = n.checked_ilog10().map_or(1, |d| d as usize + 1);
        let mut text = String::with_capacity(digits);
        // Writing into a `String` cannot fail.
        let _ = write!(text, "{n}");
        let id = RawValue::from_string(text).unwrap_or_else(|_| unreachable!("an integer is JSON"));
        (n, id)
    }
}

#[cfg(test)]
mod tests;
