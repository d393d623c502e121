//! The in-process door's resources: the two lists as the model's types,
//! and a read through the same lookup and run as one over the wire
//! ([`crate::resource::read`]).

use super::LocalClient;
use crate::conn::connection::CancelSignal;
use crate::context::ContextParts;
use crate::protocol::model::{self, ReadResourceResult, RpcError};
use crate::resource::{ResourceRead, read};
use serde::Deserialize as _;
use std::sync::Arc;

impl LocalClient {
    /// The resources at fixed URIs, as `resources/list` lists them.
    pub fn resources(&self) -> Vec<model::Resource> {
        let door = &*self.door;
        door.shared
            .resources
            .iter()
            .filter(|resource| !resource.is_template())
            .filter_map(|resource| {
                let json = resource.definition_json(door.version);
                model::Resource::deserialize(&*json).ok()
            })
            .collect()
    }

    /// The URI templates, as `resources/templates/list` lists them.
    pub fn resource_templates(&self) -> Vec<model::ResourceTemplate> {
        let door = &*self.door;
        door.shared
            .resources
            .iter()
            .filter(|resource| resource.is_template())
            .filter_map(|resource| {
                let json = resource.definition_json(door.version);
                model::ResourceTemplate::deserialize(&*json).ok()
            })
            .collect()
    }

    /// Reads `uri`: the contents, or the error the wire answers with (an
    /// unknown URI, a refused template value, a failing fn).
    ///
    /// ```
    /// use mcpfn_runtime::{Server, resource, resources};
    ///
    /// /// A greeting per name.
    /// #[resource("hello://{name}", mime_type = "text/plain")]
    /// async fn hello(name: String) -> String {
    ///     format!("Hello, {name}!")
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let client = Server::new("hi", "1").resources(resources![hello]).local()?;
    /// assert_eq!(client.resource_templates()[0].uri_template, "hello://{name}");
    /// let read = client.read_resource("hello://Ada").await?;
    /// assert!(matches!(&read.contents[0],
    ///     mcpfn_runtime::ResourceContents::Text { text, .. } if text == "Hello, Ada!"));
    /// assert!(client.read_resource("bye://Ada").await.is_err());
    /// # Ok(())
    /// # }
    /// ```
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, RpcError> {
        let door = &*self.door;
        let shared = &door.shared;
        let version = door.version;
        let (resource, variables) = read::locate(&shared.resources, uri, version)?;
        let (_, id) = door.next_request();
        let uri: Arc<str> = Arc::from(uri);
        let parts = ContextParts {
            request_id: id,
            tool: Arc::clone(&uri),
            version,
            client: Arc::clone(&door.client),
            meta: None,
            request_log_level: None,
            cancel: CancelSignal::default(),
            connection: Arc::clone(&door.connection),
            reach: Arc::clone(&shared.reach),
            answers: serde_json::Map::new(),
            peer: Some(Arc::clone(&door.peer) as Arc<dyn crate::conn::peer::Peer>),
        };
        let read = ResourceRead::new(resource, uri, variables, parts);
        let contents = read::run(resource, read).await?;
        Ok(ReadResourceResult {
            contents,
            ttl_ms: None,
            cache_scope: None,
            meta: None,
        })
    }
}
