//! The one table behind `prompts/list`, `prompts/get` and the completion
//! of prompt arguments: prompts sorted by name, each page serialized once
//! per protocol revision.

use super::Prompt;
use crate::complete::Completer;
use crate::error::Error;
use crate::protocol::{ProtocolVersion, RpcError};
use crate::util::FastMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::{Arc, OnceLock};

/// One page of `prompts/list`: its `prompts` array as JSON text, shared by
/// every response, and the cursor of the next page.
#[derive(Debug)]
pub(crate) struct Page {
    pub(crate) prompts: Arc<str>,
    pub(crate) next_cursor: Option<String>,
}

/// A `prompts/list` cursor that is not one of this list's `nextCursor`
/// values: `-32602`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct UnknownCursor;

/// The server's prompts, immutable once serving starts.
#[derive(Debug, Default)]
pub(crate) struct Prompts {
    prompts: Vec<Prompt>,
    by_name: FastMap<String, usize>,
    pages: [OnceLock<Vec<Page>>; ProtocolVersion::ALL.len()],
    page_size: Option<usize>,
    /// Binds cursors to this list, so a stale or foreign cursor is refused.
    fingerprint: u64,
}

impl Prompts {
    /// Sorts by name, refuses duplicates.
    pub(crate) fn new(
        mut prompts: Vec<Prompt>,
        page_size: Option<usize>,
    ) -> Result<Prompts, Error> {
        prompts.sort_by(|a, b| a.def.name.cmp(&b.def.name));
        let mut by_name = FastMap::with_capacity_and_hasher(prompts.len(), Default::default());
        let mut hasher = DefaultHasher::new();
        for (index, prompt) in prompts.iter().enumerate() {
            if by_name.insert(prompt.def.name.clone(), index).is_some() {
                return Err(Error::DuplicatePromptName(prompt.def.name.clone()));
            }
            prompt.def.name.hash(&mut hasher);
        }
        Ok(Prompts {
            prompts,
            by_name,
            pages: Default::default(),
            page_size: page_size.filter(|&n| n > 0),
            fingerprint: hasher.finish(),
        })
    }

    /// Whether there are none (the server then announces no `prompts`).
    pub(crate) fn is_empty(&self) -> bool {
        self.prompts.is_empty()
    }

    /// Every prompt, sorted by name.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &Prompt> {
        self.prompts.iter()
    }

    /// The prompt called `name`.
    pub(crate) fn get(&self, name: &str) -> Option<&Prompt> {
        self.by_name.get(name).map(|&index| &self.prompts[index])
    }

    /// The completer of `argument` of the prompt `name`: `None` when it
    /// has none (an empty completion), `-32602` when no prompt is `name`.
    pub(crate) fn completer(
        &self,
        name: &str,
        argument: &str,
    ) -> Result<Option<Completer>, RpcError> {
        let Some(prompt) = self.get(name) else {
            return Err(RpcError::invalid_params(format!(
                "Invalid params: no prompt is named '{name}' (see prompts/list)"
            )));
        };
        Ok(prompt.def.completers.get(argument).cloned())
    }

    /// One page of `prompts/list` for a session of `version`.
    pub(crate) fn page(
        &self,
        version: ProtocolVersion,
        cursor: Option<&str>,
    ) -> Result<&Page, UnknownCursor> {
        let index = match (cursor, self.page_size) {
            (None, _) => 0,
            (Some(_), None) => return Err(UnknownCursor),
            (Some(cursor), Some(_)) => self.decode_cursor(cursor).ok_or(UnknownCursor)?,
        };
        let pages = self.pages[version.index()].get_or_init(|| {
            let size = self.page_size.unwrap_or(self.prompts.len().max(1));
            let chunks: Vec<&[Prompt]> = if self.prompts.is_empty() {
                vec![&[]]
            } else {
                self.prompts.chunks(size).collect()
            };
            let count = chunks.len();
            chunks
                .into_iter()
                .enumerate()
                .map(|(i, chunk)| {
                    let listed: Vec<_> = chunk.iter().map(|p| p.listed(version)).collect();
                    Page {
                        // Plain strings and lists of them: this cannot fail.
                        prompts: Arc::from(serde_json::to_string(&listed).unwrap_or_default()),
                        next_cursor: (i + 1 < count).then(|| self.encode_cursor(i + 1)),
                    }
                })
                .collect()
        });
        pages.get(index).ok_or(UnknownCursor)
    }

    fn encode_cursor(&self, page: usize) -> String {
        format!("{:016x}{page:x}", self.fingerprint)
    }

    fn decode_cursor(&self, cursor: &str) -> Option<usize> {
        let (fingerprint, page) = cursor.split_at_checked(16)?;
        if u64::from_str_radix(fingerprint, 16).ok()? != self.fingerprint || page.is_empty() {
            return None;
        }
        usize::from_str_radix(page, 16).ok()
    }
}
