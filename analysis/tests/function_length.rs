//! No function in the analysis crate runs over [`LIMIT`] lines unless a
//! comment directly above it (among its doc comment and attributes) gives
//! the reason, as a line starting `// Long:`. A long function usually holds
//! several steps that read better as functions of their own; where one
//! loop really is the unit (a tuned inner loop, a table of cases), the
//! comment says so.
//!
//! Functions are found in the token tree (proc-macro2, so comments and
//! strings never count), nested ones too; a function's length runs from
//! its `fn` to its closing brace.

use proc_macro2::{Delimiter, TokenStream, TokenTree};

mod crate_files;

const LIMIT: usize = 150;

/// A function found: its name, the line of its `fn` and its lines.
#[derive(Debug, PartialEq)]
struct Function {
    name: String,
    line: usize,
    lines: usize,
}

/// Every function with a body in `tokens`, nested ones included.
fn functions(tokens: TokenStream, out: &mut Vec<Function>) {
    let tts: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, t) in tts.iter().enumerate() {
        match t {
            TokenTree::Ident(f) if f == "fn" => {
                let Some(TokenTree::Ident(name)) = tts.get(i + 1) else {
                    continue; // a `fn(…)` type
                };
                // The body is the first brace group before a `;` (a
                // declaration in a trait has none).
                let body = tts[i + 2..]
                    .iter()
                    .take_while(|u| !matches!(u, TokenTree::Punct(p) if p.as_char() == ';'))
                    .find_map(|u| match u {
                        TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => Some(g),
                        _ => None,
                    });
                if let Some(body) = body {
                    let line = f.span().start().line;
                    out.push(Function {
                        name: name.to_string(),
                        line,
                        lines: body.span_close().end().line + 1 - line,
                    });
                }
            }
            TokenTree::Group(g) => functions(g.stream(), out),
            _ => {}
        }
    }
}

/// Whether the lines directly above line `line` (1-based) of `text` (its
/// comments and attributes) hold a `// Long:` reason of a few words.
fn has_reason(text: &str, line: usize) -> bool {
    let lines: Vec<&str> = text.lines().collect();
    lines[..line.saturating_sub(1).min(lines.len())]
        .iter()
        .rev()
        .map(|l| l.trim())
        .take_while(|l| l.starts_with("//") || l.starts_with("#["))
        .filter_map(|l| l.strip_prefix("// Long:"))
        .any(|why| why.split_whitespace().count() >= 3)
}

/// The functions of a source over the limit without a reason, as
/// `file:line name (n lines)`.
fn unexplained(file: &str, text: &str) -> Vec<String> {
    let tokens: TokenStream = text.parse().unwrap_or_else(|e| panic!("{file}: {e:?}"));
    let mut found = Vec::new();
    functions(tokens, &mut found);
    found
        .into_iter()
        .filter(|f| f.lines > LIMIT && !has_reason(text, f.line))
        .map(|f| format!("{file}:{} {} ({} lines)", f.line, f.name, f.lines))
        .collect()
}

#[test]
fn no_long_function_without_a_reason() {
    let src = crate_files::src();
    let mut files = Vec::new();
    crate_files::rust_files(&src, &mut files);
    assert!(files.len() > 50, "found {} files", files.len());
    let mut long = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("readable source");
        let rel = file.strip_prefix(&src).expect("below src");
        long.extend(unexplained(&rel.display().to_string(), &text));
    }
    assert!(
        long.is_empty(),
        "functions over {LIMIT} lines with no `// Long: <reason>` comment above \
         them (split them, or say why one function is the unit):\n  {}",
        long.join("\n  ")
    );
}

/// The checker itself: a long function (here, one nested in an impl) is
/// caught, and passes with a reason; a short one, a long string, a comment
/// and a `fn` type are not functions over the limit.
#[test]
fn the_checker_sees_long_functions() {
    let body = "    x += 1;\n".repeat(LIMIT);
    let long = format!("impl A {{\n    /// Docs.\n    fn long(x: u8) {{\n{body}    }}\n}}\n");
    assert_eq!(unexplained("a.rs", &long), ["a.rs:3 long (152 lines)"]);
    let explained = long.replace(
        "    /// Docs.\n",
        "    /// Docs.\n    // Long: one match over every case.\n    #[inline]\n",
    );
    assert_eq!(unexplained("a.rs", &explained), Vec::<String>::new());
    // A reason of no words is none.
    let bare = long.replace("    /// Docs.\n", "    // Long:\n");
    assert_eq!(unexplained("a.rs", &bare).len(), 1);
    let short = format!(
        "type F = fn(u8) -> u8;\n// fn commented() {{\n{body}// }}\nconst S: &str = \"fn quoted() {{\n{body}}}\";\nfn short() {{}}\n"
    );
    let mut found = Vec::new();
    functions(short.parse().expect("tokens"), &mut found);
    assert_eq!(
        found,
        [Function {
            name: "short".into(),
            line: 2 * LIMIT + 6,
            lines: 1
        }]
    );
}
