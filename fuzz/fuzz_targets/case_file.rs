//! The `case_file` target: see `flink_compat_fuzz::case_file`.
#![no_main]

libfuzzer_sys::fuzz_target!(|text: &str| flink_compat_fuzz::case_file(text));
