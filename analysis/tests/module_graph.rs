//! The analysis crate's top-level modules (`format`, `read`, `suites`, …)
//! use one another without cycles, and the boundaries ARCHITECTURE.md
//! states hold: `error` is a leaf, importers never use the reader or the
//! suites, suites never use the reader or the report.
//!
//! The graph is built from the sources: every `crate::m` (also `$crate::m`
//! in macros, and `use crate::{m, …}`) and every `super::` path that climbs
//! to the crate root is an edge from the file's top-level module to `m`.
//! Files are tokenized with proc-macro2, so comments, doc comments and
//! string literals never count. Test modules count too.

use crate_files::rust_files;
use proc_macro2::{Delimiter, TokenStream, TokenTree};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

mod crate_files;

type Graph = BTreeMap<String, BTreeSet<String>>;

/// The module path of a file below `src/`: `read/native.rs` → [read,
/// native], `read/mod.rs` → [read], `lib.rs` → [].
fn module_path(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|c| c.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().expect("a file name");
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" {
        parts.push(stem.to_string());
    }
    parts
}

fn is_ident(t: &TokenTree, name: &str) -> bool {
    matches!(t, TokenTree::Ident(i) if i == name)
}

fn is_colon(t: Option<&TokenTree>) -> bool {
    matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == ':')
}

/// The paths of a use group's items: `{a::b, c::{d, e}}` → [a, b], [c, d],
/// [c, e] (each item's identifiers up to a glob or the end).
fn group_paths(g: &TokenStream) -> Vec<Vec<String>> {
    let tts: Vec<TokenTree> = g.clone().into_iter().collect();
    let mut out = Vec::new();
    for item in tts.split(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ',')) {
        let mut path = Vec::new();
        let mut nested = false;
        for t in item {
            match t {
                TokenTree::Ident(i) if i != "as" => path.push(i.to_string()),
                TokenTree::Ident(_) => break, // `x as y`: the rest is the new name
                TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => {
                    for rest in group_paths(&g.stream()) {
                        out.push([path.clone(), rest].concat());
                    }
                    nested = true;
                    break;
                }
                TokenTree::Punct(p) if p.as_char() == ':' => {}
                _ => break,
            }
        }
        if !nested && !path.is_empty() {
            out.push(path);
        }
    }
    out
}

/// The identifiers of a path `a::b::c` from `tts[at]` on, with the paths of
/// a use group that ends it (`a::{b, c}` → [a, b], [a, c]).
fn path_from(tts: &[TokenTree], mut at: usize) -> Vec<Vec<String>> {
    let mut path = Vec::new();
    loop {
        match tts.get(at) {
            Some(TokenTree::Ident(i)) => path.push(i.to_string()),
            Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace => {
                return group_paths(&g.stream())
                    .into_iter()
                    .map(|rest| [path.clone(), rest].concat())
                    .collect();
            }
            _ => break,
        }
        if is_colon(tts.get(at + 1)) && is_colon(tts.get(at + 2)) {
            at += 3;
        } else {
            break;
        }
    }
    vec![path]
}

/// The paths `tokens` (inside module `path`) refers to, from the crate
/// root: `crate::a::b`, and `super::…` and `self::…` resolved against
/// `path`; with `tests` false, not inside a `mod tests { … }`.
fn references(tokens: TokenStream, path: &[String], tests: bool, out: &mut BTreeSet<Vec<String>>) {
    let tts: Vec<TokenTree> = tokens.into_iter().collect();
    let mut i = 0;
    while i < tts.len() {
        // `mod name { … }`: an inline module, one level deeper.
        if is_ident(&tts[i], "mod") {
            if let (Some(TokenTree::Ident(name)), Some(TokenTree::Group(g))) =
                (tts.get(i + 1), tts.get(i + 2))
            {
                if g.delimiter() == Delimiter::Brace {
                    if tests || name != "tests" {
                        let mut inner = path.to_vec();
                        inner.push(name.to_string());
                        references(g.stream(), &inner, tests, out);
                    }
                    i += 3;
                    continue;
                }
            }
        }
        // The start of a path (not the middle of one): `crate::`, `super::`, `self::`.
        let starts = !(i > 0 && is_colon(tts.get(i - 1)));
        let base = if !starts {
            None
        } else if is_ident(&tts[i], "crate") {
            Some((Vec::new(), i))
        } else if is_ident(&tts[i], "self") {
            Some((path.to_vec(), i))
        } else if is_ident(&tts[i], "super") {
            let mut up = 1;
            let mut j = i;
            while is_colon(tts.get(j + 1))
                && is_colon(tts.get(j + 2))
                && tts.get(j + 3).is_some_and(|t| is_ident(t, "super"))
            {
                up += 1;
                j += 3;
            }
            Some((path[..path.len().saturating_sub(up)].to_vec(), j))
        } else {
            None
        };
        if let Some((base, last)) = base {
            if is_colon(tts.get(last + 1)) && is_colon(tts.get(last + 2)) {
                for rest in path_from(&tts, last + 3) {
                    out.insert([base.clone(), rest].concat());
                }
            }
        }
        if let TokenTree::Group(g) = &tts[i] {
            references(g.stream(), path, tests, out);
        }
        i += 1;
    }
}

/// Every source file's module path and the paths it refers to (with
/// `tests`, its test modules' too).
fn sources(tests: bool) -> Vec<(Vec<String>, BTreeSet<Vec<String>>)> {
    let src = crate_files::src();
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files
        .into_iter()
        .map(|file| {
            let rel = file.strip_prefix(&src).expect("below src");
            let path = module_path(rel);
            let text = std::fs::read_to_string(&file).expect("readable source");
            let tokens: TokenStream = text
                .parse()
                .unwrap_or_else(|e| panic!("{}: {e:?}", rel.display()));
            let mut refs = BTreeSet::new();
            references(tokens, &path, tests, &mut refs);
            (path, refs)
        })
        .collect()
}

fn module_graph() -> Graph {
    let mut graph = Graph::new();
    for (path, refs) in sources(true) {
        let Some(top) = path.first().cloned() else {
            continue; // lib.rs declares the modules and uses none
        };
        let uses = graph.entry(top.clone()).or_default();
        uses.extend(refs.into_iter().filter_map(|r| r.first().cloned()));
        uses.remove(&top);
    }
    graph
}

/// The files of each module as a graph: an edge from a file to a sibling
/// (another file of the same parent module, `report.rs` → `published.rs`)
/// it refers to outside its tests (a format's tests may read the same data
/// with another format's importer). A file's parent (`mod.rs`, which
/// declares it) and its own children are not siblings.
fn file_graph() -> Graph {
    let all = sources(false);
    let modules: BTreeSet<Vec<String>> = all.iter().map(|(p, _)| p.clone()).collect();
    let mut graph = Graph::new();
    for (path, refs) in &all {
        let Some((_, parent)) = path.split_last() else {
            continue;
        };
        let node = path.join("::");
        let uses = graph.entry(node).or_default();
        for r in refs {
            let Some(sibling) = r.get(..path.len()) else {
                continue;
            };
            if sibling != &path[..] && sibling.starts_with(parent) && modules.contains(sibling) {
                uses.insert(sibling.join("::"));
            }
        }
    }
    graph
}

/// A cycle of the graph as `a → b → … → a`, if there is one.
fn find_cycle(graph: &Graph) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        graph: &Graph,
        done: &mut BTreeSet<String>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        if let Some(k) = stack.iter().position(|s| s == n) {
            let mut cycle = stack[k..].to_vec();
            cycle.push(n.to_string());
            return Some(cycle);
        }
        if done.contains(n) {
            return None;
        }
        stack.push(n.to_string());
        for m in graph.get(n).into_iter().flatten() {
            if let Some(c) = visit(m, graph, done, stack) {
                return Some(c);
            }
        }
        stack.pop();
        done.insert(n.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|n| visit(n, graph, &mut done, &mut Vec::new()))
}

fn show(graph: &Graph) -> String {
    graph
        .iter()
        .map(|(m, uses)| {
            let uses: Vec<&str> = uses.iter().map(String::as_str).collect();
            format!("{m} → {}", uses.join(", "))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn top_level_modules_have_no_cycles() {
    let graph = module_graph();
    println!("{}", show(&graph));
    assert!(
        graph.contains_key("read") && graph.contains_key("suites"),
        "no modules found:\n{}",
        show(&graph)
    );
    if let Some(cycle) = find_cycle(&graph) {
        panic!(
            "module cycle: {}\n\nthe graph:\n{}",
            cycle.join(" → "),
            show(&graph)
        );
    }
}

#[test]
fn files_of_a_module_have_no_cycles() {
    let graph = file_graph();
    assert!(
        graph
            .get("suites::ops::report")
            .is_some_and(|u| u.contains("suites::ops::row")),
        "file edges found:\n{}",
        show(&graph)
    );
    if let Some(cycle) = find_cycle(&graph) {
        panic!(
            "files that import each other: {}\n\nthe graph:\n{}",
            cycle.join(" → "),
            show(&graph)
        );
    }
}

#[test]
fn boundaries_hold() {
    let graph = module_graph();
    let uses = |m: &str| graph.get(m).cloned().unwrap_or_default();
    assert!(
        uses("error").is_empty(),
        "error must be a leaf: {:?}",
        uses("error")
    );
    for (module, never) in [
        ("import", ["read", "suites", "report"].as_slice()),
        ("suites", ["read", "report", "import"].as_slice()),
        ("format", ["read", "suites", "report", "import"].as_slice()),
        (
            "stats",
            ["read", "suites", "report", "import", "format"].as_slice(),
        ),
    ] {
        for n in never {
            assert!(
                !uses(module).contains(*n),
                "{module} uses {n}\n\nthe graph:\n{}",
                show(&graph)
            );
        }
    }
}

/// The checker itself: a cycle, `super::` climbing to the root and paths
/// to sibling files are seen.
#[test]
fn the_checker_sees_cycles_and_super_paths() {
    let mut refs = BTreeSet::new();
    let path = ["report".to_string(), "compare".to_string()];
    let code = "use super::super::read::Document; use crate::{format::X, stats};
        use super::kept::{self, KeptFile as K};
        mod tests { use super::super::Options; } // crate::not_this
        const S: &str = \"crate::nor_this\";";
    references(code.parse().expect("tokens"), &path, true, &mut refs);
    let tops: BTreeSet<&str> = refs.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(
        tops.into_iter().collect::<Vec<_>>(),
        ["format", "read", "report", "stats"]
    );
    let v = |s: &str| s.split("::").map(String::from).collect::<Vec<_>>();
    assert!(refs.contains(&v("report::kept::self")), "{refs:?}");
    assert!(refs.contains(&v("report::kept::KeptFile")), "{refs:?}");
    assert!(refs.contains(&v("report::Options")), "{refs:?}");
    // Without the test modules, `tests`' path is not seen.
    let mut outside = BTreeSet::new();
    references(code.parse().expect("tokens"), &path, false, &mut outside);
    assert!(!outside.contains(&v("report::Options")), "{outside:?}");
    assert!(
        outside.contains(&v("report::kept::KeptFile")),
        "{outside:?}"
    );
    let mut g = Graph::new();
    g.entry("a".into()).or_default().insert("b".into());
    g.entry("b".into()).or_default().insert("a".into());
    assert_eq!(
        find_cycle(&g),
        Some(vec!["a".into(), "b".into(), "a".into()])
    );
    g.get_mut("b").expect("b").clear();
    assert_eq!(find_cycle(&g), None);
}
