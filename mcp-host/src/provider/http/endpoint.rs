//! Where a provider's requests go and what they always carry
//! ([`ApiEndpoint`]), and the base URL and key read from the environment
//! ([`from_env`]).

use crate::provider::ProviderError;
use hyper::Uri;
use hyper::header::{HeaderMap, HeaderName, HeaderValue};
use std::fmt;

/// The base URL and key of an API the way the official SDKs read them:
/// `base_variable` (else `default_base`) and `key_variable` (`None`, with a
/// warning, when unset: the first request then gets the API's 401).
pub fn from_env(
    base_variable: &str,
    default_base: &str,
    key_variable: &str,
) -> (String, Option<String>) {
    let base = std::env::var(base_variable)
        .ok()
        .filter(|b| !b.is_empty())
        .unwrap_or_else(|| default_base.to_owned());
    let key = std::env::var(key_variable).ok().filter(|k| !k.is_empty());
    if key.is_none() {
        tracing::warn!("{key_variable} is not set: requests go without a key");
    }
    (base, key)
}

/// Where a provider's requests go and what they always carry.
#[derive(Clone)]
pub struct ApiEndpoint {
    pub(super) uri: Uri,
    pub(super) headers: HeaderMap,
    pub(super) key_variable: String,
    pub(super) api: String,
}

impl fmt::Debug for ApiEndpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The headers carry the key: their names only.
        f.debug_struct("ApiEndpoint")
            .field("uri", &self.uri)
            .field("headers", &self.headers.keys().collect::<Vec<_>>())
            .field("key_variable", &self.key_variable)
            .field("api", &self.api)
            .finish()
    }
}

impl ApiEndpoint {
    /// `POST url`, whose key comes from the environment variable
    /// `key_variable` (named in errors).
    pub fn new(url: &str, key_variable: &str) -> Result<ApiEndpoint, ProviderError> {
        let uri: Uri = url.parse().map_err(|e| ProviderError::Config {
            reason: format!("`{url}` is not a URL: {e}"),
        })?;
        match uri.scheme_str() {
            Some("http") => {}
            Some("https") if cfg!(feature = "https") => {}
            _ => {
                return Err(ProviderError::Config {
                    reason: format!(
                        "`{url}` is not an http:// or https:// URL this build can reach"
                    ),
                });
            }
        }
        Ok(ApiEndpoint {
            uri,
            headers: HeaderMap::new(),
            key_variable: key_variable.to_owned(),
            api: "the model API".to_owned(),
        })
    }

    /// Names the API in errors (`"the Anthropic API"`; default
    /// `"the model API"`).
    pub fn named(mut self, api: &str) -> ApiEndpoint {
        self.api = api.to_owned();
        self
    }

    /// The API's name in errors.
    pub fn api(&self) -> &str {
        &self.api
    }

    /// Adds a header sent on every request; `secret` keeps it out of logs.
    pub fn header(
        mut self,
        name: &'static str,
        value: &str,
        secret: bool,
    ) -> Result<ApiEndpoint, ProviderError> {
        let mut value = HeaderValue::from_str(value).map_err(|_| ProviderError::Config {
            reason: format!(
                "the value of header `{name}` is not valid in HTTP (check {})",
                self.key_variable
            ),
        })?;
        value.set_sensitive(secret);
        self.headers.insert(HeaderName::from_static(name), value);
        Ok(self)
    }

    /// The variable the key is read from.
    pub fn key_variable(&self) -> &str {
        &self.key_variable
    }
}
