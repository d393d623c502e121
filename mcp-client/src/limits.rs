//! Caps on what one server's listing (`tools/list`, and the same way
//! `resources/list`, `resources/templates/list`, `prompts/list`,
//! `skills/list`) may make the client build: items, bytes of text, pages,
//! and the memory of the parsed definitions. Each is checked on a page's
//! text before its items are parsed, so a server that hands out cursors
//! forever or a hundred thousand items in one page costs the client a
//! bounded amount. Past the cap on items, the first in list order are kept
//! and the rest skipped unparsed, with one warning naming how many; past
//! any other cap the listing fails with a line naming it.

use crate::text::grouped;
use mcpfn_protocol::json_budget::JsonBudget;
use serde::de::{self, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use std::collections::HashSet;
use std::fmt;

/// The default cap on one server's tools. Model APIs take about 128 tools
/// per request (OpenAI's documented limit; Claude Code, Cursor and VS Code
/// stay around it), and the largest public servers list under 200; 1,000
/// lets any real server through with room to spare while bounding what a
/// hostile one costs.
pub const DEFAULT_MAX_TOOLS: usize = 1_000;

/// The default cap on the text of one listing, all pages together (8 MiB:
/// real servers list a few hundred KiB at most).
pub const DEFAULT_MAX_LISTING_BYTES: usize = 8 << 20;

/// The default cap on the pages of one listing (1,000 tools at 10 a page).
pub const DEFAULT_MAX_PAGES: usize = 100;

/// The default cap on the estimated memory of one listing's parsed tool
/// definitions (see [`JsonBudget`]): 32 MiB, about 1,000 tools of 30
/// properties each. The host holds more than one copy of what a listing
/// builds (the client's cache, the catalog, the model API's `tools`), so
/// this is a third to a half of what the listing can cost it.
pub const DEFAULT_MAX_LISTING_TREE_BYTES: usize = 32 << 20;

/// The caps on one server's `tools/list` (and, the same numbers, on each of
/// its other listings: resources, resource templates, prompts, skills;
/// [`max_tools`](Self::max_tools) then caps their items). Past [`max_tools`](Self::max_tools)
/// the first tools are kept (one warning says how many were left out);
/// a listing that passes another cap fails with
/// [`McpError::Limit`](crate::McpError::Limit) naming it, and a host that
/// builds a catalog of many servers (as mcp-host does) leaves that server
/// out.
///
/// ```
/// use mcpfn_client::{ClientOptions, ListLimits};
///
/// let options = ClientOptions {
///     list_limits: ListLimits {
///         max_tools: 5_000,
///         ..ListLimits::default()
///     },
///     ..ClientOptions::default()
/// };
/// assert_eq!(options.list_limits.max_pages, 100);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListLimits {
    /// The most tools kept of one server's listing (the first, in list
    /// order; the pages after the cap is reached are not asked for).
    /// Default [`DEFAULT_MAX_TOOLS`].
    pub max_tools: usize,
    /// The most bytes of `tools/list` results, all pages together. Default
    /// [`DEFAULT_MAX_LISTING_BYTES`].
    pub max_bytes: usize,
    /// The most pages followed. Default [`DEFAULT_MAX_PAGES`].
    pub max_pages: usize,
    /// The most memory the parsed definitions may take, as estimated on
    /// their text before parsing. Default [`DEFAULT_MAX_LISTING_TREE_BYTES`].
    pub max_tree_bytes: usize,
}

impl Default for ListLimits {
    fn default() -> Self {
        ListLimits {
            max_tools: DEFAULT_MAX_TOOLS,
            max_bytes: DEFAULT_MAX_LISTING_BYTES,
            max_pages: DEFAULT_MAX_PAGES,
            max_tree_bytes: DEFAULT_MAX_LISTING_TREE_BYTES,
        }
    }
}

/// What a listing lists: the member of each page holding its items, and
/// the words its errors use.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Kind {
    /// The page's member holding the items (`tools`).
    pub(crate) key: &'static str,
    /// The method (`tools/list`).
    pub(crate) method: &'static str,
    /// One item, in a sentence (`tool`).
    pub(crate) one: &'static str,
    /// Many items, in a sentence (`tools`).
    pub(crate) many: &'static str,
}

/// Why a listing stopped: a cap passed (the server is left out), or a page
/// that is not a result of its method.
pub(crate) enum Refused {
    Cap(String),
    Malformed(String),
}

/// One listing's totals so far, against its caps.
pub(crate) struct Listing {
    kind: Kind,
    limits: ListLimits,
    pages: usize,
    bytes: usize,
    tree_bytes: usize,
    tools: usize,
    /// Tools past the cap, skipped unparsed.
    left_out: usize,
    cursors: HashSet<String>,
}

/// At most this much of a cursor goes into an error line.
const CURSOR_SHOWN: usize = 64;

impl Listing {
    pub(crate) fn new(kind: Kind, limits: ListLimits) -> Listing {
        Listing {
            kind,
            limits,
            pages: 0,
            bytes: 0,
            tree_bytes: 0,
            tools: 0,
            left_out: 0,
            cursors: HashSet::new(),
        }
    }

    /// Whether the listing holds as many tools as the cap lets it: the
    /// pages after this one are not asked for.
    pub(crate) fn full(&self) -> bool {
        self.tools >= self.limits.max_tools
    }

    /// The cut, once the server listed more tools than the cap: a warning
    /// line naming how many were left out (`more_pages`: the listing had
    /// pages left, not fetched, whose tools are not counted).
    pub(crate) fn cut(&self, more_pages: bool) -> Option<String> {
        if self.left_out == 0 && !(more_pages && self.full()) {
            return None;
        }
        let later = if more_pages {
            " and any on the pages not fetched"
        } else {
            ""
        };
        let many = self.kind.many;
        Some(format!(
            "it lists more {many} than the cap on {many} per server ({}): the first {} are kept, {} left out{later}",
            grouped(self.limits.max_tools),
            grouped(self.tools),
            grouped(self.left_out),
        ))
    }

    /// Before another page is asked for.
    pub(crate) fn next_page(&mut self) -> Result<(), Refused> {
        if self.pages == self.limits.max_pages {
            return Err(Refused::Cap(format!(
                "its {} list passed {} pages (the cap on pages per listing)",
                self.kind.one,
                grouped(self.limits.max_pages)
            )));
        }
        self.pages += 1;
        Ok(())
    }

    /// A page's tool definitions, each still text, once its size, its
    /// count and the memory its tree would take are within the caps.
    pub(crate) fn admit<'a>(&mut self, text: &'a str) -> Result<Admitted<'a>, Refused> {
        self.bytes = self.bytes.saturating_add(text.len());
        if self.bytes > self.limits.max_bytes {
            return Err(Refused::Cap(format!(
                "its {} list passed {} (the cap on bytes per listing)",
                self.kind.one,
                bytes(self.limits.max_bytes)
            )));
        }
        let page = PageVisitor {
            key: self.kind.key,
            capped: Capped {
                room: self.limits.max_tools.saturating_sub(self.tools),
            },
        };
        let mut reader = serde_json::Deserializer::from_str(text);
        let page = de::Deserializer::deserialize_map(&mut reader, page).map_err(|e| {
            Refused::Malformed(format!(
                "its {} result does not parse: {e}",
                self.kind.method
            ))
        })?;
        self.tools += page.items.len();
        self.left_out += page.left_out;
        // The memory of what is kept: the tools past the cap are skipped
        // unparsed.
        for tool in &page.items {
            let budget = JsonBudget::new(self.limits.max_tree_bytes - self.tree_bytes);
            let shape = budget.check(tool.get().as_bytes()).map_err(|e| match e {
                mcpfn_protocol::json_budget::OverBudget::TooLarge { .. } => Refused::Cap(format!(
                    "its {} list would take more than {} of memory once parsed (the cap on the memory of a listing)",
                    self.kind.one,
                    bytes(self.limits.max_tree_bytes)
                )),
                other => Refused::Malformed(format!("its {} result: {other}", self.kind.method)),
            })?;
            self.tree_bytes += shape.tree_bytes;
        }
        if let Some(cursor) = &page.next_cursor
            && !self.cursors.insert(cursor.clone())
        {
            let shown: String = cursor.chars().take(CURSOR_SHOWN).collect();
            return Err(Refused::Malformed(format!(
                "its {} handed out cursor {shown:?} twice (the listing would loop)",
                self.kind.method
            )));
        }
        Ok(page)
    }
}

/// A byte count as people read it: `8 MiB` when it is whole MiB.
fn bytes(n: usize) -> String {
    if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{} MiB", grouped(n >> 20))
    } else {
        format!("{} bytes", grouped(n))
    }
}

/// A page let through: its items (still text), and where the next starts.
pub(crate) struct Admitted<'a> {
    pub(crate) items: Vec<&'a RawValue>,
    /// The page's tools past the cap, skipped.
    pub(crate) left_out: usize,
    pub(crate) next_cursor: Option<String>,
    pub(crate) ttl_ms: Option<u64>,
}

/// Reads a listing's page in one pass: its items (`key`) through
/// [`Capped`], `nextCursor` and `ttlMs`; other members skipped.
struct PageVisitor {
    key: &'static str,
    capped: Capped,
}

impl<'de> Visitor<'de> for PageVisitor {
    type Value = Admitted<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a result with `{}`", self.key)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut items = None;
        let mut next_cursor = None;
        let mut ttl_ms = None;
        let mut capped = Some(self.capped);
        while let Some(member) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match &*member {
                key if key == self.key => match capped.take() {
                    Some(capped) => items = Some(map.next_value_seed(capped)?),
                    None => return Err(de::Error::duplicate_field(self.key)),
                },
                "nextCursor" => next_cursor = map.next_value::<Option<String>>()?,
                "ttlMs" => ttl_ms = map.next_value::<Option<u64>>()?,
                _ => {
                    map.next_value::<de::IgnoredAny>()?;
                }
            }
        }
        let (items, left_out) = items.ok_or_else(|| de::Error::missing_field(self.key))?;
        Ok(Admitted {
            items,
            left_out,
            next_cursor,
            ttl_ms,
        })
    }
}

impl<'de> de::DeserializeSeed<'de> for Capped {
    type Value = (Vec<&'de RawValue>, usize);

    fn deserialize<D: de::Deserializer<'de>>(self, reader: D) -> Result<Self::Value, D::Error> {
        reader.deserialize_seq(self)
    }
}

/// Reads a JSON array as text: its first `room` values kept, the rest
/// skipped unparsed and counted.
struct Capped {
    room: usize,
}

impl<'de> Visitor<'de> for Capped {
    type Value = (Vec<&'de RawValue>, usize);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of definitions")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut tools = Vec::new();
        while tools.len() < self.room {
            match seq.next_element::<&'de RawValue>()? {
                Some(tool) => tools.push(tool),
                None => return Ok((tools, 0)),
            }
        }
        let mut skipped = 0;
        while seq.next_element::<de::IgnoredAny>()?.is_some() {
            skipped += 1;
        }
        Ok((tools, skipped))
    }
}

/// Counts the values of a JSON array without building them (each skipped
/// unparsed): for a `deserialize_with` on a member a client only needs
/// the length of before it parses the rest.
pub(crate) fn count<'de, D: de::Deserializer<'de>>(reader: D) -> Result<usize, D::Error> {
    de::DeserializeSeed::deserialize(Capped { room: 0 }, reader).map(|(_, skipped)| skipped)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOOLS: Kind = Kind {
        key: "tools",
        method: mcpfn_protocol::model::method::TOOLS_LIST,
        one: "tool",
        many: "tools",
    };

    fn limits(max_tools: usize) -> ListLimits {
        ListLimits {
            max_tools,
            ..ListLimits::default()
        }
    }

    fn page(tools: usize, cursor: Option<&str>) -> String {
        let tools: Vec<String> = (0..tools)
            .map(|i| format!(r#"{{"name":"t{i}","inputSchema":{{}}}}"#))
            .collect();
        match cursor {
            Some(c) => format!(r#"{{"tools":[{}],"nextCursor":"{c}"}}"#, tools.join(",")),
            None => format!(r#"{{"tools":[{}]}}"#, tools.join(",")),
        }
    }

    fn cap(result: Result<Admitted<'_>, Refused>) -> String {
        match result {
            Err(Refused::Cap(why)) => why,
            Err(Refused::Malformed(why)) => panic!("malformed, not a cap: {why}"),
            Ok(_) => panic!("admitted"),
        }
    }

    #[test]
    fn tools_past_the_cap_are_left_out_and_counted_across_pages() {
        let mut listing = Listing::new(TOOLS, limits(5));
        let first = page(3, Some("a"));
        assert_eq!(listing.admit(&first).ok().unwrap().items.len(), 3);
        assert!(!listing.full() && listing.cut(true).is_none());
        let second = page(4, Some("b"));
        let admitted = listing.admit(&second).ok().unwrap();
        assert_eq!(admitted.items.len(), 2);
        assert_eq!(admitted.items[1].get(), r#"{"name":"t1","inputSchema":{}}"#);
        assert!(listing.full());
        assert_eq!(
            listing.cut(true).unwrap(),
            "it lists more tools than the cap on tools per server (5): the first 5 are kept, 2 left out and any on the pages not fetched"
        );
        assert!(listing.cut(false).unwrap().ends_with(", 2 left out"));
        assert_eq!(bytes(8 << 20), "8 MiB");
        assert_eq!(bytes(1_500), "1,500 bytes");
    }

    #[test]
    fn bytes_pages_memory_and_loops_are_bounded() {
        let text = page(10, Some("a"));
        let mut listing = Listing::new(
            TOOLS,
            ListLimits {
                max_bytes: text.len() * 2,
                ..ListLimits::default()
            },
        );
        assert!(listing.admit(&text).is_ok());
        assert!(matches!(listing.admit(&text), Err(Refused::Malformed(_))));
        assert!(cap(listing.admit(&page(10, Some("c")))).contains("bytes"));

        let mut listing = Listing::new(
            TOOLS,
            ListLimits {
                max_pages: 2,
                ..ListLimits::default()
            },
        );
        assert!(listing.next_page().is_ok() && listing.next_page().is_ok());
        assert!(matches!(listing.next_page(), Err(Refused::Cap(why)) if why.contains("2 pages")));

        let mut listing = Listing::new(
            TOOLS,
            ListLimits {
                max_tree_bytes: 10_000,
                ..ListLimits::default()
            },
        );
        assert!(cap(listing.admit(&page(50, None))).contains("memory"));
    }
}
