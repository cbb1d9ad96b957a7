//! cargo-criterion's JSON message stream through `read_document`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| -> libfuzzer_sys::Corpus {
    tickbook_fuzz::reader_target(data, &["cargo_criterion"])
});
tickbook_fuzz::json_mutator!();
