//! `perf stat`'s printed table (libFuzzer's byte mutations: it is no JSON) through `read_document` (the reader every front end uses).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| -> libfuzzer_sys::Corpus {
    tickbook_fuzz::reader_target(data, &["perf_stat_text"])
});
tickbook_fuzz::json_mutator!();
