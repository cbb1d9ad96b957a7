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

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Graph = BTreeMap<String, BTreeSet<String>>;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

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

/// The first identifier of each item of a `{a::b, c, …}` use group.
fn group_heads(g: &TokenStream) -> Vec<String> {
    let mut heads = Vec::new();
    let mut at_start = true;
    for t in g.clone() {
        match &t {
            TokenTree::Ident(i) if at_start => {
                heads.push(i.to_string());
                at_start = false;
            }
            TokenTree::Punct(p) if p.as_char() == ',' => at_start = true,
            _ => at_start = false,
        }
    }
    heads
}

/// The top-level modules `tokens` (inside module `path`) refers to.
fn references(tokens: TokenStream, path: &[String], out: &mut BTreeSet<String>) {
    let tts: Vec<TokenTree> = tokens.into_iter().collect();
    let mut i = 0;
    while i < tts.len() {
        // `mod name { … }`: an inline module, one level deeper.
        if is_ident(&tts[i], "mod") {
            if let (Some(TokenTree::Ident(name)), Some(TokenTree::Group(g))) =
                (tts.get(i + 1), tts.get(i + 2))
            {
                if g.delimiter() == Delimiter::Brace {
                    let mut inner = path.to_vec();
                    inner.push(name.to_string());
                    references(g.stream(), &inner, out);
                    i += 3;
                    continue;
                }
            }
        }
        // `crate::m`, or `super::…::m` climbing to the root.
        let root_at = if is_ident(&tts[i], "crate") {
            Some(i)
        } else if is_ident(&tts[i], "super") && !(i > 0 && is_colon(tts.get(i - 1))) {
            let mut depth = path.len();
            let mut j = i;
            loop {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    break Some(j);
                }
                if is_colon(tts.get(j + 1))
                    && is_colon(tts.get(j + 2))
                    && tts.get(j + 3).is_some_and(|t| is_ident(t, "super"))
                {
                    j += 3;
                } else {
                    break None;
                }
            }
        } else {
            None
        };
        if let Some(r) = root_at {
            if is_colon(tts.get(r + 1)) && is_colon(tts.get(r + 2)) {
                match tts.get(r + 3) {
                    Some(TokenTree::Ident(m)) => {
                        out.insert(m.to_string());
                    }
                    Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace => {
                        out.extend(group_heads(&g.stream()));
                    }
                    _ => {}
                }
            }
        }
        if let TokenTree::Group(g) = &tts[i] {
            references(g.stream(), path, out);
        }
        i += 1;
    }
}

fn module_graph() -> Graph {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut graph = Graph::new();
    for file in files {
        let rel = file.strip_prefix(&src).expect("below src");
        let path = module_path(rel);
        let Some(top) = path.first().cloned() else {
            continue; // lib.rs declares the modules and uses none
        };
        let text = std::fs::read_to_string(&file).expect("readable source");
        let tokens: TokenStream = text
            .parse()
            .unwrap_or_else(|e| panic!("{}: {e:?}", rel.display()));
        let mut refs = BTreeSet::new();
        references(tokens, &path, &mut refs);
        refs.remove(&top);
        graph.entry(top).or_default().extend(refs);
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

/// The checker itself: a cycle and `super::` climbing to the root are seen.
#[test]
fn the_checker_sees_cycles_and_super_paths() {
    let mut refs = BTreeSet::new();
    let path = ["report".to_string(), "compare".to_string()];
    let code = "use super::super::read::Document; use crate::{format::X, stats};
        mod tests { use super::super::Options; } // crate::not_this
        const S: &str = \"crate::nor_this\";";
    references(code.parse().expect("tokens"), &path, &mut refs);
    assert_eq!(
        refs.into_iter().collect::<Vec<_>>(),
        ["format", "read", "stats"]
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
