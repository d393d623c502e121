//! The imports of every workspace crate flow one way, at every folder level:
//! within each module, the graph of its child modules (an edge `a → b` when
//! a file under `a` names something under `b`) has no cycle. ARCHITECTURE.md's
//! "a request flows down the folders once" is then true of the code, not
//! only of the data: a module can be understood, and tested, with only those
//! below it, and the same holds inside `session/`, `session/methods/`,
//! `transport/http/` and every other folder.
//!
//! The crates are the workspace members of the root `Cargo.toml` (a crate
//! added later is covered without a change here); each library and binary
//! target is read from its root file through its `mod` declarations
//! (`#[path]` included), inline `mod name { … }` blocks being modules too.
//!
//! The scan is textual on purpose (no parser dependency): comments and
//! string literals are blanked, then every `crate::`, `super::` and `self::`
//! path outside them counts, `use crate::{a, b::c}` groups included, and
//! `use` re-exports are followed to the module that defines the name;
//! `#[cfg(test)]` items do not count (a unit test may drive its module
//! through the whole crate). A name the scan cannot place (made by a macro,
//! say) is taken to be an item of the module it was looked up in, which
//! never adds an edge.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Cycles allowed, each as (target, folder, modules, reason). Empty: none is
/// needed; a new entry must say why the modules cannot be layered.
const ALLOWED_CYCLES: &[(&str, &str, &[&str], &str)] = &[];

pub(crate) fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ sits in the workspace")
        .to_path_buf()
}

/// The `members` of the workspace's `Cargo.toml`, as directories.
pub(crate) fn members(root: &Path) -> Vec<PathBuf> {
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).expect("Cargo.toml");
    let at = manifest
        .find("members")
        .expect("a [workspace] members list");
    let open = at + manifest[at..].find('[').expect("members = [");
    let close = open + manifest[open..].find(']').expect("closed members list");
    manifest[open + 1..close]
        .split(',')
        .map(|m| m.trim().trim_matches('"'))
        .filter(|m| !m.is_empty())
        .map(|m| root.join(m))
        .collect()
}

/// The root files of a member's library and binary targets, each with its
/// label (`mcpfn-host (lib)`, `mcp-host (bin mcp-host)`).
pub(crate) fn targets(member: &Path) -> Vec<(String, PathBuf)> {
    let manifest = std::fs::read_to_string(member.join("Cargo.toml")).expect("member manifest");
    let name = manifest
        .lines()
        .find_map(|line| {
            let (key, value) = line.split_once('=')?;
            (key.trim() == "name").then(|| value.trim().trim_matches('"').to_owned())
        })
        .expect("a package name");
    let src = member.join("src");
    let mut found = Vec::new();
    if src.join("lib.rs").is_file() {
        found.push((format!("{name} (lib)"), src.join("lib.rs")));
    }
    if src.join("main.rs").is_file() {
        found.push((format!("{name} (bin)"), src.join("main.rs")));
    }
    if let Ok(entries) = std::fs::read_dir(src.join("bin")) {
        let mut bins: Vec<PathBuf> = entries.map(|e| e.expect("entry").path()).collect();
        bins.sort();
        for bin in bins {
            let stem = bin
                .file_stem()
                .expect("a name")
                .to_string_lossy()
                .into_owned();
            if bin.is_dir() && bin.join("main.rs").is_file() {
                found.push((format!("{name} (bin {stem})"), bin.join("main.rs")));
            } else if bin.extension().is_some_and(|e| e == "rs") {
                found.push((format!("{name} (bin {stem})"), bin));
            }
        }
    }
    found
}

/// A name a module binds with `use` (`use a::b as c;` binds `c` to `a::b`),
/// or a glob it brings in (`use a::*;`, `bound` empty).
#[derive(Debug)]
struct Binding {
    bound: String,
    path: Vec<String>,
}

/// One module of a target: its child modules, what it binds with `use` and
/// the names it defines itself.
#[derive(Debug, Default)]
struct Module {
    children: BTreeSet<String>,
    bindings: BTreeMap<String, Vec<String>>,
    globs: Vec<Vec<String>>,
    defined: BTreeSet<String>,
}

/// One source file of a target: its text, the text the scan reads, and the
/// modules it holds (its own, then its inline `mod name { … }` blocks), each
/// with the byte range of its text.
#[derive(Debug)]
pub(crate) struct SourceFile {
    pub(crate) path: PathBuf,
    pub(crate) text: String,
    pub(crate) code: String,
    spans: Vec<(Vec<String>, usize, usize)>,
}

impl SourceFile {
    /// The innermost module whose text holds byte `at`.
    fn module_at(&self, at: usize) -> &[String] {
        SourceFile::module_at_spans(&self.spans, at)
    }

    /// Line `at` is on, numbered from 1, and its text.
    pub(crate) fn line(&self, at: usize) -> (usize, &str) {
        let number = self.text[..at].matches('\n').count() + 1;
        let start = self.text[..at].rfind('\n').map_or(0, |n| n + 1);
        let end = self.text[at..]
            .find('\n')
            .map_or(self.text.len(), |n| at + n);
        (number, self.text[start..end].trim())
    }
}

/// An import line that makes an edge: file, line number, the line.
type Evidence = (PathBuf, usize, String);

/// Edges among the children of one module: `from → to → what makes it`.
type Level = BTreeMap<String, BTreeMap<String, Vec<Evidence>>>;

/// A library or binary target read from its root file.
#[derive(Debug)]
pub(crate) struct Target {
    label: String,
    modules: BTreeMap<Vec<String>, Module>,
    pub(crate) files: Vec<SourceFile>,
}

impl Target {
    pub(crate) fn read(label: &str, root: &Path) -> Target {
        let mut target = Target {
            label: label.to_owned(),
            modules: BTreeMap::new(),
            files: Vec::new(),
        };
        let dir = root.parent().expect("src").to_path_buf();
        target.read_file(root, Vec::new(), &dir);
        target
    }

    /// Reads `file`, the text of `module`, whose `mod name;` files are
    /// under `dir`, and the files it declares.
    fn read_file(&mut self, file: &Path, module: Vec<String>, dir: &Path) {
        let text =
            std::fs::read_to_string(file).unwrap_or_else(|err| panic!("{}: {err}", file.display()));
        let code = without_tests(&code_only(&text));
        self.modules.entry(module.clone()).or_default();
        let mut spans = vec![(module.clone(), 0, code.len())];
        let mut declared = Vec::new();
        for (at, _) in code.match_indices("mod ") {
            if at > 0 && is_ident(code.as_bytes()[at - 1]) {
                continue;
            }
            let name_at = at + 4 + (code[at + 4..].len() - code[at + 4..].trim_start().len());
            let name = ident_at(&code, name_at).to_owned();
            if name.is_empty() {
                continue;
            }
            let after = code[name_at + name.len()..].trim_start();
            let parent = SourceFile::module_at_spans(&spans, at).to_vec();
            let mut path = parent.clone();
            path.push(name.clone());
            self.modules
                .entry(parent.clone())
                .or_default()
                .children
                .insert(name.clone());
            if after.starts_with('{') {
                let open = code.len() - after.len();
                let close = open + matching_brace(&code[open..]);
                self.modules.entry(path.clone()).or_default();
                spans.push((path, open, close + 1));
            } else if after.starts_with(';') {
                // `#[path = "file.rs"]` right before the declaration: read
                // the literal from the text (the scan blanked it).
                let statement_start = code[..at].rfind([';', '}', '{']).map_or(0, |n| n + 1);
                let attribute = code[statement_start..at]
                    .find("#[path")
                    .map(|n| statement_start + n);
                let inline_dirs = &parent[module.len()..];
                let base = inline_dirs.iter().fold(dir.to_path_buf(), |d, m| d.join(m));
                let child = match attribute {
                    Some(attr) => {
                        let quote = attr + text[attr..].find('"').expect("a path literal");
                        let end = quote + 1 + text[quote + 1..].find('"').expect("closed");
                        file.parent()
                            .expect("a directory")
                            .join(&text[quote + 1..end])
                    }
                    None if base.join(format!("{name}.rs")).is_file() => {
                        base.join(format!("{name}.rs"))
                    }
                    None => base.join(&name).join("mod.rs"),
                };
                declared.push((child, path));
            }
        }
        let file_index = self.files.len();
        self.files.push(SourceFile {
            path: file.to_path_buf(),
            text,
            code,
            spans,
        });
        self.read_bindings(file_index);
        for (child, path) in declared {
            let child_dir = if child.file_name().is_some_and(|n| n == "mod.rs") {
                child.parent().expect("a directory").to_path_buf()
            } else {
                child.with_extension("")
            };
            self.read_file(&child, path, &child_dir);
        }
    }

    /// The `use` bindings and the item names of each module in file `index`.
    fn read_bindings(&mut self, index: usize) {
        let file = &self.files[index];
        let code = &file.code;
        let mut found: Vec<(Vec<String>, Option<Binding>, Option<String>)> = Vec::new();
        for (at, _) in code.match_indices("use ") {
            if at > 0 && is_ident(code.as_bytes()[at - 1]) {
                continue;
            }
            let end = code[at..].find(';').map_or(code.len(), |n| at + n);
            let module = file.module_at(at).to_vec();
            for (mut path, mut bound) in flatten_use(&code[at + 4..end]) {
                if path.last().is_some_and(|s| s == "self") {
                    path.pop();
                    if bound == "self" {
                        bound = path.last().cloned().unwrap_or_default();
                    }
                }
                if path.last().is_some_and(|s| s == "*") {
                    path.pop();
                    bound = String::new();
                }
                found.push((module.clone(), Some(Binding { bound, path }), None));
            }
        }
        for keyword in [
            "fn ",
            "struct ",
            "enum ",
            "trait ",
            "type ",
            "const ",
            "static ",
            "union ",
            "macro_rules! ",
        ] {
            for (at, _) in code.match_indices(keyword) {
                if at > 0 && is_ident(code.as_bytes()[at - 1]) {
                    continue;
                }
                let name_at = at
                    + keyword.len()
                    + (code[at + keyword.len()..].len()
                        - code[at + keyword.len()..].trim_start().len());
                let name = ident_at(code, name_at);
                if !name.is_empty() {
                    found.push((file.module_at(at).to_vec(), None, Some(name.to_owned())));
                }
            }
        }
        for (module, binding, defined) in found {
            let module = self.modules.entry(module).or_default();
            if let Some(Binding { bound, path }) = binding {
                if bound.is_empty() {
                    module.globs.push(path);
                } else {
                    module.bindings.entry(bound).or_insert(path);
                }
            }
            if let Some(name) = defined {
                module.defined.insert(name);
            }
        }
    }

    /// Whether `name` is something module `at` has: a child, a binding or
    /// an item of its own.
    fn knows(&self, at: &[String], name: &str) -> bool {
        self.modules.get(at).is_some_and(|m| {
            m.children.contains(name) || m.bindings.contains_key(name) || m.defined.contains(name)
        })
    }

    /// The module that defines what `path`, written in module `context`,
    /// names; `None` for another crate's item (or a path too tangled in
    /// re-exports to follow, which then adds no edge).
    fn resolve(&self, context: &[String], path: &[String], depth: usize) -> Option<Vec<String>> {
        if depth > 16 || path.is_empty() {
            return None;
        }
        let (start, rest) = match path[0].as_str() {
            "crate" => (Vec::new(), &path[1..]),
            "self" => (context.to_vec(), &path[1..]),
            "super" => {
                let mut at = context.to_vec();
                let mut rest = path;
                while rest.first().is_some_and(|s| s == "super") {
                    at.pop()?;
                    rest = &rest[1..];
                }
                (at, rest)
            }
            first if self.knows(context, first) => (context.to_vec(), path),
            _ => return None,
        };
        self.walk(start, rest, depth)
    }

    /// Follows `rest` down from module `at`: child modules, then bindings
    /// (to where they point), then globs; stops at the module that defines
    /// the name.
    fn walk(&self, mut at: Vec<String>, rest: &[String], depth: usize) -> Option<Vec<String>> {
        for (i, name) in rest.iter().enumerate() {
            let Some(module) = self.modules.get(&at) else {
                return Some(at);
            };
            if module.children.contains(name) {
                at.push(name.clone());
                continue;
            }
            if let Some(path) = module.bindings.get(name) {
                let target = self.resolve(&at, path, depth + 1)?;
                return self.walk(target, &rest[i + 1..], depth + 1);
            }
            if module.defined.contains(name) {
                return Some(at);
            }
            for glob in &module.globs {
                if let Some(source) = self.resolve(&at, glob, depth + 1)
                    && source != at
                    && self.knows(&source, name)
                {
                    return self.walk(source, &rest[i..], depth + 1);
                }
            }
            return Some(at);
        }
        Some(at)
    }

    /// The import graph at every folder level: for each module, the edges
    /// among its children.
    fn levels(&self) -> BTreeMap<Vec<String>, Level> {
        let mut levels: BTreeMap<Vec<String>, Level> = BTreeMap::new();
        for (path, module) in &self.modules {
            if module.children.is_empty() {
                continue;
            }
            let level = levels.entry(path.clone()).or_default();
            for child in &module.children {
                level.entry(child.clone()).or_default();
            }
        }
        for file in &self.files {
            for (at, paths) in references(&file.code) {
                let from = file.module_at(at);
                for path in paths {
                    let Some(to) = self.resolve(from, &path, 0) else {
                        continue;
                    };
                    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
                    if from.len() == common || to.len() == common {
                        continue; // within one module, or up to an ancestor's own items
                    }
                    let (number, line) = file.line(at);
                    let lines = levels
                        .entry(from[..common].to_vec())
                        .or_default()
                        .entry(from[common].clone())
                        .or_default()
                        .entry(to[common].clone())
                        .or_default();
                    let evidence = (file.path.clone(), number, line.to_owned());
                    if !lines.contains(&evidence) {
                        lines.push(evidence);
                    }
                }
            }
        }
        levels
    }
}

impl SourceFile {
    /// The innermost module of `spans` whose text holds byte `at`.
    fn module_at_spans(spans: &[(Vec<String>, usize, usize)], at: usize) -> &[String] {
        spans
            .iter()
            .filter(|(_, from, to)| (*from..*to).contains(&at))
            .min_by_key(|(_, from, to)| to - from)
            .map(|(path, _, _)| path.as_slice())
            .expect("the file's own module spans it")
    }
}

/// Every `crate::`, `super::` and `self::` path in `code`, by where it
/// starts: a group (`crate::{a, b::c}`) gives one path per member.
fn references(code: &str) -> Vec<(usize, Vec<Vec<String>>)> {
    let mut found = Vec::new();
    for head in ["crate::", "super::", "self::"] {
        for (at, _) in code.match_indices(head) {
            if at > 0 && matches!(code.as_bytes()[at - 1], b'$' | b':') {
                continue; // `$crate::` in a macro, or the middle of a path
            }
            if at > 0 && is_ident(code.as_bytes()[at - 1]) {
                continue;
            }
            let mut segments = Vec::new();
            let mut pos = at;
            let mut paths = Vec::new();
            loop {
                let name = ident_at(code, pos);
                if name.is_empty() {
                    break;
                }
                segments.push(name.to_owned());
                pos += name.len();
                if !code[pos..].starts_with("::") {
                    paths.push(segments.clone());
                    break;
                }
                pos += 2;
                if code[pos..].starts_with('{') {
                    let close = pos + matching_brace(&code[pos..]);
                    for (path, _) in flatten_use(&code[pos..=close]) {
                        let mut full = segments.clone();
                        full.extend(path.into_iter().filter(|s| s != "self"));
                        paths.push(full);
                    }
                    break;
                }
            }
            found.push((at, paths));
        }
    }
    found.sort_by_key(|(at, _)| *at);
    found
}

/// Every target of every workspace member.
fn workspace_targets() -> Vec<Target> {
    let root = workspace_root();
    members(&root)
        .iter()
        .flat_map(|member| targets(member))
        .map(|(label, file)| Target::read(&label, &file))
        .collect()
}

/// The cycles of `target`, as a report naming each cycle's modules and the
/// lines that make its edges; empty when there is none.
fn cycles_of(target: &Target, root: &Path) -> String {
    let mut report = String::new();
    for (level, graph) in target.levels() {
        let folder = if level.is_empty() {
            "the crate root".to_owned()
        } else {
            format!("`{}`", level.join("::"))
        };
        for cycle in components(&graph).into_iter().filter(|c| c.len() > 1) {
            let allowed = ALLOWED_CYCLES.iter().any(|(label, at, modules, _)| {
                *label == target.label && *at == level.join("::") && *modules == cycle.as_slice()
            });
            if allowed {
                continue;
            }
            report.push_str(&format!(
                "{}, in {folder}: cycle among {cycle:?}:\n",
                target.label
            ));
            for from in &cycle {
                for (to, lines) in &graph[from] {
                    if !cycle.contains(to) {
                        continue;
                    }
                    report.push_str(&format!("  {from} -> {to}:\n"));
                    for (file, number, line) in lines.iter().take(4) {
                        let file = file.strip_prefix(root).unwrap_or(file);
                        report.push_str(&format!("    {}:{number}: {line}\n", file.display()));
                    }
                    if lines.len() > 4 {
                        report.push_str(&format!("    … and {} more\n", lines.len() - 4));
                    }
                }
            }
        }
    }
    report
}

#[test]
fn module_imports_flow_one_way() {
    let root = workspace_root();
    let targets = workspace_targets();
    for name in [
        "mcpfn-protocol",
        "mcpfn-runtime",
        "mcpfn-macros",
        "mcpfn-host",
    ] {
        assert!(
            targets.iter().any(|t| t.label == format!("{name} (lib)")),
            "{name} is a workspace member with a library"
        );
    }
    let runtime = targets
        .iter()
        .find(|t| t.label == "mcpfn-runtime (lib)")
        .expect("mcpfn-runtime");
    let levels = runtime.levels();
    assert!(
        levels[&vec![]].contains_key("session") && levels[&vec![]].contains_key("tool"),
        "{:?}",
        levels[&vec![]].keys()
    );
    let session = &levels[&vec!["session".to_owned()]];
    assert!(
        session.contains_key("calls") && session.contains_key("methods"),
        "the scan reads inner folders: {:?}",
        session.keys()
    );
    let mut report = String::new();
    for target in &targets {
        report.push_str(&cycles_of(target, &root));
        // Tarjan emits a component after every component it reaches: bottom first.
        if let Some(top) = target.levels().get(&Vec::new()) {
            let order: Vec<String> = components(top).into_iter().flatten().collect();
            eprintln!("{}: {}", target.label, order.join(" "));
        }
    }
    assert!(report.is_empty(), "imports climb back up:\n{report}");
}

/// A throwaway crate in a directory of its own, written from `files`.
fn scratch_crate(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("module-graph-{name}-{}", std::process::id()));
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().expect("a directory")).expect("scratch directory");
        std::fs::write(path, text).expect("scratch file");
    }
    dir
}

#[test]
fn the_scan_reads_what_it_must() {
    let code =
        code_only("use crate::a; // crate::b\nlet s = \"crate::c\"; let c = '\"'; crate::d::e();");
    assert!(code.contains("crate::a") && code.contains("crate::d"));
    assert!(!code.contains("crate::b") && !code.contains("crate::c"));
    let paths: Vec<Vec<String>> = flatten_use("crate::{a::{b, c as d}, e}")
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    let expected: Vec<Vec<String>> = [
        &["crate", "a", "b"][..],
        &["crate", "a", "c"],
        &["crate", "e"],
    ]
    .iter()
    .map(|p| p.iter().map(|s| (*s).to_owned()).collect())
    .collect();
    assert_eq!(paths, expected);
    let mut graph = BTreeMap::new();
    for (from, to) in [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")] {
        graph
            .entry(from.to_owned())
            .or_insert_with(BTreeMap::new)
            .insert(to.to_owned(), PathBuf::new());
    }
    graph.insert("d".to_owned(), BTreeMap::new());
    let mut found = components(&graph);
    found.sort();
    assert_eq!(found, [vec!["a", "b", "c"], vec!["d"]]);
}

#[test]
fn the_scan_finds_cycles_in_inner_folders() {
    // `a::x` and `a::y` import each other (one by `super::`, one by
    // `crate::`); `b` reaches `a::x` through `a`'s re-export, which is no
    // edge inside `a`; a unit test's import and an inline module's `super::`
    // (its own parent, `b`) add none.
    let dir = scratch_crate(
        "inner",
        &[
            ("src/lib.rs", "mod a;\nmod b;\n"),
            ("src/a/mod.rs", "mod x;\nmod y;\npub use x::Thing;\n"),
            ("src/b/after.rs", "use crate::a::Thing;\n"),
            ("src/a/x.rs", "use super::y::Other;\npub struct Thing;\n"),
            (
                "src/a/y.rs",
                "pub struct Other;\nfn f() -> crate::a::x::Thing { crate::a::x::Thing }\n",
            ),
            (
                "src/b.rs",
                "use crate::a::Thing;\nmod inner { use super::Local; }\nstruct Local;\n\
                 #[cfg(test)]\npub(crate) mod unit;\nmod after;\n\
                 #[cfg(test)]\nmod tests { use crate::a::y::Other; }\n",
            ),
        ],
    );
    let target = Target::read("scratch (lib)", &dir.join("src/lib.rs"));
    let levels = target.levels();
    let inside_a = &levels[&vec!["a".to_owned()]];
    assert_eq!(inside_a["x"].keys().collect::<Vec<_>>(), ["y"]);
    assert_eq!(inside_a["y"].keys().collect::<Vec<_>>(), ["x"]);
    let top = &levels[&Vec::new()];
    assert_eq!(top["b"].keys().collect::<Vec<_>>(), ["a"]);
    assert!(top["a"].is_empty(), "{top:?}");
    assert!(
        levels[&vec!["b".to_owned()]]["inner"].is_empty(),
        "{levels:?}"
    );
    let report = cycles_of(&target, &dir);
    assert!(
        report.contains("scratch (lib), in `a`: cycle among [\"x\", \"y\"]")
            && report.contains("src/a/x.rs:1: use super::y::Other;")
            && report.contains("src/a/y.rs:2: fn f() -> crate::a::x::Thing"),
        "{report}"
    );
    std::fs::remove_dir_all(&dir).expect("scratch crate removed");
}

/// What [`spans`] finds: a comment, a string literal or a char literal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Span {
    Comment,
    Str,
    Char,
}

/// The comments and string and char literals of `text`, each with its
/// byte range (a string's includes its quotes, and `r#` for a raw one).
pub(crate) fn spans(text: &str) -> Vec<(Span, usize, usize)> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                let end = text[i..].find('\n').map_or(bytes.len(), |e| i + e);
                found.push((Span::Comment, i, end));
                i = end;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let end = text[i + 2..]
                    .find("*/")
                    .map_or(bytes.len(), |e| i + 2 + e + 2);
                found.push((Span::Comment, i, end));
                i = end;
            }
            b'r' if (bytes.get(i + 1) == Some(&b'"') || bytes.get(i + 1) == Some(&b'#'))
                && (i == 0 || !is_ident(bytes[i - 1])) =>
            {
                let hashes = bytes[i + 1..].iter().take_while(|b| **b == b'#').count();
                if bytes.get(i + 1 + hashes) != Some(&b'"') {
                    i += 1; // a raw identifier (`r#type`), not a string
                    continue;
                }
                let close = format!("\"{}", "#".repeat(hashes));
                let start = i + 2 + hashes;
                let end = text[start..]
                    .find(&close)
                    .map_or(bytes.len(), |e| start + e + close.len());
                found.push((Span::Str, i, end));
                i = end;
            }
            b'"' => {
                let mut j = i + 1;
                while j < bytes.len() && bytes[j] != b'"' {
                    j += if bytes[j] == b'\\' { 2 } else { 1 };
                }
                let end = (j + 1).min(bytes.len());
                found.push((Span::Str, i, end));
                i = end;
            }
            b'\'' => {
                // A char literal ('x', '\n', '\u{..}') or a lifetime ('a).
                if bytes.get(i + 1) == Some(&b'\\') {
                    let end = text[i + 2..]
                        .find('\'')
                        .map_or(bytes.len(), |e| i + 2 + e + 1);
                    found.push((Span::Char, i, end));
                    i = end;
                } else if let Some(c) = text[i + 1..].chars().next() {
                    let after = i + 1 + c.len_utf8();
                    if bytes.get(after) == Some(&b'\'') {
                        found.push((Span::Char, i, after + 1));
                        i = after + 1;
                    } else {
                        i += 1;
                    }
                } else {
                    i += 1;
                }
            }
            _ => i += 1,
        }
    }
    found
}

/// `text` with comments and the contents of string and char literals
/// replaced by spaces, so a `crate::` in a doc comment, a doc link or a
/// message is not an import.
pub(crate) fn code_only(text: &str) -> String {
    let mut out = text.as_bytes().to_vec();
    for (_, from, to) in spans(text) {
        for b in &mut out[from..to] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    }
    String::from_utf8(out).expect("blanking keeps UTF-8: only ASCII spans and whole literals")
}

/// The byte ranges of the `#[cfg(test)]` (and `#[cfg(all(test, …))]`)
/// items of `code` (text that [`code_only`] made). An item ends at its
/// first `;` unless a `{` comes first (`mod tests;`, `pub(crate) mod
/// queues;`, `use a::b;` against `mod tests { … }`), so a declaration
/// never takes the items after it along.
pub(crate) fn test_items(code: &str) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find("#[cfg(").map(|n| from + n) {
        let condition = &code[at + "#[cfg(".len()..];
        if !condition.starts_with("test)]") && !condition.starts_with("all(test,") {
            from = at + 1;
            continue;
        }
        let body = at + code[at..].find(']').expect("a closed attribute") + 1;
        let end = match code[body..].find([';', '{']).map(|n| body + n) {
            Some(semicolon) if code.as_bytes()[semicolon] == b';' => semicolon + 1,
            Some(open) => open + matching_brace(&code[open..]) + 1,
            None => panic!("a #[cfg(test)] item that does not end"),
        };
        found.push((at, end));
        from = end;
    }
    found
}

/// `code` without its test items ([`test_items`]): a unit test
/// may build a whole server (`crate::Server`, `crate::transport::memory`)
/// to drive the module it tests; it sits above everything, and is not
/// part of the layering.
fn without_tests(code: &str) -> String {
    let mut out = code.to_owned();
    for (at, end) in test_items(code) {
        out.replace_range(at..end, &" ".repeat(end - at));
    }
    out
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn ident_at(text: &str, at: usize) -> &str {
    let len = text[at..].bytes().take_while(|b| is_ident(*b)).count();
    &text[at..at + len]
}

/// The paths a use tree names, each as its segments: `a::{b, c::d}` gives
/// `[a, b]` and `[a, c, d]`. `as` renames keep the path and add the alias as
/// the last element of a second vector entry (`(path, bound name)`).
fn flatten_use(tree: &str) -> Vec<(Vec<String>, String)> {
    fn walk(tree: &str, prefix: &[String], out: &mut Vec<(Vec<String>, String)>) {
        let tree = tree.trim();
        if tree.is_empty() {
            return;
        }
        if let Some(open) = tree.find('{') {
            let head: Vec<String> = tree[..open]
                .split("::")
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect();
            let close = tree.rfind('}').expect("balanced use tree");
            let mut path = prefix.to_vec();
            path.extend(head);
            let inner = &tree[open + 1..close];
            let mut depth = 0;
            let mut start = 0;
            for (at, c) in inner.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        walk(&inner[start..at], &path, out);
                        start = at + 1;
                    }
                    _ => {}
                }
            }
            walk(&inner[start..], &path, out);
            return;
        }
        let (path_text, alias) = match tree.split_once(" as ") {
            Some((p, a)) => (p, Some(a.trim().to_owned())),
            None => (tree, None),
        };
        let mut path = prefix.to_vec();
        path.extend(path_text.split("::").map(|s| s.trim().to_owned()));
        let bound = alias.unwrap_or_else(|| path.last().cloned().unwrap_or_default());
        out.push((path, bound));
    }
    let mut out = Vec::new();
    walk(tree, &[], &mut out);
    out
}

fn matching_brace(text: &str) -> usize {
    let mut depth = 0;
    for (at, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return at;
                }
            }
            _ => {}
        }
    }
    panic!("unbalanced use group: {text}");
}

/// Tarjan's strongly connected components, each sorted, in a stable order.
fn components<V>(graph: &BTreeMap<String, BTreeMap<String, V>>) -> Vec<Vec<String>> {
    struct Walk<'g, V> {
        graph: &'g BTreeMap<String, BTreeMap<String, V>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        out: Vec<Vec<String>>,
    }
    impl<'g, V> Walk<'g, V> {
        fn visit(&mut self, node: &'g str) {
            let n = self.index.len();
            self.index.insert(node, n);
            self.low.insert(node, n);
            self.stack.push(node);
            self.on_stack.insert(node);
            for next in self.graph.get(node).into_iter().flat_map(|e| e.keys()) {
                let next = next.as_str();
                if !self.index.contains_key(next) {
                    self.visit(next);
                    let low = self.low[node].min(self.low[next]);
                    self.low.insert(node, low);
                } else if self.on_stack.contains(next) {
                    let low = self.low[node].min(self.index[next]);
                    self.low.insert(node, low);
                }
            }
            if self.low[node] == self.index[node] {
                let mut component = Vec::new();
                while let Some(top) = self.stack.pop() {
                    self.on_stack.remove(top);
                    component.push(top.to_owned());
                    if top == node {
                        break;
                    }
                }
                component.sort();
                self.out.push(component);
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for node in graph.keys() {
        if !walk.index.contains_key(node.as_str()) {
            walk.visit(node);
        }
    }
    walk.out
}
