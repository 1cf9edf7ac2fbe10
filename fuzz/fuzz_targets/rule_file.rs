//! The `rule_file` target: see `flink_compat_fuzz::rule_file`.
#![no_main]

libfuzzer_sys::fuzz_target!(|text: &str| flink_compat_fuzz::rule_file(text));
