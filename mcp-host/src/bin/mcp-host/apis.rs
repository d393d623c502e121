//! The model APIs the program speaks, one row each: `--provider` is read
//! against this table, the usage text is written from it, and the chosen
//! row makes the provider. Adding an API is its module in
//! `mcpfn_host::provider` and one row here.

use mcpfn_host::provider::{ApiClient, Provider, ProviderError, anthropic, openai};
use std::fmt;
use std::sync::Arc;

/// One model API.
pub(crate) struct Api {
    /// The `--provider` value.
    pub(crate) name: &'static str,
    /// The model used when `--model` names none.
    pub(crate) default_model: &'static str,
    /// The variable the key is read from.
    pub(crate) key_variable: &'static str,
    /// The variable the endpoint is read from.
    pub(crate) base_url_variable: &'static str,
    /// The provider, set up from the environment, sending through `http`,
    /// with prompt caching where the API lets it be turned off when the
    /// flag says so (`--no-cache`).
    pub(crate) connect: fn(ApiClient, bool) -> Result<Arc<dyn Provider>, ProviderError>,
}

/// Every API, the default first.
pub(crate) const APIS: &[Api] = &[
    Api {
        name: "anthropic",
        default_model: anthropic::DEFAULT_MODEL,
        key_variable: anthropic::KEY_VARIABLE,
        base_url_variable: anthropic::BASE_URL_VARIABLE,
        connect: |http, cache| {
            Ok(Arc::new(
                anthropic::Anthropic::from_env()?
                    .with_client(http)
                    .caching(cache),
            ))
        },
    },
    Api {
        name: "openai",
        default_model: openai::DEFAULT_MODEL,
        key_variable: openai::KEY_VARIABLE,
        base_url_variable: openai::BASE_URL_VARIABLE,
        // The API caches long prompts on its own; nothing to turn off.
        connect: |http, _| Ok(Arc::new(openai::OpenAi::from_env()?.with_client(http))),
    },
];

/// The API called `name`.
pub(crate) fn named(name: &str) -> Option<&'static Api> {
    APIS.iter().find(|api| api.name == name)
}

/// The API used when `--provider` names none.
pub(crate) fn default_api() -> &'static Api {
    &APIS[0]
}

/// Two rows are the same API when their names are.
impl PartialEq for Api {
    fn eq(&self, other: &Api) -> bool {
        self.name == other.name
    }
}

impl fmt::Debug for Api {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Api").field(&self.name).finish()
    }
}
