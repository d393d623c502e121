//! What tab completion asks the servers ([`Lookup`]), asked from the line
//! editor's thread through a handle on the program's runtime, each
//! question bounded by [`WAIT`]: a slow server gets no candidates, and
//! typing goes on.

use crate::complete::Lookup;
use std::collections::BTreeMap;
use std::future::Future;
use std::time::Duration;
use tokio::runtime::Handle;

/// How long one completion waits for a server.
pub(crate) const WAIT: Duration = Duration::from_millis(500);

/// The running servers, by name, for completion.
pub(crate) struct ServerLookup {
    handle: Handle,
    servers: Vec<String>,
}

impl ServerLookup {
    /// Completion from `servers`, asked on `handle`'s runtime.
    pub(crate) fn new(handle: Handle, servers: Vec<String>) -> ServerLookup {
        ServerLookup { handle, servers }
    }

    /// `question`'s answer within [`WAIT`], else `None`. Called on the
    /// editor's blocking thread, never on the runtime's.
    #[allow(dead_code)]
    fn ask<T>(&self, question: impl Future<Output = Option<T>>) -> Option<T> {
        self.handle
            .block_on(async { tokio::time::timeout(WAIT, question).await.ok().flatten() })
    }
}

impl Lookup for ServerLookup {
    fn servers(&self) -> Vec<String> {
        self.servers.clone()
    }

    fn prompts(&self) -> Vec<(String, String)> {
        Vec::new()
    }

    fn prompt_arguments(&self, _server: &str, _prompt: &str) -> Vec<String> {
        Vec::new()
    }

    fn argument_values(
        &self,
        _server: &str,
        _prompt: &str,
        _argument: &str,
        _value: &str,
        _context: &BTreeMap<String, String>,
    ) -> Vec<String> {
        Vec::new()
    }

    fn resources(&self, _server: &str) -> Vec<String> {
        Vec::new()
    }
}
