//! Factories for the two transports, for a [`Reconnector`](crate::Reconnector).

use super::stdio::{StdioConfig, StdioTransport};
use super::{BoxFuture, Connection, Transport, TransportFactory};
use crate::error::ClientError;

/// Starts the configured process anew on each connection.
#[derive(Debug, Clone)]
pub struct StdioFactory(pub StdioConfig);

impl TransportFactory for StdioFactory {
    fn connect(&self) -> BoxFuture<'_, Result<Connection, ClientError>> {
        Box::pin(async move {
            let (transport, inbox) = StdioTransport::spawn(self.0.clone())?;
            Ok((Box::new(transport) as Box<dyn Transport>, inbox))
        })
    }
}

/// A new HTTP transport (a new session, once initialized) on each connection.
#[cfg(feature = "http")]
#[derive(Debug, Clone)]
pub struct HttpFactory(pub super::http::HttpConfig);

#[cfg(feature = "http")]
impl TransportFactory for HttpFactory {
    fn connect(&self) -> BoxFuture<'_, Result<Connection, ClientError>> {
        Box::pin(async move {
            let (transport, inbox) = super::http::HttpTransport::connect(self.0.clone())?;
            Ok((Box::new(transport) as Box<dyn Transport>, inbox))
        })
    }
}
