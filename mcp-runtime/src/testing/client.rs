//! The test client of tools: a thin layer over the in-process door
//! ([`LocalClient`]) that takes arguments and answers as JSON values, the
//! way a test writes them, and collects what a call reported.

use super::builder::{ClientBuilder, Door};
use super::{CallResult, RpcError};
use crate::error::Error;
use crate::level::Level;
use crate::local::{CallOptions, LocalClient};
use crate::protocol::ProtocolVersion;
use crate::protocol::model::{CreateMessageResult, ElicitResult, Tool};
use crate::server::Server;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use std::sync::{Arc, Mutex, PoisonError};

impl ClientBuilder<Door> {
    /// The client, on the server's in-process door. Fails as serving would
    /// on a bad registration (a duplicate tool, a `State<T>` nobody gave).
    /// `async` so that it reads like the [wire client](super::wire::Client)'s:
    /// a test switches between the two by its `use` line.
    pub async fn connect(self) -> Result<Client, Error> {
        let mut local = self.server.local()?.protocol_version(self.version);
        if let Some(handler) = self.elicitation {
            let handler = shared(handler);
            local = local.on_elicitation(move |params| {
                let answer = answer::<_, ElicitResult>(&handler, &params, "elicitation");
                async move { answer }
            });
        }
        if let Some(handler) = self.sampling {
            let handler = shared(handler);
            local = local.on_sampling(move |params| {
                let answer = answer::<_, CreateMessageResult>(&handler, &params, "sampling");
                async move { answer }
            });
        }
        Ok(Client {
            local,
            version: self.version,
            log_level: self.log_level,
        })
    }
}

/// A handler the door's callbacks (`Fn`, shared across calls) can run.
type Shared = Arc<Mutex<Box<dyn FnMut(&Value) -> Value + Send>>>;

fn shared(handler: Box<dyn FnMut(&Value) -> Value + Send>) -> Shared {
    Arc::new(Mutex::new(handler))
}

/// Runs a JSON handler on typed params and reads its answer as `R`; an
/// answer that is not one is the error a client's bad answer gives the tool.
fn answer<P: Serialize, R: DeserializeOwned>(
    handler: &Shared,
    params: &P,
    what: &str,
) -> Result<R, RpcError> {
    let params = serde_json::to_value(params)
        .map_err(|err| RpcError::internal_error(format!("the {what} request as JSON: {err}")))?;
    let mut handler = handler.lock().unwrap_or_else(PoisonError::into_inner);
    let reply = handler(&params);
    serde_json::from_value(reply).map_err(|err| {
        RpcError::invalid_params(format!("the test's {what} handler answered: {err}"))
    })
}

/// An in-process client for tests of tools: a thin layer over the server's
/// in-process door ([`Server::local`], [`LocalClient`]), so a call runs the
/// tool with the server's limits, timeouts and panic catching, and no JSON
/// text on the way. Arguments and handler answers are JSON values; results
/// are typed ([`CallResult`]). Calls take `&self`: several run at once.
///
/// What the wire carries (each revision's shapes, `resultType`, `_meta`,
/// `input_required` rounds, notifications outside calls) is not seen here;
/// a test of the protocol uses [`wire::Client`](super::wire::Client).
///
/// ```
/// use mcpfn_runtime::testing::Client;
/// use mcpfn_runtime::{Context, Server, tool, tools};
///
/// /// Count to n, reporting progress.
/// #[tool]
/// async fn count(ctx: Context, n: u32) -> Result<String, mcpfn_runtime::ToolError> {
///     for i in 1..=n {
///         ctx.progress(f64::from(i), Some(f64::from(n)), None)?;
///     }
///     Ok(format!("counted to {n}"))
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let client = Client::builder(Server::new("t", "1").tools(tools![count])).connect().await?;
/// assert_eq!(client.tools()[0].name, "count");
/// let result = client.call_with_progress("count", serde_json::json!({"n": 3})).await?;
/// assert_eq!(result.text(), Some("counted to 3"));
/// assert_eq!(result.progress().len(), 3);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Client {
    local: LocalClient,
    version: ProtocolVersion,
    log_level: Option<Level>,
}

impl Client {
    /// A client of `server`, to configure and [`ClientBuilder::connect`].
    pub fn builder(server: Server) -> ClientBuilder {
        ClientBuilder::new(server)
    }

    /// The protocol revision this client presents.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.version
    }

    /// The door this client is a layer over, for what it does not wrap
    /// (a principal, typed callbacks, a per-call timeout).
    pub fn local(&self) -> &LocalClient {
        &self.local
    }

    /// Every tool, as `tools/list` lists it.
    pub fn tools(&self) -> Vec<Tool> {
        self.local.tools()
    }

    /// Calls a tool with `arguments` (a JSON object, or `null` for none).
    /// An unknown tool is the `Err` the wire answers with; everything the
    /// tool does, invalid arguments included, is a result.
    pub async fn call(&self, name: &str, arguments: Value) -> Result<CallResult, RpcError> {
        self.call_inner(name, arguments, false).await
    }

    /// [`Client::call`] that also collects the tool's progress reports
    /// ([`CallResult::progress`]), as a call with a `progressToken` would.
    pub async fn call_with_progress(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<CallResult, RpcError> {
        self.call_inner(name, arguments, true).await
    }

    async fn call_inner(
        &self,
        name: &str,
        arguments: Value,
        with_progress: bool,
    ) -> Result<CallResult, RpcError> {
        let arguments = match arguments {
            Value::Object(arguments) => arguments,
            Value::Null => Map::new(),
            other => {
                return Err(RpcError::invalid_params(format!(
                    "the arguments of '{name}' must be an object, not {other}"
                )));
            }
        };
        let progress = Arc::new(Mutex::new(Vec::new()));
        let logs = Arc::new(Mutex::new(Vec::new()));
        let mut options = CallOptions::new();
        if with_progress {
            let progress = Arc::clone(&progress);
            options = options.on_progress(move |params| lock(&progress).push(params));
        }
        if let Some(level) = self.log_level {
            let logs = Arc::clone(&logs);
            options = options
                .log_level(level)
                .on_log(move |params| lock(&logs).push(params));
        }
        let result = self.local.call_with(name, arguments, options).await?;
        Ok(CallResult {
            result,
            progress: std::mem::take(&mut *lock(&progress)),
            logs: std::mem::take(&mut *lock(&logs)),
        })
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
