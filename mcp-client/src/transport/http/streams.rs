//! The event streams: a request's stream read in the background and resumed
//! with `Last-Event-ID`, the GET stream of a legacy session kept open, and the
//! session ended with DELETE.

use super::super::Incoming;
use super::super::sse::{Event, SseParser};
use super::{DEFAULT_RETRY, LAST_EVENT_ID, MAX_RESUMPTIONS, MAX_RETRY, Shared, chain, lock};
use crate::error::ClientError;
use crate::jsonrpc::{self, Message};
use crate::text::excerpt;
use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::header::{ACCEPT, HeaderValue};
use hyper::{Method, StatusCode};
use std::sync::Arc;
use std::time::Duration;

impl Shared {
    pub(super) fn read_stream_in_background(
        self: &Arc<Self>,
        id: u64,
        body: hyper::body::Incoming,
    ) {
        let shared = Arc::clone(self);
        let mut streams = lock(&self.streams);
        let task = tokio::spawn(async move {
            let mut parser = SseParser::new(shared.limit);
            let mut outcome = shared.read_events(body, Some(id), &mut parser).await;
            let mut resumptions = 0;
            // A stream that ended or broke before its answer, after an
            // event with an id, is resumed (2025-11-25: the server may
            // close it at any time and the client polls): a GET naming
            // the last event, after the server's `retry` wait.
            while let Err(ClientError::Disconnected { .. }) = &outcome
                && resumptions < MAX_RESUMPTIONS
                && let Some(last) = parser.last_event_id().map(str::to_owned)
            {
                resumptions += 1;
                let wait = parser.retry().unwrap_or(DEFAULT_RETRY).min(MAX_RETRY);
                tokio::time::sleep(wait).await;
                parser = parser.resumed();
                outcome = shared.resume(id, &last, &mut parser).await;
            }
            lock(&shared.streams).remove(&id);
            if let Err(error) = outcome {
                shared.inbox.send(Incoming::Failed { id, error }).await;
            }
        });
        streams.insert(id, task.abort_handle());
    }

    /// The GET that resumes the stream of request `id` after event `last`
    /// (`Last-Event-ID`), read like the stream it continues.
    pub(super) async fn resume(
        &self,
        id: u64,
        last: &str,
        parser: &mut SseParser,
    ) -> Result<(), ClientError> {
        let last_event_id = [(LAST_EVENT_ID.to_owned(), last.to_owned())];
        let mut request = self.request(Method::GET, &last_event_id, Bytes::new())?;
        request
            .headers_mut()
            .insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
        let response = self
            .client
            .request(request)
            .await
            .map_err(|e| self.disconnected_by(chain(&e), e))?;
        if !response.status().is_success() {
            return Err(self.error_response(response).await);
        }
        tracing::debug!(server = %self.name, request = id, last_event_id = %excerpt(last, 64), "event stream resumed");
        self.read_events(response.into_body(), Some(id), parser)
            .await
    }

    /// Reads an event stream into the inbox. For the stream of request
    /// `id`: `Ok` once its answer came, else why it cannot come.
    pub(super) async fn read_events(
        &self,
        mut body: hyper::body::Incoming,
        id: Option<u64>,
        parser: &mut SseParser,
    ) -> Result<(), ClientError> {
        let mut events = Vec::new();
        let mut answered = false;
        let mut dropped = false;
        loop {
            let frame = match body.frame().await {
                None => break,
                Some(Ok(frame)) => frame,
                Some(Err(e)) => {
                    if answered {
                        break;
                    }
                    return Err(
                        self.disconnected_by(format!("the event stream broke: {}", chain(&e)), e)
                    );
                }
            };
            let Ok(data) = frame.into_data() else {
                continue;
            };
            parser.feed(&data, &mut events);
            for event in events.drain(..) {
                match event {
                    // The priming event of a resumable stream (an id and
                    // no data): no message.
                    Event::Data(text) if text.is_empty() => {}
                    Event::Data(text) => {
                        if let (Some(id), Ok(Message::Response { id: Some(got), .. })) =
                            (id, jsonrpc::parse(&text))
                            && got == id
                        {
                            answered = true;
                        }
                        if !self.inbox.send(Incoming::Message(text)).await {
                            return Ok(());
                        }
                    }
                    Event::TooLarge => {
                        tracing::warn!(server = %self.name, limit = self.limit, "discarded an event over the size limit");
                        dropped = true;
                    }
                }
            }
            if answered {
                // The server should end the stream now: read its end
                // briefly, so that the connection can be reused, but never
                // wait on a server that keeps it open.
                let rest = async { while let Some(Ok(_)) = body.frame().await {} };
                let _ = tokio::time::timeout(Duration::from_millis(100), rest).await;
                break;
            }
        }
        match id {
            Some(_) if !answered && dropped => Err(ClientError::TooLarge {
                server: self.name.clone(),
                limit: self.limit,
                size: None,
            }),
            Some(_) if !answered => {
                Err(self.disconnected("the event stream ended before the answer".into()))
            }
            _ => Ok(()),
        }
    }

    /// The legacy session's GET stream, reopened when it ends (three
    /// failures in a row end it for good). `opened` is dropped once the
    /// first GET is answered (or fails).
    pub(super) async fn listen_loop(self: Arc<Self>, opened: tokio::sync::oneshot::Sender<()>) {
        let mut opened = Some(opened);
        let mut failures = 0;
        while failures < 3 {
            if lock(&self.session).is_none() {
                return;
            }
            let mut request = match self.request(Method::GET, &[], Bytes::new()) {
                Ok(mut request) => {
                    request
                        .headers_mut()
                        .insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
                    request
                }
                Err(_) => return,
            };
            if self.authorize(&mut request).await.is_err() {
                return;
            }
            let response = self.client.request(request).await;
            drop(opened.take());
            match response {
                Ok(response) if response.status().is_success() => {
                    failures = 0;
                    let mut parser = SseParser::new(self.limit);
                    let _ = self
                        .read_events(response.into_body(), None, &mut parser)
                        .await;
                }
                Ok(response) if response.status() == StatusCode::METHOD_NOT_ALLOWED => {
                    tracing::debug!(server = %self.name, "the server offers no GET stream");
                    return;
                }
                Ok(response) => {
                    failures += 1;
                    tracing::warn!(server = %self.name, status = %response.status(), "the GET stream was refused");
                }
                Err(error) => {
                    failures += 1;
                    tracing::warn!(server = %self.name, error = %chain(&error), "the GET stream could not be opened");
                }
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    }

    pub(super) fn stop_streams(&self) {
        for (_, task) in lock(&self.streams).drain() {
            task.abort();
        }
        if let Some(task) = lock(&self.listener).take() {
            task.abort();
        }
    }

    /// DELETE of the session, if there is one.
    pub(super) async fn end_session(&self) {
        if lock(&self.session).is_none() {
            return;
        }
        let Ok(mut request) = self.request(Method::DELETE, &[], Bytes::new()) else {
            return;
        };
        if self.authorize(&mut request).await.is_err() {
            return;
        }
        *lock(&self.session) = None;
        match tokio::time::timeout(Duration::from_secs(5), self.client.request(request)).await {
            Ok(Ok(response)) => {
                tracing::debug!(server = %self.name, status = %response.status(), "session ended");
            }
            Ok(Err(error)) => {
                tracing::debug!(server = %self.name, error = %chain(&error), "the session could not be ended");
            }
            Err(_) => tracing::debug!(server = %self.name, "no answer to the session's DELETE"),
        }
    }
}
