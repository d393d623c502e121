//! The one table behind both `tools/list` and `tools/call`: tools sorted by
//! name, each definition serialized once per protocol revision.

use crate::error::{Error, check_scope, check_tool_name};
use crate::protocol::ProtocolVersion;
use crate::protocol::model::{ToolUi, UI_META_KEY, check_ui_uri};
use crate::protocol::tool_def::definitions_array;
use crate::tool::Tool;
use crate::util::FastMap;
use serde_json::value::RawValue;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::{Arc, OnceLock};

/// One page of `tools/list`: its `tools` array as JSON text, shared by
/// every response, and the cursor of the next page.
#[derive(Debug)]
pub(crate) struct Page {
    pub(crate) tools: Arc<str>,
    /// Shared, so a reply holds it without a copy.
    pub(crate) next_cursor: Option<Arc<str>>,
}

/// Registered tools, immutable once serving starts.
#[derive(Debug)]
pub(crate) struct Registry {
    tools: Vec<Arc<Tool>>,
    by_name: FastMap<Arc<str>, usize>,
    /// Per revision: each tool's definition as JSON text, built on first use.
    definitions: [OnceLock<Vec<Box<RawValue>>>; ProtocolVersion::ALL.len()],
    /// Per revision: the pages, built on first use.
    pages: [OnceLock<Vec<Page>>; ProtocolVersion::ALL.len()],
    page_size: Option<usize>,
    /// Binds cursors to this tool set, so a stale or foreign cursor is refused.
    fingerprint: u64,
}

/// A `tools/list` cursor that is not one of this registry's `nextCursor`
/// values (or any cursor, when the list is not paged): `-32602`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct UnknownCursor;

impl Registry {
    /// Checks names, sorts by name, refuses duplicates.
    pub(crate) fn new(tools: Vec<Tool>, page_size: Option<usize>) -> Result<Registry, Error> {
        let mut tools: Vec<Arc<Tool>> = tools.into_iter().map(Arc::new).collect();
        tools.sort_by(|a, b| a.name.cmp(&b.name));
        let mut by_name = FastMap::with_capacity_and_hasher(tools.len(), Default::default());
        let mut hasher = DefaultHasher::new();
        for (index, tool) in tools.iter().enumerate() {
            check_tool(tool)?;
            if by_name
                .insert(Arc::from(tool.name.as_str()), index)
                .is_some()
            {
                return Err(Error::DuplicateToolName(tool.name.clone()));
            }
            tool.name.hash(&mut hasher);
        }
        Ok(Registry {
            tools,
            by_name,
            definitions: Default::default(),
            pages: Default::default(),
            page_size: page_size.filter(|&n| n > 0),
            fingerprint: hasher.finish(),
        })
    }

    /// What [`Registry::new`] refuses, in the same order, checked without
    /// building the table: run before serving, so it must stay cheap with
    /// thousands of tools.
    pub(crate) fn check(tools: &[Tool]) -> Result<(), Error> {
        let mut sorted: Vec<&Tool> = tools.iter().collect();
        sorted.sort_by(|a, b| a.name.cmp(&b.name));
        let mut previous: Option<&str> = None;
        for tool in sorted {
            check_tool(tool)?;
            if previous == Some(tool.name.as_str()) {
                return Err(Error::DuplicateToolName(tool.name.clone()));
            }
            previous = Some(&tool.name);
        }
        Ok(())
    }

    /// Every tool, sorted by name.
    pub(crate) fn tools(&self) -> impl Iterator<Item = &Tool> {
        self.tools.iter().map(|tool| &**tool)
    }

    /// The tool called `name`, with its name as a shared string.
    /// Whether any tool may run as a task (the server then advertises the
    /// Tasks extension).
    pub(crate) fn has_task_tools(&self) -> bool {
        crate::task::ENABLED
            && self
                .tools()
                .any(|tool| tool.def.task != super::TaskSupport::Never)
    }

    /// Whether any tool names an MCP App in its `_meta.ui` (the server then
    /// declares the extension `io.modelcontextprotocol/ui`).
    pub(crate) fn has_app_tools(&self) -> bool {
        self.tools()
            .any(|tool| tool.def.meta.contains_key(UI_META_KEY))
    }

    pub(crate) fn get(&self, name: &str) -> Option<(Arc<str>, &Arc<Tool>)> {
        let (key, &index) = self.by_name.get_key_value(name)?;
        Some((key.clone(), &self.tools[index]))
    }

    fn definitions(&self, version: ProtocolVersion) -> &[Box<RawValue>] {
        self.definitions[version.index()].get_or_init(|| {
            self.tools
                .iter()
                .map(|tool| tool.definition_json(version))
                .collect()
        })
    }

    /// The index of the page `cursor` names; `Err` when it is not one of ours.
    fn page_index(&self, cursor: Option<&str>) -> Result<usize, UnknownCursor> {
        match (cursor, self.page_size) {
            (None, _) => Ok(0),
            (Some(_), None) => Err(UnknownCursor),
            (Some(cursor), Some(_)) => self.decode_cursor(cursor).ok_or(UnknownCursor),
        }
    }

    /// One page of `tools/list`; `Err` when the cursor is not one of ours.
    pub(crate) fn page(
        &self,
        version: ProtocolVersion,
        cursor: Option<&str>,
    ) -> Result<&Page, UnknownCursor> {
        let index = self.page_index(cursor)?;
        let pages = self.pages[version.index()].get_or_init(|| {
            let defs = self.definitions(version);
            let size = self.page_size.unwrap_or(defs.len().max(1));
            let chunks: Vec<&[Box<RawValue>]> = if defs.is_empty() {
                vec![&[]]
            } else {
                defs.chunks(size).collect()
            };
            let count = chunks.len();
            chunks
                .into_iter()
                .enumerate()
                .map(|(i, chunk)| Page {
                    tools: Arc::from(definitions_array(chunk.iter().map(|def| &**def))),
                    next_cursor: (i + 1 < count).then(|| Arc::from(self.encode_cursor(i + 1))),
                })
                .collect()
        });
        pages.get(index).ok_or(UnknownCursor)
    }

    /// [`Registry::page`] without the tools `shown` refuses: the same pages
    /// and cursors (a page may come out shorter, or empty), built per call
    /// instead of cached, as they depend on who asks.
    pub(crate) fn page_filtered(
        &self,
        version: ProtocolVersion,
        cursor: Option<&str>,
        shown: impl Fn(&Tool) -> bool,
    ) -> Result<(Arc<str>, Option<Arc<str>>), UnknownCursor> {
        let page = self.page(version, cursor)?;
        let index = self.page_index(cursor)?;
        let size = self.page_size.unwrap_or(self.tools.len().max(1));
        let start = index * size;
        let end = (start + size).min(self.tools.len());
        let defs = &self.definitions(version)[start..end];
        let kept = self.tools[start..end]
            .iter()
            .zip(defs)
            .filter(|(tool, _)| shown(tool))
            .map(|(_, def)| &**def);
        let tools = definitions_array(kept);
        Ok((Arc::from(tools), page.next_cursor.clone()))
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

/// One tool's name, scopes and input schema, as registration requires.
fn check_tool(tool: &Tool) -> Result<(), Error> {
    check_tool_name(&tool.name)?;
    for scope in tool.scopes() {
        check_scope(scope).map_err(|reason| Error::InvalidToolScope {
            tool: tool.name.clone(),
            scope: scope.clone(),
            reason,
        })?;
    }
    check_ui(tool)?;
    if tool
        .given_input_schema()
        .is_some_and(|s| s.get("type").and_then(|t| t.as_str()) != Some("object"))
    {
        return Err(Error::InvalidInputSchema(tool.name.clone()));
    }
    Ok(())
}

/// A tool's `_meta.ui`, if it has one (set by `ToolBuilder::ui` or by
/// hand with `meta("ui", …)`): the extension's shape, a `ui://`
/// `resourceUri`, a visibility that names someone.
fn check_ui(tool: &Tool) -> Result<(), Error> {
    let invalid = |reason: String| Error::InvalidToolUi {
        tool: tool.name.clone(),
        reason,
    };
    let parsed = ToolUi::of_tool_meta(&tool.def.meta).map_err(|err| {
        invalid(format!(
            "is not the extension's shape ({{\"resourceUri\": \"ui://…\", \"visibility\": [\"model\", \"app\"]}}): {err}"
        ))
    })?;
    let Some(ui) = parsed else {
        return Ok(());
    };
    if let Some(uri) = &ui.resource_uri {
        check_ui_uri(uri).map_err(|reason| invalid(format!("has a bad resourceUri: {reason}")))?;
    }
    if ui.visibility.as_ref().is_some_and(Vec::is_empty) {
        return Err(invalid(
            "has an empty visibility, which hides the tool from both the model and the app; name one or both, or leave it out (both)".to_owned(),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ToolBuilder, ToolOutcome};

    fn tool(name: &str) -> Tool {
        ToolBuilder::new(name, |_| Box::pin(async { ToolOutcome::text("") })).build()
    }

    #[test]
    fn duplicates_and_bad_names_are_refused() {
        let err = Registry::new(vec![tool("a"), tool("a")], None).unwrap_err();
        assert!(matches!(err, Error::DuplicateToolName(name) if name == "a"));
        let err = Registry::new(vec![tool("has space")], None).unwrap_err();
        assert!(matches!(err, Error::InvalidToolName { .. }));
    }

    #[test]
    fn an_app_link_is_checked_at_registration() {
        use crate::protocol::model::{ToolUi, Visibility};
        let with = |ui: serde_json::Value| {
            let tool = ToolBuilder::new("chart", |_| Box::pin(async { ToolOutcome::text("") }))
                .meta("ui", ui)
                .build();
            Registry::check(std::slice::from_ref(&tool)).map_err(|err| err.to_string())
        };
        let good = ToolBuilder::new("chart", |_| Box::pin(async { ToolOutcome::text("") }))
            .ui(ToolUi::resource("ui://charts/app.html").visibility([Visibility::App]))
            .build();
        let registry = Registry::new(vec![good], None).unwrap();
        assert!(registry.has_app_tools());
        assert!(
            !Registry::new(vec![tool("plain")], None)
                .unwrap()
                .has_app_tools()
        );
        assert_eq!(
            with(serde_json::json!({"resourceUri": "https://x/app.html"})).unwrap_err(),
            "the MCP Apps `_meta.ui` of tool `chart` has a bad resourceUri: `https://x/app.html` is not a `ui://` URI; an app resource's URI starts with `ui://`, e.g. `ui://server/app.html`"
        );
        assert_eq!(
            with(serde_json::json!({"visibility": []})).unwrap_err(),
            "the MCP Apps `_meta.ui` of tool `chart` has an empty visibility, which hides the tool from both the model and the app; name one or both, or leave it out (both)"
        );
        let shape = with(serde_json::json!({"visibility": "app"})).unwrap_err();
        assert!(
            shape.starts_with(
                "the MCP Apps `_meta.ui` of tool `chart` is not the extension's shape ("
            ),
            "{shape}"
        );
        assert_eq!(with(serde_json::json!({"visibility": ["model"]})), Ok(()));
    }

    #[test]
    fn a_hand_given_schema_is_listed_as_given_in_every_revision() {
        // The portable profile is for generated schemas; one given by hand
        // keeps `$schema`, `$anchor`, composition and conditionals.
        let schema = serde_json::json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {"a": {"$anchor": "aDef", "type": "object"}},
            "properties": {"a": {"$ref": "#/$defs/a"}, "n": {"type": "integer", "format": "int64"}},
            "allOf": [{"anyOf": [{"required": ["a"]}, {"required": ["n"]}]}],
            "if": {"required": ["a"]},
            "then": {"required": ["n"]},
            "else": {"required": []},
            "additionalProperties": false
        });
        let given = ToolBuilder::new("t", |_| Box::pin(async { ToolOutcome::text("") }))
            .input_schema(schema.clone())
            .build();
        let registry = Registry::new(vec![given], None).unwrap();
        for version in ProtocolVersion::ALL {
            let page = registry.page(version, None).unwrap();
            let tools: serde_json::Value = serde_json::from_str(&page.tools).unwrap();
            assert_eq!(tools[0]["inputSchema"], schema, "{version:?}");
            let tool = registry.get("t").unwrap().1;
            assert_eq!(
                tool.definition(version)["inputSchema"],
                schema,
                "{version:?}"
            );
        }
    }

    #[test]
    fn filtered_pages_keep_the_cursors_and_drop_the_refused_tools() {
        let names = ["e", "c", "a", "d", "b"];
        let registry = Registry::new(names.iter().map(|n| tool(n)).collect(), Some(2)).unwrap();
        let v = ProtocolVersion::LATEST;
        let names_of = |text: &str| -> Vec<String> {
            let tools: Vec<serde_json::Value> = serde_json::from_str(text).unwrap();
            tools
                .iter()
                .map(|t| t["name"].as_str().unwrap().to_owned())
                .collect()
        };
        let shown = |t: &Tool| t.name() != "b" && t.name() != "c";
        let (first, next) = registry.page_filtered(v, None, shown).unwrap();
        assert_eq!(names_of(&first), ["a"]);
        let (second, next) = registry.page_filtered(v, next.as_deref(), shown).unwrap();
        assert_eq!(names_of(&second), ["d"]);
        let (third, next) = registry.page_filtered(v, next.as_deref(), shown).unwrap();
        assert_eq!(names_of(&third), ["e"]);
        assert!(next.is_none());
        assert!(registry.page_filtered(v, Some("bogus"), shown).is_err());
    }

    #[test]
    fn pages_walk_every_tool_in_name_order() {
        let names = ["e", "c", "a", "d", "b"];
        let registry = Registry::new(names.iter().map(|n| tool(n)).collect(), Some(2)).unwrap();
        let v = ProtocolVersion::LATEST;
        let mut cursor = None;
        let mut seen = Vec::new();
        let mut pages = 0;
        loop {
            let page = registry.page(v, cursor.as_deref()).unwrap();
            let tools: Vec<serde_json::Value> = serde_json::from_str(&page.tools).unwrap();
            seen.extend(tools.iter().map(|t| t["name"].as_str().unwrap().to_owned()));
            pages += 1;
            match &page.next_cursor {
                Some(next) => cursor = Some(next.clone()),
                None => break,
            }
        }
        assert_eq!(pages, 3);
        assert_eq!(seen, ["a", "b", "c", "d", "e"]);
        assert!(registry.page(v, Some("bogus")).is_err());
        assert!(
            registry
                .page(v, Some(&format!("{:016x}ff", registry.fingerprint)))
                .is_err()
        );
    }
}
