//! Sending: one POST per message, its answer read as a JSON body or handed to
//! an event stream, and HTTP errors turned into client errors.

use super::super::{Incoming, Outgoing};
use super::auth::AuthRetries;
use super::{ERROR_BODY_BYTES, ERROR_EXCERPT, SESSION_ID, Shared, chain, header_pair, lock};
use crate::error::{Cause, ClientError};
use crate::jsonrpc::{self, Message};
use crate::text::excerpt;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::header::{ACCEPT, CONTENT_LENGTH, CONTENT_TYPE, HeaderMap, HeaderValue};
use hyper::{Method, Request, StatusCode};
use std::sync::Arc;

impl Shared {
    pub(super) fn disconnected(&self, reason: String) -> ClientError {
        ClientError::Disconnected {
            server: self.name.clone(),
            reason,
            cause: None,
        }
    }

    /// [`disconnected`](Self::disconnected), `error` kept as the cause.
    pub(super) fn disconnected_by(
        &self,
        reason: String,
        error: impl std::error::Error + Send + Sync + 'static,
    ) -> ClientError {
        ClientError::Disconnected {
            server: self.name.clone(),
            reason,
            cause: Some(Cause::new(error)),
        }
    }

    /// A request to the endpoint with the configured headers, the session
    /// and `extra`.
    pub(super) fn request(
        &self,
        method: Method,
        extra: &[(String, String)],
        body: Bytes,
    ) -> Result<Request<Full<Bytes>>, ClientError> {
        let mut request = Request::builder()
            .method(method)
            .uri(self.uri.clone())
            .body(Full::new(body))
            .map_err(|e| ClientError::Config {
                reason: e.to_string(),
            })?;
        let headers = request.headers_mut();
        headers.extend(self.headers.clone());
        headers.extend(lock(&self.connection_headers).clone());
        if let Some(session) = lock(&self.session).clone() {
            headers.insert(SESSION_ID, session);
        }
        for (name, value) in extra {
            let (name, value) = header_pair(name, value)?;
            headers.insert(name, value);
        }
        Ok(request)
    }

    // Without `oauth` the retry count and the sent token are `()`: one
    // body serves both builds.
    #[cfg_attr(not(feature = "oauth"), allow(clippy::let_unit_value))]
    pub(super) async fn post(self: &Arc<Self>, message: Outgoing) -> Result<(), ClientError> {
        let body = Bytes::from(message.body);
        let mut retries = AuthRetries::default();
        let (response, had_session) = loop {
            let mut request = self.request(Method::POST, &message.headers, body.clone())?;
            let headers = request.headers_mut();
            headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
            headers.insert(
                ACCEPT,
                HeaderValue::from_static("application/json, text/event-stream"),
            );
            let sent = self.authorize(&mut request).await?;
            let had_session = lock(&self.session).is_some();
            let response = self
                .client
                .request(request)
                .await
                .map_err(|e| self.disconnected_by(chain(&e), e))?;
            if !self.reauthorize(&response, sent, &mut retries).await? {
                break (response, had_session);
            }
        };
        let status = response.status();
        if let Some(session) = response.headers().get(&SESSION_ID)
            && status.is_success()
        {
            *lock(&self.session) = Some(session.clone());
        }
        if status == StatusCode::NOT_FOUND && had_session {
            *lock(&self.session) = None;
            let _ = self
                .inbox
                .send(Incoming::Closed(ClientError::SessionExpired))
                .await;
            return Err(ClientError::SessionExpired);
        }
        if !status.is_success() {
            return Err(self.error_response(response).await);
        }
        let Some(id) = message.request_id else {
            // A notification or an answer: 202 and no body.
            return Ok(());
        };
        if status == StatusCode::ACCEPTED || status == StatusCode::NO_CONTENT {
            return Err(ClientError::Malformed {
                reason: format!("HTTP {status} with no body in answer to a request"),
            });
        }
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        if content_type.starts_with("text/event-stream") {
            self.read_stream_in_background(id, response.into_body());
            return Ok(());
        }
        if !content_type.starts_with("application/json") {
            return Err(ClientError::Malformed {
                reason: format!("an answer of content type `{content_type}`"),
            });
        }
        if let Some(length) = content_length(response.headers())
            && length > self.limit
        {
            return Err(ClientError::TooLarge {
                server: self.name.clone(),
                limit: self.limit,
                size: Some(length),
            });
        }
        let body = read_body(response.into_body(), self.limit)
            .await
            .map_err(|e| {
                e.unwrap_or(ClientError::TooLarge {
                    server: self.name.clone(),
                    limit: self.limit,
                    size: None,
                })
            })
            .map_err(|e| match e {
                ClientError::Disconnected { reason, cause, .. } => ClientError::Disconnected {
                    server: self.name.clone(),
                    reason,
                    cause,
                },
                other => other,
            })?;
        let text = String::from_utf8(body).map_err(|_| ClientError::Malformed {
            reason: "a JSON body that is not UTF-8".into(),
        })?;
        // A body that is not a JSON-RPC message would leave the request
        // waiting for its timeout: fail it now.
        if let Err(reason) = jsonrpc::parse(&text) {
            return Err(ClientError::Malformed {
                reason: format!("{reason}: {}", excerpt(&text, ERROR_EXCERPT)),
            });
        }
        self.inbox.send(Incoming::Message(text)).await;
        Ok(())
    }

    /// The error an unsuccessful status stands for: the JSON-RPC error in
    /// its body if there is one (`-32022` unsupported version, …), else
    /// the status and the start of the body.
    pub(super) async fn error_response(
        &self,
        response: hyper::Response<hyper::body::Incoming>,
    ) -> ClientError {
        let status = response.status().as_u16();
        let body = read_body(response.into_body(), ERROR_BODY_BYTES)
            .await
            .unwrap_or_default();
        let text = String::from_utf8_lossy(&body);
        if let Ok(Message::Response {
            outcome: Err(error),
            ..
        }) = jsonrpc::parse(&text)
        {
            return ClientError::Rpc(error);
        }
        ClientError::Http {
            status,
            body: excerpt(&text, ERROR_EXCERPT),
        }
    }
}

fn content_length(headers: &HeaderMap) -> Option<usize> {
    headers.get(CONTENT_LENGTH)?.to_str().ok()?.parse().ok()
}

/// The whole body, up to `limit` bytes: `Err(None)` past it.
async fn read_body(
    mut body: hyper::body::Incoming,
    limit: usize,
) -> Result<Vec<u8>, Option<ClientError>> {
    let mut bytes = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| {
            Some(ClientError::Disconnected {
                server: String::new(),
                reason: format!("reading the body failed: {}", chain(&e)),
                cause: Some(Cause::new(e)),
            })
        })?;
        if let Ok(data) = frame.into_data() {
            if bytes.len() + data.len() > limit {
                return Err(None);
            }
            bytes.extend_from_slice(&data);
        }
    }
    Ok(bytes)
}
