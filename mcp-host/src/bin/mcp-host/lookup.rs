//! What tab completion asks the servers ([`Lookup`]), asked from the line
//! editor's thread through a handle on the program's runtime, each
//! question bounded by [`WAIT`]: a slow server gets no candidates, and
//! typing goes on.

use crate::complete::Lookup;
use mcpfn_client::McpClient;
use mcpfn_protocol::model::{CompletionArgument, CompletionContextParams, CompletionRef, Prompt};
use std::collections::BTreeMap;
use std::future::Future;
use std::time::Duration;
use tokio::runtime::Handle;

/// How long one completion waits for the servers.
pub(crate) const WAIT: Duration = Duration::from_millis(500);

/// The ready servers' clients, by name, for completion.
pub(crate) struct ServerLookup {
    handle: Handle,
    clients: BTreeMap<String, McpClient>,
}

impl ServerLookup {
    /// Completion from `clients`, asked on `handle`'s runtime.
    pub(crate) fn new(handle: Handle, clients: BTreeMap<String, McpClient>) -> ServerLookup {
        ServerLookup { handle, clients }
    }

    /// `question`'s answer within [`WAIT`], else nothing. Called on the
    /// editor's blocking thread, never on the runtime's (whose thread
    /// drives the clients' I/O meanwhile).
    fn ask<T: Default>(&self, question: impl Future<Output = T>) -> T {
        self.handle
            .block_on(tokio::time::timeout(WAIT, question))
            .unwrap_or_default()
    }

    /// `server`'s prompt `name`, if it lists one.
    fn prompt(&self, server: &str, name: &str) -> Option<Prompt> {
        let client = self.clients.get(server)?;
        self.ask(async { client.list_prompts().await.ok() })?
            .into_iter()
            .find(|prompt| prompt.name == name)
    }
}

impl Lookup for ServerLookup {
    fn servers(&self) -> Vec<String> {
        self.clients.keys().cloned().collect()
    }

    fn prompts(&self) -> Vec<(String, String)> {
        self.ask(async {
            let mut prompts = Vec::new();
            // One server after another within the one wait: a slow one
            // leaves out itself and those after it, never the typing.
            for (server, client) in &self.clients {
                if let Ok(listed) = client.list_prompts().await {
                    prompts.extend(listed.into_iter().map(|p| (server.clone(), p.name)));
                }
            }
            prompts
        })
    }

    fn prompt_arguments(&self, server: &str, prompt: &str) -> Vec<String> {
        self.prompt(server, prompt)
            .map(|p| p.arguments.into_iter().map(|a| a.name).collect())
            .unwrap_or_default()
    }

    fn argument_values(
        &self,
        server: &str,
        prompt: &str,
        argument: &str,
        value: &str,
        context: &BTreeMap<String, String>,
    ) -> Vec<String> {
        let Some(client) = self.clients.get(server) else {
            return Vec::new();
        };
        let reference = CompletionRef::Prompt {
            name: prompt.to_owned(),
            title: None,
        };
        let argument = CompletionArgument {
            name: argument.to_owned(),
            value: value.to_owned(),
        };
        let context = (!context.is_empty()).then(|| CompletionContextParams {
            arguments: context.clone(),
        });
        self.ask(async {
            client
                .complete(reference, argument, context)
                .await
                .map(|completion| completion.values)
                .unwrap_or_default()
        })
    }

    fn resources(&self, server: &str) -> Vec<String> {
        let Some(client) = self.clients.get(server) else {
            return Vec::new();
        };
        self.ask(async {
            client
                .list_resources()
                .await
                .map(|listed| listed.into_iter().map(|r| r.uri).collect())
                .unwrap_or_default()
        })
    }
}
