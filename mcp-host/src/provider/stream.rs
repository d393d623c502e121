//! Streamed responses (`"stream": true`): the body is server-sent events,
//! read as they come by a bounded parser ([`EventReader`]) and handed to
//! the API's [`Assembler`], which builds from them exactly the [`Reply`]
//! the API's whole response would have given (the same assistant message,
//! calls, stop and usage), so that a history does not depend on whether
//! its responses were streamed.
//!
//! Bounds: the whole body is bounded as a whole response is
//! (64 bytes per token of `max_tokens`, see [`ApiClient`](super::ApiClient)), each line and each event by
//! [`EVENT_LIMIT`], and what an assembler grows (blocks, calls, the JSON
//! of a call's input) by indices that must come in order and by the tree
//! bound of a whole response.

pub use super::Delta;
use super::{ProviderError, Reply};
use mcpfn_client::sse::{Event, SseParser};
use mcpfn_protocol::json_budget::JsonBudget;
use serde_json::Value;

/// The most bytes one line or one event of a streamed response may have.
/// An event is one delta (a few tokens) or a block's start; the biggest is
/// Anthropic's `message_start` or a block that comes whole (a server
/// tool's result), far below this.
pub const EVENT_LIMIT: usize = 1 << 20;

/// Builds a [`Reply`] from a response's events, one API's dialect.
pub trait Assembler: Send {
    /// Takes one event's data (its JSON), passing text pieces to `on_delta`.
    fn event(
        &mut self,
        data: &str,
        on_delta: &mut (dyn FnMut(Delta<'_>) + Send),
    ) -> Result<(), ProviderError>;

    /// The reply, once the body has ended.
    fn finish(self: Box<Self>) -> Result<Reply, ProviderError>;
}

/// Reads a streamed body piece by piece into an [`Assembler`].
#[derive(Debug)]
pub struct EventReader {
    parser: SseParser,
    events: Vec<Event>,
    api: String,
}

impl EventReader {
    /// A reader of `api`'s events (named in errors).
    pub fn new(api: &str) -> EventReader {
        EventReader {
            parser: SseParser::new(EVENT_LIMIT),
            events: Vec::new(),
            api: api.to_owned(),
        }
    }

    /// Feeds a piece of the body; each complete event goes to `assembler`.
    pub fn feed(
        &mut self,
        bytes: &[u8],
        assembler: &mut dyn Assembler,
        on_delta: &mut (dyn FnMut(Delta<'_>) + Send),
    ) -> Result<(), ProviderError> {
        self.parser.feed(bytes, &mut self.events);
        for event in self.events.drain(..) {
            match event {
                Event::Data(data) => assembler.event(&data, on_delta)?,
                Event::TooLarge => {
                    return Err(ProviderError::TooLarge {
                        api: self.api.clone(),
                        reason: format!("sent an event larger than {EVENT_LIMIT} bytes"),
                    });
                }
            }
        }
        Ok(())
    }
}

/// `text` parsed as JSON within `limit` bytes of tree; errors name `api`.
pub(crate) fn parse_bounded(api: &str, text: &str, limit: usize) -> Result<Value, ProviderError> {
    JsonBudget::new(limit)
        .check(text.as_bytes())
        .map_err(|over| ProviderError::TooLarge {
            api: api.into(),
            reason: format!("sent an event refused unparsed: {over}"),
        })?;
    serde_json::from_str(text).map_err(|e| invalid(api, format!("an event is not JSON ({e})")))
}

/// The error of a stream that does not follow the API's documented form.
pub(crate) fn invalid(api: &str, reason: String) -> ProviderError {
    ProviderError::InvalidResponse {
        api: api.into(),
        reason,
    }
}
