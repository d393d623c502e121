//! One attempt of a model request: the request sent, the response's
//! headers, its body read within the response bound and the stall bound,
//! streamed events fed to their assembler as they come ([`Streamed`]).

use super::{ApiClient, ApiEndpoint};
use crate::provider::ProviderError;
use crate::provider::stream::{Assembler, Delta, EventReader};
use bytes::Bytes;
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::header::{CONTENT_LENGTH, CONTENT_TYPE, HeaderMap};
use hyper::{Method, StatusCode};
use mcpfn_client::http::chain;

impl ApiClient {
    pub(super) async fn attempt(
        &self,
        endpoint: &ApiEndpoint,
        body: Bytes,
        limit: usize,
        mut stream: Option<&mut Streamed<'_>>,
    ) -> Result<(StatusCode, HeaderMap, Bytes), ProviderError> {
        let mut request = hyper::Request::builder()
            .method(Method::POST)
            .uri(endpoint.uri.clone())
            .header(CONTENT_TYPE, "application/json")
            .body(Full::new(body))
            .map_err(|e| ProviderError::Config {
                reason: format!("the request could not be made: {e}"),
            })?;
        for (name, value) in &endpoint.headers {
            request.headers_mut().insert(name, value.clone());
        }
        let network = |reason: String| ProviderError::Network {
            api: endpoint.api.clone(),
            reason,
            attempts: 1,
        };
        let too_large = || ProviderError::TooLarge {
            api: endpoint.api.clone(),
            reason: format!(
                "was larger than {limit} bytes, the bound for this request's max_tokens; it was not read"
            ),
        };
        let exchange = async {
            let response = self
                .client
                .request(request)
                .await
                .map_err(|e| network(chain(&e)))?;
            let (parts, body) = response.into_parts();
            // Refused before a byte of the body is read when it says its
            // size; the connection is dropped, not drained.
            let declared = parts
                .headers
                .get(CONTENT_LENGTH)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.parse::<u64>().ok());
            if declared.is_some_and(|length| length > limit as u64) {
                return Err(too_large());
            }
            let mut body = Limited::new(body, limit);
            // A stream's events go to its assembler as they come; an error
            // response is read whole, as always.
            let mut stream = stream.take().filter(|_| parts.status.is_success());
            if let Some(stream) = stream.as_deref_mut() {
                stream.began = true;
            }
            let mut bytes = Vec::with_capacity(declared.map_or(0, |length| length as usize));
            loop {
                let frame = tokio::time::timeout(self.stall, body.frame())
                    .await
                    .map_err(|_| ProviderError::Stalled {
                        api: endpoint.api.clone(),
                        after: self.stall,
                        attempts: 1,
                    })?;
                match frame {
                    None => break,
                    Some(Ok(frame)) => {
                        if let Some(data) = frame.data_ref() {
                            match stream.as_deref_mut() {
                                Some(stream) => stream.feed(data)?,
                                None => bytes.extend_from_slice(data),
                            }
                        }
                    }
                    Some(Err(e)) if e.downcast_ref::<LengthLimitError>().is_some() => {
                        return Err(too_large());
                    }
                    Some(Err(e)) => {
                        return Err(network(format!("the response broke off: {}", chain(&*e))));
                    }
                }
            }
            Ok((parts.status, parts.headers, Bytes::from(bytes)))
        };
        tokio::time::timeout(self.timeout, exchange)
            .await
            .map_err(|_| ProviderError::Timeout {
                api: endpoint.api.clone(),
                after: self.timeout,
                attempts: 1,
            })?
    }
}

/// A streamed response being read.
pub(super) struct Streamed<'a> {
    pub(super) reader: EventReader,
    pub(super) assembler: &'a mut dyn Assembler,
    pub(super) on_delta: &'a mut (dyn FnMut(Delta<'_>) + Send),
    /// Its 2xx headers have come: no retry from here.
    pub(super) began: bool,
}

impl Streamed<'_> {
    fn feed(&mut self, bytes: &[u8]) -> Result<(), ProviderError> {
        self.reader.feed(bytes, self.assembler, self.on_delta)
    }
}
