//! The imports of `mcp-runtime/src` flow one way: the graph of its top-level
//! modules (`crate::X` in each module's files, the root's re-exports resolved
//! to the module they come from) has no cycle. ARCHITECTURE.md's "a request
//! flows down the folders once" is then true of the code, not only of the
//! data: a module can be understood, and tested, with only those below it.
//!
//! The scan is textual on purpose (no parser dependency): comments and
//! string literals are blanked, then every `crate::` path outside them counts,
//! `use crate::{a, b::c}` groups included; `#[cfg(test)]` modules do not
//! count (a unit test may drive its module through the whole server). A
//! `super::` chain never reaches the crate root from a top-level module
//! today; `crate::` is the one spelling.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Cycles allowed among top-level modules, each with its reason. Empty: none
/// is needed; a new entry must say why the two modules cannot be layered.
const ALLOWED_CYCLES: &[(&[&str], &str)] = &[];

fn source_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../mcp-runtime/src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable directory") {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `text` with comments and the contents of string and char literals
/// replaced by spaces, so a `crate::` in a doc comment, a doc link or a
/// message is not an import.
fn code_only(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = bytes.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for b in &mut out[from..to.min(bytes.len())] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    };
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                let end = text[i..].find('\n').map_or(bytes.len(), |e| i + e);
                blank(&mut out, i, end);
                i = end;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let end = text[i + 2..]
                    .find("*/")
                    .map_or(bytes.len(), |e| i + 2 + e + 2);
                blank(&mut out, i, end);
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
                blank(&mut out, i, end);
                i = end;
            }
            b'"' => {
                let mut j = i + 1;
                while j < bytes.len() && bytes[j] != b'"' {
                    j += if bytes[j] == b'\\' { 2 } else { 1 };
                }
                blank(&mut out, i, j + 1);
                i = j + 1;
            }
            b'\'' => {
                // A char literal ('x', '\n', '\u{..}') or a lifetime ('a).
                if bytes.get(i + 1) == Some(&b'\\') {
                    let end = text[i + 2..]
                        .find('\'')
                        .map_or(bytes.len(), |e| i + 2 + e + 1);
                    blank(&mut out, i, end);
                    i = end;
                } else if let Some(c) = text[i + 1..].chars().next() {
                    let after = i + 1 + c.len_utf8();
                    if bytes.get(after) == Some(&b'\'') {
                        blank(&mut out, i, after + 1);
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
    String::from_utf8(out).expect("blanking keeps UTF-8: only ASCII spans and whole literals")
}

/// `code` without its `#[cfg(test)]` items: a unit test may build a whole
/// server (`crate::Server`, `crate::transport::memory`) to drive the module
/// it tests; it sits above everything, and is not part of the layering.
fn without_tests(code: &str) -> String {
    let mut out = code.to_owned();
    let mut from = 0;
    while let Some(found) = out[from..].find("#[cfg(test)]") {
        let at = from + found;
        // `#[cfg(test)] mod tests;`: only the declaration goes (the file it
        // names is read as a file of its module).
        let rest = out[at + "#[cfg(test)]".len()..].trim_start();
        if let Some(name) = rest.strip_prefix("mod ") {
            let name = name.trim_start();
            let len = name.bytes().take_while(|b| is_ident(*b)).count();
            if name[len..].trim_start().starts_with(';') {
                let end = out.len() - name[len..].trim_start().len() + 1;
                out.replace_range(at..end, &" ".repeat(end - at));
                from = end;
                continue;
            }
        }
        let open = at
            + out[at..]
                .find('{')
                .expect("a #[cfg(test)] item with a body");
        let end = open + matching_brace(&out[open..]) + 1;
        out.replace_range(at..end, &" ".repeat(end - at));
        from = end;
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

/// The top-level module a file belongs to (`session/calls.rs` → `session`),
/// `None` for the crate root.
fn module_of(root: &Path, file: &Path, renamed: &BTreeMap<String, String>) -> Option<String> {
    let relative = file.strip_prefix(root).expect("inside src");
    let first = relative
        .components()
        .next()?
        .as_os_str()
        .to_str()?
        .to_owned();
    if first == "lib.rs" {
        return None;
    }
    let name = first.strip_suffix(".rs").unwrap_or(&first).to_owned();
    Some(renamed.get(&first).cloned().unwrap_or(name))
}

/// What `crate::NAME` means at the root: a module, or (through `lib.rs`'s
/// `use` lines) the module a re-export comes from; `None` for a name of an
/// outside crate or one defined in `lib.rs` itself.
struct Root {
    modules: BTreeSet<String>,
    reexports: BTreeMap<String, Option<String>>,
    defined: BTreeSet<String>,
}

impl Root {
    fn read(lib: &str, files: &[String]) -> (Root, BTreeMap<String, String>) {
        let code = code_only(lib);
        let mut renamed = BTreeMap::new();
        // `#[path = "private.rs"] pub mod __private;`: the file's module name.
        for (at, _) in lib.match_indices("#[path = \"") {
            let rest = &lib[at + 10..];
            let file = &rest[..rest.find('"').expect("closed path")];
            let decl = &rest[rest.find("mod ").expect("a mod after #[path]") + 4..];
            renamed.insert(file.to_owned(), ident_at(decl, 0).to_owned());
        }
        let mut modules: BTreeSet<String> = files
            .iter()
            .map(|f| {
                renamed
                    .get(f)
                    .cloned()
                    .unwrap_or_else(|| f.trim_end_matches(".rs").to_owned())
            })
            .collect();
        modules.remove("lib");
        let mut reexports = BTreeMap::new();
        let mut defined = BTreeSet::new();
        for statement in code.split(';') {
            let statement = statement.trim();
            let Some(at) = statement.find("use ") else {
                continue;
            };
            if at > 0 && is_ident(statement.as_bytes()[at - 1]) {
                continue;
            }
            for (path, bound) in flatten_use(&statement[at + 4..]) {
                let first = path.first().map(String::as_str).unwrap_or("");
                let first = first.trim_start_matches("::");
                let first = if first == "crate" || first == "self" {
                    path.get(1).map(String::as_str).unwrap_or("")
                } else {
                    first
                };
                let target = modules.contains(first).then(|| first.to_owned());
                reexports.insert(bound, target);
            }
        }
        // Items declared in lib.rs itself (macros, doctest holders, inline
        // modules): the root, which is not a node of the graph.
        for keyword in ["macro_rules! ", "struct ", "fn ", "mod "] {
            for (at, _) in code.match_indices(keyword) {
                if at > 0 && is_ident(code.as_bytes()[at - 1]) {
                    continue;
                }
                let name = ident_at(&code, at + keyword.len());
                if !modules.contains(name) {
                    defined.insert(name.to_owned());
                }
            }
        }
        (
            Root {
                modules,
                reexports,
                defined,
            },
            renamed,
        )
    }

    /// The module `crate::name` depends on, if it is one of ours.
    fn resolve(&self, name: &str, file: &Path) -> Option<String> {
        if self.modules.contains(name) {
            return Some(name.to_owned());
        }
        if let Some(target) = self.reexports.get(name) {
            return target.clone();
        }
        assert!(
            self.defined.contains(name),
            "{}: `crate::{name}` is neither a module, a re-export nor an item of lib.rs \
             (the scan misread it: fix the scan, not the source)",
            file.display()
        );
        None
    }
}

/// Edges `from → to` of the module graph, each with one file that makes it.
fn module_graph() -> BTreeMap<String, BTreeMap<String, PathBuf>> {
    let root_dir = source_root();
    let mut files = Vec::new();
    rust_files(&root_dir, &mut files);
    files.sort();
    let top: Vec<String> = std::fs::read_dir(&root_dir)
        .expect("src")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".rs") || !n.contains('.'))
        .collect();
    let lib = std::fs::read_to_string(root_dir.join("lib.rs")).expect("lib.rs");
    let (root, renamed) = Root::read(&lib, &top);
    let mut graph: BTreeMap<String, BTreeMap<String, PathBuf>> = BTreeMap::new();
    for file in &files {
        let Some(from) = module_of(&root_dir, file, &renamed) else {
            continue;
        };
        graph.entry(from.clone()).or_default();
        let code = without_tests(&code_only(&std::fs::read_to_string(file).expect("source")));
        for (at, _) in code.match_indices("crate::") {
            if at > 0 && (is_ident(code.as_bytes()[at - 1]) || code.as_bytes()[at - 1] == b'$') {
                continue; // `$crate::` in a macro, or part of a longer name
            }
            let rest = &code[at + 7..];
            let names: Vec<String> = if rest.starts_with('{') {
                let close = matching_brace(rest);
                flatten_use(&rest[..=close])
                    .into_iter()
                    .filter_map(|(path, _)| path.into_iter().next())
                    .collect()
            } else {
                vec![ident_at(rest, 0).to_owned()]
            };
            for name in names {
                if let Some(to) = root.resolve(&name, file)
                    && to != from
                {
                    graph
                        .entry(from.clone())
                        .or_default()
                        .entry(to)
                        .or_insert_with(|| file.clone());
                }
            }
        }
    }
    graph
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
fn components(graph: &BTreeMap<String, BTreeMap<String, PathBuf>>) -> Vec<Vec<String>> {
    struct Walk<'g> {
        graph: &'g BTreeMap<String, BTreeMap<String, PathBuf>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        out: Vec<Vec<String>>,
    }
    impl<'g> Walk<'g> {
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

#[test]
fn module_imports_flow_one_way() {
    let graph = module_graph();
    assert!(
        graph.contains_key("session") && graph.contains_key("tool"),
        "{graph:?}"
    );
    let cycles: Vec<Vec<String>> = components(&graph)
        .into_iter()
        .filter(|c| c.len() > 1)
        .filter(|c| !ALLOWED_CYCLES.iter().any(|(allowed, _)| allowed == c))
        .collect();
    let mut report = String::new();
    for cycle in &cycles {
        report.push_str(&format!("cycle among {cycle:?}:\n"));
        for from in cycle {
            for (to, file) in &graph[from] {
                if cycle.contains(to) {
                    report.push_str(&format!("  {from} -> {to} ({})\n", file.display()));
                }
            }
        }
    }
    assert!(
        cycles.is_empty(),
        "mcp-runtime/src imports climb back up:\n{report}"
    );
    // Tarjan emits a component after every component it reaches: bottom first.
    let order: Vec<String> = components(&graph).into_iter().flatten().collect();
    eprintln!("{} modules, bottom first: {}", order.len(), order.join(" "));
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
