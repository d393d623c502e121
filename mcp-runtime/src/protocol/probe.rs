//! What HTTP reads from a request body before the session sees it: the
//! method, `params.name`, the envelope's protocol version and capabilities,
//! and the arguments mirrored into `Mcp-Param-*` headers. Borrowed; the
//! session parses the body again, in full, as on stdio.

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::borrow::Cow;

/// A request body's routing facts.
#[derive(Deserialize, Debug)]
pub(crate) struct RequestProbe<'a> {
    #[serde(default, borrow)]
    pub(crate) id: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub(crate) method: Option<Cow<'a, str>>,
    #[serde(default)]
    pub(crate) params: Option<ParamsProbe<'a>>,
}

/// The routing facts of `params`.
#[derive(Deserialize, Debug, Default)]
pub(crate) struct ParamsProbe<'a> {
    #[serde(default, borrow)]
    pub(crate) name: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub(crate) arguments: Option<&'a RawValue>,
    #[serde(rename = "_meta", default)]
    pub(crate) meta: Option<MetaProbe<'a>>,
}

/// The envelope keys of `params._meta` that HTTP checks.
#[derive(Deserialize, Debug, Default)]
pub(crate) struct MetaProbe<'a> {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", default, borrow)]
    pub(crate) version: Option<Cow<'a, str>>,
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities", default)]
    pub(crate) capabilities: Option<IgnoredAny>,
}

impl<'a> RequestProbe<'a> {
    /// The probe of a body that parsed as a JSON-RPC request; `None` when
    /// the shape is off (the session then answers as on stdio).
    pub(crate) fn of(body: &'a [u8]) -> Option<RequestProbe<'a>> {
        serde_json::from_slice(body).ok()
    }

    /// `params._meta`'s protocol version, when the envelope carries one.
    pub(crate) fn envelope_version(&self) -> Option<&str> {
        self.params.as_ref()?.meta.as_ref()?.version.as_deref()
    }

    /// Whether the envelope has both required keys.
    pub(crate) fn envelope_complete(&self) -> bool {
        self.params
            .as_ref()
            .and_then(|p| p.meta.as_ref())
            .is_some_and(|m| m.version.is_some() && m.capabilities.is_some())
    }

    /// `params.arguments` as an object, if it is one.
    pub(crate) fn arguments(&self) -> Option<Map<String, Value>> {
        let raw = self.params.as_ref()?.arguments?;
        serde_json::from_str(raw.get()).ok()
    }
}
