//! The `sql_front_end` target: see `flink_compat_fuzz::sql_front_end`.
#![no_main]

libfuzzer_sys::fuzz_target!(|text: &str| flink_compat_fuzz::sql_front_end(text));
