//! Every page of a listing (`tools/list`, `resources/list`,
//! `resources/templates/list`, `prompts/list`, `skills/list`), one way:
//! each `nextCursor` followed within the [`ListLimits`](crate::ListLimits)
//! (items, bytes, pages and parsed memory, each checked on a page's text
//! before its items are parsed; a cursor handed out twice ends it), the
//! smallest `ttlMs` of its pages kept.

use super::{Era, McpClient, raw_params};
use crate::limits::{self, Kind};
use crate::{Dispatcher, McpError};
use mcpfn_protocol::meta::Envelope;
use mcpfn_protocol::model::method::{
    ListPrompts, ListResourceTemplates, ListResources, ListSkills, ListTools, Request,
};
use mcpfn_protocol::model::{
    ListPromptsParams, ListResourcesParams, ListSkillsParams, ListToolsParams, Prompt, Resource,
    ResourceTemplate, ServerCapabilities, Skill, Tool,
};
use serde::de::DeserializeOwned;
use std::time::Duration;

/// A listing method: what its pages hold and how a page is asked for.
pub(super) trait Paged: Request {
    /// Its items and the words its errors use.
    const KIND: Kind;
    /// One item of a page.
    type Item: DeserializeOwned;
    /// The params asking for the page after `cursor` (`meta`: the
    /// 2026-07-28 envelope, `None` in a legacy session).
    fn params(cursor: Option<String>, meta: Option<Envelope<'static>>) -> Self::Params;
}

impl Paged for ListTools {
    const KIND: Kind = Kind {
        key: "tools",
        method: Self::METHOD,
        one: "tool",
        many: "tools",
    };
    type Item = Tool;
    fn params(cursor: Option<String>, meta: Option<Envelope<'static>>) -> Self::Params {
        ListToolsParams { cursor, meta }
    }
}

impl Paged for ListResources {
    const KIND: Kind = Kind {
        key: "resources",
        method: Self::METHOD,
        one: "resource",
        many: "resources",
    };
    type Item = Resource;
    fn params(cursor: Option<String>, meta: Option<Envelope<'static>>) -> Self::Params {
        ListResourcesParams { cursor, meta }
    }
}

impl Paged for ListResourceTemplates {
    const KIND: Kind = Kind {
        key: "resourceTemplates",
        method: Self::METHOD,
        one: "resource template",
        many: "resource templates",
    };
    type Item = ResourceTemplate;
    fn params(cursor: Option<String>, meta: Option<Envelope<'static>>) -> Self::Params {
        ListResourcesParams { cursor, meta }
    }
}

impl Paged for ListPrompts {
    const KIND: Kind = Kind {
        key: "prompts",
        method: Self::METHOD,
        one: "prompt",
        many: "prompts",
    };
    type Item = Prompt;
    fn params(cursor: Option<String>, meta: Option<Envelope<'static>>) -> Self::Params {
        ListPromptsParams { cursor, meta }
    }
}

impl Paged for ListSkills {
    const KIND: Kind = Kind {
        key: "skills",
        method: Self::METHOD,
        one: "skill",
        many: "skills",
    };
    type Item = Skill;
    fn params(cursor: Option<String>, meta: Option<Envelope<'static>>) -> Self::Params {
        ListSkillsParams {
            cursor,
            meta: meta.and_then(|m| serde_json::to_value(m).ok()),
        }
    }
}

impl McpClient {
    /// Every item of listing `M`, or none when the server did not declare
    /// the capability (`declared` of its capabilities says): asking it
    /// would only earn a -32601. On 2026-07-28 the stream of list changes
    /// is opened first, so a change after the listing is told.
    pub(super) async fn listed<M: Paged>(
        &self,
        declared: fn(&ServerCapabilities) -> bool,
    ) -> Result<Vec<M::Item>, McpError> {
        let (dispatcher, era, number) = self.session().await?;
        if !declared(
            &self
                .inner
                .handler
                .server_capabilities
                .lock()
                .unwrap_or_else(|e| e.into_inner()),
        ) {
            return Ok(Vec::new());
        }
        if era == Era::Modern {
            self.ensure_listening(&dispatcher, number).await;
        }
        Ok(self.fetch_all::<M>(&dispatcher, era).await?.0)
    }

    /// Every page of listing `M`, within the [`ListLimits`](crate::ListLimits),
    /// and the smallest `ttlMs` its pages gave.
    pub(super) async fn fetch_all<M: Paged>(
        &self,
        dispatcher: &Dispatcher,
        era: Era,
    ) -> Result<(Vec<M::Item>, Option<Duration>), McpError> {
        let server = &self.inner.config.name;
        let refused = |why: limits::Refused| match why {
            limits::Refused::Cap(reason) => McpError::Limit {
                server: server.clone(),
                reason,
            },
            limits::Refused::Malformed(reason) => McpError::Protocol {
                server: server.clone(),
                reason,
            },
        };
        let mut listing = limits::Listing::new(M::KIND, self.inner.options.list_limits);
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        let mut ttl: Option<Duration> = None;
        loop {
            listing.next_page().map_err(refused)?;
            let meta = (era == Era::Modern).then(|| self.inner.envelope.clone());
            let params = M::params(cursor.take(), meta);
            // The page stays text until the caps let it through.
            let text = dispatcher
                .request(
                    M::METHOD,
                    Some(&raw_params(&params)),
                    self.request_options(
                        era,
                        M::METHOD,
                        None,
                        self.inner.options.handshake_timeout,
                    ),
                )
                .await?;
            let page = listing.admit(text.get()).map_err(refused)?;
            if let Some(ms) = page.ttl_ms {
                let page_ttl = Duration::from_millis(ms);
                ttl = Some(ttl.map_or(page_ttl, |t| t.min(page_ttl)));
            }
            items.reserve(page.items.len());
            for item in page.items {
                let item = serde_json::from_str(item.get()).map_err(|e| McpError::Protocol {
                    server: server.clone(),
                    reason: format!("its {} result does not parse: {e}", M::METHOD),
                })?;
                items.push(item);
            }
            let more = page.next_cursor.is_some();
            if listing.full() || !more {
                if let Some(cut) = listing.cut(more) {
                    tracing::warn!(server = %server, "server `{server}`: {cut}");
                }
                return Ok((items, ttl));
            }
            cursor = page.next_cursor;
        }
    }
}
