//! From the configured builder to the state the transports serve: the
//! registration checks (states, tasks, names) and [`Server::into_shared`],
//! which builds the registries, the store, the sealer and the limits.

#[cfg(feature = "http")]
use super::DEFAULT_MAX_SSE_UNWRITTEN;
use super::Server;
use crate::context::Reach;
use crate::context::seal::StateSealer;
use crate::error::Error;
use crate::limits::Limits;
use crate::prompt::registry::Prompts;
use crate::shared::{Identity, Shared};
use crate::store::MemoryStore;
use crate::tool::registry::Registry;
use crate::tool::toolset::ToolSet;
use std::sync::Arc;
use std::time::Duration;

impl Server {
    /// A tool that runs only as a task needs the Tasks extension built in
    /// (`#[tool(task = "required")]` checks it at compile time; this is
    /// for tools built by hand).
    fn check_tasks(&self) -> Result<(), Error> {
        match self.tools.iter().find(|tool| {
            !crate::task::ENABLED && tool.def.task == crate::tool::TaskSupport::Required
        }) {
            Some(tool) => Err(Error::TasksFeatureOff {
                tool: tool.name.clone(),
            }),
            None => Ok(()),
        }
    }

    /// Every `State<T>` a tool takes must be registered.
    fn check_states(&self) -> Result<(), Error> {
        let runners = self.prompts.iter().map(|prompt| &*prompt.runner);
        for tool in self.tools.iter().chain(runners) {
            if let Some(missing) = tool
                .def
                .states
                .iter()
                .find(|s| !self.states.contains(s.type_id))
            {
                return Err(Error::MissingState {
                    tool: tool.name.clone(),
                    type_name: missing.type_name,
                });
            }
        }
        Ok(())
    }

    /// What `into_shared` checks, without consuming the server.
    pub(crate) fn check_registration(&self) -> Result<(), Error> {
        #[cfg(feature = "skills")]
        self.checked_skills()?;
        self.check_states()?;
        self.check_tasks()?;
        #[cfg(feature = "http")]
        self.http.check()?;
        Registry::check(&self.tools)
    }

    /// Checks the registration (unique, valid names; object input schemas;
    /// every state a tool needs registered).
    /// `hide_unauthorized_tools`: see `Auth::hide_unauthorized_tools`.
    pub(crate) fn into_shared(
        self,
        hide_unauthorized_tools: bool,
    ) -> Result<(Arc<Shared>, usize, Duration), Error> {
        #[cfg(feature = "skills")]
        let skills = self.checked_skills()?;
        self.check_states()?;
        self.check_tasks()?;
        let ttl_ms = self.list_ttl_ms();
        let tools = ToolSet::new(self.tools, self.page_size, self.notifier.clone())?;
        let prompts = Prompts::new(self.prompts, self.page_size)?;
        // A skill's files are resources like any other (a URI registered
        // both ways is refused as a duplicate).
        #[cfg(feature = "skills")]
        let resources = match &skills {
            Some(skills) => self
                .resources
                .into_iter()
                .chain(skills.resources()?)
                .collect(),
            None => self.resources,
        };
        #[cfg(not(feature = "skills"))]
        let resources = self.resources;
        let resources =
            crate::resource::registry::ResourceRegistry::new(resources, self.page_size)?;
        let identity = Identity::new(
            self.name,
            self.version,
            self.title,
            self.instructions,
            ttl_ms,
        );
        let store = self
            .store
            .unwrap_or_else(|| Arc::new(MemoryStore::with_capacity(self.max_spent_request_states)));
        let tasks = crate::task::Tasks::new(Arc::clone(&store), self.task_ttl);
        self.notifier.relay_through(Arc::clone(&store));
        let reach = Arc::new(Reach {
            states: self.states,
            store: Arc::clone(&store),
            tools: Box::new(tools.clone()),
            notifier: self.notifier.clone(),
            elicitation_timeout: self.elicitation_timeout,
            max_message_size: self.max_message_size,
            handle_quota: Arc::new(crate::quota::WindowQuota::new(self.max_handles_per_client)),
        });
        let shared = Shared {
            tools,
            resources,
            max_message_size: self.max_message_size,
            prompts,
            identity,
            reach,
            sealer: StateSealer::with_quota(
                self.request_state_key,
                self.input_request_ttl,
                store,
                self.max_open_request_states_per_client,
            ),
            limits: Limits::new(
                self.max_concurrent_calls,
                self.max_concurrent_calls_per_client,
                self.max_pending_calls,
                self.queue_timeout,
                self.rate_limit,
            ),
            call_timeout: self.call_timeout,
            tasks,
            task_quota: Arc::new(crate::quota::WindowQuota::new(self.max_tasks_per_client)),
            hide_unauthorized_tools,
            notifier: self.notifier,
            max_resource_subscriptions: self.max_resource_subscriptions,
            recent_client: Default::default(),
            max_unwritten_output: self.max_unwritten_output,
            #[cfg(feature = "skills")]
            skills,
            #[cfg(feature = "http")]
            max_sse_unwritten: self.http.sse_unwritten.unwrap_or(DEFAULT_MAX_SSE_UNWRITTEN),
        };
        Ok((Arc::new(shared), self.max_message_size, self.drain_timeout))
    }
}
