//! Tables and titles of the terminal renderer: a cell's title line, a
//! table's title, columns aligned (numbers right, text left), control
//! characters from files shown escaped, and the cells of Markdown and CSV
//! tables (`--format md|csv`).

use std::fmt::Write as _;

/// A cell's first line: `-- Title (what it is of)`, the page's cell title.
pub(crate) fn cell_title(out: &mut String, title: &str, detail: &str) {
    if detail.is_empty() {
        let _ = writeln!(out, "\n-- {title}");
    } else {
        let _ = writeln!(out, "\n-- {title} ({detail})");
    }
}

/// A table's title line inside a cell.
pub(crate) fn subtitle(out: &mut String, text: &str) {
    let _ = writeln!(out, "\n   {text}");
}

/// Control characters in names from a file (escape sequences, newlines)
/// shown escaped, so they can neither drive the terminal nor break a table.
pub(crate) fn clean(text: &str) -> String {
    if !text.chars().any(char::is_control) {
        return text.to_string();
    }
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_debug().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// A Markdown table cell (`--format md`): control characters escaped as
/// by `clean`, pipes escaped, line breaks out.
pub(crate) fn md(text: &str) -> String {
    clean(text).replace('|', "\\|").replace('\n', " ")
}

/// A CSV field (`--format csv`), quoted when it needs to be (RFC 4180).
pub(crate) fn csv(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// A CSV number at full precision; empty when there is none.
pub(crate) fn csv_num(x: Option<f64>) -> String {
    x.map(|v| format!("{v}")).unwrap_or_default()
}

/// An enum as its JSON word (`within_threshold`, `rank_test`, `time`).
pub(crate) fn json_word(v: serde_json::Result<serde_json::Value>) -> String {
    v.ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// `clean` line by line: the output's own line breaks kept.
pub(crate) fn clean_lines(text: &str) -> String {
    text.split('\n').map(clean).collect::<Vec<_>>().join("\n")
}

/// Text columns left-aligned; a column whose values are all numbers (or a
/// placeholder) right-aligned, its heading too.
pub(crate) struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
    /// Columns kept left-aligned even when their values start with a digit.
    text: Vec<usize>,
}

impl Table {
    pub(crate) fn new(header: &[&str]) -> Table {
        Table {
            header: header.iter().map(|h| h.to_string()).collect(),
            rows: Vec::new(),
            text: Vec::new(),
        }
    }

    /// Keep column `col` left-aligned (labels such as "1 distinct (0, 0)").
    pub(crate) fn text(mut self, col: usize) -> Table {
        self.text.push(col);
        self
    }

    /// A row; one shorter than the heading ends in a note that spans the
    /// remaining columns (an "unavailable: …" reason); extra cells go into
    /// the last one.
    pub(crate) fn row(&mut self, cells: Vec<String>) {
        let cols = self.header.len().max(1);
        let mut cells: Vec<String> = cells.iter().map(|c| clean(c)).collect();
        if cells.len() > cols {
            let rest = cells.split_off(cols - 1).join("  ");
            cells.push(rest);
        }
        self.rows.push(cells);
    }

    pub(crate) fn render(&self, out: &mut String) {
        let cols = self.header.len();
        let full = || self.rows.iter().filter(|r| r.len() == cols);
        let placeholder = |c: &str| matches!(c, "—" | "-" | "n/a");
        let number =
            |c: &str| c.starts_with(|ch: char| ch.is_ascii_digit() || ch == '-' || ch == '+');
        let numeric: Vec<bool> = (0..cols)
            .map(|i| {
                i > 0
                    && !self.text.contains(&i)
                    && full().any(|r| number(&r[i]) && !placeholder(&r[i]))
                    && full().all(|r| number(&r[i]) || placeholder(&r[i]))
            })
            .collect();
        let mut width = vec![0usize; cols];
        for r in std::iter::once(&self.header).chain(full()) {
            for (w, c) in width.iter_mut().zip(r) {
                *w = (*w).max(c.chars().count());
            }
        }
        for r in std::iter::once(&self.header).chain(&self.rows) {
            let mut line = String::from("   ");
            for (i, c) in r.iter().enumerate() {
                let pad = width[i].saturating_sub(c.chars().count());
                if r.len() < cols && i == r.len() - 1 {
                    line.push_str(c);
                } else if numeric[i] {
                    line.push_str(&" ".repeat(pad));
                    line.push_str(c);
                } else {
                    line.push_str(c);
                    line.push_str(&" ".repeat(pad));
                }
                line.push_str("  ");
            }
            let _ = writeln!(out, "{}", line.trim_end());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_align_numbers_right_and_escape_control_characters() {
        let mut t = Table::new(&["name", "value", "label"]).text(2);
        t.row(vec![
            "a\u{1b}[31m".into(),
            "1.5 ns".into(),
            "1 distinct".into(),
        ]);
        t.row(vec!["bb".into(), "—".into(), "2 same".into()]);
        t.row(vec!["c".into(), "unavailable: no".into()]);
        let mut out = String::new();
        t.render(&mut out);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "   name          value  label");
        assert_eq!(lines[1], "   a\\u{1b}[31m  1.5 ns  1 distinct");
        assert_eq!(lines[2], "   bb                —  2 same");
        assert_eq!(lines[3], "   c            unavailable: no");
    }
}
