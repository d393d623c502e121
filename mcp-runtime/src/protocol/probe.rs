//! What HTTP reads from a request's params before the session sees them:
//! `name`, the envelope's protocol version and capabilities, and the
//! arguments mirrored into `Mcp-Param-*` headers. Borrowed; the session
//! parses the params again, in full, as on stdio.

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::borrow::Cow;

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

impl<'a> ParamsProbe<'a> {
    /// The probe of a request's params (`None` when they are not an
    /// object; the session then says what is wrong, as on stdio).
    pub(crate) fn of(params: Option<&'a RawValue>) -> Option<ParamsProbe<'a>> {
        match params {
            None => Some(ParamsProbe::default()),
            Some(raw) => serde_json::from_str(raw.get()).ok(),
        }
    }

    /// `_meta`'s protocol version, when the envelope carries one.
    pub(crate) fn envelope_version(&self) -> Option<&str> {
        self.meta.as_ref()?.version.as_deref()
    }

    /// Whether the envelope has both required keys.
    pub(crate) fn envelope_complete(&self) -> bool {
        self.meta
            .as_ref()
            .is_some_and(|m| m.version.is_some() && m.capabilities.is_some())
    }

    /// `arguments` as an object, if it is one.
    pub(crate) fn arguments(&self) -> Option<Map<String, Value>> {
        serde_json::from_str(self.arguments?.get()).ok()
    }
}
