//! A folder as the page sends it (the `tickbook_folder` bundle of named
//! files) through `read_document`; and the same files bundled again by
//! `import::folder_bundle`, as `tickbook analyze DIR` does, must read the
//! same.
#![no_main]

use serde_json::Value;
use tickbook_analysis::import::{folder_bundle, is_folder};

libfuzzer_sys::fuzz_target!(|data: &[u8]| -> libfuzzer_sys::Corpus {
    let name = "folder";
    let read = tickbook_fuzz::read_checked(name, data);
    let Ok(v) = serde_json::from_slice::<Value>(data) else {
        return libfuzzer_sys::Corpus::Reject;
    };
    if !is_folder(&v) {
        return libfuzzer_sys::Corpus::Reject;
    }
    if let Some(entries) = entries(&v) {
        let again = tickbook_fuzz::read_checked(name, &folder_bundle(&entries));
        assert_eq!(
            read, again,
            "the CLI's bundle of the same files reads differently"
        );
    }
    libfuzzer_sys::Corpus::Keep
});
tickbook_fuzz::json_mutator!();

/// The bundle's files, when every entry has a string path and text.
fn entries(v: &Value) -> Option<Vec<(String, Vec<u8>)>> {
    v.get("entries")?
        .as_array()?
        .iter()
        .map(|e| {
            let path = e.get("path")?.as_str()?;
            let text = e.get("text")?.as_str()?;
            Some((path.to_string(), text.as_bytes().to_vec()))
        })
        .collect()
}
