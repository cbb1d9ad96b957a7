//! The importer registry (`import::IMPORTERS`) against what must keep in
//! step with it: each format's fixtures (recognised by it alone, cut short
//! still named after it), its fuzz target (fuzz/fuzz_targets, fuzz/Cargo.toml,
//! fuzz/seeds.mjs, docs/testing.md) and its row in docs/importers.md's table.
//! A format registered without them fails here.

use std::path::{Path, PathBuf};
use tickbook_analysis::import::{self, Importer, Shape, IMPORTERS};
use tickbook_analysis::report::{analyze_bytes, Options};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn id(i: &dyn Importer) -> &'static str {
    i.about().id
}

/// The importers that recognise `bytes`: by shape when they are one JSON
/// document, else as bytes.
fn recognising(bytes: &[u8]) -> Vec<&'static str> {
    match serde_json::from_slice::<serde_json::Value>(bytes) {
        Ok(v) => IMPORTERS
            .iter()
            .filter(|i| i.recognises_document(&v))
            .map(|i| id(*i))
            .collect(),
        Err(_) => IMPORTERS
            .iter()
            .filter(|i| i.recognises_bytes(bytes))
            .map(|i| id(*i))
            .collect(),
    }
}

#[test]
fn ids_and_labels_are_unique_and_name_their_file() {
    let mut ids: Vec<&str> = IMPORTERS.iter().map(|i| id(*i)).collect();
    let mut labels: Vec<&str> = IMPORTERS.iter().map(|i| i.about().label).collect();
    for i in IMPORTERS {
        let file = format!("analysis/src/import/{}.rs", id(*i));
        assert!(root().join(&file).is_file(), "{file}: no such file");
    }
    let n = ids.len();
    ids.sort();
    ids.dedup();
    labels.sort();
    labels.dedup();
    assert_eq!((ids.len(), labels.len()), (n, n), "ids and labels repeat");
}

/// Every format has fixtures; each is recognised by that format alone (so
/// the registry's order decides only for files made to look like two), is
/// read without an error, and cut in half is still named after it.
#[test]
fn every_format_has_fixtures_it_alone_recognises() {
    for i in IMPORTERS {
        let about = i.about();
        assert!(!about.fixtures.is_empty(), "{}: no fixture", about.id);
        for rel in about.fixtures {
            let path = format!("tests/fixtures/import/{rel}");
            let bytes = std::fs::read(root().join(&path)).unwrap_or_else(|e| panic!("{path}: {e}"));
            assert_eq!(recognising(&bytes), [about.id], "{path}");
            let report = analyze_bytes(rel, &bytes, &Options::default());
            // A lone estimates.json is refused with its reason, by design.
            if !rel.ends_with("estimates.json") {
                assert!(report.ok, "{path}: {:?}", report.error);
            }
            if about.shape == Shape::Document {
                let half = &bytes[..bytes.len() / 2];
                assert_eq!(
                    import::sniff_importer(half).map(id),
                    Some(about.id),
                    "{path} cut in half"
                );
            }
        }
    }
}

/// Every format has its fuzz target, declared, seeded and documented; and
/// every `import_*` target is a registered format's.
#[test]
fn every_format_has_a_fuzz_target() {
    let cargo = read("fuzz/Cargo.toml");
    let seeds = read("fuzz/seeds.mjs");
    let testing = read("docs/testing.md");
    let mut targets = Vec::new();
    for i in IMPORTERS {
        let t = format!("import_{}", id(*i));
        let file = format!("fuzz/fuzz_targets/{t}.rs");
        let src = read(&file);
        assert!(
            src.contains(&format!("reader_target(data, &[\"{}\"])", id(*i))),
            "{file} does not read {}",
            id(*i)
        );
        assert!(
            cargo.contains(&format!("name = \"{t}\"")),
            "fuzz/Cargo.toml lacks {t}"
        );
        assert!(
            seeds.contains(&format!("  {t}: ")),
            "fuzz/seeds.mjs has no seeds for {t}"
        );
        assert!(
            testing.contains(&format!("`{t}`")),
            "docs/testing.md does not list {t}"
        );
        targets.push(format!("{t}.rs"));
    }
    for e in std::fs::read_dir(root().join("fuzz/fuzz_targets")).expect("fuzz targets") {
        let name = e.expect("entry").file_name().to_string_lossy().into_owned();
        if name.starts_with("import_") {
            assert!(targets.contains(&name), "{name}: no registered format");
        }
    }
}

/// The first cells of docs/importers.md's "What maps to what" table name,
/// in bold, every registered format (its `name`) in one row, and no row
/// names none.
#[test]
fn the_docs_table_has_a_row_per_format() {
    let docs = read("docs/importers.md");
    let table = docs
        .split("## What maps to what")
        .nth(1)
        .expect("the table's section");
    let rows: Vec<Vec<String>> = table
        .lines()
        .skip_while(|l| !l.starts_with("| **"))
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            let cell = l.split('|').nth(1).unwrap_or("");
            cell.split("**")
                .skip(1)
                .step_by(2)
                .map(|b| b.replace('`', ""))
                .collect()
        })
        .collect();
    for i in IMPORTERS {
        let name = i.about().name;
        let named = rows
            .iter()
            .filter(|bold| bold.iter().any(|b| b.starts_with(name)))
            .count();
        assert_eq!(
            named, 1,
            "{name}: rows of docs/importers.md's table naming it"
        );
    }
    for bold in &rows {
        assert!(
            IMPORTERS
                .iter()
                .any(|i| bold.iter().any(|b| b.starts_with(i.about().name))),
            "a row of docs/importers.md's table names no registered format: {bold:?}"
        );
    }
}
