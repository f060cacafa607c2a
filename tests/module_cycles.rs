//! No two sibling modules of `src/` depend on each other, directly or
//! around a loop: the layers of STYLE.md §1 only hold if every directory's
//! modules can be read in one order, each using only those before it.
//!
//! The check reads the sources as text, so it costs a second and needs no
//! parser crate. For every file it finds the paths it names — `use` trees
//! and inline `crate::…`, `super::…`, `self::…` paths — resolves them to
//! absolute module paths (following `use` re-exports such as
//! `pipeline::Rules`), and turns each into an edge between the two
//! siblings of the directory where the referrer and the target part ways:
//! `pipeline/apply.rs` naming `super::outcome::x` is the edge `apply -> outcome` in
//! `src/pipeline`, and `protocol/message/flop.rs` naming `crate::protocol::write`
//! is `message -> write` in `src/protocol`. Every group of siblings that
//! reach one another is reported with one loop through it.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fs;
use std::path::{Path, PathBuf};

/// An absolute module path, `[]` being the crate root.
type ModPath = Vec<String>;

/// What one file says: the paths it names and the names it imports.
#[derive(Default)]
struct Names {
    /// (naming module, absolute target, file and path as written)
    refs: Vec<(ModPath, ModPath, String)>,
    /// (importing module, name in scope, absolute target)
    imports: Vec<(ModPath, String, ModPath)>,
    /// Inline `mod x { … }` blocks, which are modules too.
    inline_modules: Vec<ModPath>,
}

/// One edge of the sibling graph, with the first reference that made it.
struct Edge {
    dir: ModPath,
    from: String,
    to: String,
    because: String,
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

/// `src/pipeline/adft.rs` is `[pipeline, adft]`; `mod.rs`, `lib.rs` and
/// `main.rs` are the module of their directory.
fn module_of(src: &Path, file: &Path) -> ModPath {
    let rel = file.strip_prefix(src).expect("file under src");
    let mut path: ModPath = rel
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(
        path.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        path.pop();
    }
    path
}

/// Splits Rust source into identifiers, `::` and single punctuation marks,
/// dropping comments, string and character literals (so that braces and
/// paths inside them count for nothing) and lifetimes.
fn tokens(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    while i < chars.len() {
        let c = chars[i];
        if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == '"' {
            i = skip_string(&chars, i + 1, 0);
        } else if c == '\'' {
            if at(i + 1) == '\\' {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                // A lifetime: its name is read as an identifier and ignored.
                i += 1;
            }
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            if matches!(word.as_str(), "r" | "br") && matches!(at(i), '"' | '#') {
                let mut hashes = 0;
                while at(i) == '#' {
                    hashes += 1;
                    i += 1;
                }
                i = skip_string(&chars, i + 1, hashes);
            } else if word == "b" && at(i) == '"' {
                i = skip_string(&chars, i + 1, 0);
            } else {
                out.push(word);
            }
        } else if c == ':' && at(i + 1) == ':' {
            out.push("::".to_owned());
            i += 2;
        } else {
            if !c.is_whitespace() {
                out.push(c.to_string());
            }
            i += 1;
        }
    }
    out
}

/// Returns the index after a string literal whose body starts at `i`;
/// raw strings (`hashes > 0` or no escapes) end at `"` plus their hashes.
fn skip_string(chars: &[char], mut i: usize, hashes: usize) -> usize {
    let raw = hashes > 0 || chars.get(i.wrapping_sub(1)) != Some(&'"');
    while i < chars.len() {
        if chars[i] == '\\' && !raw {
            i += 2;
            continue;
        }
        if chars[i] == '"' && (0..hashes).all(|k| chars.get(i + 1 + k) == Some(&'#')) {
            return i + 1 + hashes;
        }
        i += 1;
    }
    i
}

fn is_ident(t: &str) -> bool {
    t.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
}

/// Makes a path absolute as seen from `module`: `crate` starts at the
/// root, `super` climbs, `self` stays; any other first segment is a name in
/// `module`'s scope (a child, an import or an extern crate).
fn absolute(module: &[String], segments: &[String]) -> ModPath {
    let mut path = match segments.first().map(String::as_str) {
        Some("crate") => Vec::new(),
        Some("super" | "self") => module.to_vec(),
        _ => module.to_vec(),
    };
    for (i, s) in segments.iter().enumerate() {
        match s.as_str() {
            "crate" if i == 0 => {}
            "super" => {
                path.pop();
            }
            "self" => {}
            _ => path.push(s.clone()),
        }
    }
    path
}

/// Reads one use tree starting at `*i`, pushing `(segments, name in scope)`;
/// a glob pushes its prefix with no name.
fn use_tree(
    t: &[String],
    i: &mut usize,
    prefix: &mut Vec<String>,
    out: &mut Vec<(Vec<String>, Option<String>)>,
) {
    let base = prefix.len();
    loop {
        match t.get(*i).map(String::as_str) {
            Some("{") => {
                *i += 1;
                while *i < t.len() && t[*i] != "}" {
                    use_tree(t, i, prefix, out);
                    if t.get(*i).map(String::as_str) == Some(",") {
                        *i += 1;
                    }
                }
                *i += 1;
                break;
            }
            Some("*") => {
                *i += 1;
                out.push((prefix.clone(), None));
                break;
            }
            Some("::") => *i += 1,
            Some(word) if is_ident(word) => {
                prefix.push(word.to_owned());
                *i += 1;
                if t.get(*i).map(String::as_str) == Some("::") {
                    *i += 1;
                    continue;
                }
                let mut name = word.to_owned();
                if t.get(*i).map(String::as_str) == Some("as") {
                    name = t.get(*i + 1).cloned().unwrap_or_default();
                    *i += 2;
                }
                if name == "self" {
                    name = prefix
                        .get(prefix.len().wrapping_sub(2))
                        .cloned()
                        .unwrap_or_default();
                }
                out.push((prefix.clone(), Some(name)));
                break;
            }
            _ => break,
        }
    }
    prefix.truncate(base);
}

fn names_in(file: &str, module: &ModPath, text: &str) -> Names {
    let t = tokens(text);
    let mut names = Names::default();
    // Inline modules: (name, brace depth inside it).
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0;
    let mut i = 0;
    while i < t.len() {
        let current: ModPath = module
            .iter()
            .cloned()
            .chain(inline.iter().map(|(n, _)| n.clone()))
            .collect();
        match t[i].as_str() {
            "{" => {
                depth += 1;
                i += 1;
            }
            "}" => {
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
                depth -= 1;
                i += 1;
            }
            "mod" if t.get(i + 2).map(String::as_str) == Some("{") => {
                inline.push((t[i + 1].clone(), depth + 1));
                let mut path = current.clone();
                path.push(t[i + 1].clone());
                names.inline_modules.push(path);
                i += 2;
            }
            "use" if i == 0 || t[i - 1] != "::" => {
                i += 1;
                let mut items = Vec::new();
                use_tree(&t, &mut i, &mut Vec::new(), &mut items);
                for (segments, name) in items {
                    let target = absolute(&current, &segments);
                    let written = format!("{file}: use {}", segments.join("::"));
                    if let Some(name) = name {
                        names.imports.push((current.clone(), name, target.clone()));
                    }
                    names.refs.push((current.clone(), target, written));
                }
                while i < t.len() && t[i] != ";" {
                    i += 1;
                }
            }
            "crate" | "super" | "self"
                if (i == 0 || t[i - 1] != "::")
                    && t.get(i + 1).map(String::as_str) == Some("::") =>
            {
                let mut segments = vec![t[i].clone()];
                i += 1;
                while t.get(i).map(String::as_str) == Some("::")
                    && t.get(i + 1).is_some_and(|s| is_ident(s))
                {
                    segments.push(t[i + 1].clone());
                    i += 2;
                }
                let written = format!("{file}: {}", segments.join("::"));
                names
                    .refs
                    .push((current.clone(), absolute(&current, &segments), written));
            }
            _ => i += 1,
        }
    }
    names
}

/// Follows imports: `crate::pipeline::Rules` becomes
/// `crate::pipeline::rules::Rules` when `pipeline` imports it from there.
fn resolve(
    mut path: ModPath,
    modules: &BTreeSet<ModPath>,
    imports: &BTreeMap<(ModPath, String), ModPath>,
) -> ModPath {
    for _ in 0..8 {
        let mut next = None;
        for i in 0..path.len() {
            if !modules.contains(&path[..i]) {
                break;
            }
            if modules.contains(&path[..=i]) {
                continue;
            }
            if let Some(target) = imports.get(&(path[..i].to_vec(), path[i].clone()))
                && target[..] != path[..=i]
            {
                next = Some(target.iter().chain(&path[i + 1..]).cloned().collect());
            }
            break;
        }
        match next {
            Some(p) => path = p,
            None => break,
        }
    }
    path
}

fn sibling_edges(src: &Path) -> Vec<Edge> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let sources: Vec<(ModPath, String, String)> = files
        .iter()
        .map(|file| {
            let label = file
                .strip_prefix(src.parent().unwrap_or(src))
                .unwrap_or(file);
            let text = fs::read_to_string(file).expect("readable source");
            (module_of(src, file), label.display().to_string(), text)
        })
        .collect();
    edges_between(&sources)
}

/// The sibling edges among `(module, file label, source text)`.
fn edges_between(sources: &[(ModPath, String, String)]) -> Vec<Edge> {
    let mut modules = BTreeSet::new();
    let mut all = Vec::new();
    for (module, label, text) in sources {
        let names = names_in(label, module, text);
        for prefix in 0..=module.len() {
            modules.insert(module[..prefix].to_vec());
        }
        modules.extend(names.inline_modules.iter().cloned());
        all.push(names);
    }
    let imports: BTreeMap<_, _> = all
        .iter()
        .flat_map(|n| n.imports.iter())
        .map(|(m, name, target)| ((m.clone(), name.clone()), target.clone()))
        .collect();
    let mut edges: Vec<Edge> = Vec::new();
    for (from, target, written) in all.iter().flat_map(|n| n.refs.iter()) {
        let target = resolve(target.clone(), &modules, &imports);
        let common = from.iter().zip(&target).take_while(|(a, b)| a == b).count();
        if common < from.len() && common < target.len() && modules.contains(&target[..=common]) {
            let (dir, a, b) = (&from[..common], &from[common], &target[common]);
            if !edges
                .iter()
                .any(|e| e.dir == dir && &e.from == a && &e.to == b)
            {
                edges.push(Edge {
                    dir: dir.to_vec(),
                    from: a.clone(),
                    to: b.clone(),
                    because: written.clone(),
                });
            }
        }
    }
    edges
}

/// For every directory, each group of siblings that reach one another
/// (a strongly connected component of two or more), as
/// `(directory, members, one loop through them with its reasons)`.
fn cycles(edges: &[Edge]) -> Vec<(String, Vec<String>, String)> {
    let dirs: BTreeSet<&ModPath> = edges.iter().map(|e| &e.dir).collect();
    let mut found = Vec::new();
    for dir in dirs {
        let next = |node: &str| -> Vec<&Edge> {
            edges
                .iter()
                .filter(|e| &e.dir == dir && e.from == node)
                .collect()
        };
        let reach = |start: &str| -> BTreeSet<String> {
            let mut seen = BTreeSet::new();
            let mut queue = VecDeque::from([start.to_owned()]);
            while let Some(n) = queue.pop_front() {
                for e in next(&n) {
                    if seen.insert(e.to.clone()) {
                        queue.push_back(e.to.clone());
                    }
                }
            }
            seen
        };
        let nodes: BTreeSet<&String> = edges
            .iter()
            .filter(|e| &e.dir == dir)
            .map(|e| &e.from)
            .collect();
        let mut done = BTreeSet::new();
        for node in nodes {
            if done.contains(node) {
                continue;
            }
            let from_node = reach(node);
            if !from_node.contains(node) {
                continue;
            }
            let members: Vec<String> = from_node
                .iter()
                .filter(|m| reach(m).contains(node))
                .cloned()
                .collect();
            done.extend(members.iter().cloned());
            found.push((dir_label(dir), members, loop_through(node, &next)));
        }
    }
    found
}

/// The shortest loop from `start` back to itself, one step per line.
fn loop_through<'e>(start: &str, next: &dyn Fn(&str) -> Vec<&'e Edge>) -> String {
    let mut via: BTreeMap<String, &Edge> = BTreeMap::new();
    let mut queue = VecDeque::from([start.to_owned()]);
    'search: while let Some(n) = queue.pop_front() {
        for e in next(&n) {
            if !via.contains_key(&e.to) {
                via.insert(e.to.clone(), e);
                if e.to == start {
                    break 'search;
                }
                queue.push_back(e.to.clone());
            }
        }
    }
    let mut steps = Vec::new();
    let mut at = start.to_owned();
    while let Some(e) = via.get(&at) {
        steps.push(format!("    {} -> {}   ({})", e.from, e.to, e.because));
        at = e.from.clone();
        if at == start {
            break;
        }
    }
    steps.reverse();
    steps.join("\n")
}

fn dir_label(dir: &ModPath) -> String {
    std::iter::once("src")
        .chain(dir.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join("/")
}

#[test]
fn no_sibling_modules_depend_on_each_other() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let found = cycles(&sibling_edges(&src));
    let report: Vec<String> = found
        .iter()
        .map(|(dir, members, path)| format!("{dir}: {{{}}}\n{path}", members.join(", ")))
        .collect();
    assert!(
        report.is_empty(),
        "sibling modules depend on each other around a loop; move what both \
         need into a module of its own:\n{}",
        report.join("\n")
    );
}

/// The checker itself finds a loop written the ways the sources write one.
#[test]
fn the_checker_sees_use_trees_inline_paths_and_re_exports() {
    let files = [
        (
            vec!["p".to_owned()],
            "pub use a::Shared;\nmod a; mod b; mod c;",
        ),
        (
            vec!["p".into(), "a".into()],
            "use super::{b::{self, X as Y}};",
        ),
        (
            vec!["p".into(), "b".into()],
            "fn f() { crate::p::c::g(); } // super::a::x",
        ),
        (
            vec!["p".into(), "c".into()],
            "const S: &str = \"super::b::x\"; use super::Shared;\n#[cfg(test)] mod tests { use super::super::b::X; }",
        ),
    ];
    let sources: Vec<_> = files
        .into_iter()
        .map(|(module, text)| (module, String::new(), text.to_owned()))
        .collect();
    let seen: BTreeSet<String> = edges_between(&sources)
        .iter()
        .map(|e| format!("{}->{}", e.from, e.to))
        .collect();
    let expected: BTreeSet<String> = ["a->b", "b->c", "c->a", "c->b"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(seen, expected);
}
