//! Contexts for unit tests of tool fns: [`TestContext`] builds one,
//! [`TestPeer`] sees what the tool sent and can cancel the call. Above
//! `context/` and `tool/`: it builds a context as the server would, with a
//! tool set of its own.

use crate::conn::client::ClientInfo;
use crate::conn::connection::{CancelSignal, Connection};
use crate::context::{Context, ContextParts, Reach};
use crate::level::Level;
use crate::principal::Principal;
use crate::protocol::ProtocolVersion;
use crate::state::StateMap;
use crate::store::{MemoryStore, Store};
use crate::tool::toolset::ToolSet;
use crate::util::lock;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::sync::{Arc, Mutex};

impl Context {
    /// A context for calling a tool fn directly in a unit test: protocol
    /// 2025-11-25, no client info or capabilities, no state. Progress and
    /// logs are accepted and dropped; use [`Context::test_builder`] to see
    /// them, to register state or to cancel the call.
    ///
    /// ```
    /// use mcpfn_runtime::{Context, ToolError, tool};
    ///
    /// /// Count to n, reporting progress.
    /// #[tool]
    /// async fn count(ctx: Context, n: u32) -> Result<u32, ToolError> {
    ///     for i in 1..=n {
    ///         ctx.progress(f64::from(i), Some(f64::from(n)), None)?;
    ///     }
    ///     Ok(n)
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// assert_eq!(count(Context::for_test(), 3).await, Ok(3));
    /// # }
    /// ```
    pub fn for_test() -> Context {
        Context::test_builder().build().0
    }

    /// A builder of test contexts that can carry state, client info and
    /// capabilities, and whose [`TestPeer`] records the progress and log
    /// notifications the tool sends and can cancel the call.
    ///
    /// ```
    /// use mcpfn_runtime::{Context, Level, ToolError, tool};
    ///
    /// struct Greeting {
    ///     word: &'static str,
    /// }
    ///
    /// /// Greet, logging who asked.
    /// #[tool]
    /// async fn greet(ctx: Context, name: String) -> Result<String, ToolError> {
    ///     let greeting = ctx.state::<Greeting>().ok_or("no greeting registered")?;
    ///     ctx.log(Level::Info, format!("greeting {name}"));
    ///     ctx.progress(1.0, Some(1.0), Some("done"))?;
    ///     Ok(format!("{}, {name}!", greeting.word))
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let (ctx, peer) = Context::test_builder()
    ///     .state(Greeting { word: "Hello" })
    ///     .client_info(serde_json::json!({"name": "unit-test", "version": "1"}))
    ///     .build();
    /// assert_eq!(greet(ctx, "Ada".into()).await.unwrap(), "Hello, Ada!");
    /// assert_eq!(peer.logs()[0]["data"], "greeting Ada");
    /// assert_eq!(peer.progress()[0]["message"], "done");
    /// # }
    /// ```
    pub fn test_builder() -> TestContext {
        TestContext {
            tool: "test".into(),
            version: ProtocolVersion::LATEST_LEGACY,
            client: ClientInfo::default(),
            states: StateMap::default(),
            store: Arc::new(MemoryStore::new()),
            principal: None,
        }
    }
}

/// Builds a [`Context`] for unit tests; see [`Context::test_builder`].
#[derive(Debug)]
#[must_use]
pub struct TestContext {
    tool: Arc<str>,
    version: ProtocolVersion,
    client: ClientInfo,
    states: StateMap,
    store: Arc<dyn Store>,
    principal: Option<Arc<Principal>>,
}

impl TestContext {
    /// Registers state, as [`Server::state`](crate::Server::state) does;
    /// tools read it with [`Context::state`].
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.states.insert(value);
        self
    }

    /// The state store ([`Server::store`](crate::Server::store)); a fresh,
    /// unbounded [`MemoryStore`] by default. Give contexts a clone of one
    /// `MemoryStore` to let [`Handles`](crate::Handles) made in one call be
    /// found in the next.
    pub fn store(mut self, store: impl Store) -> Self {
        self.store = Arc::new(store);
        self
    }

    /// The verified caller, as an authorizing transport sets it.
    #[cfg(test)]
    pub(crate) fn test_principal(mut self, principal: Option<Principal>) -> Self {
        self.principal = principal.map(Arc::new);
        self
    }

    /// The client's `Implementation` (`name`, `version`, …).
    pub fn client_info(mut self, info: Value) -> Self {
        self.client.info = Some(info);
        self
    }

    /// The client's capabilities (`{}` by default).
    pub fn client_capabilities(mut self, capabilities: Value) -> Self {
        self.client.capabilities = capabilities;
        self
    }

    /// The protocol revision (2025-11-25 by default).
    pub fn protocol_version(mut self, version: ProtocolVersion) -> Self {
        self.version = version;
        self
    }

    /// The name the tool is called by (`test` by default).
    pub fn tool_name(mut self, name: &str) -> Self {
        self.tool = name.into();
        self
    }

    /// The context, and the peer that sees what the tool sends. The call
    /// carries a `progressToken` and every log level is on, so all progress
    /// and logs are recorded. Elicitation fails unless the capabilities say
    /// `elicitation`, and then waits forever: no one answers in a test.
    pub fn build(self) -> (Context, TestPeer) {
        // Nothing is dropped: a test sees every notification the tool sent.
        let (out, frames) = crate::conn::outbox::channel(usize::MAX);
        let connection = Arc::new(Connection::new(out).with_principal(self.principal));
        connection.set_log_level(Level::Debug);
        let cancel = CancelSignal::default();
        let meta = RawValue::from_string(r#""test""#.to_owned())
            .ok()
            .map(crate::context::SentMeta::progress_token);
        let notifier = crate::changes::Notifier::new();
        let tools = match ToolSet::new(Vec::new(), None, notifier.clone()) {
            Ok(tools) => tools,
            Err(err) => unreachable!("an empty tool set is valid: {err}"),
        };
        let context = Context::new(ContextParts {
            request_id: RawValue::from_string("1".to_owned())
                .unwrap_or_else(|_| unreachable!("`1` is JSON")),
            tool: self.tool,
            version: self.version,
            client: Arc::new(self.client),
            meta,
            request_log_level: Some(Level::Debug),
            cancel: cancel.clone(),
            connection,
            reach: Arc::new(Reach {
                states: self.states,
                store: self.store,
                tools: Box::new(tools),
                notifier,
                elicitation_timeout: crate::context::elicit::DEFAULT_ELICITATION_TIMEOUT,
                max_message_size: crate::server::DEFAULT_MAX_MESSAGE_SIZE,
                handle_quota: Arc::new(crate::quota::WindowQuota::new(
                    crate::handles::DEFAULT_HANDLES_PER_CLIENT,
                )),
            }),
            answers: Map::new(),
            peer: None,
        });
        let peer = TestPeer {
            frames: Mutex::new(frames),
            received: Mutex::new(Vec::new()),
            cancel,
        };
        (context, peer)
    }
}

/// The client side of a test [`Context`]: the notifications the tool sent,
/// and cancellation.
#[derive(Debug)]
pub struct TestPeer {
    frames: Mutex<crate::conn::outbox::Frames>,
    received: Mutex<Vec<Value>>,
    cancel: CancelSignal,
}

impl TestPeer {
    /// Every notification sent so far, in order (whole JSON-RPC messages).
    pub fn notifications(&self) -> Vec<Value> {
        let mut received = lock(&self.received);
        let mut frames = lock(&self.frames);
        while let Some(frame) = frames.try_recv() {
            let bytes = frame.into_bytes();
            if let Ok(message) = serde_json::from_slice(&bytes) {
                received.push(message);
            }
        }
        received.clone()
    }

    /// The `params` of each `notifications/progress` sent so far.
    pub fn progress(&self) -> Vec<Value> {
        self.params_of(crate::protocol::model::method::PROGRESS)
    }

    /// The `params` of each `notifications/message` (log) sent so far.
    pub fn logs(&self) -> Vec<Value> {
        self.params_of(crate::protocol::model::method::MESSAGE)
    }

    /// Cancels the call, as the client's `notifications/cancelled` does:
    /// [`Context::is_cancelled`] turns true and [`Context::progress`] fails.
    pub fn cancel(&self) {
        self.cancel.cancel();
    }

    fn params_of(&self, method: &str) -> Vec<Value> {
        self.notifications()
            .into_iter()
            .filter(|n| n["method"] == method)
            .map(|mut n| n["params"].take())
            .collect()
    }
}
