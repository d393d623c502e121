//! The server builder: configuration in, the shared server state out, plus
//! `--dump-tools`. Its bounds are set in `limits`, and `assemble` turns it
//! into the shared state. Serving is in [`stdio`] (stdio or any
//! reader/writer; the loop itself is [`crate::transport::driver`]) and
//! `http` (feature `http`).

use crate::changes::Notifier;
use crate::context::elicit::{DEFAULT_ELICITATION_TIMEOUT, DEFAULT_MAX_SPENT_REQUEST_STATES};
use crate::context::seal::DEFAULT_OPEN_STATES_PER_CLIENT;
use crate::dump::{DumpFormat, ToolDump};
use crate::error::Error;
use crate::limits::{
    DEFAULT_MAX_CONCURRENT_CALLS, DEFAULT_MAX_CONCURRENT_CALLS_PER_CLIENT,
    DEFAULT_MAX_PENDING_CALLS, DEFAULT_QUEUE_TIMEOUT, DEFAULT_RATE_BURST, DEFAULT_RATE_PER_SECOND,
};
use crate::prompt::Prompt;
use crate::state::StateMap;
use crate::store::Store;
use crate::tool::Tool;
use crate::tool::registry::Registry;
use std::sync::Arc;
use std::time::Duration;

mod assemble;
#[cfg(feature = "http")]
mod http;
mod limits;
mod stdio;

/// The largest message accepted by default: 8 MiB.
pub(crate) const DEFAULT_MAX_MESSAGE_SIZE: usize = 8 * 1024 * 1024;

/// Unwritten output a byte-stream connection (stdio) holds by default
/// before it stops reading and drops notifications: 4 MiB.
pub(crate) const DEFAULT_MAX_UNWRITTEN_OUTPUT: usize = 4 << 20;

/// Unread messages an SSE stream holds by default before it drops
/// notifications: 1 MiB.
#[cfg(feature = "http")]
pub(crate) const DEFAULT_MAX_SSE_UNWRITTEN: usize = 1 << 20;

/// How long 2026-07-28 clients may cache lists by default: 5 minutes.
pub(crate) const DEFAULT_LIST_TTL: Duration = Duration::from_secs(300);

/// Resources one client may subscribe to by default: in a legacy session
/// (`resources/subscribe`), or on one `subscriptions/listen` stream.
pub(crate) const DEFAULT_MAX_RESOURCE_SUBSCRIPTIONS: usize = 1_000;

/// How long calls in flight may finish after input ends, by default: 30 s.
pub(crate) const DEFAULT_DRAIN_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a 2026-07-28 `requestState` stays valid by default: 10 minutes.
pub(crate) const DEFAULT_INPUT_REQUEST_TTL: Duration = Duration::from_secs(600);

/// An MCP server: a name, a version and tools, served over a transport.
///
/// ```
/// use mcpfn_runtime::{Server, tool, tools};
///
/// /// Add two numbers.
/// #[tool]
/// async fn add(a: f64, b: f64) -> f64 {
///     a + b
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> std::io::Result<()> {
/// let (mut client, server_end) = mcpfn_runtime::testing::memory();
/// let (read, write) = tokio::io::split(server_end);
/// let server = tokio::spawn(Server::new("calc", "1.0.0").tools(tools![add]).serve(read, write));
///
/// client.send(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"doc","version":"0"}}}"#).await?;
/// assert!(client.recv().await?.unwrap().contains(r#""protocolVersion":"2025-06-18""#));
/// client.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}"#).await?;
/// assert!(client.recv().await?.unwrap().contains(r#""structuredContent":{"result":3.0}"#));
/// client.close().await?;
/// server.await??;
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
#[must_use]
pub struct Server {
    name: String,
    version: String,
    title: Option<String>,
    instructions: Option<String>,
    tools: Vec<Tool>,
    resources: Vec<crate::resource::Resource>,
    prompts: Vec<Prompt>,
    page_size: Option<usize>,
    list_ttl: Duration,
    max_message_size: usize,
    states: StateMap,
    call_timeout: Option<Duration>,
    max_concurrent_calls: usize,
    max_concurrent_calls_per_client: usize,
    max_pending_calls: usize,
    queue_timeout: Duration,
    rate_limit: Option<(u32, u32)>,
    drain_timeout: Duration,
    request_state_key: Option<[u8; 32]>,
    input_request_ttl: Duration,
    max_spent_request_states: usize,
    max_open_request_states_per_client: usize,
    max_handles_per_client: usize,
    task_ttl: Duration,
    max_tasks_per_client: usize,
    store: Option<Arc<dyn Store>>,
    notifier: Notifier,
    max_resource_subscriptions: usize,
    elicitation_timeout: Duration,
    stdout_guard: bool,
    max_unwritten_output: usize,
    /// The skills to serve, read when they were given.
    #[cfg(feature = "skills")]
    skills: Option<Result<Arc<crate::skills::Skills>, crate::skills::SkillsError>>,
    #[cfg(feature = "http")]
    http: http::HttpSettings,
}

impl Server {
    /// A server that reports `name` and `version` to clients.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Server {
        Server {
            name: name.into(),
            version: version.into(),
            title: None,
            instructions: None,
            tools: Vec::new(),
            resources: Vec::new(),
            prompts: Vec::new(),
            page_size: None,
            list_ttl: DEFAULT_LIST_TTL,
            max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
            states: StateMap::default(),
            call_timeout: None,
            max_concurrent_calls: DEFAULT_MAX_CONCURRENT_CALLS,
            max_concurrent_calls_per_client: DEFAULT_MAX_CONCURRENT_CALLS_PER_CLIENT,
            max_pending_calls: DEFAULT_MAX_PENDING_CALLS,
            queue_timeout: DEFAULT_QUEUE_TIMEOUT,
            rate_limit: Some((DEFAULT_RATE_PER_SECOND, DEFAULT_RATE_BURST)),
            drain_timeout: DEFAULT_DRAIN_TIMEOUT,
            request_state_key: None,
            input_request_ttl: DEFAULT_INPUT_REQUEST_TTL,
            max_spent_request_states: DEFAULT_MAX_SPENT_REQUEST_STATES,
            max_open_request_states_per_client: DEFAULT_OPEN_STATES_PER_CLIENT,
            max_handles_per_client: crate::handles::DEFAULT_HANDLES_PER_CLIENT,
            task_ttl: crate::task::DEFAULT_TTL,
            max_tasks_per_client: crate::task::DEFAULT_TASKS_PER_CLIENT,
            store: None,
            notifier: Notifier::new(),
            max_resource_subscriptions: DEFAULT_MAX_RESOURCE_SUBSCRIPTIONS,
            elicitation_timeout: DEFAULT_ELICITATION_TIMEOUT,
            stdout_guard: true,
            max_unwritten_output: DEFAULT_MAX_UNWRITTEN_OUTPUT,
            #[cfg(feature = "skills")]
            skills: None,
            #[cfg(feature = "http")]
            http: http::HttpSettings::default(),
        }
    }

    /// Serves the skills in `folder` (feature `skills`): the Skills
    /// extension (`io.modelcontextprotocol/skills`) with `skills/list`,
    /// `skills/get` and `resources/directory/read`, each skill's files as
    /// `skill://` resources. The folder is read now; what it cannot serve
    /// (see [`Skills::from_dir`](crate::skills::Skills::from_dir)) stops
    /// the server when it starts, with [`Error::Skills`].
    ///
    /// ```no_run
    /// let server = mcpfn_runtime::Server::new("docs", "1.0.0").skills_dir("skills");
    /// # let _ = server;
    /// ```
    #[cfg(feature = "skills")]
    pub fn skills_dir(self, folder: impl AsRef<std::path::Path>) -> Server {
        Server {
            skills: Some(crate::skills::Skills::from_dir(folder).map(Arc::new)),
            ..self
        }
    }

    /// Serves `skills`, read beforehand with
    /// [`Skills::from_dir`](crate::skills::Skills::from_dir) (feature
    /// `skills`); see [`Server::skills_dir`].
    #[cfg(feature = "skills")]
    pub fn skills(self, skills: crate::skills::Skills) -> Server {
        Server {
            skills: Some(Ok(Arc::new(skills))),
            ..self
        }
    }

    /// The skills to serve, or why the folder cannot be served.
    #[cfg(feature = "skills")]
    fn checked_skills(&self) -> Result<Option<Arc<crate::skills::Skills>>, Error> {
        match &self.skills {
            None => Ok(None),
            Some(Ok(skills)) => Ok(Some(Arc::clone(skills))),
            Some(Err(err)) => Err(Error::Skills(err.clone())),
        }
    }

    /// Whether [`Server::serve_stdio`] guards stdout and stderr (on by
    /// default, Unix): frames go to a private duplicate of stdout, and what
    /// is written to fd 1 or fd 2 is diverted to the real stderr through the
    /// same bounded, non-blocking path as the logs, so stray prints cannot
    /// corrupt the protocol and an `eprintln!` cannot block the server on a
    /// host that does not read stderr. Turn it off only if something else
    /// must own fd 1 and fd 2.
    pub fn stdout_guard(mut self, on: bool) -> Server {
        self.stdout_guard = on;
        self
    }

    /// Registers application state; tools ask for it as a `State<T>` parameter.
    /// One value per type; registering a type again replaces it.
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Server {
        self.states.insert(value);
        self
    }

    /// The key that seals 2026-07-28 `requestState` values (HMAC-SHA256). By
    /// default each process draws a random key, so a restarted server refuses
    /// states from before; set one to share states across restarts or
    /// replicas. Replicas must then also share the set of spent states (a
    /// shared [`Server::store`]), or a state answered on one could be
    /// replayed on another.
    pub fn request_state_key(mut self, key: [u8; 32]) -> Server {
        self.request_state_key = Some(key);
        self
    }

    /// How long a `requestState` stays valid (10 minutes by default), and so how long the user has to answer in the
    /// 2026-07-28 era.
    pub fn input_request_ttl(mut self, ttl: Duration) -> Server {
        self.input_request_ttl = ttl;
        self
    }

    /// How long a task (Tasks extension) is kept after it was made: its
    /// `ttlMs`, after which `tasks/get` no longer finds it. Default one hour.
    pub fn task_ttl(mut self, ttl: Duration) -> Server {
        self.task_ttl = ttl.max(Duration::from_secs(1));
        self
    }

    /// Where spent `requestState` ids and [`Handles`](crate::Handles)
    /// entries are kept: by default a [`MemoryStore`](crate::store::MemoryStore) of
    /// [`Server::max_spent_request_states`] entries, right for one process.
    /// Replicas behind one load balancer share a store (e.g.
    /// `store::RedisStore`, feature `redis`), so a
    /// handle made on one is found on the others and a state answered on
    /// one is refused on all. While the store fails, calls that need it get
    /// an `isError` result starting "state store unavailable"; other calls
    /// are not affected.
    pub fn store(mut self, store: impl Store) -> Server {
        self.store = Some(Arc::new(store));
        self
    }

    /// The server's [`Notifier`]: tells its clients (on every replica
    /// sharing its [`Store`]) that a resource or a list changed. Take it
    /// before serving, for a background task; a tool has the same one in
    /// [`Context::notifier`](crate::Context::notifier).
    pub fn notifier(&self) -> Notifier {
        self.notifier.clone()
    }

    /// How long a legacy `elicitation/create` waits for the user (10
    /// minutes by default, as long as a `requestState` lives, so the user
    /// has the same time in both eras). Then the question is
    /// withdrawn (`notifications/cancelled`) and the tool's `ctx.elicit`
    /// returns an error saying the user did not answer in time, so a
    /// question nobody answers cannot hold a run slot forever.
    pub fn elicitation_timeout(mut self, timeout: Duration) -> Server {
        self.elicitation_timeout = timeout;
        self
    }

    /// Registers tools, e.g. `tools![add, echo]`.
    pub fn tools(mut self, tools: impl IntoIterator<Item = Tool>) -> Server {
        self.tools.extend(tools);
        self
    }

    /// Registers resources (usually `resources![a, b]`): `resources/list`
    /// lists those at fixed URIs, `resources/templates/list` the URI
    /// templates, and `resources/read` reads either. The server offers the
    /// `resources` capability only when it has some.
    pub fn resources(
        mut self,
        resources: impl IntoIterator<Item = crate::resource::Resource>,
    ) -> Server {
        self.resources.extend(resources);
        self
    }

    /// Registers one tool.
    pub fn tool(mut self, tool: Tool) -> Server {
        self.tools.push(tool);
        self
    }

    /// Registers prompts, e.g. `prompts![review, explain]`.
    pub fn prompts(mut self, prompts: impl IntoIterator<Item = Prompt>) -> Server {
        self.prompts.extend(prompts);
        self
    }

    /// A human-readable display name for the server.
    pub fn title(mut self, title: impl Into<String>) -> Server {
        self.title = Some(title.into());
        self
    }

    /// Guidance for the model on using this server's tools.
    pub fn instructions(mut self, text: impl Into<String>) -> Server {
        self.instructions = Some(text.into());
        self
    }

    /// Splits `tools/list` and `prompts/list` into pages of `size` entries
    /// (off by default: one page).
    pub fn page_size(mut self, size: usize) -> Server {
        self.page_size = Some(size);
        self
    }

    /// How long 2026-07-28 clients may cache `tools/list` and `server/discover`
    /// results (`ttlMs`); 5 minutes by default.
    pub fn list_ttl(mut self, ttl: Duration) -> Server {
        self.list_ttl = ttl;
        self
    }

    /// The registered tools in `format`, without serving; fails like serving
    /// would on a bad registration (duplicate or invalid names), and when a
    /// tool cannot be expressed in `format` ([`Error::NotExpressible`]).
    ///
    /// The model API formats offer each tool under the name those APIs
    /// accept, mapped as `mcp-host` maps it
    /// ([`mcpfn_protocol::model_name::model_name`]; the server's name seeds
    /// the hash of a shortened name); a name that changes is a
    /// [`ToolDump::warnings`] entry, and two tools mapped to one name fail
    /// the dump ([`Error::ModelNameCollision`]).
    ///
    /// ```
    /// use mcpfn_runtime::{DumpFormat, Server, tool, tools};
    ///
    /// /// Say hello.
    /// #[tool]
    /// async fn hello(name: String) -> String {
    ///     format!("Hello, {name}!")
    /// }
    ///
    /// let dump = Server::new("hi", "1.0.0").tools(tools![hello]).dump(DumpFormat::OpenAi).unwrap();
    /// assert_eq!(dump.to_json()[0]["function"]["name"], "hello");
    /// assert!(dump.total_bytes() < 1_000, "{}", dump.size_report());
    /// ```
    ///
    /// Registered state is not needed: schemas do not depend on it, so a
    /// build script can dump tools that take a `State<T>`.
    pub fn dump(&self, format: DumpFormat) -> Result<ToolDump, Error> {
        let registry = Registry::new(self.tools.clone(), None)?;
        let tools: Vec<&Tool> = registry.tools().collect();
        ToolDump::new(format, &self.name, &tools, self.list_ttl_ms())
    }

    fn list_ttl_ms(&self) -> u64 {
        u64::try_from(self.list_ttl.as_millis()).unwrap_or(u64::MAX)
    }
}
