//! tickbook's own format (run and samples files) through `read_document`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| -> libfuzzer_sys::Corpus {
    tickbook_fuzz::reader_target(data, &[])
});
tickbook_fuzz::json_mutator!();
