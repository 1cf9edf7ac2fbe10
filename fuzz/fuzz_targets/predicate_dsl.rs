//! The `predicate_dsl` target: see `flink_compat_fuzz::predicate_dsl`.
#![no_main]

libfuzzer_sys::fuzz_target!(|text: &str| flink_compat_fuzz::predicate_dsl(text));
