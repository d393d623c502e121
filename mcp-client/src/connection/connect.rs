//! Connecting: the transport a server's config names, the client's capabilities
//! and `_meta` envelope, and the handshake of the chosen mode
//! (`server/discover` first in [`Mode::Auto`], `initialize` after).

use super::handler::{CHANGES_CAPACITY, HostHandler};
use super::handshake::{Parts, falls_back};
use super::options::{ClientOptions, Mode};
use super::{Conn, Inner, McpClient};
use crate::config::{Endpoint, ServerConfig};
use crate::log_limit::LogLimiter;
use crate::{DispatcherConfig, McpError, Reconnector, StdioConfig, StdioFactory, TransportFactory};
use mcpfn_protocol::ProtocolVersion;
use mcpfn_protocol::model::{
    APP_MIME_TYPE, ClientCapabilities, JsonObject, TASKS_EXTENSION, UI_EXTENSION,
};
use serde_json::{Value, json};
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

fn factory(
    config: &ServerConfig,
    options: &ClientOptions,
) -> Result<Arc<dyn TransportFactory>, McpError> {
    let close_grace = options.close_grace;
    match &config.transport {
        Endpoint::Stdio {
            command,
            args,
            env,
            cwd,
            inherit_env,
        } => {
            let mut stdio = StdioConfig::new(config.name.clone(), command.clone())
                .args(args.clone())
                .inherit_env(*inherit_env)
                .close_grace(close_grace);
            for (key, value) in env {
                stdio = stdio.env(key.clone(), value.clone());
            }
            if let Some(cwd) = cwd {
                stdio.cwd = Some(cwd.into());
            }
            Ok(Arc::new(StdioFactory(stdio)))
        }
        Endpoint::Http {
            declared_sse: true, ..
        } => Err(McpError::Config {
            server: config.name.clone(),
            reason: "`\"type\": \"sse\"` (the 2024-11-05 HTTP+SSE transport) is not supported; use Streamable HTTP".into(),
        }),
        #[cfg(feature = "http")]
        Endpoint::Http { url, headers, .. } => {
            let mut http = crate::HttpConfig::new(config.name.clone(), url.clone());
            for (name, value) in headers {
                http = http.header(name.clone(), value.clone());
            }
            #[cfg(feature = "oauth")]
            {
                http.authorizer = options.authorizer.clone();
            }
            Ok(Arc::new(crate::HttpFactory(http)))
        }
        #[cfg(not(feature = "http"))]
        Endpoint::Http { .. } => Err(McpError::Config {
            server: config.name.clone(),
            reason: "HTTP servers need mcp-host's `http` feature".into(),
        }),
    }
}

impl McpClient {
    /// Connects to `config`'s server with the default [`ClientOptions`].
    pub async fn connect(config: ServerConfig) -> Result<McpClient, McpError> {
        McpClient::connect_with(config, ClientOptions::default()).await
    }

    /// Connects to `config`'s server: starts it (stdio) or reaches it
    /// (HTTP) and makes the handshake of `options.mode`.
    pub async fn connect_with(
        config: ServerConfig,
        options: ClientOptions,
    ) -> Result<McpClient, McpError> {
        let factory = factory(&config, &options)?;
        let http = matches!(config.transport, Endpoint::Http { .. });
        let handler = Arc::new(HostHandler {
            server: config.name.clone(),
            elicit: options.elicitation.clone(),
            elicitation_defaults: options.elicitation_defaults,
            sample: options.sampling.clone(),
            progress: Default::default(),
            tools_generation: AtomicU64::new(0),
            server_capabilities: Mutex::default(),
            changes: tokio::sync::broadcast::Sender::new(CHANGES_CAPACITY),
            acknowledged: tokio::sync::watch::Sender::new(0),
            subscriptions: Mutex::default(),
            log: Mutex::new(LogLimiter::new(config.name.clone(), "log notification")),
        });
        let capabilities = ClientCapabilities {
            elicitation: options.elicitation.as_ref().map(|_| JsonObject::new()),
            sampling: options.sampling.as_ref().map(|_| JsonObject::new()),
            // MCP Apps is declared in either era (its spec shows it in a
            // legacy `initialize`).
            extensions: options.apps.then(|| {
                JsonObject::from_iter([(
                    UI_EXTENSION.to_owned(),
                    json!({"mimeTypes": [APP_MIME_TYPE]}),
                )])
            }),
            ..ClientCapabilities::default()
        };
        // The Tasks extension is a per-request capability of 2026-07-28, so
        // it goes in the envelope only, never in a legacy `initialize`.
        let mut modern_capabilities = capabilities.clone();
        if options.tasks {
            modern_capabilities
                .extensions
                .get_or_insert_with(JsonObject::new)
                .insert(TASKS_EXTENSION.to_owned(), Value::Object(JsonObject::new()));
        }
        let envelope = modern_capabilities
            .envelope(ProtocolVersion::V2026_07_28.as_str(), &options.client_info)
            .map_err(|e| McpError::Protocol {
                server: config.name.clone(),
                reason: e.to_string(),
            })?;
        let mut dispatcher_config = DispatcherConfig::new(config.name.clone());
        dispatcher_config.default_timeout = options.call_timeout;
        let new_reconnector = || {
            Arc::new(
                Reconnector::new(
                    Arc::clone(&factory),
                    Arc::clone(&handler) as Arc<dyn crate::Handler>,
                    dispatcher_config.clone(),
                )
                .policy(options.restart),
            )
        };
        let mut reconnector = new_reconnector();
        let mut current = reconnector.connect().await?;
        let parts = Parts {
            server: &config.name,
            handler: &handler,
            http,
            envelope: &envelope,
            capabilities: &capabilities,
            client_info: &options.client_info,
            handshake_timeout: options.handshake_timeout,
        };
        let era = match options.mode {
            Mode::Legacy => parts.initialize(&current).await?,
            Mode::Modern => match parts.discover(&current, options.handshake_timeout).await {
                Ok(Some(era)) => era,
                Ok(None) => {
                    return Err(McpError::NotModern {
                        server: config.name.clone(),
                        reason: "its server/discover names no 2026-07-28 revision".into(),
                    });
                }
                Err(McpError::Client(e)) if falls_back(&e) => {
                    return Err(McpError::NotModern {
                        server: config.name.clone(),
                        reason: e.to_string(),
                    });
                }
                Err(e) => return Err(e),
            },
            Mode::Auto => match parts.discover(&current, options.probe_timeout).await {
                Ok(Some(era)) => era,
                Ok(None) => parts.initialize(&current).await?,
                Err(McpError::Client(e)) if falls_back(&e) => {
                    tracing::debug!(server = %config.name, error = %e, "server/discover refused; the legacy handshake follows");
                    if current.is_closed() {
                        // The server gave up on the probe (some exit on a
                        // request before `initialize`): a fresh process,
                        // not counted as the one restart.
                        reconnector = new_reconnector();
                        current = reconnector.connect().await?;
                    }
                    parts.initialize_after_probe(&current).await?
                }
                Err(e) => return Err(e),
            },
        };
        let client = McpClient {
            inner: Arc::new(Inner {
                conn: tokio::sync::Mutex::new(Conn {
                    reconnector,
                    current,
                    era,
                    number: 0,
                    listen: None,
                }),
                config,
                options,
                handler,
                http,
                envelope,
                capabilities,
                cache: std::sync::Mutex::new(None),
                task_only_warned: std::sync::Mutex::default(),
                next_token: AtomicU64::new(1),
            }),
        };
        Ok(client)
    }
}
