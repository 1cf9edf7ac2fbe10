//! The `check` target: see `flink_compat_fuzz::check`.
#![no_main]

libfuzzer_sys::fuzz_target!(|text: &str| flink_compat_fuzz::check(text));
