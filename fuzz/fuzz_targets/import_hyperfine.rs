//! hyperfine JSON through `read_document` (the reader every front end uses).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| -> libfuzzer_sys::Corpus {
    tickbook_fuzz::reader_target(data, &["hyperfine"])
});
tickbook_fuzz::json_mutator!();
